import EchoLabTestSupport
import Foundation
import XCTest

/// What `compare` judges and how it says it, through the binary: what a new user's trial found
/// judged or said wrong, one test each.
final class CompareVerdictTests: XCTestCase {
    private var root: URL!
    private static let mode = "speex:intensityMin"

    /// Two 4 s items (`delay40-intensityRecommended`, `speech`) in one mode, evaluated into
    /// `base/eval.json`.
    override func setUpWithError() throws {
        root = try temporaryDirectory()
        try writeTwoItemCorpus(in: root.appendingPathComponent("corpus"))
        let eval = try runEchoLab(["eval", "corpus", "--modes", Self.mode, "--out", "base", "--no-taps"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// base/eval.json with `edit` applied, written to `name`.
    private func doctored(_ name: String, _ edit: (inout [String: Any]) throws -> Void) throws -> String {
        var eval = try loadJSON(path("base/eval.json"))
        try edit(&eval)
        try JSONSerialization.data(withJSONObject: eval).write(to: root.appendingPathComponent(name))
        return name
    }

    /// Edits the one result of item `item`.
    private static func editResult(_ eval: inout [String: Any], item: Int, _ edit: (inout [String: Any]) -> Void) {
        var items = eval["items"] as! [[String: Any]]
        var results = items[item]["results"] as! [[String: Any]]
        edit(&results[0])
        items[item]["results"] = results
        eval["items"] = items
    }

    /// Moves item `item`'s steady-state ERLE by `change` dB.
    private static func moveSteadyERLE(_ eval: inout [String: Any], item: Int, by change: Double) {
        editResult(&eval, item: item) { result in
            var metrics = result["metrics"] as! [String: Any]
            metrics["erle_steady_db"] = (metrics["erle_steady_db"] as! Double) + change
            result["metrics"] = metrics
        }
    }

    /// Item `item`'s name.
    private func name(item: Int) throws -> String {
        let items = try XCTUnwrap(loadJSON(path("base/eval.json"))["items"] as? [[String: Any]])
        return try XCTUnwrap(items[item]["name"] as? String)
    }

    /// Item `item`'s steady-state ERLE, a figure the gate judges, and whether it is a lower bound.
    private func steadyERLE(item: Int) throws -> (value: Double, isLowerBound: Bool) {
        let items = try XCTUnwrap(loadJSON(path("base/eval.json"))["items"] as? [[String: Any]])
        let result = try XCTUnwrap((items[item]["results"] as? [[String: Any]])?.first)
        let metrics = try XCTUnwrap(result["metrics"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(metrics["erle_steady_analysis_frames"] as? Int), 20, "judged")
        return (try XCTUnwrap(metrics["erle_steady_db"] as? Double), metrics["erle_steady_is_lower_bound"] as? Bool == true)
    }

    /// A level as compare prints it in its cells.
    private static func db(_ value: Double, isLowerBound: Bool) -> String {
        (isLowerBound ? "≥ " : "") + String(format: "%.2f dB", value)
    }

    /// The lines of `text` that are rows of a table naming `item`.
    private static func rows(naming item: String, in text: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.hasPrefix("| \(item) | ") }
    }

    /// A run measured with another canceller library is listed once and judged nowhere: it was
    /// also a regression (or an improvement), and failed the gate on a library update.
    func testARunMeasuredWithAnotherLibraryIsListedOnceAndNotJudged() throws {
        let library = try XCTUnwrap(((loadJSON(path("base/eval.json"))["items"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])?
            .first?["library"] as? String)
        XCTAssertTrue(library.hasPrefix("speexdsp "), library)
        let item = try name(item: 0)
        // The baseline measured item 0 with another speexdsp, 5 dB better: judged, a regression.
        let older = try doctored("older-library.json") { eval in
            Self.moveSteadyERLE(&eval, item: 0, by: 5)
            Self.editResult(&eval, item: 0) { $0["library"] = "speexdsp 1.2.0" }
        }
        let result = try runEchoLab(["compare", older, "base/eval.json", "--junit", "gate.xml"], in: root)
        XCTAssertEqual(result.status, 0, result.standardOutput + result.standardError)
        XCTAssertTrue(result.standardOutput.contains("**No regression.** 0 improvements beyond the threshold. 1 run measured with another "
                                                      + "canceller library or plugin build was not judged (listed below; --judge-library-changes judges it).\n"),
                      result.standardOutput)
        XCTAssertFalse(result.standardOutput.contains("## Regressions"), result.standardOutput)
        XCTAssertEqual(Self.rows(naming: item, in: result.standardOutput),
                       ["| \(item) | \(Self.mode) | library | speexdsp 1.2.0 | \(library) | — |"], result.standardOutput)
        let junit = try String(contentsOfFile: path("gate.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains(#"tests="2" failures="0" errors="0" skipped="1""#), junit)
        XCTAssertTrue(junit.contains("<skipped message=\"measured with another library (speexdsp 1.2.0, now \(library)): listed, not judged\"/>"),
                      junit)

        // The other way round, 5 dB better with the other library is no improvement either.
        let better = try runEchoLab(["compare", "base/eval.json", older], in: root)
        XCTAssertEqual(better.status, 0, better.standardOutput)
        XCTAssertTrue(better.standardOutput.contains("**No regression.** 0 improvements beyond the threshold. 1 run measured with another "
                                                      + "canceller library or plugin build was not judged"), better.standardOutput)
        XCTAssertEqual(Self.rows(naming: item, in: better.standardOutput).count, 1, better.standardOutput)

        // Asked to (a plugin author's next build against the last), the new library is judged:
        // the 5 dB fall is a regression, and the run is still listed as another library's.
        let judged = try runEchoLab(["compare", older, "base/eval.json", "--judge-library-changes", "--junit", "judged.xml"], in: root)
        XCTAssertEqual(judged.status, 1, judged.standardOutput + judged.standardError)
        XCTAssertTrue(judged.standardOutput.contains("## Measured with another library (judged: --judge-library-changes)"), judged.standardOutput)
        XCTAssertTrue(judged.standardOutput.contains("**1 regression.**"), judged.standardOutput)
        let judgedXML = try String(contentsOfFile: path("judged.xml"), encoding: .utf8)
        XCTAssertTrue(judgedXML.contains(#"failures="1""#) && !judgedXML.contains("listed, not judged"), judgedXML)
        // Judged, it is no skipped case (it was counted one all the same).
        XCTAssertTrue(judgedXML.contains(#"tests="2" failures="1" errors="0" skipped="0""#), judgedXML)
    }

    /// Both means of a mode are over the same runs: each file's mean over all its own items
    /// made an item removed or renamed read as a change of the mode.
    func testTheModeMeansAreOverTheItemsBothFilesJudge() throws {
        let kept = try steadyERLE(item: 0)
        let renamed = try name(item: 1)
        // Item 1 renamed (a regression: missing, and a new run), item 0 0.3 dB lower (within the
        // threshold). The means are item 0's alone in both: the change is item 0's.
        let current = try doctored("renamed.json") { eval in
            Self.moveSteadyERLE(&eval, item: 0, by: -0.3)
            var items = eval["items"] as! [[String: Any]]
            items[1]["name"] = "renamed"
            eval["items"] = items
        }
        let result = try runEchoLab(["compare", "base/eval.json", current], in: root)
        XCTAssertEqual(result.status, 1, result.standardOutput + result.standardError)
        XCTAssertTrue(result.standardOutput.contains("| \(renamed) | \(Self.mode) | run | ran | missing | — |"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("""
            ## Mean steady-state ERLE per mode

            Both means of a mode are over the same items (the items column): the runs both files hold and judge, measured in both; a run only one file has, measured in only one, or with another library is in neither mean. A mean over a lower bound is one itself (≥): its change is given only as far as it is certain (≥ a rise over a measured baseline, ≤ a fall from a bounded baseline to a measured mean), and is otherwise not judged, as a run's is; where every run's figure is the same in both files, it is 0.

            | mode | items | baseline | current | change |
            |---|---|---|---|---|
            | \(Self.mode) | 1 | \(Self.db(kept.value, isLowerBound: kept.isLowerBound)) | \(Self.db(kept.value - 0.3, isLowerBound: kept.isLowerBound)) | \(kept.isLowerBound ? "not judged (both lower bounds)" : "-0.30 dB") |

            """), result.standardOutput)
    }

    /// The runs an interrupted CURRENT did not reach are "not run", listed: they were counted as
    /// regressions "among the runs it holds". The interruption still fails the gate.
    func testAnInterruptedCurrentCountsOnlyTheRunsItHolds() throws {
        let held = try name(item: 0), notRun = try name(item: 1)
        _ = try steadyERLE(item: 0)
        // Interrupted after item 0, which lost 1 dB: one regression, one run not run.
        let interrupted = try doctored("interrupted.json") { eval in
            Self.moveSteadyERLE(&eval, item: 0, by: -1)
            var items = eval["items"] as! [[String: Any]]
            items.removeLast()
            eval["items"] = items
            eval["complete"] = false
        }
        let result = try runEchoLab(["compare", "base/eval.json", interrupted, "--junit", "gate.xml"], in: root)
        XCTAssertEqual(result.status, 1, result.standardOutput + result.standardError)
        XCTAssertTrue(result.standardOutput.contains("""
            **The current run is incomplete** (interrupted; 1 run of the baseline not run, listed below): it cannot pass the gate.

            **1 regression among the runs it holds.** 0 improvements beyond the threshold.

            """), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("| \(held) | \(Self.mode) | erle_steady_db |"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.hasSuffix("""

            ## Not run (the current run was interrupted)

            - \(notRun) × \(Self.mode)

            """), result.standardOutput)
        XCTAssertFalse(result.standardOutput.contains("| missing |"), result.standardOutput)
        let junit = try String(contentsOfFile: path("gate.xml"), encoding: .utf8)
        // The interruption and item 0 fail; item 1 is skipped.
        XCTAssertTrue(junit.contains(#"tests="3" failures="2" errors="0" skipped="1""#), junit)
        XCTAssertTrue(junit.contains(#"<skipped message="not run: the current eval was interrupted"/>"#), junit)
    }

    /// A change just beyond the threshold prints beyond it: a drop of 0.5001 dB against 0.5
    /// printed "-0.50 dB", a failure that read as within the threshold.
    func testAChangeJustBeyondTheThresholdPrintsBeyondIt() throws {
        let item = try name(item: 0), erle = try steadyERLE(item: 0)
        let was = Self.db(erle.value, isLowerBound: erle.isLowerBound)
        let cases: [(change: Double, printed: String)] = [(-0.5001, "-0.5001 dB"), (-0.504, "-0.504 dB"), (-0.506, "-0.51 dB"), (-0.8, "-0.80 dB")]
        for (index, (change, printed)) in cases.enumerated() {
            let current = try doctored("edge\(index).json") { Self.moveSteadyERLE(&$0, item: 0, by: change) }
            let result = try runEchoLab(["compare", "base/eval.json", current, "--junit", "edge\(index).xml"], in: root)
            XCTAssertEqual(result.status, 1, "\(change): \(result.standardOutput)")
            XCTAssertTrue(result.standardOutput.contains("| \(item) | \(Self.mode) | erle_steady_db | \(was) | ") &&
                          result.standardOutput.contains(" | \(printed) |\n"), "\(change): \(result.standardOutput)")
            let junit = try String(contentsOfFile: path("edge\(index).xml"), encoding: .utf8)
            XCTAssertTrue(junit.contains("(\(printed))"), "\(change): \(junit)")
        }
        // An improvement just beyond it, the same way; a threshold of more decimals is printed whole.
        let better = try doctored("better.json") { Self.moveSteadyERLE(&$0, item: 0, by: 0.5001) }
        let improved = try runEchoLab(["compare", "base/eval.json", better], in: root)
        XCTAssertTrue(improved.standardOutput.contains(" | +0.5001 dB |\n"), improved.standardOutput)
        let fine = try runEchoLab(["compare", "base/eval.json", "edge1.json", "--max-regression-db", "0.5035"], in: root)
        XCTAssertTrue(fine.standardOutput.contains(" · threshold 0.5035 dB on ERLE"), fine.standardOutput)
        XCTAssertTrue(fine.standardOutput.contains(" | -0.504 dB |\n"), fine.standardOutput)
    }

    /// The header counted "(1 runs)".
    func testOneRunIsOneRun() throws {
        let one = try doctored("one.json") { eval in
            var items = eval["items"] as! [[String: Any]]
            items.removeLast()
            eval["items"] = items
        }
        let result = try runEchoLab(["compare", one, one], in: root)
        XCTAssertEqual(result.status, 0, result.standardOutput + result.standardError)
        XCTAssertTrue(result.standardOutput.contains("Baseline `one.json` (1 run) · current `one.json` (1 run) · "), result.standardOutput)
        let two = try runEchoLab(["compare", "base/eval.json", "base/eval.json"], in: root)
        XCTAssertTrue(two.standardOutput.contains("Baseline `base/eval.json` (2 runs) · current `base/eval.json` (2 runs) · "), two.standardOutput)
    }

    /// An output file compare refuses is a usage error, said as swift-argument-parser says one,
    /// before anything is read or written: it exited 2, which says an input cannot be read.
    func testARefusedOutputFileIsAUsageError() throws {
        let usage = "Usage: echolab compare <baseline> <current> [--max-regression-db <dB>] [--max-regression-mos <score>] [--markdown <file>] [--junit <file>] [--judge-library-changes]\n"
            + "  See 'echolab compare --help' for more information.\n"
        let same = try runEchoLab(["compare", "base/eval.json", "base/eval.json", "--markdown", "x.md", "--junit", "x.md"], in: root)
        XCTAssertEqual(same.status, 64, same.standardOutput + same.standardError)
        XCTAssertEqual(same.standardError, "Error: x.md: given to both --markdown and --junit; name two files\n" + usage)
        XCTAssertEqual(same.standardOutput, "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.md")))

        let input = try runEchoLab(["compare", "base/eval.json", "base/eval.json", "--junit", "./base/eval.json"], in: root)
        XCTAssertEqual(input.status, 64, input.standardOutput + input.standardError)
        XCTAssertEqual(input.standardError, "Error: --junit ./base/eval.json: cannot write: it is an input (base/eval.json); choose another file\n" + usage)
        XCTAssertEqual(input.standardOutput, "")
    }
}
