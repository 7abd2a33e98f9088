import AudioCore
import Evaluation
import Simulation
import VirtualTime
import XCTest

/// What a custom device did wrong by its cadence or format — bursts larger than the engine's
/// buffers hold, buffers in a format the engine cannot take — lost audio the pipeline counted,
/// with no finding naming the app's mistake (a QA engineer's trial: "1 overrun" and nothing
/// else, the custom speaker's 800 ms period never named).
final class CustomDeviceOverrunTests: XCTestCase {
    /// A custom mic (not a room mic) that pushes `burst` frames of −20 dBFS noise at once, every
    /// `period`, in the format it is told.
    private final class BurstMic: CustomMic {
        private var timer: RepeatingTimer?
        private var buffer: PCMBuffer<Float>
        private let period: VirtualDuration

        init(burstFrames: Int, period: VirtualDuration, channelCount: Int = 1) {
            buffer = PCMBuffer<Float>(frameCount: burstFrames)
            let noise = SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: 48_000, count: burstFrames, seed: 4)
            for index in 0..<burstFrames { buffer.samples[index] = noise[index] }
            // The app's own field, set wrong after the buffer was made.
            buffer.channelCount = channelCount
            self.period = period
        }

        /// Set while the app has paused its source (an interruption): the timer pushes nothing.
        var isPaused = false

        func start(on scheduler: Scheduler) {
            timer = RepeatingTimer(scheduler: scheduler, period: period, leeway: .milliseconds(2), phase: .capture)
            timer?.setEventHandler { [unowned self] in if !isPaused { _ = sendAudio(buffer) } }
            timer?.schedule()
        }
        func stop() { timer?.cancel(); timer = nil }
    }

    private func report(of mic: BurstMic, seconds: Int64 = 5) throws -> RunReport {
        let world = CallWorld(farEnd: .generator(.whiteNoise(levelDBFS: -20), seed: 3), noise: NoiseSettings(levelDBFS: -60, seed: 2),
                              echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -6))
        let call = try SimulatedCall(world: world, voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .disabled), recordsTaps: false)
        let meter = try CallMeter(call: call)
        call.audioManager.setCustomMic(mic)
        try call.start()
        mic.start(on: call.scheduler)
        try call.run(for: .seconds(seconds))
        mic.stop()
        return try meter.finish()
    }

    private func findings(_ report: RunReport, _ rule: LintRule) -> [RunReport.Finding] {
        report.findings.filter { $0.rule == rule.rawValue }
    }

    /// 1.5 s pushed at once every 1.5 s into the engine's one-second input buffer: the engine
    /// drops what does not fit, and the finding says how much, from the call's counters. The same
    /// audio in 20 ms frames every 20 ms overruns nothing.
    func testAMicPushingBurstsLongerThanTheInputBufferOverruns() throws {
        let bursts = try report(of: BurstMic(burstFrames: 72_000, period: .milliseconds(1500)))
        let uplink = bursts.pipeline.uplink
        XCTAssertGreaterThan(uplink.overruns, 0)
        XCTAssertGreaterThan(uplink.dropped, 0)
        let finding = try XCTUnwrap(findings(bursts, .customMicOverrun).first)
        XCTAssertEqual(finding.message, LintRule.customMicOverrun.advice)
        XCTAssertEqual(finding.consequenceMetric, "uplink_dropped_samples")
        XCTAssertEqual(finding.consequence, "the engine dropped \(uplink.dropped) of the \(uplink.written) samples the custom mic pushed "
                       + "(\(FixedDecimal.text(Double(uplink.dropped) / 48_000, fractionDigits: 1)) s of the near end, in \(uplink.overruns) overrun"
                       + "\(uplink.overruns == 1 ? "" : "s")): the peer hears gaps where it was")
        XCTAssertEqual(finding.atSeconds, 0)

        let steady = try report(of: BurstMic(burstFrames: 960, period: .milliseconds(20)))
        XCTAssertEqual(steady.pipeline.uplink.overruns, 0)
        XCTAssertEqual(findings(steady, .customMicOverrun), [])
        XCTAssertEqual(findings(steady, .customDeviceFormatRejected), [])
    }

    /// Buffers whose channel count the app set to 0: the engine refuses every frame, and the
    /// finding counts them as the custom mic's.
    func testAMicWhoseFormatTheEngineRefusesIsAFinding() throws {
        let refused = try report(of: BurstMic(burstFrames: 960, period: .milliseconds(20), channelCount: 0), seconds: 2)
        let rejected = refused.pipeline.uplink.rejectedFrames
        XCTAssertGreaterThan(rejected, 90_000, "every 20 ms frame for 2 s")
        let finding = try XCTUnwrap(findings(refused, .customDeviceFormatRejected).first)
        XCTAssertEqual(finding.consequenceMetric, "rejected_frames")
        XCTAssertEqual(finding.consequence, "the engine refused \(rejected) of the custom mic's frames (at the app's rate): that audio was lost")
    }

    /// Each mic is judged by its own buffer: a bursting mic, then the default mic, then a mic that
    /// pushes 20 ms frames. One finding, over the bursting mic's stretch alone, with its own drops
    /// (the call's counters once put them on every custom mic's stretch). From code, as
    /// docs/library.md has it.
    func testEachMicIsJudgedByItsOwnBuffer() throws {
        let call = try SimulatedCall(world: CallWorld(), voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .disabled), recordsTaps: false)
        let bursting = BurstMic(burstFrames: 72_000, period: .milliseconds(1500)), steady = BurstMic(burstFrames: 960, period: .milliseconds(20))
        call.audioManager.setCustomMic(bursting)
        try call.start()
        bursting.start(on: call.scheduler)
        try call.run(for: .seconds(4))
        bursting.stop()
        call.audioManager.resetCustomMicToDefaultMic()
        try call.run(for: .seconds(2))
        call.audioManager.setCustomMic(steady)
        steady.start(on: call.scheduler)
        try call.run(for: .seconds(4))
        steady.stop()
        let counters = call.counters
        XCTAssertEqual(counters.micUplinks.count, 2)
        XCTAssertGreaterThan(counters.micUplinks[0].overruns, 0)
        XCTAssertEqual(counters.micUplinks[1].overruns, 0)
        let findings = Linter.findings(states: call.deviceStates, endFrame: Int(call.currentFrame), counters: counters)
            .filter { $0.rule == .customMicOverrun }
        XCTAssertEqual(findings.count, 1)
        let finding = try XCTUnwrap(findings.first)
        XCTAssertEqual(finding.frames.lowerBound, 0)
        XCTAssertLessThanOrEqual(finding.frames.upperBound, 4 * 48_000 + 9_600, "the bursting mic's stretch, and its switch")
    }

    /// A device's stretch is its own: a speaker the app never pulls is one not-pulled finding over
    /// the whole call, however the mic changes meanwhile (keyed by every device, a mic switched in
    /// and out cut it in three).
    func testAMicSwitchDoesNotCutASpeakersStretch() throws {
        let call = try SimulatedCall(world: CallWorld(farEnd: .generator(.whiteNoise(levelDBFS: -20), seed: 3)),
                                     voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .disabled), recordsTaps: false)
        call.audioManager.setCustomSpeaker(CustomSpeaker())   // set, and never pulled
        let mic = BurstMic(burstFrames: 960, period: .milliseconds(20))
        try call.start()
        try call.run(for: .seconds(2))
        call.audioManager.setCustomMic(mic)
        mic.start(on: call.scheduler)
        try call.run(for: .seconds(2))
        mic.stop()
        call.audioManager.resetCustomMicToDefaultMic()
        try call.run(for: .seconds(2))
        XCTAssertGreaterThanOrEqual(Set(call.deviceStates.map(\.customMicIndex)).count, 2, "the mic changed")
        let unpulled = Linter.findings(states: call.deviceStates, endFrame: Int(call.currentFrame), counters: call.counters)
            .filter { $0.rule == .customSpeakerNotPulled }
        XCTAssertEqual(unpulled.map(\.frames), [0..<Int(call.currentFrame)])
    }

    /// An interruption while a file-like mic keeps pushing loses its audio, a finding; the same mic
    /// paused for the interruption (as the finding advises) loses nothing, and is no finding.
    func testAnInterruptionIsAFindingOnlyWhereTheMicKeptPushing() throws {
        func report(pausing: Bool) throws -> RunReport {
            let call = try SimulatedCall(world: CallWorld(), voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .disabled), recordsTaps: false)
            call.hardware = try CallHardware(configuration: HardwareConfiguration())
            let meter = try CallMeter(call: call)
            let mic = BurstMic(burstFrames: 960, period: .milliseconds(20))
            call.audioManager.setCustomMic(mic)
            try call.start()
            mic.start(on: call.scheduler)
            try call.run(for: .seconds(2))
            try meter.apply(.interruptionBegin)
            mic.isPaused = pausing
            try call.run(for: .seconds(1))
            try meter.apply(.interruptionEnd)
            mic.isPaused = false
            try call.run(for: .seconds(1))
            mic.stop()
            return try meter.finish()
        }
        let kept = try report(pausing: false)
        let finding = try XCTUnwrap(kept.findings.first { $0.rule == "interrupted-with-custom-mic" })
        XCTAssertEqual(finding.atSeconds, 2)
        XCTAssertEqual(finding.untilSeconds, 3)
        XCTAssertEqual(finding.consequence, "48000 samples the custom mic delivered in 1.0 s were discarded: the peer never heard them")
        let paused = try report(pausing: true)
        XCTAssertFalse(paused.findings.contains { $0.rule == "interrupted-with-custom-mic" }, "\(paused.findings.map(\.rule))")
    }

    /// The trial's scenario: a pass-through custom speaker whose timer pulls and plays 800 ms at
    /// a time into the loudspeaker's one-second buffer. It overran, and only "1 overrun" said so.
    /// At 20 ms nothing overruns.
    func testASpeakerPlayingBurstsLongerThanTheLoudspeakersBufferOverruns() throws {
        func report(periodMilliseconds: Int) throws -> RunReport {
            try runReport(ofScenario: """
                {"name": "late-speaker", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 3},
                 "noise": {"level_dbfs": -60, "seed": 7}, "echo_path": {"delay_ms": 40, "gain_db": -10}, "duration_s": 6,
                 "speaker": {"device": "passthrough", "period_ms": \(periodMilliseconds)}}
                """)
        }
        let bursts = try report(periodMilliseconds: 800)
        // The loudspeaker's faults while the speaker was set: all of the call's here.
        let loudspeaker = try XCTUnwrap(bursts.pipeline.speakerLoudspeakers.first)
        XCTAssertGreaterThan(loudspeaker.overruns, 0)
        XCTAssertEqual(loudspeaker.overruns, bursts.pipeline.loudspeaker.overruns)
        XCTAssertEqual(loudspeaker.dropped, bursts.pipeline.loudspeaker.dropped)
        let finding = try XCTUnwrap(findings(bursts, .customSpeakerOverrun).first)
        XCTAssertEqual(finding.consequenceMetric, "loudspeaker_dropped_samples")
        XCTAssertEqual(finding.consequence, "the loudspeaker's buffer dropped \(loudspeaker.dropped) samples the custom speaker "
                       + "played (\(FixedDecimal.text(Double(loudspeaker.dropped) / 48_000, fractionDigits: 1)) s of the peer's audio, in "
                       + "\(loudspeaker.overruns) overrun\(loudspeaker.overruns == 1 ? "" : "s")): the user hears gaps where it was")
        XCTAssertEqual(findings(try report(periodMilliseconds: 20), .customSpeakerOverrun), [])
    }
}
