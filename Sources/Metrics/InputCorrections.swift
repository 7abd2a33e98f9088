import Foundation

/// What `EchoAnalyzer.analyzeFiles` corrected in a recording before measuring it, so that a
/// report says which of its figures rest on a correction: the DC offsets taken off the mic, the
/// loopback, the canceller's output and the tracks given (`DCOffset`, dBFS; null where none was) and the clock
/// drift the tap-free gate resampled the loopback by (`ClockDriftFeed`, ppm; null where it did not).
public struct InputCorrections: Codable, Equatable, Sendable {
    public var micDCOffsetDBFS: Double?
    public var loopbackDCOffsetDBFS: Double?
    /// The output's: one the canceller passed on from its mic, or added. Taken off like the
    /// others (left in, −40 dBFS read ERLE 18.7 dB for 39.8), and said, since an output's offset
    /// is a fault of the canceller or the app, not of the recording.
    public var processedDCOffsetDBFS: Double?
    public var clockDriftPPM: Double?
    /// The echo and near-end tracks' (`--echo`, `--near-end`), taken off too. Their keys are
    /// written only where the track was given (null where it had no offset): a key for a file
    /// nobody gave says nothing.
    public var echoDCOffsetDBFS: Double?
    public var nearEndDCOffsetDBFS: Double?
    public var hasEchoTrack = false
    public var hasNearEndTrack = false

    public init(micDCOffsetDBFS: Double? = nil, loopbackDCOffsetDBFS: Double? = nil, processedDCOffsetDBFS: Double? = nil,
                clockDriftPPM: Double? = nil) {
        self.micDCOffsetDBFS = micDCOffsetDBFS
        self.loopbackDCOffsetDBFS = loopbackDCOffsetDBFS
        self.processedDCOffsetDBFS = processedDCOffsetDBFS
        self.clockDriftPPM = clockDriftPPM
    }

    /// Whether nothing was corrected.
    public var isEmpty: Bool {
        micDCOffsetDBFS == nil && loopbackDCOffsetDBFS == nil && processedDCOffsetDBFS == nil && clockDriftPPM == nil
            && echoDCOffsetDBFS == nil && nearEndDCOffsetDBFS == nil
    }

    enum CodingKeys: String, CodingKey {
        case micDCOffsetDBFS = "mic_dc_offset_dbfs", loopbackDCOffsetDBFS = "loopback_dc_offset_dbfs"
        case processedDCOffsetDBFS = "processed_dc_offset_dbfs", clockDriftPPM = "clock_drift_ppm"
        case echoDCOffsetDBFS = "echo_dc_offset_dbfs", nearEndDCOffsetDBFS = "near_end_dc_offset_dbfs"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        micDCOffsetDBFS = try container.decodeIfPresent(Double.self, forKey: .micDCOffsetDBFS)
        loopbackDCOffsetDBFS = try container.decodeIfPresent(Double.self, forKey: .loopbackDCOffsetDBFS)
        processedDCOffsetDBFS = try container.decodeIfPresent(Double.self, forKey: .processedDCOffsetDBFS)
        clockDriftPPM = try container.decodeIfPresent(Double.self, forKey: .clockDriftPPM)
        hasEchoTrack = container.contains(.echoDCOffsetDBFS)
        echoDCOffsetDBFS = try container.decodeIfPresent(Double.self, forKey: .echoDCOffsetDBFS)
        hasNearEndTrack = container.contains(.nearEndDCOffsetDBFS)
        nearEndDCOffsetDBFS = try container.decodeIfPresent(Double.self, forKey: .nearEndDCOffsetDBFS)
    }

    /// Every file's key, null where nothing was corrected: a report says so rather than leave it
    /// out. The tracks' keys only where the track was given.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(micDCOffsetDBFS, forKey: .micDCOffsetDBFS)
        try container.encode(loopbackDCOffsetDBFS, forKey: .loopbackDCOffsetDBFS)
        try container.encode(processedDCOffsetDBFS, forKey: .processedDCOffsetDBFS)
        try container.encode(clockDriftPPM, forKey: .clockDriftPPM)
        if hasEchoTrack || echoDCOffsetDBFS != nil { try container.encode(echoDCOffsetDBFS, forKey: .echoDCOffsetDBFS) }
        if hasNearEndTrack || nearEndDCOffsetDBFS != nil { try container.encode(nearEndDCOffsetDBFS, forKey: .nearEndDCOffsetDBFS) }
    }
}
