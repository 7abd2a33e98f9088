import EchoLabJSON
import XCTest
@testable import Evaluation
import Reporting

/// `compare` lists the runs measured with another canceller library than the baseline's (a
/// version, a plugin's SHA-256) without judging them, and says nothing for a baseline written
/// before libraries were named.
final class LibraryChangeTests: XCTestCase {
    static func eval(library: String?, erle: Double = 20, error: String? = nil) -> JSONValue {
        var result: [String: JSONValue] = ["mode": .string("speex:intensityMax"), "folder": .string("a/speex-intensityMax"), "error": .null,
                                           "metrics": .object(["erle_steady_db": .number(erle), "erle_steady_analysis_frames": .number(400)]),
                                           "findings": .array([]), "duration_s": .number(4)]
        if let error {
            // A failed run as eval.json lists it: its error and the library it failed with.
            result = ["mode": .string("speex:intensityMax"), "folder": .string("a/speex-intensityMax"), "error": .string(error)]
        }
        result["library"] = library.map(JSONValue.string)
        return .object(["schema": .string(EvalDocument.schema), "complete": .bool(true),
                        "items": .array([.object(["index": .number(0), "name": .string("a"), "file": .string("a.json"),
                                                  "results": .array([.object(result)])])])])
    }

    func testAnotherLibraryIsListedNotJudged() {
        // 5 dB less with the other library: not a regression, the numbers measure another build.
        let comparison = EvalComparison(baseline: Self.eval(library: "speexdsp 1.2.0", erle: 25), current: Self.eval(library: "speexdsp 1.2.1"),
                                        maxRegressionDB: 0.5)
        XCTAssertFalse(comparison.hasRegression)
        XCTAssertTrue(comparison.regressions.isEmpty && comparison.improvements.isEmpty)
        XCTAssertEqual(comparison.libraryChanges.map(\.baselineText), ["speexdsp 1.2.0"])
        XCTAssertEqual(comparison.libraryChanges.map(\.currentText), ["speexdsp 1.2.1"])
        XCTAssertEqual(comparison.libraryChanges.map(\.run.description), ["a × speex:intensityMax"])
        XCTAssertTrue(EvalComparison(baseline: Self.eval(library: "speexdsp 1.2.1"), current: Self.eval(library: "speexdsp 1.2.1"),
                                     maxRegressionDB: 0.5).libraryChanges.isEmpty)
        XCTAssertTrue(EvalComparison(baseline: Self.eval(library: nil), current: Self.eval(library: "speexdsp 1.2.1"),
                                     maxRegressionDB: 0.5).libraryChanges.isEmpty, "an old baseline names none")
    }

    /// A run that fails with another build (a rebuilt plugin that crashes) names the build in
    /// eval.json, and is a failure the gate fails on, not a library change passed over.
    func testARunThatFailsWithAnotherBuildIsARegression() {
        let comparison = EvalComparison(baseline: Self.eval(library: "plugin mine, sha256 aaaa"),
                                        current: Self.eval(library: "plugin mine, sha256 bbbb", error: "plugin mine (/p.so): crashed at frame 30"),
                                        maxRegressionDB: 0.5)
        XCTAssertTrue(comparison.hasRegression)
        XCTAssertEqual(comparison.regressions.map(\.run.description), ["a × speex:intensityMax"])
        XCTAssertTrue(comparison.libraryChanges.isEmpty)
    }
}
