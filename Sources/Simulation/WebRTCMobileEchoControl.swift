import AudioCore
import AudioInterop

/// The webrtc-mobile backend: webrtc-audio-processing 0.3's AECM, which runs at 8 or 16 kHz only,
/// so both sides are resampled to 16 kHz (libsamplerate) around it and the output back to the
/// engine's rate. The resampling and AECM's own block buffering delay the output by a fixed
/// `latencySamples` (measured: `EchoControlLatency`), so that a caller can align the output with
/// the capture (`echolab process` does).
///
/// Intensities map onto AECM's routing mode, its expected echo level:
/// - `intensityMin` → earpiece (a phone at the ear: weak, short echo),
/// - `intensityRecommended` and `intensityAdaptive` (start) → speakerphone,
/// - `intensityMax` → loud speakerphone.
/// AECM has no linear output to show and no suppression in dB: `intensityAdaptive` steers the
/// routing mode from its ERL estimate (strong echo → louder mode).
public final class WebRTCMobileEchoControl: EchoControl, ResidualSuppressionControl {
    public let backend = EchoCancellerBackend.webrtcMobile
    public let sampleRate: Int
    public let frameSize: Int
    public private(set) var intensity: EchoCancellerMode
    public let latencySamples: Int
    /// AECM's own rate.
    public static let innerRate = 16_000
    private let processor: WebRTCEchoProcessor
    private let render: RateBridge
    private let capture: RateBridge

    /// `latencySamples`: as measured by the factory (`EchoControlLatency`).
    init(sampleRate: Int, frameSize: Int, intensity: EchoCancellerMode, latencySamples: Int) throws {
        guard let mode = Self.routingMode(for: intensity) else {
            throw EchoControlError.noCanceller(backend: "webrtc-mobile", intensity: intensity)
        }
        var settings = WebRTCEchoProcessor.Settings()
        settings.routingMode = mode
        processor = try WebRTCEchoProcessor(kind: .aecm, sampleRate: Self.innerRate, settings: settings)
        (render, capture) = try RateBridge.pair(outerRate: sampleRate, innerRate: Self.innerRate, outerFrame: frameSize,
                                                innerFrame: processor.frameSize)
        self.latencySamples = latencySamples
        self.sampleRate = sampleRate
        self.frameSize = frameSize
        self.intensity = intensity
    }

    static func routingMode(for intensity: EchoCancellerMode) -> WebRTCEchoProcessor.RoutingMode? {
        switch intensity {
        case .disabled: nil
        case .intensityMin: .earpiece
        case .intensityRecommended, .intensityAdaptive: .speakerphone
        case .intensityMax: .loudSpeakerphone
        }
    }

    static let routingNames: [WebRTCEchoProcessor.RoutingMode: String] = [
        .quietEarpieceOrHeadset: "quiet_earpiece_or_headset", .earpiece: "earpiece", .loudEarpiece: "loud_earpiece",
        .speakerphone: "speakerphone", .loudSpeakerphone: "loud_speakerphone",
    ]

    static func settings(for intensity: EchoCancellerMode) -> [String: EchoControlSetting] {
        ["routing_mode": .text(routingNames[routingMode(for: intensity) ?? .speakerphone]!), "rate_hz": .number(Double(innerRate)),
         "library": .text(NativeLibraries.webrtcAudioProcessing)]
    }

    public var settings: [String: EchoControlSetting] {
        ["routing_mode": .text(Self.routingNames[processor.settings.routingMode]!), "rate_hz": .number(Double(Self.innerRate)),
         "latency_samples": .number(Double(latencySamples)), "library": .text(NativeLibraries.webrtcAudioProcessing)]
    }

    public func analyzeRender(_ frame: [Float]) throws {
        try render.push(frame) { inner, _ in try processor.render(inner) }
    }

    public func processCapture(_ frame: [Float], into output: inout [Float]) throws {
        try capture.push(frame) { inner, out in try processor.capture(inner, into: &out, delayMilliseconds: 0) }
        capture.pull(into: &output)
    }

    public var linearOutput: [Float]? { nil }
    public var metrics: EchoControlMetrics { EchoControlMetrics() }
    public var residualSuppression: ResidualSuppressionControl? { self }

    /// The routing mode as dB, in the scale the adaptive intensity speaks (earpiece −20 …
    /// loud speakerphone −60).
    public var suppressionDB: Int { [-10, -20, -30, -40, -60][Int(processor.settings.routingMode.rawValue)] }
    public var doubleTalkSuppressionDB: Int { suppressionDB / 2 }

    public func setSuppression(farEndOnlyDB suppressionDB: Int, doubleTalkDB doubleTalk: Int) {
        let mode: WebRTCEchoProcessor.RoutingMode = suppressionDB > -30 ? .earpiece : suppressionDB > -50 ? .speakerphone : .loudSpeakerphone
        processor.changeSettings { $0.routingMode = mode }
    }

    public func changeIntensity(to intensity: EchoCancellerMode) -> Bool {
        guard let mode = Self.routingMode(for: intensity), processor.changeSettings({ $0.routingMode = mode }) else { return false }
        self.intensity = intensity
        return true
    }
}
