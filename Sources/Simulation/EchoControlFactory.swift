/// Makes the canceller for a mode: the one place that knows every backend.
public enum EchoControlFactory {
    /// nil for `disabled`. `filterOverride` (ms) applies to backends with a settable filter
    /// length (speex).
    public static func make(_ mode: EchoControlMode, sampleRate: Int, frameSize: Int, filterOverride: Int? = nil) throws -> EchoControl? {
        guard mode.intensity != .disabled else { return nil }
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
        }
    }

    /// What `make` would configure for `mode`, for reports written without a canceller at hand.
    public static func settings(for mode: EchoControlMode, filterOverride: Int? = nil) -> [String: EchoControlSetting] {
        guard mode.intensity != .disabled else { return [:] }
        switch mode.backend {
        case .speex: return SpeexEchoControl.settings(EchoCancellerSettings.forMode(mode.intensity, filterOverride: filterOverride)!)
        case .webrtc: return WebRTCEchoControl.settings(for: mode.intensity)
        case .webrtcMobile: return WebRTCMobileEchoControl.settings(for: mode.intensity)
        }
    }
}
