import EchoLabJSON
import XCTest
@testable import Evaluation
import Reporting

/// `compare` prints a lower bound as eval.md does, "≥ 40.48 dB", in its regression rows and its
/// mode means: a bound that lost its mark read as a measured level (40.48 → 15.57 dB).
final class ComparisonBoundsTests: XCTestCase {
    private static func eval(erle: Double, isLowerBound: Bool, lowerBounds: Int) -> JSONValue {
        let metrics: JSONValue = .object(["erle_steady_db": .number(erle), "erle_steady_is_lower_bound": .bool(isLowerBound),
                                          "erle_steady_analysis_frames": .number(400)])
        let result: JSONValue = .object(["mode": .string("speex:intensityMax"), "folder": .string("a/speex-intensityMax"), "error": .null,
                                         "metrics": metrics, "findings": .array([]), "duration_s": .number(4)])
        let summary: JSONValue = .object(["mode": .string("speex:intensityMax"),
                                          "erle_steady_db": .object(["mean": .number(erle), "lower_bounds": .number(Double(lowerBounds))])])
        return .object(["schema": .string(EvalDocument.schema), "complete": .bool(true), "mode_summary": .array([summary]),
                        "items": .array([.object(["index": .number(0), "name": .string("a"), "file": .string("a.json"),
                                                  "results": .array([result])])])])
    }

    func testABoundKeepsItsMark() throws {
        let comparison = EvalComparison(baseline: Self.eval(erle: 40.48, isLowerBound: true, lowerBounds: 1),
                                        current: Self.eval(erle: 15.57, isLowerBound: false, lowerBounds: 0), maxRegressionDB: 0.5)
        let regression = try XCTUnwrap(comparison.regressions.first)
        XCTAssertEqual(regression.whatText, "erle_steady_db")
        XCTAssertEqual(regression.baselineText, "≥ 40.48 dB")
        XCTAssertEqual(regression.currentText, "15.57 dB")
        let mean = try XCTUnwrap(comparison.modeMeans.first)
        XCTAssertEqual(mean.baseline, 40.48)
        XCTAssertTrue(mean.baselineIsLowerBound)
        XCTAssertFalse(mean.currentIsLowerBound)
    }

    /// A one-run eval.json with these metrics.
    private static func eval(_ metrics: [String: JSONValue]) -> JSONValue {
        let result: JSONValue = .object(["mode": .string("aec3:intensityRecommended"), "folder": .string("fst/aec3"), "error": .null,
                                         "metrics": .object(metrics), "findings": .array([]), "duration_s": .number(12)])
        return .object(["schema": .string(EvalDocument.schema), "complete": .bool(true), "mode_summary": .array([]),
                        "items": .array([.object(["index": .number(0), "name": .string("fst"), "file": .string("fst.json"),
                                                  "results": .array([result])])])])
    }

    private static func erle(_ value: Double, bound: Bool) -> [String: JSONValue] {
        ["erle_steady_db": .number(value), "erle_steady_is_lower_bound": .bool(bound), "erle_steady_analysis_frames": .number(400)]
    }

    /// The trial's room noise rose 10 dB: three cancellers' outputs stayed under the floor, so
    /// their ERLE bounds fell with it — no evidence any removed less echo.
    func testAFallingBoundIsNotARegression() throws {
        let comparison = EvalComparison(baseline: Self.eval(Self.erle(49.0358, bound: true)),
                                        current: Self.eval(Self.erle(39.0358, bound: true)), maxRegressionDB: 0.5)
        XCTAssertTrue(comparison.regressions.isEmpty)
        XCTAssertFalse(comparison.hasRegression)
        let change = try XCTUnwrap(comparison.notJudged.first)
        XCTAssertEqual(change.whatText, "erle_steady_db")
        XCTAssertEqual(change.baselineText, "≥ 49.04 dB")
        XCTAssertEqual(change.currentText, "≥ 39.04 dB")
        XCTAssertEqual(change.reasonText, "both lower bounds")
        // Measured before, a bound under it now: its truth may be the baseline's or more.
        let measured = EvalComparison(baseline: Self.eval(Self.erle(41.11, bound: false)), current: Self.eval(Self.erle(39.08, bound: true)),
                                      maxRegressionDB: 0.5)
        XCTAssertTrue(measured.regressions.isEmpty)
        XCTAssertEqual(measured.notJudged.map(\.reasonText), ["current a lower bound"])
        // A bound before and measured now under it: certainly worse.
        let worse = EvalComparison(baseline: Self.eval(Self.erle(49.04, bound: true)), current: Self.eval(Self.erle(39.04, bound: false)),
                                   maxRegressionDB: 0.5)
        XCTAssertEqual(worse.regressions.map(\.whatText), ["erle_steady_db"])
        // A bound risen over a bound: no more certain than its fall.
        let rose = EvalComparison(baseline: Self.eval(Self.erle(39.04, bound: true)), current: Self.eval(Self.erle(49.04, bound: true)),
                                  maxRegressionDB: 0.5)
        XCTAssertTrue(rose.improvements.isEmpty)
        XCTAssertEqual(rose.notJudged.count, 1)
    }

    /// Attenuation is better lower, and its bound (a talker lost) is the worst case: the change
    /// is certain where the lower side is measured.
    func testABoundOnAttenuationIsCertainWhereTheLowerSideIsMeasured() throws {
        func range(_ value: Double, bound: Bool) -> [String: JSONValue] {
            ["telephony": .object(["double_talk": .object(["attenuation_range_db": .number(value), "attenuation_range_is_lower_bound": .bool(bound),
                                                            "attenuation_range_analysis_frames": .number(300)])])]
        }
        let path = "telephony.double_talk.attenuation_range_db"
        // Measured 3 dB, now at least 8: certainly worse (the gate skipped any bound).
        let worse = EvalComparison(baseline: Self.eval(range(3, bound: false)), current: Self.eval(range(8, bound: true)), maxRegressionDB: 0.5)
        XCTAssertEqual(worse.regressions.map(\.whatText), [path])
        // At least 8 before, measured 3 now: certainly better.
        let better = EvalComparison(baseline: Self.eval(range(8, bound: true)), current: Self.eval(range(3, bound: false)), maxRegressionDB: 0.5)
        XCTAssertEqual(better.improvements.map(\.whatText), [path])
        // At least 3 before, measured 8 now: the baseline may have been worse.
        let unknown = EvalComparison(baseline: Self.eval(range(3, bound: true)), current: Self.eval(range(8, bound: false)), maxRegressionDB: 0.5)
        XCTAssertTrue(unknown.regressions.isEmpty)
        XCTAssertEqual(unknown.notJudged.map(\.reasonText), ["the baseline a lower bound"])
    }
}
