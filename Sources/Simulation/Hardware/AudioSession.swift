/// How a scenario sets up the audio session and hardware (`audio_session`, `route`,
/// `clock_drift_ppm`). A scenario without these keys has none: the engine then talks to the room
/// directly at 48 kHz.
public struct HardwareConfiguration: Hashable, Sendable {
    /// `setPreferredSampleRate` / `setPreferredIOBufferDuration` before the first activation.
    public var preferences = AudioPreferences()
    /// WebRTC's `RTCAudioSession.useManualAudio`: the app, not the engine, decides when audio
    /// runs (`isAudioEnabled`, off at the start).
    public var usesManualAudio = false
    /// Whether the session is already active when the call starts (CallKit's `didActivate`
    /// came first); false: a timeline `activate_session` brings it up.
    public var activeAtStart = true
    /// The route at the start; nil: the scenario's own `echo_path` on built-in ports.
    public var route: AudioRoute?
    public var inputDataSource: InputDataSource = .bottom
    /// How far the input device's clock is off the output device's (and the engine's), in ppm.
    public var clockDriftPPM: Double = 0
    /// The input device's stream converts through the drift's resampler even at 0 ppm, with its
    /// band limit and look-ahead: the control of a drifting call (`clock-drift-not-followed`),
    /// which must differ from it in the clock alone. Not a scenario key.
    public var convertsCaptureOnOneClock = false

    public init() {}
}

/// What the app (or the OS) does to the session during a call: timeline actions.
public enum HardwareAction: Hashable, Sendable, CustomStringConvertible {
    case routeChange(AudioRoute)
    case setInputDataSource(InputDataSource)
    /// CallKit's `provider(_:didActivate:)`.
    case activateSession
    /// CallKit's `provider(_:didDeactivate:)`.
    case deactivateSession
    /// WebRTC's `RTCAudioSession.isAudioEnabled` (only meaningful with manual audio).
    case setAudioEnabled(Bool)
    case interruptionBegin
    case interruptionEnd
    /// New preferences: they take effect at the next activation (002).
    case setPreferred(AudioPreferences)

    public var description: String {
        switch self {
        case .routeChange(let route): "route_change \(route.rawValue)"
        case .setInputDataSource(let source): "set_input_data_source \(source.rawValue)"
        case .activateSession: "activate_session"
        case .deactivateSession: "deactivate_session"
        case .setAudioEnabled(let enabled): "set_audio_enabled \(enabled)"
        case .interruptionBegin: "interruption_begin"
        case .interruptionEnd: "interruption_end"
        case .setPreferred(let preferences):
            "set_preferred" + (preferences.sampleRate.map { " \($0) Hz" } ?? "")
                + (preferences.ioBufferDurationSeconds.map { " \($0) s" } ?? "")
        }
    }
}

/// Why audio did not flow in a tick (the counters keep the causes apart).
public enum SilenceCause: String, CaseIterable, Sendable {
    /// The session was not active (before `didActivate`, after `didDeactivate`).
    case inactive
    /// An interruption (a phone call, Siri, an alarm) held the session.
    case interrupted
    /// Manual audio with `isAudioEnabled` false.
    case audioDisabled = "audio_disabled"
}

/// Where audio went while the session did not let it flow, per cause: mic samples the engine
/// replaced by silence, downlink samples it never played.
public struct SessionCounters: Hashable, Sendable {
    public var captureSilenced: [SilenceCause: Int64] = [:]
    public var playoutDropped: [SilenceCause: Int64] = [:]
    /// Capture a custom mic delivered while audio did not flow, discarded by the engine.
    public var customMicFramesDiscarded: Int64 = 0

    public init() {}

    public var totalCaptureSilenced: Int64 { captureSilenced.values.reduce(0, +) }
}

/// A session mistake found while the call ran, over the stretch it lasted, with what it cost
/// (`samples`: engine samples silenced or discarded, or spent in the wrong state).
public struct SessionIssue: Hashable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// The engine ran audio before the session was active: everything it did was silence.
        case audioBeforeActivation = "audio-before-activation"
        /// Preferences changed while active: they wait for the next activation.
        case preferencesChangedWhileActive = "preferences-changed-while-active"
        /// The engine (not in manual audio) reconfigured the session when the connection came
        /// up and reset the app's speaker route to the receiver (the CallKit + WebRTC article).
        case routeResetAfterConnect = "route-reset-after-connect"
        /// The session went inactive while a custom device was still set: its audio is lost.
        case deactivatedWithCustomDevice = "deactivated-with-custom-device"
        /// An interruption (a phone call, an alarm) held the session while a custom mic that is
        /// not a microphone (a file, a stream, TTS) kept delivering: the engine discarded it.
        case interruptedWithCustomMic = "interrupted-with-custom-mic"
        /// Manual audio: the session is active but `isAudioEnabled` is false (never set in
        /// `didActivate`, or set false while active): the call is silent both ways.
        case audioDisabledWhileActive = "audio-disabled-while-active"
    }

    public var kind: Kind
    public var frames: Range<Int64>
    /// `deactivatedWithCustomDevice`, `interruptedWithCustomMic`: the custom mic's samples
    /// discarded; the others: engine samples silenced (or 0).
    public var samples: Int64
    public var detail: String
    /// `deactivatedWithCustomDevice`: which custom devices were set over the stretch, and the
    /// peer's samples a custom speaker was not given (it was handed silence instead).
    public var customMicSet = false
    public var customSpeakerSet = false
    public var playoutSamples: Int64 = 0
}
