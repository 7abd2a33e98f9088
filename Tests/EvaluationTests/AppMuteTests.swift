import AudioCore
import Evaluation
import Simulation
import VirtualTime
import XCTest

/// An app that mutes by pushing zeros from its real-microphone custom mic sends neither echo nor
/// talker: that stretch has no ERL or ERLE, and says why, as `call.mute()`'s does (it read a
/// made-up ERLE of −7 dB against the room's echo track). And a hand-driven call whose far end
/// plays is never said to have a silent far end.
final class AppMuteTests: XCTestCase {
    /// The device mic, forwarded as the app's custom mic, pushing zeros while `muted`.
    private final class MutableRoomMic: CustomMic {
        private let microphone: Microphone
        private var timer: RepeatingTimer?
        private var frame = PCMBuffer<Float>(frameCount: 960, sampleRate: 48_000, channelCount: 1)
        private let silence = PCMBuffer<Float>(frameCount: 960, sampleRate: 48_000, channelCount: 1)
        var muted = false
        init(microphone: Microphone) { self.microphone = microphone }
        override var isRealMicrophone: Bool { true }
        func start(on scheduler: Scheduler) {
            microphone.open()
            timer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(20), leeway: .milliseconds(2), phase: .capture)
            timer?.setEventHandler { [unowned self] in
                guard microphone.capture(into: &frame) == frame.frameCount else { return }
                sendAudio(muted ? silence : frame)
            }
            timer?.schedule()
        }
        func stop() { timer?.cancel(); timer = nil; microphone.close() }
    }

    private func world(near: Bool = false, gainDB: Double = -6) -> CallWorld {
        CallWorld(farEnd: .generator(.whiteNoise(levelDBFS: -20), seed: 3),
                  nearEnd: near ? .generator(.speechLike(levelDBFS: -26, pitchHz: 210), seed: 9) : nil,
                  noise: NoiseSettings(levelDBFS: -60, seed: 2), echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: gainDB))
    }

    /// A call through the forwarded device mic that the app mutes by pushing zeros after
    /// `before` seconds (the segment "app mute"), for `after` seconds more.
    private func callMutedByZeros(in world: CallWorld, mode: EchoCancellerMode, before: Int64, after: Int64) throws -> RunReport {
        let call = try SimulatedCall(world: world, voiceProcessing: VoiceProcessingSettings(echoCancellerMode: mode), recordsTaps: false)
        let meter = try CallMeter(call: call)
        let mic = MutableRoomMic(microphone: call.microphone)
        try call.start()
        call.audioManager.setCustomMic(mic)
        mic.start(on: call.scheduler)
        try call.run(for: .seconds(before))
        meter.beginSegment("app mute")
        mic.muted = true
        try call.run(for: .seconds(after))
        mic.stop()
        return try meter.finish()
    }

    /// In a room without noise whose far end pauses (speech), the muted stretch holds silent
    /// room too: the segment is still one the app muted.
    func testAMuteByZerosInARoomWithoutNoiseSaysSo() throws {
        let quiet = CallWorld(farEnd: .generator(.speechLike(levelDBFS: -20, pitchHz: 120), seed: 3),
                              echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -6))
        let muted = try XCTUnwrap(try callMutedByZeros(in: quiet, mode: .disabled, before: 3, after: 4).segments.last)
        XCTAssertEqual(muted.metrics.singleTalkFrames, 0)
        XCTAssertEqual(muted.echoUnmeasuredReason?.hasPrefix("the mic captured digital silence throughout"), true, muted.echoUnmeasuredReason ?? "nil")
    }

    /// A pass-through mic primes on digital silence for a tick or two, as every custom mic does:
    /// that is no mute. Without a far end the call says so, as before.
    func testAPassThroughMicWithoutAFarEndIsNoMute() throws {
        let report = try runReport(ofScenario: """
            {"name": "pass", "mic": {"device": "passthrough"}, "near_end": {"generator": "speech", "level_dbfs": -26, "seed": 2},
             "noise": {"level_dbfs": -60, "seed": 1}, "duration_s": 3}
            """)
        XCTAssertEqual(report.echoUnmeasuredReason, "the far end is silent throughout: nothing was played into the room, so there is no echo to measure")
    }

    func testAMicThatPushesZerosHasNoEchoFiguresThere() throws {
        for mode in [EchoCancellerMode.disabled, .intensityRecommended] {
            let report = try callMutedByZeros(in: world(), mode: mode, before: 3, after: 3)
            let muted = try XCTUnwrap(report.segments.last)
            XCTAssertEqual(muted.events, ["app mute"])
            // What the mic pushed before its zeros reached sent (a period, and the canceller's
            // frame of latency) is one analysis frame with the canceller: a figure of low confidence.
            XCTAssertEqual(muted.metrics.singleTalkFrames, mode == .disabled ? 0 : 1, "\(mode)")
            if mode == .disabled {
                XCTAssertNil(muted.metrics.erlDB)
                XCTAssertNil(muted.metrics.erleDB)
                XCTAssertEqual(muted.echoUnmeasuredReason?.hasPrefix("the mic captured digital silence throughout"), true,
                               muted.echoUnmeasuredReason ?? "nil")
            } else {
                XCTAssertTrue(muted.metrics.isLowConfidence)
            }
            XCTAssertEqual(report.metrics.gate.singleTalkFrames, 275, "the first three seconds' frames, and the crossover's: \(mode)")
            // The first three seconds are the call's figures alone: a 6 dB path.
            XCTAssertEqual(try XCTUnwrap(report.metrics.erlDB), 6, accuracy: 0.2, "\(mode)")
            if mode == .disabled { XCTAssertEqual(try XCTUnwrap(report.metrics.erleDB), 0, accuracy: 0.2) }
        }
    }

    /// Muted by zeros from the start with a talker in the room: the talker never reached what was
    /// sent, which is the app's doing, not a near end the canceller removed.
    func testAMicMutedByZerosThroughoutSaysSoAndJudgesNoNearEnd() throws {
        let call = try SimulatedCall(world: world(near: true), voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .intensityRecommended),
                                     recordsTaps: false)
        let meter = try CallMeter(call: call)
        let mic = MutableRoomMic(microphone: call.microphone)
        mic.muted = true
        call.audioManager.setCustomMic(mic)
        try call.start()
        mic.start(on: call.scheduler)
        try call.run(for: .seconds(4))
        mic.stop()
        let report = try meter.finish()
        XCTAssertNil(report.metrics.erleDB)
        XCTAssertEqual(report.echoUnmeasuredReason?.hasPrefix("the mic captured digital silence throughout"), true, report.echoUnmeasuredReason ?? "nil")
        XCTAssertNil(report.metrics.nearEnd?.attenuationDB, "no near end reached the canceller to be judged on")
    }

    /// The far end plays (white noise at −20 dBFS) and its echo is buried 100 dB down: an echo
    /// under the mic's noise, as `echolab run` says of the same call, not a silent far end. Its
    /// loss is the bound the echo track gives.
    func testAHandDrivenCallWhoseFarEndPlaysIsNotSaidToBeSilent() throws {
        let call = try SimulatedCall(world: world(gainDB: -100), recordsTaps: false)
        let meter = try CallMeter(call: call)
        try call.start()
        try call.run(for: .seconds(3))
        let report = try meter.finish()
        XCTAssertEqual(report.echoUnmeasuredReason?.hasPrefix("the echo stays under the mic's noise wherever the far end plays alone ("), true,
                       report.echoUnmeasuredReason ?? "nil")
        XCTAssertEqual(try XCTUnwrap(report.metrics.erlDB), 100, accuracy: 1)
        XCTAssertTrue(report.metrics.erlIsLowerBound)
        let silent = try SimulatedCall(world: CallWorld(), recordsTaps: false)
        let silentMeter = try CallMeter(call: silent)
        try silent.start()
        try silent.run(for: .seconds(1))
        XCTAssertEqual(try silentMeter.finish().echoUnmeasuredReason,
                       "the far end is silent throughout: nothing was played into the room, so there is no echo to measure")
    }
}
