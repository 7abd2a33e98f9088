import AudioCore
import Foundation
import VirtualTime
import XCTest
@testable import Simulation

/// Long runs through the custom-device buffers: every sample accounted for, and no underrun once
/// primed when the app's timer jitters by ±2 ms (plus Dispatch's 2 ms leeway).
///
/// Virtual length: the check — a custom mic pushing 20 ms ± 2 ms against 10 ms pulls —
/// runs the full hour (a debug build spends ~0.24 ms of wall time per engine tick, ~85 s here;
/// `make bench` times the same hour in release). The speaker cadences run 5 minutes by default
/// (they repeat every 100 ms); `ECHOLAB_CONSERVATION_SECONDS` sets both (all pass at 3600).
final class DeviceConservationLongTests: XCTestCase {
    private var override: Int64? { Int64(ProcessInfo.processInfo.environment["ECHOLAB_CONSERVATION_SECONDS"] ?? "") }
    private var seconds: Int64 { override ?? 300 }
    private var micSeconds: Int64 { override ?? 3600 }

    private func makeCall() throws -> SimulatedCall {
        try SimulatedCall(world: CallWorld(), voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .disabled), recordsTaps: false)
    }

    func testCustomMicJitteredPushesOverALongRun() throws {
        let call = try makeCall()
        let mic = TimedTestMic(scheduler: call.scheduler, signal: nil, jitter: TimerJitter(amplitude: .milliseconds(2), seed: 7))
        call.audioManager.setCustomMic(mic)
        mic.start()
        try call.start()
        try call.run(for: .seconds(micSeconds))
        let switchFrame = try XCTUnwrap(call.events.first { $0.kind == "capture" }?.frame)
        let c = call.end()

        XCTAssertEqual(c.ticks, micSeconds * 100)
        XCTAssertTrue(c.uplink.isConserved, "\(c.uplink)")
        XCTAssertEqual(c.uplink.written, mic.pushes * 960)
        XCTAssertEqual(c.ignoredFrames, 0)
        // Every tick the engine read the custom mic got 480 frames: real audio or counted silence.
        let customTicks = c.ticks - switchFrame / 480
        XCTAssertEqual(c.uplink.read + c.uplink.primingSamples, customTicks * 480)
        XCTAssertEqual(c.uplink.underruns, 0, "the CadenceBuffer's priming should absorb ±2 ms jitter")
        XCTAssertEqual(c.uplink.overruns, 0)
        // Set before the call, the mic is read from the first tick; only its start-up priming
        // (one push plus one tick, 2–3 ticks with jitter) is silence, and never again after it.
        XCTAssertEqual(switchFrame, 0)
        XCTAssertLessThanOrEqual(c.uplink.primingSamples, 3 * 480)
        XCTAssertLessThanOrEqual(c.uplink.buffered, 960 + 480 + 960)
    }

    func testCustomSpeakerJitteredTwentyMillisecondPullsOverALongRun() throws {
        try checkSpeaker(framesPerPull: 960, period: .milliseconds(20), jitter: TimerJitter(amplitude: .milliseconds(2), seed: 11))
    }

    func testCustomSpeakerFiftyMillisecondPullsOverALongRun() throws {
        try checkSpeaker(framesPerPull: 2400, period: .milliseconds(50), jitter: nil)
    }

    func testCustomSpeakerJitteredFiftyMillisecondPullsOverALongRun() throws {
        try checkSpeaker(framesPerPull: 2400, period: .milliseconds(50), jitter: TimerJitter(amplitude: .milliseconds(2), seed: 12))
    }

    private func checkSpeaker(framesPerPull: Int, period: VirtualDuration, jitter: TimerJitter?,
                              file: StaticString = #filePath, line: UInt = #line) throws {
        let call = try makeCall()
        let speaker = TimedTestSpeaker(scheduler: call.scheduler, framesPerPull: framesPerPull, period: period, jitter: jitter)
        call.audioManager.setCustomSpeaker(speaker)
        speaker.start()
        try call.start()
        try call.run(for: .seconds(seconds))
        let c = call.end()

        XCTAssertEqual(c.ticks, seconds * 100, file: file, line: line)
        XCTAssertTrue(c.playout.isConserved, "\(c.playout)", file: file, line: line)
        XCTAssertEqual(c.playout.written, c.ticks * 480, "the engine writes every tick", file: file, line: line)
        // Every frame the app pulled is real audio, priming silence or counted underrun silence.
        let pulled = speaker.pulls * Int64(framesPerPull)
        XCTAssertEqual(c.playout.read + c.playout.primingSamples + speaker.conditioner.missingSamples, pulled, file: file, line: line)
        XCTAssertEqual(c.playout.underruns, 0, "pulls \(period) ± \(jitter?.amplitude ?? .zero) should not underrun once primed",
                       file: file, line: line)
        XCTAssertEqual(c.playout.overruns, 0, file: file, line: line)
        XCTAssertLessThanOrEqual(c.playout.primingSamples, Int64(framesPerPull + 480), file: file, line: line)
    }
}
