import AudioCore
import AudioInterop

/// The speex backend: speexdsp's MDF adaptive filter followed by the preprocessor's residual echo
/// suppression (noise suppression and AGC off here: they are separate stages of the send voice
/// processor). speex takes the two sides in lockstep, so the render frame is kept until the
/// capture frame comes. Converts Float32 ⇄ Int16 in preallocated buffers (speex takes Int16 only).
/// The preprocessor's overlap-add gives its output one frame late: `latencySamples` is a frame.
public final class SpeexEchoControl: EchoControl, ResidualSuppressionControl {
    public let backend = EchoCancellerBackend.speex
    public let frameSize: Int
    public let sampleRate: Int
    public private(set) var intensity: EchoCancellerMode
    public private(set) var configuration: EchoCancellerSettings
    private let filterOverride: Int?
    private let canceller: SpeexEchoCanceller
    private let suppressor: SpeexPreprocessor
    private var captureInt: [Int16]
    private var referenceInt: [Int16]
    private var outputInt: [Int16]
    private var linear: [Float]

    public init(frameSize: Int, sampleRate: Int, intensity: EchoCancellerMode, filterOverride: Int? = nil) throws {
        guard let configuration = EchoCancellerSettings(mode: intensity, filterOverride: filterOverride) else {
            throw EchoControlError.noCanceller(backend: "speex", intensity: intensity)
        }
        self.frameSize = frameSize
        self.sampleRate = sampleRate
        self.intensity = intensity
        self.configuration = configuration
        self.filterOverride = filterOverride
        canceller = try SpeexEchoCanceller(frameSize: frameSize,
                                           filterLength: max(frameSize, configuration.filterMilliseconds * sampleRate / 1000),
                                           sampleRate: sampleRate)
        suppressor = try SpeexPreprocessor(frameSize: frameSize, sampleRate: sampleRate)
        suppressor.linkEchoSuppression(to: canceller, suppressDB: configuration.suppressionDB,
                                       suppressActiveDB: configuration.doubleTalkSuppressionDB)
        // Each its own storage (one array assigned to three was copied at each's first write).
        captureInt = [Int16](repeating: 0, count: frameSize)
        referenceInt = [Int16](repeating: 0, count: frameSize)
        outputInt = [Int16](repeating: 0, count: frameSize)
        linear = [Float](repeating: 0, count: frameSize)
    }

    public var settings: [String: EchoControlSetting] { Self.settings(configuration) }

    static func settings(_ configuration: EchoCancellerSettings) -> [String: EchoControlSetting] {
        ["filter_ms": .number(Double(configuration.filterMilliseconds)),
         "suppression_db": .number(Double(configuration.suppressionDB)),
         "double_talk_suppression_db": .number(Double(configuration.doubleTalkSuppressionDB)),
         "library": .text(NativeLibraries.speexdsp)]
    }

    public func analyzeRender(_ frame: [Float]) {
        VectorMath.convert(frame, into: &referenceInt, count: frameSize)
    }

    public func processCapture(_ frame: [Float], into output: inout [Float]) {
        let n = frameSize
        VectorMath.convert(frame, into: &captureInt, count: n)
        canceller.cancel(capture: captureInt, reference: referenceInt, output: &outputInt)
        VectorMath.convert(outputInt, into: &linear, count: n)
        suppressor.process(&outputInt)
        VectorMath.convert(outputInt, into: &output, count: n)
    }

    public var linearOutput: [Float]? { linear }
    public var latencySamples: Int { frameSize }
    public var metrics: EchoControlMetrics { EchoControlMetrics(divergenceResets: canceller.divergenceResets) }
    public var residualSuppression: ResidualSuppressionControl? { self }

    public var suppressionDB: Int { configuration.suppressionDB }
    public var doubleTalkSuppressionDB: Int { configuration.doubleTalkSuppressionDB }

    /// Changes residual suppression in place (the filter keeps what it learned).
    public func setSuppression(farEndOnlyDB suppressionDB: Int, doubleTalkDB doubleTalk: Int) {
        guard suppressionDB != configuration.suppressionDB || doubleTalk != configuration.doubleTalkSuppressionDB else { return }
        configuration.suppressionDB = suppressionDB
        configuration.doubleTalkSuppressionDB = doubleTalk
        suppressor.linkEchoSuppression(to: canceller, suppressDB: suppressionDB, suppressActiveDB: doubleTalk)
    }

    /// An intensity with the same filter length keeps the filter and changes only suppression;
    /// another length needs a new filter (it re-converges, as a real engine does).
    public func changeIntensity(to intensity: EchoCancellerMode) -> Bool {
        guard let wanted = EchoCancellerSettings(mode: intensity, filterOverride: filterOverride),
              wanted.filterMilliseconds == configuration.filterMilliseconds else { return false }
        setSuppression(farEndOnlyDB: wanted.suppressionDB, doubleTalkDB: wanted.doubleTalkSuppressionDB)
        self.intensity = intensity
        return true
    }
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
    /// - `intensityMax` (200 ms, −60/−30 dB): loud speakerphones; the near end is ducked harder
    ///   during double talk — the price of no audible echo. Not a longer filter: speexdsp's 400 ms
    ///   filter converged so much more slowly that it removed *less* echo than Recommended on the
    ///   default corpus (mean steady ERLE 12.8 vs 14.3 dB; with 200 ms: 14.5 dB). `filter_ms`
    ///   gives a long tail to a room that needs one.
    /// `intensityAdaptive` starts from the recommended settings and moves the suppression with the
    /// measured ERL and double talk (see `AdaptiveIntensity`).
    public init?(mode: EchoCancellerMode, filterOverride: Int? = nil) {
        guard let settings = Self.defaults(for: mode, filterOverride: filterOverride) else { return nil }
        self = settings
    }

    private static func defaults(for mode: EchoCancellerMode, filterOverride: Int?) -> EchoCancellerSettings? {
        var settings: EchoCancellerSettings
        switch mode {
        case .disabled: return nil
        case .intensityMin: settings = .init(filterMilliseconds: 100, suppressionDB: -15, doubleTalkSuppressionDB: -5)
        case .intensityRecommended, .intensityAdaptive: settings = .init(filterMilliseconds: 200, suppressionDB: -40, doubleTalkSuppressionDB: -15)
        case .intensityMax: settings = .init(filterMilliseconds: 200, suppressionDB: -60, doubleTalkSuppressionDB: -30)
        }
        if let filterOverride { settings.filterMilliseconds = filterOverride }
        return settings
    }

    public var description: String {
        "filter \(filterMilliseconds) ms, suppression \(suppressionDB)/\(doubleTalkSuppressionDB) dB"
    }
}
