import EchoLabJSON

/// Levels of a call's signals per 0.5 s window, for the report's plots under the ERLE curve:
/// far end (the canceller's reference), echo at the mic, near end, and what was sent. The gap
/// between far end and echo is the acoustic ERL; sent during far-end single talk is the
/// residual echo. Who talks when is the activity gate's (`ActivityWindow`), not read off these levels.
public struct LevelPoint: Encodable, Sendable, Equatable {
    /// Start of the window, seconds from the call's start.
    public var timeSeconds: Double
    /// Mean square of each signal over the window in dBFS (0 dBFS = 1.0); nil for digital silence.
    public var farEndDBFS: Double?
    public var echoDBFS: Double?
    public var nearEndDBFS: Double?
    public var sentDBFS: Double?

    public init(timeSeconds: Double, farEndDBFS: Double?, echoDBFS: Double?, nearEndDBFS: Double?, sentDBFS: Double?) {
        self.timeSeconds = timeSeconds
        self.farEndDBFS = farEndDBFS
        self.echoDBFS = echoDBFS
        self.nearEndDBFS = nearEndDBFS
        self.sentDBFS = sentDBFS
    }

    enum CodingKeys: String, CodingKey {
        case timeSeconds = "t_s", farEndDBFS = "far_end_dbfs", echoDBFS = "echo_dbfs"
        case nearEndDBFS = "near_end_dbfs", sentDBFS = "sent_dbfs"
    }
}
