import AudioCore
import VirtualTime

/// One simulated call, as read from a scenario file. Paths are already resolved against the
/// scenario file's folder. See README "Scenario format" for the JSON keys.
public struct Scenario: Sendable {
    public var name: String
    /// The file the scenario came from, for error messages ("" when built in code).
    public var file: String
    /// What the peer says (the receive path). nil: silence.
    public var farEnd: SignalSource?
    /// The local talker at the microphone. nil: silence.
    public var nearEnd: SignalSource?
    public var noise: NoiseSettings?
    public var echoPath: EchoPathSettings
    public var voiceProcessing: VoiceProcessingSettings
    /// How long the call lasts; nil: as long as the longest input file.
    public var duration: VirtualDuration?
    /// The microphone in use when the call starts (`default` is the physical mic).
    public var mic: MicDevice
    /// The speaker in use when the call starts.
    public var speaker: SpeakerDevice
    /// Whether the app has started the user AEC reference when the call starts.
    public var isUserReferenceStarted: Bool
    public var timeline: [TimelineEvent]
    /// The audio session, route and hardware formats; nil: none modelled (see `CallHardware`).
    public var hardware: HardwareConfiguration?
    /// Every file the scenario reads, with the key that names it (filled by the loader), so that
    /// an output folder can be checked against them and a read error can name the key.
    public var inputs: [ScenarioInput] = []

    public init(name: String, file: String = "", farEnd: SignalSource? = nil, nearEnd: SignalSource? = nil,
                noise: NoiseSettings? = nil, echoPath: EchoPathSettings = EchoPathSettings(),
                voiceProcessing: VoiceProcessingSettings = VoiceProcessingSettings(),
                duration: VirtualDuration? = nil, mic: MicDevice = .default, speaker: SpeakerDevice = .default,
                isUserReferenceStarted: Bool = false, timeline: [TimelineEvent] = []) {
        self.name = name
        self.file = file
        self.farEnd = farEnd
        self.nearEnd = nearEnd
        self.noise = noise
        self.echoPath = echoPath
        self.voiceProcessing = voiceProcessing
        self.duration = duration
        self.mic = mic
        self.speaker = speaker
        self.isUserReferenceStarted = isUserReferenceStarted
        self.timeline = timeline
    }
}

extension Scenario {
    /// The files the scenario's devices write into the output folder (recording speakers'
    /// WAVs), at the start or on the timeline.
    public var deviceOutputFiles: [String] {
        var speakers = [speaker]
        for event in timeline { if case .setCustomSpeaker(let device) = event.action { speakers.append(device) } }
        var names: [String] = []
        for case .recording(let fileName, _) in speakers where !names.contains(fileName) { names.append(fileName) }
        return names
    }

    /// Whether the send path's latency (`SendVoiceProcessor.latencySamples`: the canceller's and
    /// the preprocessor's) stays what the call starts with: no AEC, NS or AGC mode change on the
    /// timeline.
    public var sendLatencyIsFixed: Bool {
        !timeline.contains { event in
            switch event.action {
            case .setEchoCanceller, .setNoiseSuppressor, .setAutoGainControl: true
            default: false
            }
        }
    }
}

/// A file a scenario reads: the dotted key that names it (`far_end`, `timeline[2].file`), the
/// resolved path, its length in frames and its rate.
public struct ScenarioInput: Hashable, Sendable {
    public var keyPath: String
    public var path: String
    public var frameCount: Int64
    public var sampleRate: Int

    public init(keyPath: String, path: String, frameCount: Int64, sampleRate: Int) {
        self.keyPath = keyPath
        self.path = path
        self.frameCount = frameCount
        self.sampleRate = sampleRate
    }

    /// Whole seconds the file lasts.
    public var seconds: Int64 { frameCount / Int64(max(1, sampleRate)) }

    /// Whether it is the file `key` names (`far_end`), as a path or as the `file` of its object.
    public func isFile(of key: String) -> Bool { keyPath == key || keyPath == key + ".file" }
}

/// Where a stream of samples comes from: a file (any format libsndfile reads, resampled to the
/// engine rate), or a seeded generator.
public enum SignalSource: Hashable, Sendable, CustomStringConvertible {
    /// A file's samples; `channel` picks one of a multichannel file's channels or mixes them
    /// (a mono file needs none, as a scenario file's `"far_end": "x.wav"` names none).
    case file(path: String, channel: ChannelSelection = .monoOnly)
    case generator(SignalKind, seed: UInt64)

    public var description: String {
        switch self {
        case .file(let path, _): path
        case .generator(let kind, let seed): "\(kind), seed \(seed)"
        }
    }
}

public struct NoiseSettings: Hashable, Sendable {
    /// RMS level of the white noise added at the microphone.
    public var levelDBFS: Double
    public var seed: UInt64
    public init(levelDBFS: Double, seed: UInt64) {
        self.levelDBFS = levelDBFS
        self.seed = seed
    }
}

/// The loudspeaker → microphone path: loudspeaker clipping, room response, bulk delay, gain.
public struct EchoPathSettings: Hashable, Sendable {
    public var delayMilliseconds: Double
    public var gainDB: Double
    public var impulseResponse: ImpulseResponseSource?
    /// Peak level the loudspeaker drive is clipped at (an overdriven speaker); nil: linear.
    public var clipDBFS: Double?

    public init(delayMilliseconds: Double = 0, gainDB: Double = 0, impulseResponse: ImpulseResponseSource? = nil, clipDBFS: Double? = nil) {
        self.delayMilliseconds = delayMilliseconds
        self.gainDB = gainDB
        self.impulseResponse = impulseResponse
        self.clipDBFS = clipDBFS
    }
}

public enum ImpulseResponseSource: Hashable, Sendable {
    /// A measured response from a file, used as it is (not normalised).
    case file(path: String, channel: ChannelSelection = .monoOnly)
    /// A seeded synthetic room: direct path plus an exponentially decaying diffuse tail with
    /// the given RT60, normalised to unit energy so `gain_db` alone sets the ERL of white noise.
    case synthetic(rt60Milliseconds: Double, seed: UInt64)
}

/// The send voice processor's settings when the call starts.
public struct VoiceProcessingSettings: Hashable, Sendable {
    public var echoCancellerMode: EchoCancellerMode
    public var backend: EchoCancellerBackend
    /// Overrides the mode's adaptive-filter length.
    public var filterMilliseconds: Int?
    public var noiseSuppressor: NoiseSuppressorMode
    public var autoGainControl: AutoGainControlMode

    public init(echoCancellerMode: EchoCancellerMode = .intensityRecommended, backend: EchoCancellerBackend = .speex,
                filterMilliseconds: Int? = nil, noiseSuppressor: NoiseSuppressorMode = .disabled,
                autoGainControl: AutoGainControlMode = .disabled) {
        self.echoCancellerMode = echoCancellerMode
        self.backend = backend
        self.filterMilliseconds = filterMilliseconds
        self.noiseSuppressor = noiseSuppressor
        self.autoGainControl = autoGainControl
    }
}
