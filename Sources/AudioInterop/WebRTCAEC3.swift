internal import CEchoLabAEC3
import AudioCore

/// WebRTC's AEC3 (Debian's tg_owt build of a 2023 WebRTC), the canceller of current WebRTC calls,
/// through the isolated C library `CEchoLabAEC3` (see its header for why it is isolated). Like
/// WebRTC's own API, the render side (what the loudspeaker plays) and the capture side (the
/// microphone) are separate calls of one 10 ms mono Float32 frame each; AEC3 estimates the delay
/// between them itself.
public final class WebRTCAEC3Processor {
    /// How AEC3 is configured (its `EchoCanceller3Config`); WebRTC's own defaults are `Settings()`.
    public struct Settings: Hashable, Sendable {
        /// The linear filter's length in 4 ms blocks (13: 52 ms of tail after the bulk delay).
        public var filterBlocks = 13
        /// Scales the suppressor's echo-to-near-end masking thresholds: above 1 the suppressor
        /// lets more through (gentler on the near end), below 1 it suppresses sooner.
        public var maskingScale: Float = 1
        /// The echo-to-near-end ratio under which the near end counts as dominant and the
        /// suppressor switches to its near-end tuning (higher: switches sooner).
        public var nearEndThreshold: Float = 0.25
        public init() {}
    }

    /// AEC3's running estimates (dB, ms), where it reports them.
    public struct Statistics: Hashable, Sendable {
        public var erlDB: Double?
        public var erleDB: Double?
        public var divergentFilterFraction: Double?
        public var delayMilliseconds: Int?
    }

    /// Rates AEC3 runs at.
    public static let sampleRates = [16_000, 32_000, 48_000]

    public let sampleRate: Int
    /// Samples per call (10 ms).
    public let frameSize: Int
    public let settings: Settings
    private let state: OpaquePointer

    /// The library's function table: constant data, read only, so shared across threads safely.
    nonisolated(unsafe) private static let api: UnsafePointer<EchoLabAEC3API> = {
        let entry = echolab_aec3_entry()!
        precondition(entry.pointee.api_version == ECHOLAB_AEC3_API_VERSION,
                     "libecholab_aec3.a has API version \(entry.pointee.api_version), this build expects \(ECHOLAB_AEC3_API_VERSION): run make deps")
        return entry
    }()

    public init(sampleRate: Int, settings: Settings = Settings()) throws {
        var error = [CChar](repeating: 0, count: 256)
        let raw = EchoLabAEC3Settings(filter_blocks: Int32(settings.filterBlocks), masking_scale: settings.maskingScale,
                                      nearend_enr_threshold: settings.nearEndThreshold)
        let created = error.withUnsafeMutableBufferPointer { Self.api.pointee.create(Int32(sampleRate), raw, $0.baseAddress, $0.count) }
        guard let created else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw CancellerLibraryError.cannotStart(library: "aec3 at \(sampleRate) Hz", reason: "cannot start (\(reason))")
        }
        state = created
        self.sampleRate = sampleRate
        self.settings = settings
        frameSize = sampleRate / 100
    }

    deinit { Self.api.pointee.destroy(state) }

    /// The far end as played: one frame of `frameSize` samples.
    public func render(_ frame: [Float]) throws {
        precondition(frame.count >= frameSize)
        let code = frame.withUnsafeBufferPointer { Self.api.pointee.render(state, $0.baseAddress) }
        guard code == 0 else { throw CancellerLibraryError.frameRefused(library: "aec3", direction: .render, code: code) }
    }

    /// One microphone frame in, the echo-cancelled frame out.
    public func capture(_ input: [Float], into output: inout [Float]) throws {
        precondition(input.count >= frameSize && output.count >= frameSize)
        let code = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { Self.api.pointee.capture(state, source.baseAddress, $0.baseAddress) }
        }
        guard code == 0 else { throw CancellerLibraryError.frameRefused(library: "aec3", direction: .capture, code: code) }
    }

    public var statistics: Statistics {
        var raw = EchoLabAEC3Statistics()
        Self.api.pointee.statistics(state, &raw)
        return Statistics(erlDB: raw.has_erl != 0 ? raw.erl_db : nil, erleDB: raw.has_erle != 0 ? raw.erle_db : nil,
                          divergentFilterFraction: raw.has_divergent_filter_fraction != 0 ? raw.divergent_filter_fraction : nil,
                          delayMilliseconds: raw.has_delay != 0 ? Int(raw.delay_ms) : nil)
    }
}
