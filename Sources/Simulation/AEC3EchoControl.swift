import AudioCore
import AudioInterop

/// The aec3 backend: WebRTC's AEC3 (tg_owt's 2023 WebRTC), the canceller of current WebRTC calls,
/// at the engine's rate (16, 32 or 48 kHz; above 16 kHz WebRTC splits the bands itself). No delay
/// is reported to it: like an app that knows none, AEC3 finds the render→capture delay itself.
///
/// Intensities map onto its `EchoCanceller3Config`:
///
/// | intensity | linear filter | suppressor's masking thresholds | near end dominant below ENR |
/// |---|---|---|---|
/// | `intensityMin` | 13 blocks (52 ms) | × 2 | 0.5 |
/// | `intensityRecommended` | 13 blocks (52 ms) | × 1 | 0.25 |
/// | `intensityMax` | 18 blocks (72 ms) | × 0.5 | 0.125 |
///
/// Recommended is WebRTC's default configuration, as Chrome runs it. The suppressor lets a band
/// through while its residual echo is under `enr_transparent` times the near end and suppresses it
/// fully above `enr_suppress`: Min doubles both, so the near talker is cut least, and hands the
/// suppressor to its gentler near-end tuning at twice the echo-to-near-end ratio; Max halves them
/// and keeps the normal tuning longer. Max's filter covers 72 ms of tail after the bulk delay; a
/// 25-block filter (100 ms) converged too slowly to pay (a 0.3 s RT60 room, seconds 5–10: 29 dB
/// against 37 with 13 blocks). WebRTC's echo audibility thresholds and default echo path gain
/// changed nothing measurable on speech and were left at WebRTC's values.
///
/// AEC3 fixes its configuration when it is created. `intensityAdaptive` therefore runs the three
/// configurations side by side on the same frames — each keeps learning, so a switch loses
/// nothing — and outputs the one the adaptive controller chooses: −20 dB → Min, −40 dB →
/// Recommended, −60 dB → Max (it starts at Recommended). It costs three cancellers' time.
public final class AEC3EchoControl: EchoControl, ResidualSuppressionControl {
    public let backend = EchoCancellerBackend.aec3
    public let sampleRate: Int
    public let frameSize: Int
    public let intensity: EchoCancellerMode
    public let latencySamples: Int
    /// One processor per configuration it runs: one, or Min, Recommended, Max for adaptive.
    private let processors: [WebRTCAEC3Processor]
    private let intensities: [EchoCancellerMode]
    private var selected: Int
    /// The discarded outputs of the configurations not selected.
    private var scratch: [Float]

    /// `latencySamples`: as measured by the factory (`EchoControlLatency`).
    init(sampleRate: Int, frameSize: Int, intensity: EchoCancellerMode, latencySamples: Int) throws {
        guard intensity != .disabled else { throw EchoControlError.noCanceller(backend: "aec3", intensity: intensity) }
        guard WebRTCAEC3Processor.sampleRates.contains(sampleRate) else {
            throw EchoControlError.unsupportedRate(backend: "aec3", sampleRate: sampleRate, supported: "16000, 32000 or 48000 Hz")
        }
        guard frameSize * 100 == sampleRate else {
            throw EchoControlError.frameNotTenMilliseconds(backend: "aec3", frameSize: frameSize, sampleRate: sampleRate)
        }
        intensities = intensity == .intensityAdaptive ? [.intensityMin, .intensityRecommended, .intensityMax] : [intensity]
        processors = try intensities.map { try WebRTCAEC3Processor(sampleRate: sampleRate, settings: Self.configuration(for: $0)) }
        selected = intensities.firstIndex(of: intensity == .intensityAdaptive ? .intensityRecommended : intensity)!
        scratch = [Float](repeating: 0, count: frameSize)
        self.sampleRate = sampleRate
        self.frameSize = frameSize
        self.intensity = intensity
        self.latencySamples = latencySamples
    }

    /// The configuration of a fixed intensity (adaptive runs Min, Recommended and Max).
    static func configuration(for intensity: EchoCancellerMode) -> WebRTCAEC3Processor.Settings {
        var settings = WebRTCAEC3Processor.Settings()
        switch intensity {
        case .intensityMin:
            settings.maskingScale = 2
            settings.nearEndThreshold = 0.5
        case .intensityMax:
            settings.filterBlocks = 18
            settings.maskingScale = 0.5
            settings.nearEndThreshold = 0.125
        case .disabled, .intensityRecommended, .intensityAdaptive:
            break
        }
        return settings
    }

    static func settings(for intensity: EchoCancellerMode) -> [String: EchoControlSetting] {
        settings(of: configuration(for: intensity == .intensityAdaptive ? .intensityRecommended : intensity),
                 adaptive: intensity == .intensityAdaptive)
    }

    private static func settings(of configuration: WebRTCAEC3Processor.Settings, adaptive: Bool) -> [String: EchoControlSetting] {
        var settings: [String: EchoControlSetting] = [
            "filter_ms": .number(Double(configuration.filterBlocks * 4)),
            "masking_scale": .number(Double(configuration.maskingScale)),
            "nearend_enr_threshold": .number(Double(configuration.nearEndThreshold)),
            "library": .text(NativeLibraries.tgOwt),
        ]
        if adaptive { settings["runs_side_by_side"] = .text("intensityMin, intensityRecommended, intensityMax") }
        return settings
    }

    public var settings: [String: EchoControlSetting] {
        var settings = Self.settings(of: processors[selected].settings, adaptive: intensity == .intensityAdaptive)
        if intensity == .intensityAdaptive { settings["selected"] = .text(intensities[selected].rawValue) }
        return settings
    }

    public func analyzeRender(_ frame: [Float]) throws {
        for processor in processors { try processor.render(frame) }
    }

    public func processCapture(_ frame: [Float], into output: inout [Float]) throws {
        for index in processors.indices {
            if index == selected {
                try processors[index].capture(frame, into: &output)
            } else {
                try processors[index].capture(frame, into: &scratch)
            }
        }
    }

    public var linearOutput: [Float]? { nil }

    public var metrics: EchoControlMetrics {
        let own = processors[selected].statistics
        return EchoControlMetrics(erlDB: own.erlDB, erleDB: own.erleDB, delayMilliseconds: own.delayMilliseconds.map(Double.init))
    }

    /// Only adaptive has configurations to choose between.
    public var residualSuppression: ResidualSuppressionControl? { intensity == .intensityAdaptive ? self : nil }

    /// The selected configuration as dB, in the speex scale the adaptive controller speaks: Min
    /// −20, Recommended −40, Max −60 (double talk: −10, −15, −25).
    public var suppressionDB: Int { [-20, -40, -60][selected] }
    public var doubleTalkSuppressionDB: Int { [-10, -15, -25][selected] }

    /// AEC3 has its own double-talk handling (its near-end tuning): only `suppressionDB` chooses.
    public func setSuppression(farEndOnlyDB suppressionDB: Int, doubleTalkDB doubleTalk: Int) {
        guard intensity == .intensityAdaptive else { return }
        selected = suppressionDB > -30 ? 0 : suppressionDB > -50 ? 1 : 2
    }

    /// A configuration is fixed when AEC3 is made: only a new canceller runs another intensity.
    public func changeIntensity(to intensity: EchoCancellerMode) -> Bool { intensity == self.intensity }
}
