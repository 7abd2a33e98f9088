import EchoLabJSON
@testable import Evaluation
@testable import Reporting
import XCTest

/// What a gate cannot judge must not pass as "No regression": an interrupted baseline (the runs
/// it never reached), an item the current corpus lists twice (its second listing failed), a
/// baseline's segments CURRENT no longer writes, and runs of another library or plugin build
/// (not judged by default, and counted in the verdict).
final class GateOnWhatItCannotSeeTests: XCTestCase {
    private static func result(mode: String = "speex:intensityMax", erle: Double = 20, error: String? = nil,
                               segments: [Double]? = nil, library: String? = nil) -> JSONValue {
        var object: [String: JSONValue] = [
            "mode": .string(mode), "folder": .string("a/x"), "error": error.map(JSONValue.string) ?? .null,
            "metrics": .object(["erle_steady_db": .number(erle), "erle_steady_analysis_frames": .number(400)]),
            "findings": .array([]),
        ]
        if let segments {
            object["segments"] = .array(segments.map { start in
                .object(["start_s": .number(start), "erle_steady_db": .number(erle), "erle_steady_analysis_frames": .number(400)])
            })
        }
        if let library { object["library"] = .string(library) }
        return .object(object)
    }

    private static func eval(complete: Bool = true, shard: String? = nil, items: [(name: String, results: [JSONValue])]) -> JSONValue {
        var object: [String: JSONValue] = [
            "schema": .string(EvalDocument.schema), "complete": .bool(complete),
            "items": .array(items.enumerated().map { index, item in
                .object(["index": .number(Double(index)), "name": .string(item.name), "file": .string("\(item.name).json"),
                         "results": .array(item.results)])
            }),
        ]
        if let shard { object["shard"] = .string(shard) }
        return .object(object)
    }

    private func markdown(_ comparison: EvalComparison) -> String {
        ComparisonMarkdown.render(comparison, baselineName: "base.json", currentName: "cur.json")
    }

    /// A gate that fails on what it cannot judge, with no regression of its own: its verdict line
    /// on the diff, and one failed JUnit case saying why.
    private func assertFailsOnItsOwn(_ comparison: EvalComparison, _ why: String, saying line: String, junitFailure: String,
                                     file: StaticString = #filePath, line number: UInt = #line) {
        XCTAssertTrue(comparison.hasRegression, why, file: file, line: number)
        let text = markdown(comparison)
        XCTAssertTrue(text.contains(line), text, file: file, line: number)
        let junit = ComparisonJUnit.render(comparison, baselineName: "base.json", currentName: "cur.json")
        XCTAssertTrue(junit.contains("failures=\"1\""), junit, file: file, line: number)
        XCTAssertTrue(junit.contains(junitFailure), junit, file: file, line: number)
    }

    func testAnInterruptedBaselineFailsTheGate() {
        let whole = Self.eval(items: [("a", [Self.result()]), ("b", [Self.result()])])
        let interrupted = Self.eval(complete: false, items: [("a", [Self.result()])])
        let comparison = EvalComparison(baseline: interrupted, current: whole, maxRegressionDB: 0.5)
        XCTAssertTrue(comparison.baselineIsIncomplete)
        XCTAssertEqual(comparison.added.map(\.item), ["b"])
        assertFailsOnItsOwn(comparison, "b was never judged",
                            saying: "**The baseline is incomplete** (an interrupted eval was blessed; 1 run of the current run not in it, "
                                + "listed below as new): a gate against it cannot pass. Bless a complete eval.\n\n"
                                + "**No regression among the runs the baseline holds.**",
                            junitFailure: "the baseline is incomplete")
        XCTAssertFalse(EvalComparison(baseline: whole, current: whole, maxRegressionDB: 0.5).hasRegression)
    }

    /// A CI job that blessed one shard's eval.json passed "No regression" against the whole
    /// corpus's, 16 of its 24 runs listed as new (a new user's CI).
    func testOneShardBlessedAsTheBaselineFailsTheGate() {
        let whole = Self.eval(items: [("a", [Self.result()]), ("b", [Self.result()]), ("c", [Self.result()])])
        let shard = Self.eval(shard: "1/3", items: [("a", [Self.result()])])
        let comparison = EvalComparison(baseline: shard, current: whole, maxRegressionDB: 0.5)
        XCTAssertEqual(comparison.baselineShard, "1/3")
        XCTAssertNil(comparison.currentShard)
        XCTAssertTrue(comparison.regressions.isEmpty)
        assertFailsOnItsOwn(comparison, "b and c were never judged",
                            saying: "**The baseline is shard 1/3 of an eval** (the other shards' runs are not in it; 2 runs of the current run "
                                + "not in it, listed below as new): a gate against it cannot pass. Bless the eval of the whole corpus "
                                + "(`echolab merge` joins the shards' folders).\n\n**No regression among the runs the baseline holds.**",
                            junitFailure: "the baseline is shard 1/3 of an eval")
        // A shard against the same shard of the baseline is a gate of its own; "1/1" is the whole plan.
        XCTAssertFalse(EvalComparison(baseline: shard, current: shard, maxRegressionDB: 0.5).hasRegression)
        XCTAssertFalse(EvalComparison(baseline: Self.eval(shard: "1/1", items: [("a", [Self.result()])]),
                                      current: Self.eval(items: [("a", [Self.result()])]), maxRegressionDB: 0.5).hasRegression)
        // A shard against the whole baseline fails on the runs it is missing, and says why they are.
        let partial = EvalComparison(baseline: whole, current: shard, maxRegressionDB: 0.5)
        XCTAssertNil(partial.baselineShard)
        XCTAssertEqual(partial.currentShard, "1/3")
        XCTAssertEqual(partial.regressions.map(\.current), [.missing, .missing])
        XCTAssertTrue(markdown(partial).contains("**The current run is shard 1/3 of an eval**: the baseline's runs of the other shards are missing from it."))
    }

    func testAnItemListedTwiceIsARegression() {
        let once = Self.eval(items: [("a", [Self.result()])])
        let twice = Self.eval(items: [("a", [Self.result()]), ("a", [Self.result(error: "a.json: listed twice in the corpus")])])
        let comparison = EvalComparison(baseline: once, current: twice, maxRegressionDB: 0.5)
        XCTAssertEqual(comparison.regressions.map(\.current), [.failed(error: "a.json: listed twice in the corpus")])
        // Listed twice in both: the corpus is still broken, and no gate passes over it (a baseline
        // blessed with the mistake would otherwise keep it for good).
        let both = EvalComparison(baseline: twice, current: twice, maxRegressionDB: 0.5)
        XCTAssertEqual(both.regressions.map(\.current), [.failed(error: "a.json: listed twice in the corpus")])
    }

    func testSegmentsCurrentNoLongerWritesAreMissing() {
        let segmented = Self.eval(items: [("a", [Self.result(segments: [0, 3])])])
        let bare = Self.eval(items: [("a", [Self.result()])])
        let comparison = EvalComparison(baseline: segmented, current: bare, maxRegressionDB: 0.5)
        XCTAssertEqual(comparison.regressions.map(\.current), [.missing, .missing])
        XCTAssertEqual(EvalComparison(baseline: segmented, current: Self.eval(items: [("a", [Self.result(segments: [])])]),
                                      maxRegressionDB: 0.5).regressions.count, 2, "as an empty list's")
        XCTAssertFalse(EvalComparison(baseline: bare, current: segmented, maxRegressionDB: 0.5).hasRegression)
        // A CURRENT of a schema that wrote no segments (echolab.eval/2) has nothing to pair with.
        guard case .object(var older) = bare else { return XCTFail() }
        older["schema"] = .string("echolab.eval/2")
        XCTAssertFalse(EvalComparison(baseline: segmented, current: .object(older), maxRegressionDB: 0.5).hasRegression)
    }

    func testTheVerdictCountsRunsOfAnotherBuildItDidNotJudge() {
        let before = Self.eval(items: [("a", [Self.result(mode: "mine:intensityMax", erle: 30, library: "plugin nlms, sha256 aa")])])
        let after = Self.eval(items: [("a", [Self.result(mode: "mine:intensityMax", erle: 10, library: "plugin nlms, sha256 bb")])])
        let unjudged = EvalComparison(baseline: before, current: after, maxRegressionDB: 0.5)
        XCTAssertFalse(unjudged.hasRegression)
        XCTAssertTrue(markdown(unjudged).contains("**No regression.** 0 improvements beyond the threshold. 1 run measured with another "
                                                  + "canceller library or plugin build was not judged (listed below; --judge-library-changes judges it).\n"),
                      markdown(unjudged))
        let judged = EvalComparison(baseline: before, current: after, maxRegressionDB: 0.5, judgesLibraryChanges: true)
        XCTAssertTrue(judged.hasRegression)
        XCTAssertFalse(markdown(judged).contains("not judged (listed below; --judge-library-changes"))
    }
}
