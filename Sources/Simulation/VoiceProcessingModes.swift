/// The AEC modes of PlanetKit's `setAcousticEchoCanceller(mode:)`.
public enum EchoCancellerMode: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case disabled
    case intensityMin
    case intensityRecommended
    case intensityMax
    case intensityAdaptive

    public var description: String { rawValue }
}

/// Echo canceller implementations behind the `EchoCanceller` protocol.
public enum EchoCancellerBackend: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// speexdsp's MDF canceller with the preprocessor's residual echo suppression.
    case speex

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
