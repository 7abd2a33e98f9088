import AudioCore
import AudioInterop
import Foundation
import VirtualTime
import XCTest
@testable import Simulation

/// A call is freed when it ends, whatever devices it had; audio the resamplers refuse is
/// counted; `run(for:)` tiles time exactly.
final class CallLifecycleTests: XCTestCase {
    private func makeCall(seconds: Int = 1) throws -> SimulatedCall {
        try SimulatedCall(world: CallWorld(farEnd: .generator(.whiteNoise(levelDBFS: -20), seed: 1),
                                           echoPath: EchoPathSettings(delayMilliseconds: 10, gainDB: -10)),
                          voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .intensityRecommended))
    }

    /// Every shipped device kind, set, run, reset or left in use at the end: the call and its
    /// devices are gone once the caller lets go.
    func testCallWithAppDrivenDevicesIsFreedAfterEnd() throws {
        let folder = try makeTemporaryDirectory(for: self)
        typealias Attach = (SimulatedCall) throws -> [AnyObject]
        let cases: [(String, Attach)] = [
            ("pass-through mic", { call in
                let mic = PassThroughMicrophone(call: call)
                call.audioManager.setCustomMic(mic)
                mic.start()
                return [mic]
            }),
            ("pass-through speaker", { call in
                let speaker = PassThroughSpeaker(call: call, putsReference: true)
                call.audioManager.setCustomSpeaker(speaker)
                speaker.start()
                return [speaker]
            }),
            ("mixing speaker, reset mid-call", { call in
                let speaker = try MixingSpeaker(call: call, music: .generator(.musicLike(levelDBFS: -30), seed: 2), putsReference: false)
                call.audioManager.setCustomSpeaker(speaker)
                speaker.start()
                call.scheduler.schedule(at: .zero + .milliseconds(500), phase: .transition) {
                    speaker.stop()
                    call.audioManager.resetCustomSpeakerToDefaultSpeaker()
                }
                return [speaker]
            }),
            ("generator mic and recording speaker", { call in
                let mic = try GeneratorMicrophone(call: call, signal: .tone(frequency: 440, levelDBFS: -20))
                let speaker = RecordingSpeaker(call: call, path: folder.appendingPathComponent("peer.wav").path)
                call.audioManager.setCustomMic(mic)
                call.audioManager.setCustomSpeaker(speaker)
                mic.start()
                try speaker.start()
                return [mic, speaker]
            }),
        ]
        for (name, attach) in cases {
            weak var weakCall: SimulatedCall?
            var weakDevices: [() -> AnyObject?] = []
            // Everything strong lives in this closure's scope only.
            try { () throws -> Void in
                let call = try makeCall()
                weakCall = call
                for device in try attach(call) {
                    weak var weakDevice = device
                    weakDevices.append { weakDevice }
                }
                try call.start()
                try call.run(for: .seconds(1))
                let counters = call.end()
                XCTAssertEqual(counters.ticks, 100, name)
                XCTAssertEqual(call.counters, counters, "\(name): the counters stay readable after end()")
            }()
            XCTAssertNil(weakCall, "\(name): the call outlived its end")
            XCTAssertTrue(weakDevices.allSatisfy { $0() == nil }, "\(name): a device outlived its call")
        }
    }

    /// Pushes at a rate libsamplerate cannot convert (ratio beyond 256) never reach the buffer:
    /// they are counted as rejected frames in the uplink, not lost without a word.
    func testRefusedPushesAndPullsAreCounted() throws {
        let call = try makeCall()
        let mic = CustomMic(), speaker = CustomSpeaker()
        call.audioManager.setCustomMic(mic)
        call.audioManager.setCustomSpeaker(speaker)
        XCTAssertTrue(mic.sendAudio(PCMBuffer<Float>(samples: [Float](repeating: 0.1, count: 7), sampleRate: 20)))
        XCTAssertTrue(mic.sendAudio(PCMBuffer<Float>(samples: [Float](repeating: 0.1, count: 480), sampleRate: 48_000)))
        try call.start()
        try call.run(for: .milliseconds(100))
        var pulled = PCMBuffer<Int16>(frameCount: 5, sampleRate: 100)
        _ = speaker.playAudio(into: &pulled)
        let counters = call.end()
        XCTAssertEqual(counters.uplink.rejectedFrames, 7)
        XCTAssertEqual(counters.uplink.written, 480)
        XCTAssertTrue(counters.uplink.isConserved)
        XCTAssertEqual(counters.playout.rejectedFrames, 5)
    }

    /// Two `run(for: 1 s)` calls: the clock is at exactly 2 s, the app action scheduled between
    /// them is logged at sample 48 000, and the tick due at 1 s ran in the second run.
    func testRunForTilesTimeExactly() throws {
        let call = try makeCall()
        try call.start()
        try call.run(for: .seconds(1))
        XCTAssertEqual(call.scheduler.now, .zero + .seconds(1))
        XCTAssertEqual(call.tickCount, 100)
        XCTAssertEqual(SimulatedCall.tickCount(for: .seconds(1)), 100, "what a progress line and the reservations count on")
        XCTAssertEqual(SimulatedCall.tickCount(for: .milliseconds(1_005)), 101, "the last tick runs partly")
        call.mute()
        try call.run(for: .seconds(1))
        XCTAssertEqual(call.scheduler.now, .zero + .seconds(2))
        XCTAssertEqual(call.tickCount, 200)
        XCTAssertEqual(call.events.last { $0.detail == "mute" }?.frame, 48_000)
        // The muted second: the tick at exactly 1 s is already muted.
        _ = call.end()
        XCTAssertEqual(call.recording.sent[48_000..<96_000].allSatisfy { $0 == 0 }, true)
        XCTAssertGreaterThan(call.recording.sent[0..<48_000].map { $0 * $0 }.reduce(0, +), 0)
    }

    func testSchedulerRunBeforeIsHalfOpen() {
        let scheduler = Scheduler()
        var ran: [Int64] = []
        for ms in [0, 5, 10, 15] as [Int64] {
            scheduler.schedule(at: .zero + .milliseconds(ms)) { ran.append(ms) }
        }
        scheduler.run(before: .zero + .milliseconds(10))
        XCTAssertEqual(ran, [0, 5])
        XCTAssertEqual(scheduler.now, .zero + .milliseconds(10))
        scheduler.run(before: .zero + .milliseconds(10))
        XCTAssertEqual(ran, [0, 5], "an empty interval runs nothing")
        scheduler.run(before: .zero + .milliseconds(20))
        XCTAssertEqual(ran, [0, 5, 10, 15])
    }

    /// A call runs once, from `start()` to `end()`: running it before it starts would move the
    /// clock without a tick (segments marked after it landed late in the report), and running or
    /// starting it after it ended ticked a call whose devices were gone. Each is a typed error.
    func testRunningOutsideStartAndEndIsAnError() throws {
        let call = try makeCall()
        XCTAssertThrowsError(try call.run(for: .seconds(1))) { XCTAssertEqual("\($0)", "\(CallError.notStarted)") }
        XCTAssertEqual(call.currentFrame, 0)
        try call.start()
        try call.run(for: .milliseconds(100))
        XCTAssertEqual(call.tickCount, 10)
        _ = call.end()
        XCTAssertThrowsError(try call.run(for: .seconds(1))) { XCTAssertEqual("\($0)", "\(CallError.ended)") }
        XCTAssertThrowsError(try call.start()) { XCTAssertEqual("\($0)", "\(CallError.ended)") }
        XCTAssertEqual(call.tickCount, 10)
    }

    /// A mode the app sets mid-call is an event of the call, as a scenario's timeline action is;
    /// the modes it starts with are not.
    func testAModeSetMidCallIsLogged() throws {
        let call = try makeCall()
        try call.start()
        try call.run(for: .milliseconds(200))
        try call.sendVoiceProcessor.setAcousticEchoCanceller(mode: .disabled)
        try call.sendVoiceProcessor.setNoiseSuppressor(mode: .enabled)
        try call.run(for: .milliseconds(100))
        _ = call.end()
        let modes = call.events.filter { $0.kind == "aec" || $0.kind == "ns" }
        XCTAssertEqual(modes.map { "\($0.frame) \($0.kind) \($0.detail)" }, ["9600 aec mode disabled", "9600 ns mode enabled"])
    }
    /// Generator levels, pitches and a canceller filter length built in code outside the ranges
    /// a scenario file is read in throw, naming the field: a NaN level played NaN (clipping
    /// findings, "the far end never reached the mic"), a filter of -10 ms ran and was reported so.
    func testSignalsAndAFilterLengthOutOfRangeThrow() {
        let worlds: [(CallWorld, String)] = [
            (CallWorld(farEnd: .generator(.whiteNoise(levelDBFS: .nan), seed: 1)), "far end: levelDBFS nan is out of range -120…0"),
            (CallWorld(nearEnd: .generator(.speechLike(levelDBFS: -20, pitchHz: 5), seed: 1)), "near end: pitchHz 5 is out of range 50…500"),
            (CallWorld(farEnd: .generator(.tone(frequency: 30_000, levelDBFS: -20), seed: 1)), "far end: frequency 30000 is out of range 1…24000"),
            (CallWorld(noise: NoiseSettings(levelDBFS: 6, seed: 1)), "noise: levelDBFS 6 is out of range -200…0"),
        ]
        for (world, message) in worlds {
            XCTAssertThrowsError(try SimulatedCall(world: world)) { XCTAssertEqual("\($0)", message) }
        }
        for filter in [-10, 0] {
            XCTAssertThrowsError(try SimulatedCall(world: CallWorld(), voiceProcessing: VoiceProcessingSettings(filterMilliseconds: filter))) {
                XCTAssertEqual("\($0)", "voice processing: filterMilliseconds \(filter) is out of range 10…2000")
            }
        }
        XCTAssertNoThrow(try SimulatedCall(world: CallWorld(farEnd: .generator(.speechLike(levelDBFS: -20, pitchHz: 140), seed: 1)),
                                           voiceProcessing: VoiceProcessingSettings(filterMilliseconds: 200)))
        // Only speexdsp's filter length is EchoLab's to set: WebRTC's and AEC3's ran as if unset.
        for backend in [EchoCancellerBackend.webrtc, .aec3, .echolab] {
            XCTAssertThrowsError(try SimulatedCall(world: CallWorld(), voiceProcessing: VoiceProcessingSettings(backend: backend, filterMilliseconds: 100))) {
                XCTAssertEqual("\($0)", "voice processing: filterMilliseconds sets speexdsp's filter length; backend \(backend.name) keeps a filter length of its own, which EchoLab does not set")
            }
        }
    }

    /// An echo path built in code outside the ranges a scenario file is read in throws, naming
    /// the field: a negative or NaN delay stopped the app on a precondition, a huge one on an
    /// allocation it could not make, from an initialiser the app called with `try`.
    func testAnEchoPathOutOfRangeThrowsInsteadOfStoppingTheApp() {
        let cases: [(EchoPathSettings, String)] = [
            (EchoPathSettings(delayMilliseconds: -5), "echo path: delayMilliseconds -5 is out of range 0…2000"),
            (EchoPathSettings(delayMilliseconds: .nan), "echo path: delayMilliseconds nan is out of range 0…2000"),
            (EchoPathSettings(delayMilliseconds: 1e15), "echo path: delayMilliseconds 1e+15 is out of range 0…2000"),
            (EchoPathSettings(gainDB: .infinity), "echo path: gainDB inf is out of range -200…40"),
            (EchoPathSettings(clipDBFS: 3), "echo path: clipDBFS 3 is out of range -60…0"),
            (EchoPathSettings(impulseResponse: .synthetic(rt60Milliseconds: 0, seed: 1)), "echo path: rt60Milliseconds 0 is out of range 10…2000"),
        ]
        for (path, message) in cases {
            XCTAssertThrowsError(try SimulatedCall(world: CallWorld(echoPath: path))) { error in
                XCTAssertEqual("\(error)", message)
                XCTAssertEqual(error.localizedDescription, message, "an app showing localizedDescription shows the message")
            }
        }
        XCTAssertNoThrow(try SimulatedCall(world: CallWorld(echoPath: EchoPathSettings(delayMilliseconds: 2000, gainDB: -200))))
        XCTAssertEqual(CallError.notStarted.localizedDescription, CallError.notStarted.description)
    }
}
