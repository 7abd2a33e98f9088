import EchoLabTestSupport
import EchoLabJSON
import Evaluation
import AudioCore
import Foundation
import ScenarioFiles
import Simulation
import XCTest

/// A custom speaker that pulls and plays the peer's audio a period at a time holds it between
/// the engine's reference and the room. Pulling 450 ms at a time (no overrun) held it 900 ms, past
/// the 500 ms delay search: the run read "no lag of the reference stands out", with no finding
/// (a QA engineer's trial). The buffering is measured (Little's law over the app's two buffers),
/// reported, and where it puts the echo past the search, it is the reason and the delay finding's.
final class CustomSpeakerBufferingTests: XCTestCase {
    private func scenario(periodMilliseconds: Int?, far: String = #""far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 3}"#) -> String {
        let speaker = periodMilliseconds.map { #", "speaker": {"device": "passthrough", "period_ms": \#($0)}"# } ?? ""
        return #"{"name": "buffering", \#(far), "noise": {"level_dbfs": -60, "seed": 7}, "echo_path": {"delay_ms": 40, "gain_db": -10}, "duration_s": 6\#(speaker)}"#
    }

    /// The lag of `played` behind `reference`: where a 20 ms stretch of the reference (white noise)
    /// lines up with what the loudspeaker played, searched sample by sample over 0–1.5 s.
    private func lag(of played: [Float], behind reference: [Float], at start: Int) -> Int {
        let length = 960
        var best = (lag: 0, score: -Double.infinity)
        for lag in 0..<72_000 where start + lag + length <= played.count {
            var dot = 0.0
            for index in 0..<length { dot += Double(reference[start + index]) * Double(played[start + lag + index]) }
            if dot > best.score { best = (lag, dot) }
        }
        return best.lag
    }

    func testTheBufferingIsMeasuredAndPutsTheEchoPastTheSearch() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeScenario(scenario(periodMilliseconds: 450), in: folder)
        let run = try ScenarioRunner(scenario: ScenarioLoader.load(path: path)).run()
        let buffering = try XCTUnwrap(run.counters.customSpeakerDelay.meanFrames) / 48
        // The loudspeaker plays the reference that much later: Little's law against the lag itself.
        let measured = Double(lag(of: run.recording.played, behind: run.recording.reference, at: 4 * 48_000)) / 48
        XCTAssertEqual(buffering, measured, accuracy: 0.5, "Little's law \(buffering) ms, lag \(measured) ms")
        XCTAssertGreaterThan(buffering, 800)

        let report = try runReport(ofScenario: scenario(periodMilliseconds: 450))
        XCTAssertEqual(try XCTUnwrap(report.pipelineReport.customSpeakerDelayMilliseconds), buffering, accuracy: 1e-9)
        XCTAssertNil(report.metrics.delayMilliseconds)
        let f = { (value: Double) in FixedDecimal.text(value, fractionDigits: 0) }
        XCTAssertEqual(report.delayUnmeasuredReason, "the custom speaker's buffering, \(f(buffering)) ms on average after the engine's "
                       + "reference, and the scenario's echo path delay, 40 ms, put the echo about \(f(40 + buffering)) ms after the "
                       + "reference, past the 0–500 ms delay search")
        let late = try XCTUnwrap(report.findings.first { $0.rule == "echo-delay-beyond-filter" })
        let g = { (value: Double) in FixedDecimal.text(value, fractionDigits: 1) }
        XCTAssertTrue(late.message.hasPrefix("the echo arrives about \(g(40 + buffering)) ms after the reference (the scenario's echo path "
                                             + "delay, 40.0 ms, and the custom speaker's buffering, \(g(buffering)) ms on average: none was "
                                             + "measured), beyond the 190.0 ms speex reaches: start the user AEC reference"), late.message)
    }

    /// A speaker pulling 800 ms at a time overruns the loudspeaker's one-second buffer: what is
    /// dropped leaves unplayed, and the mean starts again after it, so it is still the played
    /// audio's lag.
    func testTheBufferingAfterAnOverrunIsStillThePlayedLag() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeScenario(scenario(periodMilliseconds: 800), in: folder)
        let run = try ScenarioRunner(scenario: ScenarioLoader.load(path: path)).run()
        XCTAssertGreaterThan(run.counters.loudspeaker.overruns, 0)
        let buffering = try XCTUnwrap(run.counters.customSpeakerDelay.meanFrames) / 48
        let measured = Double(lag(of: run.recording.played, behind: run.recording.reference, at: 4 * 48_000)) / 48
        XCTAssertEqual(buffering, measured, accuracy: 0.5, "Little's law \(buffering) ms, lag \(measured) ms")
    }

    /// A 20 ms speaker holds the audio a few ticks: the delay is measured, and nothing is said.
    /// The default speaker has no such figure.
    func testAShortPeriodBuffersLittleAndTheDefaultSpeakerNone() throws {
        let short = try runReport(ofScenario: scenario(periodMilliseconds: 20))
        XCTAssertLessThan(try XCTUnwrap(short.pipelineReport.customSpeakerDelayMilliseconds), 60)
        XCTAssertNotNil(short.metrics.delayMilliseconds)
        XCTAssertFalse(short.findings.contains { $0.rule == "echo-delay-beyond-filter" })
        let plain = try runReport(ofScenario: scenario(periodMilliseconds: nil))
        XCTAssertNil(plain.pipelineReport.customSpeakerDelayMilliseconds)
        XCTAssertEqual(plain.json()["pipeline"]?["custom_speaker_delay_ms"], .null)
    }
}
