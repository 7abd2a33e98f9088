import EchoLabJSON
import XCTest
@testable import Evaluation
import Reporting

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
        // 0.3 dB, within the gate's 0.5 dB for the figure itself: the crossing is what fails.
        let fell = EvalComparison(baseline: Self.eval(tclw: 46.2, findings: []), current: Self.eval(tclw: 45.9, findings: [rule]),
                                  maxRegressionDB: 0.5)
        XCTAssertTrue(fell.hasRegression)
        XCTAssertEqual(fell.regressions.map(\.whatText), ["finding \(rule)"])
        let rose = EvalComparison(baseline: Self.eval(tclw: 45.9, findings: [rule]), current: Self.eval(tclw: 46.2, findings: []),
                                  maxRegressionDB: 0.5)
        XCTAssertFalse(rose.hasRegression)
        XCTAssertEqual(rose.improvements.map(\.whatText), ["finding \(rule)"])
    }

    func testAnEchoLossTheBaselineCouldNotMeasureIsNotJudged() {
        let rule = RequirementFindings.echoLossRule
        let newlyMeasured = EvalComparison(baseline: Self.eval(tclw: nil, findings: ["aec-on-non-microphone-source"]),
                                           current: Self.eval(tclw: 20, findings: [rule]), maxRegressionDB: 0.5)
        XCTAssertFalse(newlyMeasured.hasRegression, "\(newlyMeasured.regressions)")
        XCTAssertEqual(newlyMeasured.improvements.map(\.whatText), ["finding aec-on-non-microphone-source"])
    }

    /// TCLw and the double-talk attenuation range are judged as ERLE and the near end are: a
    /// change beyond the threshold the wrong way fails, on enough frames.
    func testTheTelephonyFiguresAreGated() {
        func eval(tclw: Double, range: Double) -> JSONValue {
            var document = Self.eval(tclw: tclw, findings: [])
            guard case .object(var root) = document, case .array(var items) = root["items"]!, case .object(var item) = items[0],
                  case .array(var results) = item["results"]!, case .object(var result) = results[0],
                  case .object(var metrics) = result["metrics"]!, case .object(var telephony) = metrics["telephony"]! else { return document }
            telephony["double_talk"] = .object(["attenuation_range_db": .number(range), "attenuation_range_analysis_frames": .number(80)])
            metrics["telephony"] = .object(telephony); result["metrics"] = .object(metrics); results[0] = .object(result)
            item["results"] = .array(results); items[0] = .object(item); root["items"] = .array(items)
            document = .object(root)
            return document
        }
        let lowerLoss = EvalComparison(baseline: eval(tclw: 30, range: 3), current: eval(tclw: 28, range: 3), maxRegressionDB: 0.5)
        XCTAssertEqual(lowerLoss.regressions.map(\.whatText), ["telephony.echo_loss.tclw_db"])
        let widerRange = EvalComparison(baseline: eval(tclw: 30, range: 3), current: eval(tclw: 30, range: 7), maxRegressionDB: 0.5)
        XCTAssertEqual(widerRange.regressions.map(\.whatText), ["telephony.double_talk.attenuation_range_db"])
        // A bounded range (a frame lost the talker) is at least its bound, the worse way: over a
        // measured baseline it certainly widened; a bounded baseline under it may have been wider.
        func bounded(_ document: JSONValue) -> JSONValue {
            let text = document.canonicalText(numbers: .exact)
                .replacingOccurrences(of: "\"attenuation_range_analysis_frames\": 80", with: "\"attenuation_range_analysis_frames\": 80, \"attenuation_range_is_lower_bound\": true")
            return try! JSONValue.parse(Array(text.utf8))
        }
        let boundedRange = EvalComparison(baseline: eval(tclw: 30, range: 3), current: bounded(eval(tclw: 30, range: 7)), maxRegressionDB: 0.5)
        XCTAssertEqual(boundedRange.regressions.map(\.whatText), ["telephony.double_talk.attenuation_range_db"])
        let boundedBaseline = EvalComparison(baseline: bounded(eval(tclw: 30, range: 3)), current: eval(tclw: 30, range: 7), maxRegressionDB: 0.5)
        XCTAssertFalse(boundedBaseline.hasRegression, "\(boundedBaseline.regressions)")
        XCTAssertTrue(boundedBaseline.improvements.isEmpty)
        XCTAssertEqual(boundedBaseline.notJudged.map(\.reasonText), ["the baseline a lower bound"])
        let better = EvalComparison(baseline: eval(tclw: 30, range: 7), current: eval(tclw: 32, range: 3), maxRegressionDB: 0.5)
        XCTAssertFalse(better.hasRegression)
        XCTAssertEqual(Set(better.improvements.map(\.whatText)), ["telephony.echo_loss.tclw_db", "telephony.double_talk.attenuation_range_db"])
    }

    /// One run whose echo loss is `loss` (nil: none measured) and whose metrics hold `delay`.
    static func eval(loss: [String: JSONValue]?, delay: Double? = 12, findings: [String]) -> JSONValue {
        let metrics: [String: JSONValue] = ["erle_steady_db": .number(20), "erle_steady_analysis_frames": .number(400),
                                            "delay_ms": delay.map(JSONValue.number) ?? .null,
                                            "telephony": .object(["echo_loss": loss.map(JSONValue.object) ?? .null])]
        let result: [String: JSONValue] = ["mode": .string("webrtc:intensityRecommended"), "folder": .string("a/webrtc"), "error": .null,
                                           "metrics": .object(metrics), "findings": .array(findings.map(JSONValue.string)),
                                           "duration_s": .number(4)]
        return .object(["schema": .string(EvalDocument.schema), "complete": .bool(true),
                        "items": .array([.object(["index": .number(0), "name": .string("a"), "file": .string("a.json"),
                                                  "results": .array([.object(result)])])])])
    }

    static func loss(_ tclw: Double, bound: Bool, meets: JSONValue?) -> [String: JSONValue] {
        var loss: [String: JSONValue] = ["tclw_db": .number(tclw), "is_lower_bound": .bool(bound), "analysis_frames": .number(400)]
        if let meets { loss["meets_ts26131_46db"] = meets }
        return loss
    }

    /// The trial's evalA → evalB: a baseline TCLw "≥ 25.23" not judged against 46 dB
    /// (`meets_ts26131_46db` null) had no finding, and a CURRENT whose bands keep it under 46 dB
    /// has one. The baseline's absence was no verdict: not a certain regression, listed as not
    /// judged with why — and so is the finding lost where CURRENT cannot be judged.
    func testAFindingOnAnUnjudgedBoundIsNotJudged() throws {
        let rule = RequirementFindings.echoLossRule
        let unjudged = Self.loss(25.23, bound: true, meets: .null), missed = Self.loss(10.5, bound: true, meets: .bool(false))
        let gained = EvalComparison(baseline: Self.eval(loss: unjudged, findings: []), current: Self.eval(loss: missed, findings: [rule]),
                                    maxRegressionDB: 0.5)
        XCTAssertFalse(gained.hasRegression, "\(gained.regressions)")
        let change = try XCTUnwrap(gained.notJudged.first { $0.whatText == "finding \(rule)" })
        XCTAssertEqual([change.baselineText, change.currentText, change.deltaText], ["0", "1", "+1"])
        XCTAssertEqual(change.reasonText, "the baseline's TCLw ≥ 25.23 dB is a lower bound under 46 dB: it could not be judged against TS 26.131")
        let lost = EvalComparison(baseline: Self.eval(loss: missed, findings: [rule]), current: Self.eval(loss: unjudged, findings: []),
                                  maxRegressionDB: 0.5)
        XCTAssertTrue(lost.improvements.isEmpty, "\(lost.improvements)")
        XCTAssertEqual(lost.notJudged.first { $0.whatText == "finding \(rule)" }?.reasonText,
                       "current's TCLw ≥ 25.23 dB is a lower bound under 46 dB: it could not be judged against TS 26.131")
        // A file written before meets_ts26131_46db: a bound under 46 dB is as unjudged.
        let older = EvalComparison(baseline: Self.eval(loss: Self.loss(25.23, bound: true, meets: nil), findings: []),
                                   current: Self.eval(loss: missed, findings: [rule]), maxRegressionDB: 0.5)
        XCTAssertFalse(older.hasRegression, "\(older.regressions)")
        // Judged baselines still fail the gate: a measured TCLw, and a bound at 46 dB or over.
        for judged in [Self.loss(47, bound: false, meets: .bool(true)), Self.loss(48, bound: true, meets: .bool(true)),
                       Self.loss(48, bound: true, meets: nil)] {
            let fell = EvalComparison(baseline: Self.eval(loss: judged, findings: []), current: Self.eval(loss: missed, findings: [rule]),
                                      maxRegressionDB: 0.5)
            XCTAssertEqual(fell.regressions.map(\.whatText), ["finding \(rule)"], "\(judged)")
        }
        // Too few frames to judge: not judged either.
        var thin = Self.loss(47, bound: false, meets: .bool(true))
        thin["analysis_frames"] = .number(12)
        let onThin = EvalComparison(baseline: Self.eval(loss: thin, findings: []), current: Self.eval(loss: missed, findings: [rule]),
                                    maxRegressionDB: 0.5)
        XCTAssertEqual(onThin.notJudged.first { $0.whatText == "finding \(rule)" }?.reasonText,
                       "the baseline's TCLw stands on 12 analysis frames, too few to judge against TS 26.131's 46 dB")
        XCTAssertFalse(onThin.regressions.contains { $0.whatText == "finding \(rule)" })
    }

    /// The echo delay against the canceller's reach is such a verdict too: without a measured
    /// delay the lint judges the scenario's, a lower bound, and its silence is no verdict.
    func testADelayFindingOverAnUnmeasuredDelayIsNotJudged() {
        let rule = LintRule.echoDelayBeyondFilter.rawValue, loss = Self.loss(30, bound: false, meets: .bool(false))
        let unmeasured = EvalComparison(baseline: Self.eval(loss: loss, delay: nil, findings: []),
                                        current: Self.eval(loss: loss, delay: 300, findings: [rule]), maxRegressionDB: 0.5)
        XCTAssertFalse(unmeasured.hasRegression, "\(unmeasured.regressions)")
        XCTAssertEqual(unmeasured.notJudged.map(\.reasonText),
                       ["the baseline measured no echo delay: its delay against the canceller's reach could not be judged"])
        let measured = EvalComparison(baseline: Self.eval(loss: loss, delay: 40, findings: []),
                                      current: Self.eval(loss: loss, delay: 300, findings: [rule]), maxRegressionDB: 0.5)
        XCTAssertEqual(measured.regressions.map(\.whatText), ["finding \(rule)"])
        // A finding that judges no figure counts as before, whatever the figures.
        let lint = EvalComparison(baseline: Self.eval(loss: nil, delay: nil, findings: []),
                                  current: Self.eval(loss: nil, delay: nil, findings: ["mic-clipping"]), maxRegressionDB: 0.5)
        XCTAssertEqual(lint.regressions.map(\.whatText), ["finding mic-clipping"])
    }
}
