import Simulation

/// How late an echo each canceller can still cancel: the bulk delay from its reference to the
/// echo at its mic beyond which its steady ERLE collapses. Measured with `eval --modes all` on a
/// pure delay (−10 dB, speech far end, −65 dBFS noise, 12 s) swept from 20 to 700 ms in 10 ms
/// steps near each edge; the reach is the last delay at which every intensity of the backend kept
/// its steady ERLE within 6 dB of its value at 20 ms.
/// - speex: its filter length less a 10 ms frame (filter 100 ms: 26.7 dB at 90 ms, 8.1 at 100,
///   2.2 at 110; filter 200 ms: 24.3 at 190, 12.8 at 200, 2.2 at 250).
/// - webrtc (AEC): 130 ms (35.5 dB at 130; 23–36 at 140; 6.5–15.8 at 160; under 6.4 from 180).
/// - webrtc-mobile (AECM, which estimates its own delay): 400 ms (19–45 dB at 400; 4–11 from
///   420 on).
/// - aec3 (its delay estimator's range): 500 ms (≥ 33 dB, the measurable range, at every delay
///   tried from 20 to 500 ms; 2.1–2.6 at 510; 520 and 530 cancel again, 540–600 do not; 700 reads
///   17–23 dB and 800 under 3, so beyond 500 it is chance).
public enum EchoReach {
    /// The reach in milliseconds of `mode` (nil: no canceller, or a plugin's, which is not known). `filterOverride`: a scenario's
    /// `aec.filter_ms`, which sets speex's filter length.
    public static func milliseconds(for mode: EchoControlMode, filterOverride: Int? = nil) -> Double? {
        guard mode.intensity != .disabled else { return nil }
        switch mode.backend {
        case .speex:
            guard let settings = EchoCancellerSettings(mode: mode.intensity, filterOverride: filterOverride) else { return nil }
            return Double(settings.filterMilliseconds - 10)
        case .webrtc: return 130
        case .webrtcMobile: return 400
        case .aec3: return 500
        case .echolab: return 500
        default: return nil   // a plugin: its reach is not known
        }
    }
}
