import AudioInterop

/// Makes the canceller for a mode: the one place that knows every backend.
public enum EchoControlFactory {
    /// nil for `disabled`. `filterOverride` (ms) applies to backends with a settable filter
    /// length (speex).
    public static func make(_ mode: EchoControlMode, sampleRate: Int, frameSize: Int, filterOverride: Int? = nil) throws -> EchoControl? {
        guard mode.intensity != .disabled else { return nil }
        if let plugin = mode.backend.plugin {
            // The resampling's own delay, measured around a pass-through (the plugin reports its own).
            let bridgeLatency = plugin.sampleRate == sampleRate ? 0 : try EchoControlLatency.measure(
                key: "bridge \(sampleRate) \(plugin.sampleRate) \(frameSize)", frameSize: frameSize) {
                try PassThroughBridge(outerRate: sampleRate, innerRate: plugin.sampleRate, frameSize: frameSize)
            }
            return try PluginEchoControl(plugin: plugin, sampleRate: sampleRate, frameSize: frameSize, intensity: mode.intensity,
                                         bridgeLatency: bridgeLatency)
        }
        switch mode.backend {
        case .speex:
            return try SpeexEchoControl(frameSize: frameSize, sampleRate: sampleRate, intensity: mode.intensity, filterOverride: filterOverride)
        case .webrtc:
            let latency = try EchoControlLatency.measure(key: "\(mode) \(sampleRate) \(frameSize)", frameSize: frameSize) {
                try WebRTCEchoControl(sampleRate: sampleRate, frameSize: frameSize, intensity: mode.intensity, latencySamples: 0)
            }
            return try WebRTCEchoControl(sampleRate: sampleRate, frameSize: frameSize, intensity: mode.intensity, latencySamples: latency)
        case .webrtcMobile:
            let latency = try EchoControlLatency.measure(key: "\(mode) \(sampleRate) \(frameSize)", frameSize: frameSize) {
                try WebRTCMobileEchoControl(sampleRate: sampleRate, frameSize: frameSize, intensity: mode.intensity, latencySamples: 0)
            }
            return try WebRTCMobileEchoControl(sampleRate: sampleRate, frameSize: frameSize, intensity: mode.intensity, latencySamples: latency)
        case .aec3:
            let latency = try EchoControlLatency.measure(key: "\(mode) \(sampleRate) \(frameSize)", frameSize: frameSize) {
                try Aec3EchoControl(sampleRate: sampleRate, frameSize: frameSize, intensity: mode.intensity, latencySamples: 0)
            }
            return try Aec3EchoControl(sampleRate: sampleRate, frameSize: frameSize, intensity: mode.intensity, latencySamples: latency)
        default:
            throw AudioIOError.invalidArgument("no backend called \(mode.backend.name)")
        }
    }

    /// What `make` would configure for `mode`, for reports written without a canceller at hand.
    public static func settings(for mode: EchoControlMode, filterOverride: Int? = nil) -> [String: EchoControlSetting] {
        guard mode.intensity != .disabled else { return [:] }
        if let plugin = mode.backend.plugin { return PluginEchoControl.settings(for: plugin) }
        switch mode.backend {
        case .speex: return SpeexEchoControl.settings(EchoCancellerSettings.forMode(mode.intensity, filterOverride: filterOverride)!)
        case .webrtc: return WebRTCEchoControl.settings(for: mode.intensity)
        case .webrtcMobile: return WebRTCMobileEchoControl.settings(for: mode.intensity)
        case .aec3: return Aec3EchoControl.settings(for: mode.intensity)
        default: return [:]
        }
    }
}

/// The resampling around a plugin at another rate, with nothing inside: what `EchoControlLatency`
/// measures as the bridge's own delay.
private final class PassThroughBridge: EchoControl {
    let backend = EchoCancellerBackend.speex
    let sampleRate: Int
    let frameSize: Int
    let intensity = EchoCancellerMode.intensityRecommended
    let settings: [String: EchoControlSetting] = [:]
    let latencySamples = 0
    private let capture: RateBridge

    init(outerRate: Int, innerRate: Int, frameSize: Int) throws {
        sampleRate = outerRate
        self.frameSize = frameSize
        capture = try PluginEchoControl.bridges(outerRate: outerRate, innerRate: innerRate, outerFrame: frameSize).capture
    }

    func analyzeRender(_ frame: [Float]) throws {}
    func processCapture(_ frame: [Float], into output: inout [Float]) throws {
        try capture.push(frame) { inner, out in
            for index in inner.indices { out[index] = inner[index] }
        }
        capture.pull(into: &output)
    }
    var linearOutput: [Float]? { nil }
    var metrics: EchoControlMetrics { EchoControlMetrics() }
    var residualSuppression: ResidualSuppressionControl? { nil }
    func changeIntensity(to intensity: EchoCancellerMode) -> Bool { false }
}
