internal import CWebRTCShim
import AudioCore

/// webrtc-audio-processing 0.3's echo cancellers, through the C shim: the legacy AEC (`.aec`)
/// and the mobile AECM (`.aecm`). Like WebRTC's own API, the render side (what the loudspeaker
/// plays) and the capture side (the microphone) are separate calls of one 10 ms mono Float32
/// frame each; the canceller keeps its own render buffer and aligns the two with the reported
/// delay (or its own estimate, with `delayAgnostic`).
public final class WebRTCEchoProcessor {
    public enum Kind: Sendable {
        /// The AEC of WebRTC's desktop and browser calls: 8, 16, 32 or 48 kHz.
        case aec
        /// AECM, the low-complexity mobile canceller: 8 or 16 kHz only.
        case aecm
    }

    /// How hard the AEC's non-linear processor suppresses residual echo (WebRTC's `SuppressionLevel`).
    public enum SuppressionLevel: Int32, Sendable { case low = 0, moderate = 1, high = 2 }

    /// AECM's expected echo level (WebRTC's `RoutingMode`): louder routes suppress harder.
    public enum RoutingMode: Int32, Sendable, CaseIterable {
        case quietEarpieceOrHeadset = 0, earpiece, loudEarpiece, speakerphone, loudSpeakerphone
    }

    public struct Settings: Hashable, Sendable {
        public var extendedFilter = true
        public var delayAgnostic = true
        public var suppressionLevel = SuppressionLevel.moderate
        public var routingMode = RoutingMode.speakerphone
        public var comfortNoise = false
        public init() {}
    }

    /// WebRTC's running estimates (dB), where the canceller reports them (AEC only, and often
    /// not at all: its ERLE estimate needs long far-end activity). EchoLab's own FFT metrics
    /// are the measure; these are for comparison.
    public struct Metrics: Hashable, Sendable {
        public var erlDB: Int?
        public var erleDB: Int?
        public var delayMedianMilliseconds: Int?
    }

    public let kind: Kind
    public let sampleRate: Int
    /// Samples per call (10 ms).
    public let frameSize: Int
    public private(set) var settings: Settings
    private let state: OpaquePointer

    public init(kind: Kind, sampleRate: Int, settings: Settings = Settings()) throws {
        var error: Int32 = 0
        guard let state = echolab_apm_create(kind == .aec ? echolab_apm_aec : echolab_apm_aecm, Int32(sampleRate),
                                             Self.cSettings(settings), &error) else {
            throw CancellerLibraryError.cannotStart(library: "webrtc \(kind == .aec ? "AEC" : "AECM") at \(sampleRate) Hz",
                                                    reason: "cannot start (WebRTC error \(error)"
                                                        + (kind == .aecm ? "; AECM runs at 8000 or 16000 Hz only)" : "; AEC runs at 8000, 16000, 32000 or 48000 Hz)"))
        }
        self.state = state
        self.kind = kind
        self.sampleRate = sampleRate
        self.settings = settings
        frameSize = Int(echolab_apm_frame_size(state))
    }

    deinit { echolab_apm_destroy(state) }

    /// Changes suppression level (AEC) or routing mode and comfort noise (AECM) while running;
    /// the filter options are fixed at creation.
    public func update(_ settings: Settings) throws {
        let code = echolab_apm_update(state, Self.cSettings(settings))
        guard code == 0 else { throw CancellerLibraryError.settingsRefused(library: "webrtc", code: code) }
        self.settings = settings
    }

    /// Changes one setting in place; false (settings unchanged) when WebRTC refuses it. Setting
    /// what is already set does nothing.
    @discardableResult
    public func changeSettings(_ change: (inout Settings) -> Void) -> Bool {
        var wanted = settings
        change(&wanted)
        guard wanted != settings else { return true }
        return (try? update(wanted)) != nil
    }

    /// The far end as played: one frame of `frameSize` samples.
    public func render(_ frame: [Float]) throws {
        precondition(frame.count >= frameSize)
        let code = frame.withUnsafeBufferPointer { echolab_apm_render(state, $0.baseAddress) }
        guard code == 0 else { throw CancellerLibraryError.frameRefused(library: "webrtc", direction: .render, code: code) }
    }

    /// One microphone frame in, the echo-cancelled frame out; `delayMilliseconds` is the
    /// render→capture delay the application believes in (ignored with `delayAgnostic`).
    public func capture(_ input: [Float], into output: inout [Float], delayMilliseconds: Int) throws {
        precondition(input.count >= frameSize && output.count >= frameSize)
        let code = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { echolab_apm_capture(state, source.baseAddress, $0.baseAddress, Int32(delayMilliseconds)) }
        }
        guard code == 0 else { throw CancellerLibraryError.frameRefused(library: "webrtc", direction: .capture, code: code) }
    }

    /// Whether the last captured frame may hold echo (AEC's decision; AECM always says yes).
    public var streamHasEcho: Bool { echolab_apm_stream_has_echo(state) != 0 }

    public var metrics: Metrics {
        var raw = EchoLabAPMMetrics()
        echolab_apm_metrics(state, &raw)
        let known = raw.has_metrics != 0
        return Metrics(erlDB: known && raw.erl_db > -100 ? Int(raw.erl_db) : nil,
                       erleDB: known && raw.erle_db > -100 ? Int(raw.erle_db) : nil,
                       delayMedianMilliseconds: raw.delay_median_ms >= 0 ? Int(raw.delay_median_ms) : nil)
    }

    private static func cSettings(_ settings: Settings) -> EchoLabAPMSettings {
        EchoLabAPMSettings(extended_filter: settings.extendedFilter ? 1 : 0, delay_agnostic: settings.delayAgnostic ? 1 : 0,
                           suppression_level: settings.suppressionLevel.rawValue, routing_mode: settings.routingMode.rawValue,
                           comfort_noise: settings.comfortNoise ? 1 : 0)
    }
}
