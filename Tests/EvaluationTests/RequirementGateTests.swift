import EchoLabJSON
import XCTest
@testable import Evaluation

/// `compare` and TS 26.131's echo-loss finding: a run whose measured TCLw fell under 46 dB gained
/// the finding and fails the gate; one whose echo loss the baseline could not measure (no echo
/// reached what was sent) has nothing to be compared with, and is not judged on it.
final class RequirementGateTests: XCTestCase {
    static func eval(tclw: Double?, findings: [String]) -> JSONValue {
        var metrics: [String: JSONValue] = ["erle_steady_db": .number(20), "erle_steady_analysis_frames": .number(400)]
        metrics["telephony"] = .object(["echo_loss": tclw.map { .object(["tclw_db": .number($0), "analysis_frames": .number(400)]) } ?? .null])
        let result: [String: JSONValue] = ["mode": .string("speex:intensityMax"), "folder": .string("a/speex-intensityMax"), "error": .null,
                                           "metrics": .object(metrics), "findings": .array(findings.map(JSONValue.string)),
                                           "duration_s": .number(4), "library": .string("speexdsp 1.2.1")]
        return .object(["schema": .string(EvalDocument.schema), "complete": .bool(true),
                        "items": .array([.object(["index": .number(0), "name": .string("a"), "file": .string("a.json"),
                                                  "results": .array([.object(result)])])])])
    }

    func testFallingUnderTheRequirementFailsTheGateAndNamesTheRule() {
        let rule = RequirementFindings.echoLossRule
        let fell = EvalComparison(baseline: Self.eval(tclw: 46.5, findings: []), current: Self.eval(tclw: 45.9, findings: [rule]),
                                  maxRegressionDB: 0.5)
        XCTAssertTrue(fell.hasRegression)
        XCTAssertEqual(fell.regressions.map(\.what), ["finding \(rule)"])
        let rose = EvalComparison(baseline: Self.eval(tclw: 45.9, findings: [rule]), current: Self.eval(tclw: 46.5, findings: []),
                                  maxRegressionDB: 0.5)
        XCTAssertFalse(rose.hasRegression)
        XCTAssertEqual(rose.improvements.map(\.what), ["finding \(rule)"])
    }

    func testAnEchoLossTheBaselineCouldNotMeasureIsNotJudged() {
        let rule = RequirementFindings.echoLossRule
        let newlyMeasured = EvalComparison(baseline: Self.eval(tclw: nil, findings: ["aec-on-non-microphone-source"]),
                                           current: Self.eval(tclw: 20, findings: [rule]), maxRegressionDB: 0.5)
        XCTAssertFalse(newlyMeasured.hasRegression, "\(newlyMeasured.regressions)")
        XCTAssertEqual(newlyMeasured.improvements.map(\.what), ["finding aec-on-non-microphone-source"])
    }
}
