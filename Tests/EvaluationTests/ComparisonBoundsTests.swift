import EchoLabJSON
import XCTest
@testable import Evaluation

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
        XCTAssertEqual(regression.what, "erle_steady_db")
        XCTAssertEqual(regression.baseline, "≥ 40.48 dB")
        XCTAssertEqual(regression.current, "15.57 dB")
        let mean = try XCTUnwrap(comparison.modeMeans.first)
        XCTAssertEqual(mean.baseline, 40.48)
        XCTAssertTrue(mean.baselineIsLowerBound)
        XCTAssertFalse(mean.currentIsLowerBound)
        XCTAssertEqual(EvalComparison.boundPath(of: "metrics.telephony.echo_loss.tclw_db"), "metrics.telephony.echo_loss.is_lower_bound")
        XCTAssertEqual(EvalComparison.boundPath(of: "metrics.near_end.attenuation_db"), "metrics.near_end.attenuation_is_lower_bound")
    }
}
