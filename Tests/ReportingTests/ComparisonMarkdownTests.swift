import EchoLabJSON
import Metrics
import Evaluation
@testable import Reporting
import XCTest

/// compare.md's verdict: an interrupted current run cannot pass, and what it holds is said as
/// that ("No regression among the runs it holds"), not as a plain "No regression."; bounds keep
/// their mark in the mode means.
final class ComparisonMarkdownTests: XCTestCase {
    private static func eval(complete: Bool, erle: Double = 20, lowerBounds: Int = 0) -> JSONValue {
        let result: JSONValue = .object(["mode": .string("speex:intensityMax"), "folder": .string("a/speex-intensityMax"), "error": .null,
                                         "metrics": .object(["erle_steady_db": .number(erle), "erle_steady_analysis_frames": .number(400),
                                                             "erle_steady_is_lower_bound": .bool(lowerBounds > 0)]),
                                         "findings": .array([]), "duration_s": .number(4)])
        let summary: JSONValue = .object(["mode": .string("speex:intensityMax"),
                                          "erle_steady_db": .object(["mean": .number(erle), "lower_bounds": .number(Double(lowerBounds))])])
        return .object(["schema": .string(EvalDocument.schema), "complete": .bool(complete), "mode_summary": .array([summary]),
                        "items": .array([.object(["index": .number(0), "name": .string("a"), "file": .string("a.json"),
                                                  "results": .array([result])])])])
    }

    func testAnInterruptedRunIsNotSaidToHaveNoRegression() {
        let interrupted = ComparisonMarkdown.render(EvalComparison(baseline: Self.eval(complete: true), current: Self.eval(complete: false),
                                                                   maxRegressionDB: 0.5),
                                                    baselineName: "base.json", currentName: "cur.json")
        XCTAssertTrue(interrupted.contains("**The current run is incomplete** (interrupted): it cannot pass the gate.\n\n"
                                           + "**No regression among the runs it holds.** 0 improvements beyond the threshold.\n"), interrupted)
        XCTAssertFalse(interrupted.contains("**No regression.**"), interrupted)
        let complete = ComparisonMarkdown.render(EvalComparison(baseline: Self.eval(complete: true), current: Self.eval(complete: true),
                                                                maxRegressionDB: 0.5),
                                                 baselineName: "base.json", currentName: "cur.json")
        XCTAssertTrue(complete.contains("**No regression.** 0 improvements beyond the threshold.\n"), complete)
    }

    func testAModeMeanOverBoundsKeepsItsMark() {
        let markdown = ComparisonMarkdown.render(EvalComparison(baseline: Self.eval(complete: true, erle: 36.18, lowerBounds: 2),
                                                                current: Self.eval(complete: true, erle: 36.18), maxRegressionDB: 0.5),
                                                 baselineName: "base.json", currentName: "cur.json")
        XCTAssertTrue(markdown.contains("| speex:intensityMax | 1 | ≥ 36.18 dB | 36.18 dB | +0.00 dB |"), markdown)
    }

    /// A change a bound leaves in an unknown direction is said in compare.md and the JUnit XML,
    /// not dropped, and fails nothing.
    func testAChangeABoundLeavesUnknownIsListedNotJudged() {
        let comparison = EvalComparison(baseline: Self.eval(complete: true, erle: 49.0429, lowerBounds: 1),
                                        current: Self.eval(complete: true, erle: 39.0429, lowerBounds: 1), maxRegressionDB: 0.5)
        let md = ComparisonMarkdown.render(comparison, baselineName: "a.json", currentName: "b.json")
        XCTAssertTrue(md.contains("**No regression.** 0 improvements beyond the threshold. 1 change beyond it not judged: "
                                  + "a lower bound leaves its direction unknown (listed below).\n"), md)
        XCTAssertTrue(md.contains("| a | speex:intensityMax | erle_steady_db | ≥ 49.04 dB | ≥ 39.04 dB | -10.00 dB | both lower bounds |\n"), md)
        let xml = ComparisonJUnit.render(comparison, baselineName: "a.json", currentName: "b.json")
        XCTAssertTrue(xml.contains("failures=\"0\""), xml)
        XCTAssertTrue(xml.contains("<system-out>not judged (both lower bounds): erle_steady_db: ≥ 49.04 dB → ≥ 39.04 dB (-10.00 dB)</system-out>"), xml)
    }
}

/// A recording's report says why the tap-free gate scored nothing, for each limitation.
final class RecordingLimitationNoteTests: XCTestCase {
    func testEachLimitationIsSaid() {
        XCTAssertEqual(RecordingReportDocument.limitationNote(nil), "")
        XCTAssertEqual(RecordingReportDocument.limitationNote(.echoNotExplained),
                       "; the fitted echo path does not explain the echo (a non-linear loudspeaker?), so no frame is scored")
        XCTAssertEqual(RecordingReportDocument.limitationNote(.echoOutsideDelaySearch),
                       "; the echo is not within the delay search's range of the loopback (it leads it, or lags it by more), so no frame is scored")
    }

}
