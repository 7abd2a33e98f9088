import EchoLabTestSupport
import Foundation
@testable import Evaluation
import ScenarioFiles
import Simulation
import XCTest

/// `CallMeasurement` lines every input signal up with `sent`, delayed by the send path's latency
/// (`AlignmentHistory`). It keeps the recent signals for a mode change that adds a latency
/// mid-call; a call whose latency is fixed (`Scenario.sendLatencyIsFixed`) and 0 keeps nothing.
/// Either way the measurement is the same bits.
final class AlignmentHistoryTests: XCTestCase {
    private let rate = SimulatedCall.sampleRate
    private let frames = 480

    /// Tick `index` of a ramp per signal (reference k, mic 10⁵ + k, …), so every delayed sample
    /// says where it came from.
    private func tick(_ index: Int, lag: Int) -> TickSignals {
        func ramp(_ offset: Float) -> [Float] { (0..<frames).map { offset + Float(index * frames + $0) } }
        return TickSignals(frame: Int64(index * frames), count: frames, mic: ramp(100_000), reference: ramp(0),
                           echo: ramp(200_000), nearEnd: ramp(300_000), played: ramp(0), sent: ramp(400_000),
                           sendLatency: lag)
    }

    func testALagAddedMidCallLinesUpWhatCameBeforeIt() {
        var history = AlignmentHistory()
        for index in 0..<3 { XCTAssertFalse(history.line(up: tick(index, lag: 0)), "no lag: the tick's own arrays") }
        // From tick 3 on, sent lags by 700 samples: its sample k lines up with input sample k − 700.
        XCTAssertTrue(history.line(up: tick(3, lag: 700)))
        let expected = (0..<frames).map { Float(3 * frames + $0 - 700) }
        XCTAssertEqual(history.reference, expected)
        XCTAssertEqual(history.mic, expected.map { $0 + 100_000 })
        XCTAssertEqual(history.echo, expected.map { $0 + 200_000 })
        XCTAssertEqual(history.nearEnd, expected.map { $0 + 300_000 })
    }

    func testALagFromTheStartReadsSilenceBeforeTheCall() {
        for fixed in [false, true] {
            var history = AlignmentHistory(latencyIsFixed: fixed)
            XCTAssertTrue(history.line(up: tick(0, lag: 100)))
            XCTAssertEqual(history.mic, [Float](repeating: 0, count: 100) + (0..<380).map { 100_000 + Float($0) }, "fixed: \(fixed)")
            XCTAssertTrue(history.line(up: tick(1, lag: 100)))
            XCTAssertEqual(history.reference, (380..<860).map(Float.init), "fixed: \(fixed)")
        }
    }

    /// Over whole calls, a fixed latency — 0 (AEC disabled: nothing stored) or a frame (speex) —
    /// measures what keeping the history measures, bit for bit.
    func testAFixedLatencyMeasuresTheSameAsKeepingTheHistory() throws {
        var names: [String] = []
        for name in ["fst-delay40-noaec", "fst-delay40-speex", "generator-mic"] {
            let scenario = try ScenarioLoader.load(path: packageRoot.appendingPathComponent("vectors/scenarios/\(name).json").path)
            XCTAssertTrue(scenario.sendLatencyIsFixed, name)
            let kept = CallMeasurement(sampleRate: rate), fixed = CallMeasurement(sampleRate: rate, sendLatencyIsFixed: true)
            var runner = ScenarioRunner(scenario: scenario, recordsTaps: false)
            runner.taps = [kept, fixed]
            _ = try runner.run(for: try runner.duration())
            let a = kept.finish(segments: []).analysis, b = fixed.finish(segments: []).analysis
            XCTAssertEqual(a.whole, b.whole, name)
            XCTAssertEqual(a.sampleCount, b.sampleCount, name)
            // A generator is the mic all call: no echo reaches what is sent, so there is no ERL.
            if name == "generator-mic" { XCTAssertNil(a.whole.erlDB, name) } else { XCTAssertNotNil(a.whole.erlDB, name) }
            names.append(name)
        }
        XCTAssertEqual(names.count, 3)
    }

    func testOnlyAVoiceProcessingModeChangeMakesTheLatencyVariable() throws {
        let scenarios = packageRoot.appendingPathComponent("vectors/scenarios")
        let transitions = try ScenarioLoader.load(path: scenarios.appendingPathComponent("device-transitions.json").path)
        XCTAssertFalse(transitions.sendLatencyIsFixed, "device-transitions switches AEC on mid-call")
        // Device switches, mute and the user reference leave the send path's latency alone.
        XCTAssertTrue(try ScenarioLoader.load(path: scenarios.appendingPathComponent("recording-speaker.json").path).sendLatencyIsFixed)
        for action in [TimelineAction.setNoiseSuppressor(.enabled), .setAutoGainControl(.software)] {
            var scenario = Scenario(name: "x")
            XCTAssertTrue(scenario.sendLatencyIsFixed)
            scenario.timeline = [TimelineEvent(at: .seconds(1), action: action)]
            XCTAssertFalse(scenario.sendLatencyIsFixed, "\(action)")
        }
    }
}
