import EchoLabJSON
import Metrics

// Every metric type gives its report JSON directly: no `JSONEncoder` → bytes → `JSONDecoder`
// round trip (about 50 allocations per ERLE point). The keys are the report schema's; a test
// (MetricsJSONTests) holds them equal to the types' `Codable` keys, so a field added to one and
// not the other is caught. Counts of Welch analysis frames are named `analysis_frames` — a
// "frame" in the reports is only ever a PCM frame.

extension Optional where Wrapped == Double {
    /// A measurement: its number, or `null` when there was nothing to measure.
    var json: JSONValue { map(JSONValue.number) ?? .null }
}

extension Int {
    var json: JSONValue { .number(Double(self)) }
}

extension EchoMetrics {
    /// The report's `metrics` object.
    public var json: JSONValue {
        .object([
            "erl_db": erlDB.json, "erle_db": erleDB.json, "erle_steady_db": erleSteadyDB.json,
            "convergence_s": convergenceSeconds.json, "delay_ms": delayMilliseconds.json,
            "erle_series": .array(erleSeries.map(\.json)),
            "erle_bands": .array(erleBands.map(\.json)),
            "gate": gate.json,
            "near_end": nearEnd?.json ?? .null,
        ])
    }
}

extension NearEndPreservation {
    /// The report's `metrics.near_end` object (the other axis beside ERLE).
    public var json: JSONValue {
        .object(["attenuation_db": attenuationDB.json, "distortion_db": distortionDB.json,
                 "double_talk_analysis_frames": doubleTalkFrames.json,
                 "single_talk_attenuation_db": singleTalkAttenuationDB.json, "single_talk_distortion_db": singleTalkDistortionDB.json,
                 "single_talk_analysis_frames": singleTalkFrames.json])
    }
}

extension ERLEPoint {
    public var json: JSONValue { .object(["t_s": .number(timeSeconds), "erle_db": erleDB.json]) }
}

extension BandERLE {
    public var json: JSONValue { .object(["low_hz": .number(lowHz), "high_hz": .number(highHz), "erle_db": erleDB.json]) }
}

extension ActivityGateSummary {
    public var json: JSONValue {
        .object(["method": .string(method.rawValue), "analysis_frames": frames.json,
                 "far_end_active_analysis_frames": farEndActiveFrames.json,
                 "single_talk_analysis_frames": singleTalkFrames.json,
                 "double_talk_analysis_frames": doubleTalkFrames.json])
    }
}

extension SegmentMetrics {
    /// The segment's metrics (its sample range is the report's `start_s` / `end_s`).
    public var json: [String: JSONValue] {
        ["start_sample": startSample.json, "end_sample": endSample.json,
         "erl_db": erlDB.json, "erle_db": erleDB.json, "erle_steady_db": erleSteadyDB.json,
         "convergence_s": convergenceSeconds.json, "single_talk_analysis_frames": singleTalkFrames.json]
    }
}

extension LengthMismatch {
    /// `echolab metrics`' `length_mismatch` object.
    public var json: JSONValue {
        .object(["analysed_samples": analysedSamples.json,
                 "files": .array(files.map { .object(["file": .string($0.file), "samples": $0.samples.json]) })])
    }
}
