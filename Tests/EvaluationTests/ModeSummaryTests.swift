import EchoLabJSON
import Evaluation
import XCTest

/// eval.json's per-mode statistics as values: what they compute, and that their encoding is the
/// `mode_summary` entry eval.json has always had (keys, nulls kept, counts).
final class ModeSummaryTests: XCTestCase {
    func testStatisticsAreMeanMedianAndTenthPercentile() {
        let statistics = ModeSummary.Statistics((1...10).map(Double.init).reversed())
        XCTAssertEqual(statistics.count, 10)
        XCTAssertEqual(statistics.mean, 5.5)
        XCTAssertEqual(statistics.median, 5.5)
        // Rank 0.9 of 0…9: between 1 and 2.
        XCTAssertEqual(try XCTUnwrap(statistics.p10), 1.9, accuracy: 1e-12)
        XCTAssertEqual(ModeSummary.Statistics([7]).p10, 7)
    }

    func testNoValueIsNullWithACountOfZero() throws {
        let none = ModeSummary.Statistics([])
        XCTAssertEqual(none.count, 0)
        XCTAssertNil(none.mean)
        XCTAssertEqual(JSONValue(encoding: none).canonicalText(), JSONValue.object(["mean": .null, "median": .null, "p10": .null, "count": .number(0),
                                                                                   "lower_bounds": .number(0), "low_confidence_left_out": .number(0)]).canonicalText())
    }

    func testItsEncodingIsEvalJSONsModeSummaryEntry() throws {
        let one = ModeSummary.Statistics([3])
        let summary = ModeSummary(mode: "speex:intensityMax", ran: 2, failed: 1, wins: 1, erleSteadyDB: one, erleDB: one,
                                  convergenceSeconds: one, nearEndAttenuationDB: ModeSummary.Statistics([]), nearEndDistortionDB: one)
        let json = try XCTUnwrap(JSONValue(encoding: summary).objectValue)
        XCTAssertEqual(json.keys.sorted(), ["convergence_s", "double_talk_attenuation_range_db", "erle_db", "erle_steady_db", "failed", "mode",
                                            "near_end_attenuation_db", "near_end_distortion_db", "near_end_lost", "ran", "tclw_db", "wins"])
        XCTAssertEqual(json["tclw_db"]?["count"]?.doubleValue, 0)
        XCTAssertEqual(json["near_end_attenuation_db"]?["mean"], .null)
        XCTAssertEqual(json["erle_steady_db"]?["p10"]?.doubleValue, 3)
        XCTAssertEqual(try JSONValueDecoder().decode(ModeSummary.self, from: .object(json)), summary)
        // With scores, they are one more key, and read back.
        var scored = summary
        scored.scores = [.init(scorer: "aecmos", unscoredRuns: 1, scores: [])]
        let withScores = JSONValue(encoding: scored)
        XCTAssertEqual(withScores["scores"]?.arrayValue?.first?["unscored_runs"]?.doubleValue, 1)
        XCTAssertEqual(try JSONValueDecoder().decode(ModeSummary.self, from: withScores), scored)
    }

    /// A near end lost entirely counts at its bound in the attenuation and, having no distortion
    /// to measure, is left out of the distortion statistic: counted in `near_end_lost`, not gone.
    func testARunThatLostTheNearEndIsCountedNotDropped() throws {
        func run(attenuation: Double, lost: Bool, distortion: Double?) -> JSONValue {
            .object(["mode": .string("webrtc-mobile:intensityMax"), "error": .null,
                     "metrics": .object(["near_end": .object(["attenuation_db": .number(attenuation), "attenuation_is_lower_bound": .bool(lost),
                                                              "distortion_db": distortion.map(JSONValue.number) ?? .null,
                                                              "double_talk_analysis_frames": .number(80)])])])
        }
        let items: [JSONValue] = [.object(["results": .array([run(attenuation: 9.9, lost: true, distortion: nil)])]),
                                  .object(["results": .array([run(attenuation: 3, lost: false, distortion: -12)])])]
        let summary = EvalDocument.summary(for: "webrtc-mobile:intensityMax", items: items)
        XCTAssertEqual(summary.nearEndLostRuns, 1)
        XCTAssertEqual(summary.nearEndAttenuationDB.count, 2)
        XCTAssertEqual(summary.nearEndAttenuationDB.lowerBounds, 1)
        XCTAssertEqual(summary.nearEndDistortionDB.count, 1)
        XCTAssertEqual(summary.nearEndDistortionDB.median, -12)
        XCTAssertEqual(JSONValue(encoding: summary)["near_end_lost"]?.doubleValue, 1)
    }
}
