/// The AEC modes of PlanetKit's `setAcousticEchoCanceller(mode:)`.
public enum EchoCancellerMode: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case disabled
    case intensityMin
    case intensityRecommended
    case intensityMax
    case intensityAdaptive

    public var description: String { rawValue }
}

/// Echo canceller implementations behind the `EchoControl` protocol.
public enum EchoCancellerBackend: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// speexdsp's MDF canceller with the preprocessor's residual echo suppression.
    case speex
    /// webrtc-audio-processing 0.3's AEC (the legacy desktop canceller, with its non-linear processor).
    case webrtc
    /// webrtc-audio-processing 0.3's AECM, the mobile canceller (runs at 16 kHz, resampled around).
    case webrtcMobile = "webrtc-mobile"

    public var description: String { rawValue }
}

/// `setNoiseSuppressor(mode:)`.
public enum NoiseSuppressorMode: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case disabled, enabled
    public var description: String { rawValue }
}

/// `setAutoGainControl(mode:)`.
public enum AutoGainControlMode: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case disabled, software
    public var description: String { rawValue }
}
