/// One interface, many cancellers (WebRTC's `EchoControl` in spirit): the send voice processor
/// hands each backend one engine tick of capture and reference and takes the cleaned capture.
/// Implementations allocate nothing in `process`.
public protocol EchoCanceller: AnyObject {
    /// Samples per `process` call (one engine tick).
    var frameSize: Int { get }
    /// The settings the backend runs with now (they may change: `intensityAdaptive`).
    var settings: EchoCancellerSettings { get }
    /// Cancels echo of `reference` from `capture` into `output` (all `frameSize` long).
    func process(capture: [Float], reference: [Float], output: inout [Float])
    /// Times the backend threw away its adapted filter because it diverged (0 for backends
    /// that never do).
    var divergenceResets: Int { get }
}

/// What an AEC intensity means for a backend: how long an echo tail the adaptive filter models
/// and how hard residual echo is suppressed after it.
public struct EchoCancellerSettings: Hashable, Sendable, CustomStringConvertible {
    public var filterMilliseconds: Int
    /// Residual echo attenuation while only the far end talks (dB, negative).
    public var suppressionDB: Int
    /// Residual echo attenuation while both talk (dB, negative; milder, to keep the near end).
    public var doubleTalkSuppressionDB: Int

    public init(filterMilliseconds: Int, suppressionDB: Int, doubleTalkSuppressionDB: Int) {
        self.filterMilliseconds = filterMilliseconds
        self.suppressionDB = suppressionDB
        self.doubleTalkSuppressionDB = doubleTalkSuppressionDB
    }

    /// The fixed intensities. Why these numbers:
    /// - `intensityMin` (100 ms, −15/−5 dB): a short filter converges fastest and costs least; enough
    ///   for a handset or headset whose echo tail is short; light suppression keeps double talk natural.
    /// - `intensityRecommended` (200 ms, −40/−15 dB): speexdsp's own defaults for suppression and a
    ///   tail that covers a typical phone on a table in an ordinary room.
    /// - `intensityMax` (400 ms, −60/−30 dB): long reverberant rooms and loud speakerphones; the
    ///   near end is ducked harder during double talk — the price of no audible echo.
    /// `intensityAdaptive` starts from the recommended settings and moves the suppression with the
    /// measured ERL and double talk (see `AdaptiveIntensity`).
    public static func forMode(_ mode: EchoCancellerMode, filterOverride: Int? = nil) -> EchoCancellerSettings? {
        var settings: EchoCancellerSettings
        switch mode {
        case .disabled: return nil
        case .intensityMin: settings = .init(filterMilliseconds: 100, suppressionDB: -15, doubleTalkSuppressionDB: -5)
        case .intensityRecommended, .intensityAdaptive: settings = .init(filterMilliseconds: 200, suppressionDB: -40, doubleTalkSuppressionDB: -15)
        case .intensityMax: settings = .init(filterMilliseconds: 400, suppressionDB: -60, doubleTalkSuppressionDB: -30)
        }
        if let filterOverride { settings.filterMilliseconds = filterOverride }
        return settings
    }

    public var description: String {
        "filter \(filterMilliseconds) ms, suppression \(suppressionDB)/\(doubleTalkSuppressionDB) dB"
    }
}
