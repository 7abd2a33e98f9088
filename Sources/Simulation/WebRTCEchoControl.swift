import AudioCore
import AudioInterop

/// The webrtc backend: webrtc-audio-processing 0.3's AEC (the canceller of WebRTC's desktop calls)
/// at the engine's rate, with the extended filter and delay-agnostic mode on — the engine knows
/// nothing of the acoustic delay, so the AEC estimates it, as it does in browsers. Intensities map
/// onto its non-linear processor's suppression level:
/// - `intensityMin` → low (keeps double talk most natural),
/// - `intensityRecommended` and `intensityAdaptive` (start) → moderate (WebRTC's default),
/// - `intensityMax` → high.
/// Its linear filter output is internal to WebRTC: `linearOutput` is nil. Its block processing
/// (and, above 16 kHz, its band-splitting filters) delay the output by `latencySamples`.
public final class WebRTCEchoControl: EchoControl, ResidualSuppressionControl {
    public let backend = EchoCancellerBackend.webrtc
    public let sampleRate: Int
    public let frameSize: Int
    public private(set) var intensity: EchoCancellerMode
    private let processor: WebRTCEchoProcessor

    public let latencySamples: Int

    /// `latencySamples`: as measured by the factory (`EchoControlLatency`).
    init(sampleRate: Int, frameSize: Int, intensity: EchoCancellerMode, latencySamples: Int) throws {
        guard let level = Self.level(for: intensity) else { throw EchoControlError.noCanceller(backend: "webrtc", intensity: intensity) }
        var settings = WebRTCEchoProcessor.Settings()
        settings.extendedFilter = true
        settings.delayAgnostic = true
        settings.suppressionLevel = level
        processor = try WebRTCEchoProcessor(kind: .aec, sampleRate: sampleRate, settings: settings)
        guard processor.frameSize == frameSize else {
            throw EchoControlError.frameNotTenMilliseconds(backend: "webrtc", frameSize: frameSize, sampleRate: sampleRate)
        }
        self.sampleRate = sampleRate
        self.frameSize = frameSize
        self.intensity = intensity
        self.latencySamples = latencySamples
    }

    static func level(for intensity: EchoCancellerMode) -> WebRTCEchoProcessor.SuppressionLevel? {
        switch intensity {
        case .disabled: nil
        case .intensityMin: .low
        case .intensityRecommended, .intensityAdaptive: .moderate
        case .intensityMax: .high
        }
    }

    static func settings(for intensity: EchoCancellerMode) -> [String: EchoControlSetting] {
        let level = Self.level(for: intensity) ?? .moderate
        return ["suppression_level": .text(["low", "moderate", "high"][Int(level.rawValue)]),
                "extended_filter": .flag(true), "delay_agnostic": .flag(true), "library": .text(NativeLibraries.webrtcAudioProcessing)]
    }

    public var settings: [String: EchoControlSetting] {
        var settings = Self.settings(for: intensity)
        settings["suppression_level"] = .text(["low", "moderate", "high"][Int(processor.settings.suppressionLevel.rawValue)])
        return settings
    }

    public func analyzeRender(_ frame: [Float]) throws { try processor.render(frame) }

    public func processCapture(_ frame: [Float], into output: inout [Float]) throws {
        // Delay-agnostic: the reported delay is only a starting point; the engine's is unknown.
        try processor.capture(frame, into: &output, delayMilliseconds: 0)
    }

    public var linearOutput: [Float]? { nil }

    public var metrics: EchoControlMetrics {
        let own = processor.metrics
        return EchoControlMetrics(erlDB: own.erlDB.map(Double.init), erleDB: own.erleDB.map(Double.init),
                                  delayMilliseconds: own.delayMedianMilliseconds.map(Double.init))
    }

    public var residualSuppression: ResidualSuppressionControl? { self }

    /// The suppression level as dB, in the speex scale the adaptive intensity speaks: low −20,
    /// moderate −40, high −60 (double talk: −10, −15, −25).
    public var suppressionDB: Int { [-20, -40, -60][Int(processor.settings.suppressionLevel.rawValue)] }
    public var doubleTalkSuppressionDB: Int { [-10, -15, -25][Int(processor.settings.suppressionLevel.rawValue)] }

    /// WebRTC has one level for both situations: the nearest to `suppressionDB`.
    public func setSuppression(farEndOnlyDB suppressionDB: Int, doubleTalkDB doubleTalk: Int) {
        let level: WebRTCEchoProcessor.SuppressionLevel = suppressionDB > -30 ? .low : suppressionDB > -50 ? .moderate : .high
        processor.changeSettings { $0.suppressionLevel = level }
    }

    public func changeIntensity(to intensity: EchoCancellerMode) -> Bool {
        guard let level = Self.level(for: intensity), processor.changeSettings({ $0.suppressionLevel = level }) else { return false }
        self.intensity = intensity
        return true
    }
}
