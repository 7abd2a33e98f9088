import EchoLabJSON
import Evaluation
import XCTest

/// `compare` reads each run of a file once (`ComparedRun`) and judges the values: files written
/// by hand or by other versions must neither pair what is not the same counter nor stop the gate.
final class ComparedRunTests: XCTestCase {
    /// A one-run eval.json with this pipeline and these metrics, failed or not.
    private static func eval(pipeline: JSONValue, metrics: JSONValue = .object([:]), error: String? = nil) -> JSONValue {
        let result: JSONValue = .object(["mode": .string("speex:intensityMax"), "folder": .string("x/speex"),
                                         "error": error.map(JSONValue.string) ?? .null, "metrics": metrics, "pipeline": pipeline,
                                         "findings": .array([])])
        return .object(["schema": .string(EvalDocument.schema), "complete": .bool(true),
                        "items": .array([.object(["index": .number(0), "name": .string("x"), "file": .string("x.json"),
                                                  "results": .array([result])])])])
    }

    private static func underruns(_ count: Double) -> JSONValue { .object(["underruns": .number(count)]) }

    /// A counter is its keys from the pipeline down: `a` › `b` › `underruns` is not `a.b` ›
    /// `underruns`, though both print as `a.b.underruns`.
    func testACounterIsPairedByItsKeysNotTheirDottedName() throws {
        let nested = Self.eval(pipeline: .object(["a": .object(["b": Self.underruns(1)])]))
        let dotted = Self.eval(pipeline: .object(["a.b": Self.underruns(5)]))
        // The baseline's counter is gone from CURRENT (a regression: it may have risen), not
        // risen from 1 to 5.
        XCTAssertEqual(EvalComparison(baseline: nested, current: dotted, maxRegressionDB: 0.5).regressions.map(\.current), [.missing])
        // Both in one pipeline, the same in both files: nothing changed.
        let both = Self.eval(pipeline: .object(["a": .object(["b": Self.underruns(1)]), "a.b": Self.underruns(2)]))
        let same = EvalComparison(baseline: both, current: both, maxRegressionDB: 0.5)
        XCTAssertTrue(same.regressions.isEmpty)
        XCTAssertTrue(same.improvements.isEmpty)
        // And a real rise under a dotted key is still one, named by its dotted path.
        let rose = EvalComparison(baseline: dotted, current: Self.eval(pipeline: .object(["a.b": Self.underruns(6)])), maxRegressionDB: 0.5)
        XCTAssertEqual(rose.regressions.map(\.subject), [.counter(path: "pipeline.a.b.underruns")])
    }

    /// A frame count or counter no `Int` holds reads as the most there can be: the gate goes on.
    func testANumberTooLargeForACountDoesNotStopTheGate() throws {
        let huge: JSONValue = .object(["erle_steady_db": .number(30), "erle_steady_analysis_frames": .number(1e19)])
        let failed = Self.eval(pipeline: .null, metrics: huge, error: "boom")
        // Failed in both: the run's failure alone (a broken corpus), nothing read of its counts.
        XCTAssertEqual(EvalComparison(baseline: failed, current: failed, maxRegressionDB: 0.5).regressions.map(\.subject), [.run])
        let ran = EvalComparison(baseline: Self.eval(pipeline: Self.underruns(1e19), metrics: huge),
                                 current: Self.eval(pipeline: Self.underruns(2e19), metrics: huge), maxRegressionDB: 0.5)
        XCTAssertEqual(ran.regressions.map(\.subject), [.counter(path: "pipeline.underruns")])
        XCTAssertEqual(ran.regressions.first?.current, .count(Int.max))
        // Up to 2⁶³ a count is itself.
        let large = EvalComparison(baseline: Self.eval(pipeline: Self.underruns(9.21e18)), current: Self.eval(pipeline: Self.underruns(9.22e18)),
                                   maxRegressionDB: 0.5)
        XCTAssertEqual(large.regressions.first?.baseline, .count(Int(9.21e18)))
        XCTAssertEqual(large.regressions.first?.current, .count(Int(9.22e18)))
    }
}
