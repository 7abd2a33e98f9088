import AudioCore
import AudioInterop
import Foundation
import VirtualTime

/// Everything one simulated call produced, for the metrics and the reports.
public struct CallRun: Sendable {
    public var scenario: Scenario
    public var sampleRate: Int
    public var duration: VirtualDuration
    public var recording: CallRecording
    public var counters: PipelineCounters
    public var events: [CallEvent]
    public var deviceStates: [DeviceState]
    /// Frames at which the timeline acted (segment boundaries).
    public var timelineFrames: [Int64]
    public var adaptiveDecisions: [AdaptiveDecision]
    /// The hardware model's report (nil: the scenario models no hardware).
    public var hardware: HardwareReport? = nil
    /// The name a canceller plugin gave itself (`echolab_canceller_api.name`), when one ran.
    public var pluginName: String? = nil
    /// The files the plugin cancellers were loaded from (`SendVoiceProcessor.pluginFiles`).
    public var pluginFiles: Set<FileIdentity> = []
    /// The latency it reported (`latency_samples`, at its own rate).
    public var pluginLatencySamples: Int? = nil

    /// A run from its parts, for a call driven by hand rather than by `ScenarioRunner` (app code
    /// measured with `Evaluation.CallMeter`, which builds one). `counters` are what
    /// `SimulatedCall.end()` returned; `timelineFrames` open the report's segments.
    public init(scenario: Scenario, sampleRate: Int, duration: VirtualDuration, recording: CallRecording,
                counters: PipelineCounters, events: [CallEvent], deviceStates: [DeviceState],
                timelineFrames: [Int64], adaptiveDecisions: [AdaptiveDecision], hardware: HardwareReport? = nil) {
        self.scenario = scenario
        self.sampleRate = sampleRate
        self.duration = duration
        self.recording = recording
        self.counters = counters
        self.events = events
        self.deviceStates = deviceStates
        self.timelineFrames = timelineFrames
        self.adaptiveDecisions = adaptiveDecisions
        self.hardware = hardware
    }
}

/// Builds a `SimulatedCall` from a `Scenario` — world, voice processing, the devices selected at
/// the start and on the timeline, each driven by its own app timer — and runs it to the end.
public struct ScenarioRunner {
    public var scenario: Scenario
    /// Where device outputs (a recording speaker's WAV) go; nil: a temporary folder.
    public var outputDirectory: String?
    /// Keep every signal in memory (`CallRun.recording`); off when `taps` stream them instead.
    public var recordsTaps = true
    /// Tick consumers attached to the call before it starts.
    public var taps: [CallTap] = []
    /// Decoded inputs shared by the calls of a corpus (`SimulatedCall.decodedAudio`); nil streams.
    public var decodedAudio: DecodedAudioCache?
    /// The echo of calls run before, shared by the calls of a corpus (`SimulatedCall.echoPaths`);
    /// nil computes every echo.
    public var echoPaths: EchoPathCache?
    /// The cancellers' latencies, shared by the calls of a corpus; nil: the call keeps its own.
    public var latencies: EchoControlLatencies?
    /// What the hardware streams of calls run before did, shared by the calls of a corpus
    /// (`CallHardware`'s records); nil converts every tick.
    public var hardwareStreams: HardwareStreamRecords?

    public init(scenario: Scenario, outputDirectory: String? = nil, recordsTaps: Bool = true, taps: [CallTap] = [],
                decodedAudio: DecodedAudioCache? = nil, echoPaths: EchoPathCache? = nil, latencies: EchoControlLatencies? = nil) {
        self.scenario = scenario
        self.outputDirectory = outputDirectory
        self.recordsTaps = recordsTaps
        self.taps = taps
        self.decodedAudio = decodedAudio
        self.echoPaths = echoPaths
        self.latencies = latencies
    }

    /// The longest call a scenario may describe (`duration_s` allows as much).
    public static let longestCallSeconds: Int64 = 86_400

    /// The call's length: the scenario's duration, or the longest input file rounded up to a tick.
    /// A file's length is the one the scenario's reader found (`inputs`); only a scenario made in
    /// code, without them, has its files' headers read here.
    public func duration() throws -> VirtualDuration {
        if let duration = scenario.duration { return duration }
        var longest: Int64 = 0
        for (key, source) in [("far_end", scenario.farEnd), ("near_end", scenario.nearEnd)] {
            if case .file(let path, _)? = source {
                let (frameCount, sampleRate): (Int64, Int)
                if let input = scenario.inputs.first(where: { $0.isFile(of: key) && $0.path == path }) {
                    (frameCount, sampleRate) = (input.frameCount, input.sampleRate)
                } else {
                    let reader = try SoundFileReader(path: path)
                    (frameCount, sampleRate) = (reader.frameCount, reader.sampleRate)
                }
                // In two parts: frames × 10⁹ overflows Int64 past 9.2·10⁹ frames (a lying header).
                let rate = Int64(sampleRate)
                let (seconds, rest) = frameCount.quotientAndRemainder(dividingBy: rate)
                let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
                guard !nanoseconds.overflow, seconds <= Self.longestCallSeconds else {
                    throw ScenarioError(file: scenario.file, key: "duration_s",
                                        problem: "\(path) lasts \(seconds) s; a call is at most \(Self.longestCallSeconds) s (24 h): give duration_s")
                }
                longest = max(longest, nanoseconds.partialValue + rest * 1_000_000_000 / rate)
            }
        }
        guard longest > 0 else {
            throw ScenarioError(file: scenario.file, key: "duration_s",
                                problem: "the far-end and near-end files hold no audio, so the call would be empty; give duration_s")
        }
        let tick = SimulatedCall.tickDuration.nanoseconds
        return .nanoseconds((longest + tick - 1) / tick * tick)
    }

    public func run() throws -> CallRun {
        try run(for: duration())
    }

    /// Runs the call for `duration` (when the caller already computed `duration()`). An audio
    /// file that fails while the call reads it (NaN samples, a read error) is reported with the
    /// scenario file and the key that names it.
    public func run(for duration: VirtualDuration) throws -> CallRun {
        do {
            return try simulate(for: duration)
        } catch let error as AudioIOError {
            guard let path = error.path, let input = scenario.inputs.first(where: { $0.path == path }) else { throw error }
            throw ScenarioError(file: scenario.file, key: input.keyPath, problem: error.description)
        }
    }

    private func simulate(for duration: VirtualDuration) throws -> CallRun {
        if let late = scenario.timeline.first(where: { $0.at >= duration }) {
            throw ScenarioError(file: scenario.file, key: "timeline",
                                problem: "event \(late.action) at \(late.at) is not before the end of the call (\(duration))")
        }
        let world = CallWorld(farEnd: scenario.farEnd, nearEnd: scenario.nearEnd, noise: scenario.noise, echoPath: scenario.echoPath)
        let call = try SimulatedCall(world: world, voiceProcessing: scenario.voiceProcessing,
                                     recordsTaps: recordsTaps, expectedDuration: duration, decodedAudio: decodedAudio,
                                     echoPaths: echoPaths, latencies: latencies)
        call.taps = taps
        if let configuration = scenario.hardware {
            call.hardware = try CallHardware(configuration: configuration, records: hardwareStreams,
                                             expectedTicks: SimulatedCall.tickCount(for: duration))
        }
        let devices = DeviceDriver(call: call, outputDirectory: outputDirectory ?? TemporaryFolder.base, scenarioFile: scenario.file)
        if scenario.isUserReferenceStarted { call.startUserAcousticEchoCancellerReference() }
        try devices.apply(.setCustomMic(scenario.mic))
        try devices.apply(.setCustomSpeaker(scenario.speaker))
        var timelineFrames: [Int64] = []
        var timelineError: Error?
        for event in scenario.timeline {
            timelineFrames.append(event.at.nanoseconds * Int64(SimulatedCall.sampleRate) / 1_000_000_000)
            call.scheduler.schedule(at: .zero + event.at, phase: .transition) {
                call.logEvent(kind: "timeline", detail: event.action.description)
                do { try devices.apply(event.action) } catch { timelineError = timelineError ?? error }
            }
        }
        try call.start()
        try call.run(for: duration)
        if let timelineError { throw timelineError }
        try call.sendVoiceProcessor.finishCanceller()
        // The pipeline as the call left it, before the devices are let go: what a buffer still
        // holds at the end is buffered, as the loudspeaker's is, not dropped because a device's
        // teardown cleared it (a mixing speaker stops the reference it put, and its leftover
        // goes with it: a fixed missing reference would read as a rise in dropped samples).
        let counters = call.counters
        try devices.finish()
        let hardware = call.hardware?.report(endFrame: call.tickCount * Int64(SimulatedCall.tickFrames))
        call.end()
        var run = CallRun(scenario: scenario, sampleRate: SimulatedCall.sampleRate, duration: duration, recording: call.recording,
                          counters: counters, events: call.events, deviceStates: call.deviceStates,
                          timelineFrames: timelineFrames.sorted(), adaptiveDecisions: call.sendVoiceProcessor.adaptiveDecisions,
                          hardware: hardware)
        run.pluginName = call.sendVoiceProcessor.pluginName
        run.pluginFiles = call.sendVoiceProcessor.pluginFiles
        run.pluginLatencySamples = call.sendVoiceProcessor.pluginLatencySamples
        return run
    }
}

/// Creates, starts and stops the shipped devices the way an app would: set the device, start
/// its timer; on reset, stop the timer and reset to the default device.
final class DeviceDriver {
    let call: SimulatedCall
    let outputDirectory: String
    let scenarioFile: String
    private var mic: CustomMic?
    /// Mics replaced by another custom mic, pushing until the engine lets go of them; let go here
    /// once it has (at the next action, or with the rest at the end).
    private var handingOver: [CustomMic] = []
    private var speaker: CustomSpeaker?
    private var recorders: [RecordingSpeaker] = []
    /// The devices made, in order, for `finish` to report the first failure: a running one, or
    /// what a stopped one failed with. A stopped device is let go (its file's stream, its
    /// resampler), so memory follows the devices running, not the timeline's switches.
    private var devices: [Device] = []
    /// The file mics' inputs, decoded once for the whole call when the call has no corpus cache
    /// of its own: each switch to a file mic reads it again from the start.
    private let micFiles: DecodedAudioCache

    private enum Device {
        case running(TimerDrivenDevice)
        case failed(Error)
    }

    /// What the file mics of a call without a corpus cache may hold decoded (a file longer than
    /// `DecodedAudioCache.maximumFrames`, or past this, streams).
    static let micFileBudgetBytes = 64 << 20

    init(call: SimulatedCall, outputDirectory: String, scenarioFile: String) {
        self.call = call
        self.outputDirectory = outputDirectory
        self.scenarioFile = scenarioFile
        micFiles = call.decodedAudio ?? DecodedAudioCache(budgetBytes: Self.micFileBudgetBytes)
    }

    func apply(_ action: TimelineAction) throws {
        handingOver.removeAll { old in
            guard !old.isInUse else { return false }
            retire(old)
            return true
        }
        let processor = call.sendVoiceProcessor
        switch action {
        case .setCustomMic(.default), .resetCustomMic:
            stopMic()
            call.audioManager.resetCustomMicToDefaultMic()
        case .setCustomMic(let device):
            // From one custom mic to another, the old one goes on pushing until the engine lets
            // go of it (its `didStopCapturing` stops it), so the switch is make-before-break for
            // the app too: stopped first, it runs dry under the switch. A pass-through mic handing
            // over to another stops first: both would hold the one microphone.
            var bothPassThrough = false
            if case .passThrough = device { bothPassThrough = mic is PassThroughMicrophone }
            if let old = mic, !bothPassThrough {
                handingOver.append(old)
                mic = nil
            } else {
                stopMic()
            }
            let made = try makeMic(device)
            call.audioManager.setCustomMic(made)
            try startMic(made)
            mic = made
        case .setCustomSpeaker(.default), .resetCustomSpeaker:
            stopSpeaker()
            call.audioManager.resetCustomSpeakerToDefaultSpeaker()
        case .setCustomSpeaker(let device):
            stopSpeaker()
            let made = try makeSpeaker(device)
            call.audioManager.setCustomSpeaker(made)
            try startSpeaker(made)
            speaker = made
        // The call logs each mode change (`SendVoiceProcessor.onChange`).
        case .setEchoCanceller(let mode): try processor.setAcousticEchoCanceller(mode: mode)
        case .setNoiseSuppressor(let mode): try processor.setNoiseSuppressor(mode: mode)
        case .setAutoGainControl(let mode): try processor.setAutoGainControl(mode: mode)
        case .startUserReference: call.startUserAcousticEchoCancellerReference()
        case .stopUserReference: call.stopUserAcousticEchoCancellerReference()
        case .mute: call.mute()
        case .unmute: call.unmute()
        case .hardware(let action): try call.hardware?.apply(action, at: call.currentFrame)
        }
    }

    /// Closes recordings and reports the first device failure.
    func finish() throws {
        stopMic()
        stopSpeaker()
        for recorder in recorders { try recorder.finish() }
        for device in devices {
            switch device {
            case .running(let device): if let error = device.failure { throw error }
            case .failed(let error): throw error
            }
        }
    }

    private func makeMic(_ device: MicDevice) throws -> CustomMic {
        switch device {
        case .default: preconditionFailure("the default mic is not a custom mic")
        case .file(let source, let loops, let options):
            let mic: SourceMicrophone
            switch source {
            case .file(let path, let channel):
                mic = try FileMicrophone(call: call, path: path, channel: channel, loops: loops, options: options, decoded: micFiles)
            case .generator(let kind, let seed):
                // A file mic playing a generator is still the file mic the scenario set, in the
                // events and the lint (not "generator microphone").
                mic = try SourceMicrophone(call: call, source: .generator(kind, seed: seed), loops: false, options: options,
                                           name: "file microphone")
            }
            devices.append(.running(mic))
            return mic
        case .generator(let kind, let seed, let options):
            let mic = try GeneratorMicrophone(call: call, signal: kind, seed: seed, options: options)
            devices.append(.running(mic))
            return mic
        case .passThrough(let options):
            let mic = PassThroughMicrophone(call: call, options: options)
            devices.append(.running(mic))
            return mic
        }
    }

    private func makeSpeaker(_ device: SpeakerDevice) throws -> CustomSpeaker {
        switch device {
        case .default: preconditionFailure("the default speaker is not a custom speaker")
        case .recording(let fileName, let options):
            let path = URL(fileURLWithPath: outputDirectory).appendingPathComponent(fileName).path
            if let existing = recorders.first(where: { $0.path == path }) { return existing }
            let recorder = RecordingSpeaker(call: call, path: path, options: options)
            recorders.append(recorder)
            devices.append(.running(recorder))
            return recorder
        case .mixing(let music, let gain, let putsReference, let options):
            let mixer = try MixingSpeaker(call: call, music: music, musicGainDB: gain, putsReference: putsReference, options: options)
            devices.append(.running(mixer))
            return mixer
        case .passThrough(let putsReference, let options):
            let speaker = PassThroughSpeaker(call: call, putsReference: putsReference, options: options)
            devices.append(.running(speaker))
            return speaker
        }
    }

    private func startMic(_ mic: CustomMic) throws {
        try (mic as? TimerDrivenDevice)?.start()
    }

    private func stopMic() {
        (mic as? TimerDrivenDevice)?.stop()
        retire(mic)
        mic = nil
    }

    private func startSpeaker(_ speaker: CustomSpeaker) throws {
        try (speaker as? TimerDrivenDevice)?.start()
    }

    private func stopSpeaker() {
        (speaker as? TimerDrivenDevice)?.stop()
        // A recording speaker is set again by its file's name and goes on writing it.
        if !(speaker is RecordingSpeaker) { retire(speaker) }
        speaker = nil
    }

    /// Lets a stopped device go, keeping only what it failed with (its timer is stopped: nothing
    /// more can fail).
    private func retire(_ stopped: AnyObject?) {
        guard let stopped, let index = devices.firstIndex(where: { if case .running(let device) = $0 { device === stopped } else { false } }),
              case .running(let device) = devices[index] else { return }
        if let failure = device.failure { devices[index] = .failed(failure) } else { devices.remove(at: index) }
    }
}
