import EchoLabJSON
import Metrics

// The metric types' report JSON is their `Codable` conformance (`CodingKeys` name the report's
// keys), encoded straight into a `JSONValue`: one serialisation per type. Counts of Welch
// analysis frames are named `analysis_frames` — a "frame" in the reports is only ever a PCM frame.

extension EchoMetrics {
    /// The report's `metrics` object.
    public var json: JSONValue { JSONValue(encoding: self) }
}

extension SegmentMetrics {
    /// The segment's metrics (its sample range is the report's `start_s` / `end_s`).
    public var json: [String: JSONValue] { JSONValue(encoding: self).objectValue ?? [:] }
}

extension LengthMismatch {
    /// `echolab metrics`' `length_mismatch` object.
    public var json: JSONValue { JSONValue(encoding: self) }
}
