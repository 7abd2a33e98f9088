/// One interface, many cancellers — WebRTC's `EchoControl` shape: the render side (what the
/// loudspeaker plays) and the capture side (the microphone) are separate calls, so each backend
/// owns its render buffering and alignment; it exposes its linear (adaptive-filter) output where
/// it has one, its own metrics, and its capabilities instead of being downcast. Backends come
/// from `EchoControlFactory`. Every call handles one frame of `frameSize` samples (10 ms) at
/// `sampleRate`, mono Float32 in [-1, 1], and allocates nothing.
///
/// Public, so a library user can run a canceller on recordings as `echolab process` does.
public protocol EchoControl: AnyObject {
    var backend: EchoCancellerBackend { get }
    var sampleRate: Int { get }
    var frameSize: Int { get }
    /// The PlanetKit intensity it runs now.
    var intensity: EchoCancellerMode { get }
    /// How the intensity maps onto this backend, for reports (`filter_ms`, `suppression_level` …).
    var settings: [String: EchoControlSetting] { get }

    /// The render side: one frame of what the loudspeaker plays.
    func analyzeRender(_ frame: [Float]) throws
    /// The capture side: one microphone frame in, the echo-cancelled frame out.
    func processCapture(_ frame: [Float], into output: inout [Float]) throws

    /// The adaptive filter's output for the last captured frame, before residual suppression;
    /// nil where the backend does not expose one.
    var linearOutput: [Float]? { get }
    /// Samples by which the output lags the capture (0 for lockstep cancellers; the resampling
    /// around a backend that runs at another rate).
    var latencySamples: Int { get }
    var metrics: EchoControlMetrics { get }
    /// Residual-echo suppression the caller may steer (`intensityAdaptive`), if the backend has it.
    var residualSuppression: ResidualSuppressionControl? { get }

    /// Switches to `intensity` keeping what was learned, if the backend can; false when only a
    /// new canceller can run it (the caller then makes one).
    func changeIntensity(to intensity: EchoCancellerMode) -> Bool

    /// The end of its run, after the last frame: where letting go can fail (a plugin's child
    /// crashing in its `destroy`), it throws, and the run fails as it would on a frame.
    func finish() throws
}

extension EchoControl {
    /// The cancellers in this process have nothing to finish: releasing them cannot fail.
    public func finish() throws {}
}

/// A setting as a report shows it.
public enum EchoControlSetting: Hashable, Sendable {
    case number(Double)
    case text(String)
    case flag(Bool)
}

/// What a backend measures of itself.
public struct EchoControlMetrics: Hashable, Sendable {
    /// Times it threw away its adapted filter because it diverged.
    public var divergenceResets = 0
    /// Its own running estimates, where it has them (dB, ms).
    public var erlDB: Double?
    public var erleDB: Double?
    public var delayMilliseconds: Double?

    public init(divergenceResets: Int = 0, erlDB: Double? = nil, erleDB: Double? = nil, delayMilliseconds: Double? = nil) {
        self.divergenceResets = divergenceResets
        self.erlDB = erlDB
        self.erleDB = erleDB
        self.delayMilliseconds = delayMilliseconds
    }
}

/// Residual-echo suppression in dB (negative): while only the far end talks, and in double talk.
public protocol ResidualSuppressionControl: AnyObject {
    var suppressionDB: Int { get }
    var doubleTalkSuppressionDB: Int { get }
    func setSuppression(farEndOnlyDB suppressionDB: Int, doubleTalkDB doubleTalk: Int)
    /// What the backend's own detectors made of the last captured frame, where it has them (nil
    /// by default): `intensityAdaptive` then measures from them instead of from level ratios.
    var talkState: TalkState? { get }
}

extension ResidualSuppressionControl {
    public var talkState: TalkState? { nil }
}

/// A backend's reading of one captured frame: the echo its linear filter modelled (mean square;
/// what the mic holds of the far end whoever else talks) and whether its near-end detector
/// heard the near talker.
public struct TalkState: Hashable, Sendable {
    public var modelledEchoPower: Float
    public var nearEndTalking: Bool

    public init(modelledEchoPower: Float, nearEndTalking: Bool) {
        self.modelledEchoPower = modelledEchoPower
        self.nearEndTalking = nearEndTalking
    }
}
