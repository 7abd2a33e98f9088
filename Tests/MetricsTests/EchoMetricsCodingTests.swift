import EchoLabJSON
import Metrics
import XCTest

/// The metric types' `Codable` keys are the report's snake_case names; through `JSONValueEncoder`
/// (how the reports encode them) a nil is an explicit null.

final class EchoMetricsCodingTests: XCTestCase {
    func testKeysAreSnakeCaseAndNilsAreExplicitNulls() throws {
        let metrics = EchoMetrics(
            erlDB: 6, erleDB: nil, erleSteadyDB: 30, convergenceSeconds: nil, delayMilliseconds: 40,
            erleSeries: [ERLEPoint(timeSeconds: 0, erleDB: nil), ERLEPoint(timeSeconds: 0.5, erleDB: 12)],
            erleBands: [BandERLE(lowHz: 125, highHz: 250, erleDB: nil)],
            gate: ActivityGateSummary(method: .farEndOnly, frames: 10, farEndActiveFrames: 8,
                                      singleTalkFrames: 8, doubleTalkFrames: 0))
        let json = try JSONValueEncoder().encode(metrics)
        XCTAssertEqual(json, try JSONValue.parse(Array("""
            {"convergence_is_lower_bound":false,"convergence_s":null,"delay_ms":40,"erl_analysis_frames":8,"erl_db":6,"erl_is_lower_bound":false,"erle_bands":[{"erle_db":null,"high_hz":250,"is_lower_bound":false,"low_hz":125}],\
            "erle_db":null,"erle_is_lower_bound":false,\
            "erle_series":[{"analysis_frames":0,"erle_db":null,"is_lower_bound":false,"t_s":0},{"analysis_frames":0,"erle_db":12,"is_lower_bound":false,"t_s":0.5}],\
            "erle_steady_analysis_frames":0,"erle_steady_db":30,"erle_steady_is_lower_bound":false,\
            "gate":{"analysis_frames":10,"double_talk_analysis_frames":0,"far_end_active_analysis_frames":8,"limitation":null,"method":"far_end_only","single_talk_analysis_frames":8},"near_end":null,"near_end_estimate":null,"telephony":null}
            """.utf8), maximumBytes: .max))
        XCTAssertEqual(try JSONValueDecoder().decode(EchoMetrics.self, from: json), metrics)
    }

    /// A report written before ERL carried its own frames (an older baseline) reads as it was
    /// meant: ERL on the single-talk frames, never a bound. One written since keeps its own.
    func testAReportWithoutERLsFramesReadsThemFromTheGate() throws {
        let gate = ActivityGateSummary(method: .nearEndTrack, frames: 40, farEndActiveFrames: 30, singleTalkFrames: 25, doubleTalkFrames: 5)
        var bounded = EchoMetrics(erlDB: 61, erlFrames: 230, erlIsLowerBound: true, erleDB: nil, erleSteadyDB: nil, convergenceSeconds: nil,
                                  delayMilliseconds: nil, erleSeries: [], erleBands: [], gate: gate)
        var json = try JSONValueEncoder().encode(bounded)
        XCTAssertEqual(try JSONValueDecoder().decode(EchoMetrics.self, from: json), bounded)
        guard case .object(var members) = json else { return XCTFail("not an object") }
        members["erl_analysis_frames"] = nil
        members["erl_is_lower_bound"] = nil
        json = .object(members)
        let old = try JSONValueDecoder().decode(EchoMetrics.self, from: json)
        XCTAssertEqual(old.erlFrames, 25)
        XCTAssertFalse(old.erlIsLowerBound)
        bounded.erlFrames = 25
        bounded.erlIsLowerBound = false
        XCTAssertEqual(old, bounded)

        let segment = SegmentMetrics(startSample: 0, endSample: 96_000, erlDB: 40, erlFrames: 60, erlIsLowerBound: true,
                                     erleDB: nil, erleSteadyDB: nil, convergenceSeconds: nil, singleTalkFrames: 3)
        guard case .object(var segmentMembers) = try JSONValueEncoder().encode(segment) else { return XCTFail("not an object") }
        XCTAssertEqual(try JSONValueDecoder().decode(SegmentMetrics.self, from: .object(segmentMembers)), segment)
        segmentMembers["erl_analysis_frames"] = nil
        segmentMembers["erl_is_lower_bound"] = nil
        let oldSegment = try JSONValueDecoder().decode(SegmentMetrics.self, from: .object(segmentMembers))
        XCTAssertEqual(oldSegment.erlFrames, 3)
        XCTAssertFalse(oldSegment.erlIsLowerBound)
    }

    func testSegmentMetricsEncodeNulls() throws {
        let segment = SegmentMetrics(startSample: 0, endSample: 100, erlDB: nil, erleDB: nil, erleSteadyDB: nil,
                                     convergenceSeconds: nil, singleTalkFrames: 0)
        XCTAssertEqual(try JSONValueEncoder().encode(segment), try JSONValue.parse(Array("""
            {"convergence_is_lower_bound":false,"convergence_s":null,"end_sample":100,"erl_analysis_frames":0,"erl_db":null,"erl_is_lower_bound":false,"erle_db":null,"erle_is_lower_bound":false,\
            "erle_steady_analysis_frames":0,"erle_steady_db":null,"erle_steady_is_lower_bound":false,\
            "single_talk_analysis_frames":0,"start_sample":0}
            """.utf8), maximumBytes: .max))
    }
}
