import AudioCore
import Evaluation
import Simulation
import VirtualTime
import XCTest

/// Audio the app's side lost is a dropout, even where the app's mic is a source of its own (a
/// file, a generator): its own clicks are not the pipeline's, but a splice its buffer made is.
/// An app that pushes a burst the engine's buffer cannot hold loses the oldest samples (an
/// overrun), and the tone it sends jumps there: in the mic too, where it read as the source's
/// own click and was discounted.
final class AppMicSpliceTests: XCTestCase {
    /// A 443 Hz tone pushed in 20 ms frames, continuous in the app's time, with 1.1 s of it at
    /// once at `burstAt` seconds (more than the engine's 1 s buffer holds).
    private final class BurstingToneMic: CustomMic {
        private var timer: RepeatingTimer?
        private var phase = 0.0
        private var fired = 0
        let burstAt: Int
        init(burstAt seconds: Int) { burstAt = seconds * 50 }
        private func tone(_ frames: Int) -> PCMBuffer<Float> {
            let samples = (0..<frames).map { index in Float(0.1 * sin(phase + 2 * Double.pi * 443 * Double(index) / 48_000)) }
            phase += 2 * Double.pi * 443 * Double(frames) / 48_000
            return PCMBuffer(samples: samples)
        }
        func start(on scheduler: Scheduler) {
            timer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(20), leeway: .milliseconds(2), phase: .capture)
            timer?.setEventHandler { [unowned self] in
                fired += 1
                _ = sendAudio(tone(fired == burstAt ? 52_800 : 960))
            }
            timer?.schedule()
        }
        func stop() { timer?.cancel(); timer = nil }
    }

    /// A 443 Hz tone in 20 ms frames that pauses in digital silence for 100 ms of every 500.
    private final class PausingToneMic: CustomMic {
        private var timer: RepeatingTimer?
        private var sample = 0
        func start(on scheduler: Scheduler) {
            timer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(20), leeway: .milliseconds(2), phase: .capture)
            timer?.setEventHandler { [unowned self] in
                let samples = (0..<960).map { offset -> Float in
                    let index = sample + offset
                    return (4_800..<9_600).contains(index % 24_000) ? 0 : Float(0.1 * sin(2 * Double.pi * 443 * Double(index) / 48_000))
                }
                sample += 960
                _ = sendAudio(PCMBuffer(samples: samples))
            }
            timer?.schedule()
        }
        func stop() { timer?.cancel(); timer = nil }
    }

    /// One mic's losses mark only its own audio: a file mic switched to after another mic overran
    /// has its own pauses, not the pipeline's gaps (the losses were tracked for every mic at once,
    /// and the ticks after the first mic's splice carried over to the next).
    func testAnotherMicsLossesDoNotMarkThisOnesAudio() throws {
        let call = try SimulatedCall(world: CallWorld(), voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .disabled), recordsTaps: false)
        let meter = try CallMeter(call: call)
        let bursting = BurstingToneMic(burstAt: 1), pausing = PausingToneMic()
        call.audioManager.setCustomMic(bursting)
        bursting.start(on: call.scheduler)
        try call.start()
        try call.run(for: .milliseconds(1_300))
        call.audioManager.setCustomMic(pausing)
        pausing.start(on: call.scheduler)
        try call.run(for: .milliseconds(2_700))
        bursting.stop()
        pausing.stop()
        let report = try meter.finish()
        XCTAssertGreaterThan(report.pipeline.uplink.overruns, 0, "the first mic overran")
        let gaps = report.sentGapRanges.map { Double($0.lowerBound) / 48_000 }
        XCTAssertEqual(gaps.filter { $0 > 1.4 }, [], "the second mic's pauses are its own: \(gaps)")
    }

    func testASpliceTheAppsBufferMadeIsAClick() throws {
        let call = try SimulatedCall(world: CallWorld(), voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .disabled), recordsTaps: false)
        let meter = try CallMeter(call: call)
        let mic = BurstingToneMic(burstAt: 2)
        call.audioManager.setCustomMic(mic)
        mic.start(on: call.scheduler)
        try call.start()
        try call.run(for: .seconds(4))
        mic.stop()
        let report = try meter.finish()
        XCTAssertGreaterThan(report.pipeline.uplink.overruns, 0, "the burst overran the engine's buffer")
        let clicks = report.sentClickEvents.map { Double($0.sampleIndex) / 48_000 }
        XCTAssertTrue(clicks.contains { (1.9...3.2).contains($0) }, "the splice is a click of the pipeline's: \(clicks)")
    }
}
