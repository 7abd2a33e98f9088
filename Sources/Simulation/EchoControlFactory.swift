import AudioInterop

/// Makes the canceller for a mode: the one place that knows every backend.
public enum EchoControlFactory {
    /// nil for `disabled`. `filterOverride` (ms) applies to backends with a settable filter
    /// length (speex). A canceller's latency is measured on a fresh instance first, once per
    /// `latencies` (nil: every time).
    public static func make(_ mode: EchoControlMode, sampleRate: Int, frameSize: Int, filterOverride: Int? = nil,
                            latencies: EchoControlLatencies? = nil) throws -> EchoControl? {
        guard mode.intensity != .disabled else { return nil }
        if let plugin = mode.backend.plugin {
            // The resampling's own delay (the plugin reports its own).
            let bridgeLatency = plugin.sampleRate == sampleRate ? 0 : try RateBridge.passThroughLatency(
                outerRate: sampleRate, innerRate: plugin.sampleRate, outerFrame: frameSize, innerFrame: plugin.sampleRate / 100,
                latencies: latencies)
            func make() throws -> PluginEchoControl {
                try PluginEchoControl(plugin: plugin, sampleRate: sampleRate, frameSize: frameSize, intensity: mode.intensity,
                                      bridgeLatency: bridgeLatency)
            }
            return try PluginLatencyCheck.checked(plugin: plugin, intensity: mode.intensity, sampleRate: sampleRate, frameSize: frameSize,
                                                  latencies: latencies, make: make)
        }
        switch mode.backend {
        case .speex:
            return try SpeexEchoControl(frameSize: frameSize, sampleRate: sampleRate, intensity: mode.intensity, filterOverride: filterOverride)
        case .webrtc:
            let latency = try EchoControlLatency.measure(key: "\(mode) \(sampleRate) \(frameSize)", frameSize: frameSize, latencies: latencies) {
                try WebRTCEchoControl(sampleRate: sampleRate, frameSize: frameSize, intensity: mode.intensity, latencySamples: 0)
            }
            return try WebRTCEchoControl(sampleRate: sampleRate, frameSize: frameSize, intensity: mode.intensity, latencySamples: latency)
        case .webrtcMobile:
            let latency = try EchoControlLatency.measure(key: "\(mode) \(sampleRate) \(frameSize)", frameSize: frameSize, latencies: latencies) {
                try WebRTCMobileEchoControl(sampleRate: sampleRate, frameSize: frameSize, intensity: mode.intensity, latencySamples: 0)
            }
            return try WebRTCMobileEchoControl(sampleRate: sampleRate, frameSize: frameSize, intensity: mode.intensity, latencySamples: latency)
        case .aec3:
            let latency = try EchoControlLatency.measure(key: "\(mode) \(sampleRate) \(frameSize)", frameSize: frameSize, latencies: latencies) {
                try AEC3EchoControl(sampleRate: sampleRate, frameSize: frameSize, intensity: mode.intensity, latencySamples: 0)
            }
            return try AEC3EchoControl(sampleRate: sampleRate, frameSize: frameSize, intensity: mode.intensity, latencySamples: latency)
        case .echolab:
            return try EchoLabEchoControl(sampleRate: sampleRate, frameSize: frameSize, intensity: mode.intensity)
        default:
            throw EchoControlError.unknownBackend(name: mode.backend.name)
        }
    }

    /// What `make` would configure for `mode`, for reports written without a canceller at hand.
    public static func settings(for mode: EchoControlMode, filterOverride: Int? = nil) -> [String: EchoControlSetting] {
        guard mode.intensity != .disabled else { return [:] }
        if let plugin = mode.backend.plugin { return PluginEchoControl.settings(for: plugin) }
        switch mode.backend {
        case .speex: return SpeexEchoControl.settings(EchoCancellerSettings(mode: mode.intensity, filterOverride: filterOverride)!)
        case .webrtc: return WebRTCEchoControl.settings(for: mode.intensity)
        case .webrtcMobile: return WebRTCMobileEchoControl.settings(for: mode.intensity)
        case .aec3: return AEC3EchoControl.settings(for: mode.intensity)
        case .echolab: return EchoLabEchoControl.settings(for: mode.intensity)
        default: return [:]
        }
    }
}
