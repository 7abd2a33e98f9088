import AudioCore
import AudioInterop
import Foundation
import VirtualTime
import XCTest
@testable import Simulation

/// Device resets at instants that are not tick-aligned: the sent stream never has a gap or a
/// repeated block (make-before-break), and mic and speaker switch independently.
final class DeviceTransitionTests: XCTestCase {
    private func at(_ milliseconds: Int64, _ call: SimulatedCall, _ action: @escaping () -> Void) {
        call.scheduler.schedule(at: .zero + .milliseconds(milliseconds), phase: .transition, action)
    }

    private func makeCall() throws -> SimulatedCall {
        // A near-end sine at the physical mic; AEC off so sent is exactly what was captured.
        try SimulatedCall(world: CallWorld(nearEnd: .generator(.tone(frequency: 317.3, levelDBFS: -20), seed: 0)),
                          voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .disabled))
    }

    private func assertContinuous(_ sent: [Float], from start: Int = 0, file: StaticString = #filePath, line: UInt = #line) {
        let run = longestZeroRun(sent, in: start..<sent.count)
        XCTAssertLessThan(run.length, 240, "a gap of \(run.length) zeros at \(Double(run.at) / 48) ms", file: file, line: line)
        if let repeated = firstRepeatedBlock(sent, in: start..<sent.count) {
            XCTFail("block at \(Double(repeated.block) / 48) ms repeats audio from \(Double(repeated.earlier) / 48) ms", file: file, line: line)
        }
    }

    func testDefaultFileDefaultFileAtArbitraryInstants() throws {
        let folder = try makeTemporaryDirectory()
        let fileA = try writeWAV(SignalGenerator.render(.tone(frequency: 441.7, levelDBFS: -20), sampleRate: 48_000, count: 48_000 * 4, seed: 0), in: folder, "a.wav")
        let fileB = try writeWAV(SignalGenerator.render(.tone(frequency: 613.1, levelDBFS: -20), sampleRate: 44_100, count: 44_100 * 4, seed: 0), in: folder, "b.wav",
                                 rate: 44_100, encoding: .pcm16)
        let call = try makeCall()
        var micA: FileMicrophone? = try FileMicrophone(call: call, path: fileA)
        var micB: FileMicrophone? = try FileMicrophone(call: call, path: fileB)
        at(1234, call) { call.audioManager.setCustomMic(micA!); micA!.start() }
        at(2345, call) { micA!.stop(); call.audioManager.resetCustomMicToDefaultMic() }
        at(3456, call) { call.audioManager.setCustomMic(micB!); micB!.start() }
        try call.start()
        try call.run(for: .milliseconds(4500))
        let counters = call.end()
        let switches = call.events.filter { $0.kind == "capture" }
        XCTAssertEqual(switches.count, 3, "\(switches)")
        for event in switches { XCTAssertFalse(event.detail.contains("not ready"), event.detail) }
        XCTAssertEqual(counters.uplink.underruns, 0)
        XCTAssertTrue(counters.uplink.isConserved)
        assertContinuous(call.recording.sent)
        // Each segment carries its own source: the near-end tone, file A's, the tone, file B's.
        let sent = call.recording.sent
        func share(_ ms: Int, _ f: Double) -> Double { goertzelShare(sent, in: ms * 48..<(ms + 200) * 48, frequency: f) }
        XCTAssertGreaterThan(share(800, 317.3), 0.99)
        XCTAssertGreaterThan(share(1800, 441.7), 0.99)
        XCTAssertGreaterThan(share(2800, 317.3), 0.99)
        XCTAssertGreaterThan(share(4000, 613.1), 0.99)
        micA = nil; micB = nil
    }

    /// The custom speaker is set and reset twice while the custom mic stays: the capture never
    /// switches, the uplink never underruns, the stream stays continuous.
    func testSpeakerSwitchesLeaveTheCustomMicAlone() throws {
        let call = try SimulatedCall(world: CallWorld(farEnd: .generator(.whiteNoise(levelDBFS: -30), seed: 4),
                                                      echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -6)),
                                     voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .disabled))
        let mic = TimedTestMic(scheduler: call.scheduler, signal: .tone(frequency: 441.7, levelDBFS: -20))
        let speaker = TimedTestSpeaker(scheduler: call.scheduler, framesPerPull: 960, period: .milliseconds(20), keeps: true)
        call.audioManager.setCustomMic(mic)
        mic.start()
        at(777, call) { call.audioManager.setCustomSpeaker(speaker); speaker.start() }
        at(1333, call) { speaker.stop(); call.audioManager.resetCustomSpeakerToDefaultSpeaker() }
        at(1999, call) { call.audioManager.setCustomSpeaker(speaker); speaker.start() }
        at(2555, call) { speaker.stop(); call.audioManager.resetCustomSpeakerToDefaultSpeaker() }
        try call.start()
        try call.run(for: .seconds(3))
        let counters = call.end()
        XCTAssertEqual(call.events.filter { $0.kind == "capture" }.count, 1, "only the custom mic taking capture at the start")
        XCTAssertEqual(counters.uplink.underruns, 0)
        XCTAssertEqual(counters.playout.underruns, 0)
        XCTAssertTrue(counters.playout.isConserved, "\(counters.playout)")
        XCTAssertEqual(counters.playout.written, Int64(556 + 556) / 10 * 480 + 480, accuracy: 960,
                       "the reset speaker's history stays in the counters")
        // The mic was set before the call: it is used from the first tick, after its priming silence.
        let start = Int(call.events.first { $0.kind == "capture" }!.frame) + Int(counters.uplink.primingSamples)
        assertContinuous(call.recording.sent, from: start)
        XCTAssertGreaterThan(goertzelShare(call.recording.sent, in: start + 4800..<144_000, frequency: 441.7), 0.999,
                             "the mic alone is sent, no echo (the file mic does not hear the room)")
        // The speaker got the peer both times (not silence).
        XCTAssertGreaterThan(meanSquare(speaker.received[...]), 1e-4)
        // The default speaker played between the two custom-speaker spells, and not during them.
        let played = call.recording.played
        XCTAssertEqual(meanSquare(played[(900 * 48)..<(1300 * 48)]), 0)
        XCTAssertGreaterThan(meanSquare(played[(1400 * 48)..<(1900 * 48)]), 1e-4)
    }

    /// An app speaker that plays on the loudspeaker itself, stopped and reset cleanly: what it
    /// played is heard out and the loudspeaker idles, nothing counted. It counted an underrun,
    /// and the rest of the call (5 s) as priming silence, as if the app had missed its timer.
    func testAStoppedAppSpeakerLeavesTheLoudspeakerIdleNotStarved() throws {
        let call = try SimulatedCall(world: CallWorld(farEnd: .generator(.whiteNoise(levelDBFS: -20), seed: 3),
                                                      echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -6)),
                                     voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .disabled))
        let speaker = PassThroughSpeaker(call: call, putsReference: false)
        call.audioManager.setCustomSpeaker(speaker)
        speaker.start()
        at(2000, call) { speaker.stop(); call.audioManager.resetCustomSpeakerToDefaultSpeaker() }
        try call.start()
        try call.run(for: .seconds(4))
        let counters = call.end()
        XCTAssertEqual(counters.loudspeaker.underruns, 0)
        XCTAssertLessThan(counters.loudspeaker.primingSamples, 48_000 / 10, "its start-up latency only")
        XCTAssertTrue(counters.loudspeaker.isConserved, "\(counters.loudspeaker)")
        XCTAssertEqual(counters.loudspeaker.buffered, 0, "what it played was heard out")
        // The room heard the app's speaker, then the default one, with no gap between.
        let played = call.recording.played
        let run = longestZeroRun(played, in: 48_000..<(3 * 48_000))
        XCTAssertLessThan(run.length, 48, "a gap of \(run.length) zeros at \(Double(run.at) / 48) ms")
    }

    /// From one custom mic to another, both pushing on time: the old one keeps feeding the call
    /// (and taking the app's pushes) until the new one has primed, so nothing runs dry — it was
    /// detached when the new one was set, its buffer ran out, the uplink counted an underrun and
    /// the crossfade came from silence. It stops once the engine has left it.
    func testACustomToCustomSwitchFeedsTheOldMicUntilTheNewOneIsReady() throws {
        let call = try makeCall()
        let first = TimedTestMic(scheduler: call.scheduler, signal: nil, name: "first mic")
        let second = TimedTestMic(scheduler: call.scheduler, signal: nil, name: "second mic")
        call.audioManager.setCustomMic(first)
        first.start()
        at(1000, call) {
            call.audioManager.setCustomMic(second)
            second.start()
        }
        try call.start()
        try call.run(for: .seconds(2))
        XCTAssertTrue(first.isInUse == false && second.isInUse, "the engine left the first mic")
        let counters = call.end()
        XCTAssertEqual(counters.uplink.underruns, 0)
        let event = try XCTUnwrap(call.events.first { $0.kind == "capture" && $0.detail.hasPrefix("switched") })
        XCTAssertFalse(event.detail.contains("not ready"), event.detail)
        // Both push 0.25: the sent stream holds it throughout, the switch's tick included.
        let sent = call.recording.sent
        let primed = try XCTUnwrap(sent.firstIndex { $0 != 0 })
        XCTAssertTrue(sent[primed...].allSatisfy { abs($0 - 0.25) < 1e-6 }, "no gap or dip at the switch")
        XCTAssertGreaterThan(first.ignoredFrames, 0, "its pushes after the switch are ignored")
    }

    /// Reset to the default mic, which is ready at once: the custom mic feeds the call up to the
    /// tick that switches, takes its pushes until then, and stops.
    func testAResetToTheDefaultMicFeedsTheCustomMicUpToTheSwitch() throws {
        let call = try makeCall()
        let mic = TimedTestMic(scheduler: call.scheduler, signal: nil, name: "custom mic")
        call.audioManager.setCustomMic(mic)
        mic.start()
        at(1005, call) { call.audioManager.resetCustomMicToDefaultMic() }
        try call.start()
        try call.run(for: .seconds(2))
        XCTAssertFalse(mic.isInUse, "the engine left it")
        let counters = call.end()
        XCTAssertEqual(counters.uplink.underruns, 0)
        let event = try XCTUnwrap(call.events.first { $0.kind == "capture" && $0.detail.hasPrefix("switched") })
        XCTAssertEqual(event.frame, 1010 * 48, "the first tick after the reset")
        let sent = call.recording.sent
        let primed = try XCTUnwrap(sent.firstIndex { $0 != 0 })
        XCTAssertTrue(sent[primed..<(1010 * 48)].allSatisfy { abs($0 - 0.25) < 1e-6 }, "the custom mic's audio up to the switch")
    }

    /// A custom mic that never pushes: the engine keeps the physical mic for the 200 ms timeout,
    /// then switches anyway and logs it.
    func testNewMicThatNeverPushesSwitchesAfterTheTimeout() throws {
        let call = try makeCall()
        let silentMic = TimedTestMic(scheduler: call.scheduler, signal: nil, name: "silent mic")   // never started
        at(1234, call) { call.audioManager.setCustomMic(silentMic) }
        try call.start()
        try call.run(for: .seconds(2))
        let counters = call.end()
        let event = try XCTUnwrap(call.events.first { $0.kind == "capture" })
        XCTAssertTrue(event.detail.contains("not ready"), event.detail)
        // First tick after 1234 ms is 1240 ms; 200 ms of waiting later, the switch.
        XCTAssertEqual(event.frame, 1440 * 48)
        let sent = call.recording.sent
        XCTAssertGreaterThan(goertzelShare(sent, in: 1200 * 48..<1440 * 48, frequency: 317.3), 0.99, "the physical mic until the switch")
        XCTAssertTrue(sent[(1450 * 48)...].allSatisfy { $0 == 0 }, "then the new mic's (counted) silence")
        XCTAssertEqual(counters.uplink.primingSamples, Int64(sent.count - 1440 * 48))
    }

    /// A switch abandoned before the engine made it (the new mic reset while still priming) does
    /// not shorten the next switch's timeout, and the abandoned mic's pushes stay counted.
    func testAbandonedSwitchRestartsTheTimeoutAndKeepsCounting() throws {
        let call = try makeCall()
        let neverPushes = TimedTestMic(scheduler: call.scheduler, signal: nil, name: "never pushes")
        let pushedOnce = TimedTestMic(scheduler: call.scheduler, signal: nil, name: "pushed once")
        at(1000, call) { call.audioManager.setCustomMic(neverPushes) }
        at(1100, call) { call.audioManager.resetCustomMicToDefaultMic() }
        at(1200, call) { call.audioManager.setCustomMic(pushedOnce); pushedOnce.sendAudio(PCMBuffer<Float>(frameCount: 960)) }
        at(1201, call) { call.audioManager.resetCustomMicToDefaultMic() }
        at(1500, call) { call.audioManager.setCustomMic(neverPushes) }
        try call.start()
        try call.run(for: .seconds(2))
        let counters = call.end()
        let event = try XCTUnwrap(call.events.first { $0.kind == "capture" })
        XCTAssertEqual(event.frame, 1700 * 48, "a full 200 ms after 1500 ms: \(event.detail)")
        XCTAssertEqual(counters.uplink.written, 960, "the abandoned mic's push is counted")
        XCTAssertEqual(counters.uplink.buffered, 960)
        XCTAssertTrue(counters.uplink.isConserved)
    }
}
