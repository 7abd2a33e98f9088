import AudioCore
import VirtualTime

/// How an app device's own timer and buffers behave: the reference code's 20 ms
/// `DispatchSourceTimer` with 2 ms leeway, Float32 mono 48 kHz — each changeable, so a scenario
/// can test 50 ms pulls, jittery timers, Int16 stereo at 44.1 kHz.
public struct AppDeviceOptions: Hashable, Sendable {
    public var periodMilliseconds: Int = 20
    public var leewayMilliseconds: Int = 2
    /// ± jitter on every firing (0: on time).
    public var jitterMilliseconds: Double = 0
    public var jitterSeed: UInt64 = 0
    /// The format of the buffers the app exchanges with the engine.
    public var sampleRate: Int = 48_000
    public var channelCount: Int = 1
    public var sampleType: SampleType = .float32

    public init() {}

    /// Frames in one timer period at the app's rate.
    public var framesPerPeriod: Int { sampleRate * periodMilliseconds / 1000 }

    /// The app's timer, firing `handler` from now on (`schedule` + `resume` of the reference code).
    func startTimer(on scheduler: Scheduler, phase: SchedulerPhase, _ handler: @escaping () -> Void) -> RepeatingTimer {
        let timer = makeTimer(on: scheduler, phase: phase)
        timer.setEventHandler(handler)
        timer.schedule()
        return timer
    }

    func makeTimer(on scheduler: Scheduler, phase: SchedulerPhase) -> RepeatingTimer {
        let jitter = jitterMilliseconds > 0
            ? TimerJitter(amplitude: .nanoseconds(Int64(jitterMilliseconds * 1e6)), seed: jitterSeed) : nil
        return RepeatingTimer(scheduler: scheduler, period: .milliseconds(Int64(periodMilliseconds)),
                              leeway: jitter == nil ? .zero : .milliseconds(Int64(leewayMilliseconds)),
                              jitter: jitter, phase: phase)
    }
}

/// A microphone a scenario can select, by name in the file.
public enum MicDevice: Hashable, Sendable {
    /// The physical microphone (`"default"`).
    case `default`
    /// A file played as the mic (`"file"`): stops (silence) or loops at its end.
    case file(SignalSource, loops: Bool, options: AppDeviceOptions)
    /// A tone or noise generator as the mic (`"generator"`).
    case generator(SignalKind, seed: UInt64, options: AppDeviceOptions)
    /// The physical mic captured by the app and pushed as a custom mic (`"passthrough"`).
    case passThrough(options: AppDeviceOptions)
}

/// A speaker a scenario can select, by name in the file.
public enum SpeakerDevice: Hashable, Sendable {
    /// The physical speaker (`"default"`).
    case `default`
    /// Writes what the peer said to a WAV in the output folder; nothing reaches the room (`"recording"`).
    case recording(fileName: String, options: AppDeviceOptions)
    /// Peer + background music to the loudspeaker (`"mixing"`), optionally telling the canceller
    /// what is really played through the user AEC reference.
    case mixing(music: SignalSource, musicGainDB: Double, putsReference: Bool, options: AppDeviceOptions)
    /// Plays the peer unchanged on the loudspeaker through the app (`"passthrough"`).
    case passThrough(putsReference: Bool, options: AppDeviceOptions)
}

/// Something that happens at a point of the call, from the scenario's `timeline`.
public struct TimelineEvent: Hashable, Sendable {
    public var at: VirtualDuration
    public var action: TimelineAction
    public init(at: VirtualDuration, action: TimelineAction) {
        self.at = at
        self.action = action
    }
}

public enum TimelineAction: Hashable, Sendable, CustomStringConvertible {
    case setCustomMic(MicDevice)
    case resetCustomMic
    case setCustomSpeaker(SpeakerDevice)
    case resetCustomSpeaker
    case setEchoCanceller(EchoCancellerMode)
    case setNoiseSuppressor(NoiseSuppressorMode)
    case setAutoGainControl(AutoGainControlMode)
    case startUserReference
    case stopUserReference
    case mute
    case unmute
    /// A session or route action (`CallHardware`).
    case hardware(HardwareAction)

    public var description: String {
        switch self {
        case .setCustomMic(let device): "set_custom_mic \(device.name)"
        case .resetCustomMic: "reset_custom_mic"
        case .setCustomSpeaker(let device): "set_custom_speaker \(device.name)"
        case .resetCustomSpeaker: "reset_custom_speaker"
        case .setEchoCanceller(let mode): "set_aec \(mode)"
        case .setNoiseSuppressor(let mode): "set_ns \(mode)"
        case .setAutoGainControl(let mode): "set_agc \(mode)"
        case .startUserReference: "start_user_reference"
        case .stopUserReference: "stop_user_reference"
        case .mute: "mute"
        case .unmute: "unmute"
        case .hardware(let action): action.description
        }
    }
}

extension MicDevice {
    public var name: String {
        switch self {
        case .default: "default"
        case .file: "file"
        case .generator: "generator"
        case .passThrough: "passthrough"
        }
    }
}

extension SpeakerDevice {
    public var name: String {
        switch self {
        case .default: "default"
        case .recording: "recording"
        case .mixing: "mixing"
        case .passThrough: "passthrough"
        }
    }
}
