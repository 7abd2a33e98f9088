// AppCall — app code measured the way `echolab run` measures a scenario.
//
// A custom microphone written the way PlanetKit's custom audio device guide writes its
// AudioFileMicrophone (a `CustomMic` subclass with its own 20 ms timer calling `sendAudio`), a
// call with a loudspeaker → microphone echo path, and the call's report: its measured ERLE, the
// lint findings (the guide's AEC rules) with their measured consequences, and the latency the
// app path adds. Every signal is made here — no input files — so `swift run` is all it needs.
//
// The call, on the virtual clock (6 s of call take well under a second):
//   0–3 s    the device microphone, AEC on: the echo of the peer is cancelled (ERLE; the only
//            stretch with echo, so the call's ERLE is this stretch's).
//   3–4.5 s  the custom mic (a text-to-speech prompt), AEC still on: the mistake the guide's
//            Case 1 warns about — nothing echoes into a prompt, so the canceller can only damage
//            it — and the lint finds it.
//   4.5–6 s  AEC disabled, as Case 1 says: the prompt reaches the peer untouched; the latency is
//            measured here.
//
// Where this differs from the guide, and why (as in Examples/CustomDevices):
// - No Dispatch: the guide's `DispatchSource.makeTimerSource` is a `RepeatingTimer` on the call's
//   virtual-clock scheduler, so the call runs as fast as the CPU allows and every run gives the
//   same samples.
// - No raw pointers: `PlanetKitAudioBuffer` is a `PCMBuffer<Float>`, allocated once and reused
//   (the guide's advice to minimise allocation, rather than its allocate/deallocate per frame).
// - `PlanetKitAudioManager.shared` is `call.audioManager`: one audio manager per simulated call.

import EchoLab
import Foundation

// MARK: - The custom microphone (the guide's Example 1, with a synthesised source)

/// A text-to-speech prompt as the call's microphone: speech-like audio made by a seeded
/// generator (the guide's AVAudioFile), pushed 20 ms at a time by the mic's own timer.
final class PromptMicrophone: CustomMic {
    /// The prompt's voice: seeded, so the app can make the same samples again (see `expectedAudio`).
    static let voice = SignalKind.speechLike(levelDBFS: -20, pitchHz: 210)
    static let seed: UInt64 = 7

    private var generator: SignalGenerator?
    private var audioTimer: RepeatingTimer?
    /// The guide's DispatchQueue: timers run on the call's scheduler instead.
    private let scheduler: Scheduler
    /// 20 ms at 48 kHz, mono Float32 (the guide's "Key considerations"), reused for every frame.
    private var audioBuffer = PCMBuffer<Float>(frameCount: 960, sampleRate: 48_000, channelCount: 1)
    /// When the first frame was pushed: the app's own record, for the latency measurement below.
    private(set) var startedAt: VirtualInstant?

    init(scheduler: Scheduler) {
        self.scheduler = scheduler
        super.init()
    }

    /// Not a real microphone: no echo reaches a prompt (why Case 1 turns AEC off for it).
    override var isRealMicrophone: Bool { false }
    override var deviceName: String { "PromptMicrophone" }

    func playPrompt() {
        generator = SignalGenerator(kind: Self.voice, sampleRate: 48_000, seed: Self.seed)
        startSendingAudio()
    }

    private func startSendingAudio() {
        // Send audio every 20ms. `.capture` orders same-instant work as an audio thread would:
        // device switches, then capture pushes, then the engine's 10 ms tick.
        startedAt = scheduler.now
        audioTimer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(20), leeway: .milliseconds(2), phase: .capture)
        audioTimer?.setEventHandler { [weak self] in
            if let audioBuffer = self?.readNextAudioFrame() {
                self?.sendAudio(audioBuffer)
            }
        }
        audioTimer?.schedule()      // schedule(deadline: .now(), repeating: .milliseconds(20), leeway: .milliseconds(2)) + resume()
    }

    private func readNextAudioFrame() -> PCMBuffer<Float>? {
        guard generator != nil else { return nil }
        // Generate 20ms worth of frames (960 frames at 48kHz) into the buffer allocated in init.
        generator?.fill(&audioBuffer.samples, count: audioBuffer.frameCount)
        return audioBuffer
    }

    func stopPlayback() {
        audioTimer?.cancel()
        audioTimer = nil
    }

    deinit {
        audioTimer?.cancel()
        generator = nil
    }

    /// The prompt's samples `range` (counted from its first pushed sample), made again.
    static func expectedAudio(_ range: Range<Int>) -> [Float] {
        Array(SignalGenerator.render(voice, sampleRate: 48_000, count: range.upperBound, seed: seed)[range])
    }
}

// MARK: - The call

// The peer talks (speech-like, seeded); the phone lies on a table: its loudspeaker reaches the
// microphone 40 ms later at −6 dB, over quiet room noise. `recordsTaps` keeps the signals in memory
// (6 s: a few MB) so that the latency can be looked up in what was sent.
let world = CallWorld(farEnd: .generator(.speechLike(levelDBFS: -20, pitchHz: 120), seed: 1),
                      noise: NoiseSettings(levelDBFS: -60, seed: 5),
                      echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -6))
let call = try SimulatedCall(world: world, voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .intensityRecommended),
                             recordsTaps: true)
// The meter is attached before the first tick: it measures every sample, as `echolab run` does.
let meter = try CallMeter(call: call)

try call.start()
meter.beginSegment("device mic, AEC intensityRecommended")
try call.run(for: .seconds(3))

// setCustomMic + playFile, as in the guide's usage — but the app forgets Case 1 for now.
meter.beginSegment("custom mic, AEC still on")
let customMic = PromptMicrophone(scheduler: call.scheduler)
call.audioManager.setCustomMic(customMic)
customMic.playPrompt()
try call.run(for: .milliseconds(1_500))

// Case 1: the source is not a microphone, so AEC off (PlanetKit: completion { success in … }).
meter.beginSegment("custom mic, AEC disabled (Case 1)")
try call.sendVoiceProcessor.setAcousticEchoCanceller(mode: .disabled)
try call.run(for: .milliseconds(1_500))

// Cleanup after call ends: the guide's stopPlayback + resetCustomMicToDefaultMic, then the report
// (`finish` ends the call).
customMic.stopPlayback()
call.audioManager.resetCustomMicToDefaultMic()
let report = try meter.finish(name: "app-call")

// MARK: - What the report says

// The whole call's ERLE is `echolab run`'s headline. It counts only the stretch where echo
// reached what was sent, the device mic: on the prompt there is no echo to remove, so its
// segments have no ERLE or ERL ("n/a"), and what the canceller did to the prompt with AEC still
// on is the finding's measure (sent_error_db).
func decibels(_ value: Double?) -> String { value.map { String(format: "%.1f dB", $0) } ?? "n/a" }

print("call: \(report.durationSeconds) s, \(report.pipeline.ticks) ticks, \(report.pipeline.underruns) underruns, \(report.sentClicks) clicks in sent")
print("ERLE whole call: \(decibels(report.metrics.erleDB)) (steady state \(decibels(report.metrics.erleSteadyDB)), ERL \(decibels(report.metrics.erlDB)))")
for segment in report.segments {
    let span = String(format: "%.2f-%.2f s", segment.startSeconds, segment.endSeconds)
    print("segment \(span) [\(segment.events.joined(separator: "; "))]: ERLE \(decibels(segment.metrics.erleDB)), ERL \(decibels(segment.metrics.erlDB))")
}
for finding in report.findings {
    // The lint's findings are the app's mistakes; a requirement finding is the canceller missing a
    // telephony standard's figure (TS 26.131's 46 dB echo loss).
    let label = finding.kind == .lint ? "finding" : "requirement missed"
    print("\(label) \(finding.rule) \(String(format: "%.2f-%.2f s", finding.atSeconds, finding.untilSeconds)): \(finding.message)")
    print("  measured: \(finding.consequenceMetric) \(decibels(finding.consequenceDB)): \(finding.consequence)")
}

// MARK: - The app path's latency

// The prompt's samples from 2 s on (the AEC-off stretch, where sent is the prompt untouched),
// looked up in what was sent: the lag with the least difference. Pushed at `pushedAt`, they are in
// sent `engine` later; before the push come the timer's 20 ms (a mic that captures in real time
// has its burst's first sample 20 ms old when the timer fires), and after it the tick's 10 ms
// (sent leaves the engine in 10 ms blocks, each once it is whole).
let rate = SimulatedCall.sampleRate
let offset = rate * 2, length = rate / 10                     // a 100 ms excerpt, on a push boundary
let excerpt = PromptMicrophone.expectedAudio(offset..<(offset + length))
let pushedAt = Int(customMic.startedAt!.nanoseconds * Int64(rate) / 1_000_000_000) + offset
let sent = call.recording.sent
var best = (lag: -1, error: Float.infinity)
for lag in 0..<(rate / 10) where pushedAt + lag + length <= sent.count {
    var error: Float = 0
    for i in 0..<length {
        let d = sent[pushedAt + lag + i] - excerpt[i]
        error += d * d
        if error >= best.error { break }
    }
    if error < best.error { best = (lag, error) }
}
let energy = excerpt.reduce(0) { $0 + $1 * $1 }
if best.lag >= 0, best.error <= energy * 1e-6 {
    let timer = 20.0, tick = 10.0, engine = Double(best.lag) * 1000 / Double(rate)
    print(String(format: "app path latency: %.1f ms = %.0f ms timer period + %.1f ms in the engine (pushed at %.3f s, in sent at %.3f s) + %.0f ms tick",
                 timer + engine + tick, timer, engine, Double(pushedAt) / Double(rate), Double(pushedAt + best.lag) / Double(rate), tick))
} else {
    print("app path latency: the prompt was not found in sent")
}

// MARK: - The report as `echolab run` writes it

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("AppCall-\(ProcessInfo.processInfo.processIdentifier)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
try report.json().canonicalText().write(to: folder.appendingPathComponent("report.json"), atomically: true, encoding: .utf8)
try MarkdownReport.render(report).write(to: folder.appendingPathComponent("report.md"), atomically: true, encoding: .utf8)
try HTMLReport.render(report).write(to: folder.appendingPathComponent("report.html"), atomically: true, encoding: .utf8)
print("reports: \(folder.path)/report.{json,md,html}")
