import EchoLabTestSupport
import Evaluation
import Foundation
import XCTest

/// The CI gate and shards, through the real binary: `compare` passes an equal report and fails a
/// worse one; shards 1/N … N/N merged equal the unsharded run (timing aside) for N = 2 and 3;
/// `make eval` fails when the baseline is beaten by more than the threshold.
final class EvalGateTests: XCTestCase {
    private var root: URL!
    private static let modes = "disabled,speex:intensityMin,webrtc:intensityRecommended"

    override func setUpWithError() throws {
        root = try temporaryDirectory()
        let corpus = root.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 3), named: "delay.json", in: corpus)
        _ = try writeScenario("""
            {"name": "speech", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "near_end": {"generator": "speech", "level_dbfs": -26, "seed": 9}, "noise": {"level_dbfs": -65, "seed": 2},
             "echo_path": {"delay_ms": 25, "gain_db": -8, "synthetic_room": {"rt60_ms": 200, "seed": 1}},
             "aec": {"mode": "intensityMin"}, "duration_s": 3}
            """, named: "speech.json", in: corpus)
        let eval = try runEchoLab(["eval", "corpus", "--modes", Self.modes, "--out", "whole", "--jobs", "2", "--no-taps"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// eval.json with its values edited by `edit`, written to `name`.
    private func doctored(_ name: String, _ edit: (inout [String: Any]) -> Void) throws -> String {
        var eval = try loadJSON(path("whole/eval.json"))
        edit(&eval)
        try JSONSerialization.data(withJSONObject: eval).write(to: root.appendingPathComponent(name))
        return name
    }

    private static func editResult(_ eval: inout [String: Any], item: Int, mode: Int, _ edit: (inout [String: Any]) -> Void) {
        var items = eval["items"] as! [[String: Any]]
        var results = items[item]["results"] as! [[String: Any]]
        edit(&results[mode])
        items[item]["results"] = results
        eval["items"] = items
    }

    /// A speaker whose app started the user reference and never fed it: the far end played and its
    /// echo went out uncancelled, though the gate, reading the silent reference the canceller got,
    /// heard none. eval.md called the item's near end "alone" (a near talker with no far end: a QA
    /// engineer's trial read "— / 2.6 alone"); the lint says what happened.
    func testAnUnfedReferenceIsNoNearTalkerAlone() throws {
        let inputs = packageRoot.appendingPathComponent("vectors/inputs").path
        let folder = root.appendingPathComponent("unfed")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try writeScenario("""
            {"name": "unfed", "far_end": "\(inputs)/farend_speech_16k.wav", "near_end": "\(inputs)/nearend_speech_16k.wav",
             "noise": {"level_dbfs": -60, "seed": 7}, "echo_path": {"delay_ms": 40, "gain_db": -10},
             "aec": {"backend": "speex", "mode": "intensityRecommended"}, "duration_s": 12,
             "speaker": {"device": "passthrough", "aec_reference": false}, "user_reference": true}
            """, named: "unfed.json", in: folder)
        let eval = try runEchoLab(["eval", "unfed", "--out", "unfed-out", "--no-taps"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        let runs = try loadJSON(path("unfed-out/eval.json"))["items"] as? [[String: Any]]
        let findings = (runs?.first?["results"] as? [[String: Any]])?.first?["findings"] as? [String]
        XCTAssertEqual(findings?.contains("user-reference-not-fed"), true, "\(String(describing: findings))")
        let markdown = try String(contentsOfFile: path("unfed-out/eval.md"), encoding: .utf8)
        let rows = markdown.split(separator: "\n").filter { $0.hasPrefix("| unfed |") || $0.hasPrefix("| [unfed]") }
        XCTAssertFalse(rows.isEmpty, markdown)
        for row in rows { XCTAssertFalse(row.contains("alone"), String(row)) }
    }

    func testAnEqualReportPasses() throws {
        let result = try runEchoLab(["compare", "whole/eval.json", "whole/eval.json"], in: root)
        XCTAssertEqual(result.status, 0, result.standardOutput + result.standardError)
        XCTAssertTrue(result.standardOutput.contains("**No regression.**"), result.standardOutput)
        // The per-mode table lists every mode with a zero change.
        for mode in Self.modes.split(separator: ",") { XCTAssertTrue(result.standardOutput.contains("| \(mode) |"), "\(mode)") }
    }

    /// A baseline another EchoLab version wrote is compared on the keys both files have, and the
    /// diff says which wrote each: it passed without a word before.
    func testABaselineOfAnotherVersionIsSaidNotJudged() throws {
        let older = try doctored("older.json") { eval in
            eval["tool"] = ["name": "echolab", "version": "0.0.9"]
            eval["schema"] = "echolab.eval/3"
        }
        let result = try runEchoLab(["compare", older, "whole/eval.json", "--junit", "older.xml"], in: root)
        XCTAssertEqual(result.status, 0, result.standardOutput + result.standardError)
        let junit = try String(contentsOf: root.appendingPathComponent("older.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains("<system-out>The baseline was written by EchoLab 0.0.9 (echolab.eval/3)"), junit)
        let current = try XCTUnwrap((try loadJSON(path("whole/eval.json"))["tool"] as? [String: Any])?["version"] as? String)
        XCTAssertTrue(result.standardOutput.contains("The baseline was written by EchoLab 0.0.9 (echolab.eval/3), the current file by "
                                                     + "EchoLab \(current) (echolab.eval/4): they compare on the keys both have"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("**No regression.**"), result.standardOutput)
        let same = try runEchoLab(["compare", "whole/eval.json", "whole/eval.json"], in: root)
        XCTAssertFalse(same.standardOutput.contains("was written by"), same.standardOutput)
    }

    func testLowerERLEBeyondTheThresholdFailsAndWithinItPasses() throws {
        var before = 0.0
        let worse = try doctored("worse.json") { eval in
            Self.editResult(&eval, item: 0, mode: 1) { result in
                var metrics = result["metrics"] as! [String: Any]
                before = metrics["erle_steady_db"] as! Double
                metrics["erle_steady_db"] = before - 0.8
                result["metrics"] = metrics
            }
        }
        let failing = try runEchoLab(["compare", "whole/eval.json", worse, "--max-regression-db", "0.5", "--markdown", "diff.md"], in: root)
        XCTAssertEqual(failing.status, 1, failing.standardOutput + failing.standardError)
        XCTAssertTrue(failing.standardOutput.contains("**1 regression.**"), failing.standardOutput)
        XCTAssertTrue(failing.standardOutput.contains("| delay40-intensityRecommended | speex:intensityMin | erle_steady_db | \(String(format: "%.2f dB", before))"),
                      failing.standardOutput)
        XCTAssertTrue(failing.standardOutput.contains("| -0.80 dB |"), failing.standardOutput)
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("diff.md"), encoding: .utf8), failing.standardOutput)

        let passing = try runEchoLab(["compare", "whole/eval.json", worse, "--max-regression-db", "1"], in: root)
        XCTAssertEqual(passing.status, 0, passing.standardOutput)
        // The other way round it is an improvement, not a regression.
        let better = try runEchoLab(["compare", worse, "whole/eval.json", "--max-regression-db", "0.5"], in: root)
        XCTAssertEqual(better.status, 0, better.standardOutput)
        XCTAssertTrue(better.standardOutput.contains("1 improvement beyond the threshold"), better.standardOutput)
    }

    func testARisingFaultCounterAFailedRunAndAMissingRunFail() throws {
        let counters = try doctored("counters.json") { eval in
            Self.editResult(&eval, item: 1, mode: 0) { result in
                var pipeline = result["pipeline"] as! [String: Any]
                var uplink = pipeline["uplink"] as! [String: Any]
                uplink["dropped"] = (uplink["dropped"] as! Double) + 480
                pipeline["uplink"] = uplink
                pipeline["aec_resets"] = (pipeline["aec_resets"] as! Double) + 1
                result["pipeline"] = pipeline
            }
        }
        let rose = try runEchoLab(["compare", "whole/eval.json", counters], in: root)
        XCTAssertEqual(rose.status, 1, rose.standardOutput)
        XCTAssertTrue(rose.standardOutput.contains("| speech | disabled | pipeline.uplink.dropped | 0 | 480 | +480 |"), rose.standardOutput)
        XCTAssertTrue(rose.standardOutput.contains("pipeline.aec_resets"), rose.standardOutput)

        let failed = try doctored("failed.json") { eval in
            Self.editResult(&eval, item: 0, mode: 2) { $0["error"] = "x.wav: broken\u{1B}[2J" }
        }
        let failure = try runEchoLab(["compare", "whole/eval.json", failed], in: root)
        XCTAssertEqual(failure.status, 1)
        // Text from the files compared is shown printable: an ESC there would clear the screen.
        XCTAssertTrue(failure.standardOutput.contains("| ran | failed: x.wav: broken\\x1b[2J |"), failure.standardOutput)

        let missing = try doctored("missing.json") { eval in
            var items = eval["items"] as! [[String: Any]]
            items.removeLast()
            eval["items"] = items
        }
        let lost = try runEchoLab(["compare", "whole/eval.json", missing], in: root)
        XCTAssertEqual(lost.status, 1)
        XCTAssertTrue(lost.standardOutput.contains("**3 regressions.**"), "every mode of the dropped item: \(lost.standardOutput)")
        // A gate must not pass on nothing: the baseline's runs are all missing from an empty report.
        let interrupted = try doctored("interrupted.json") { $0["complete"] = false }
        XCTAssertEqual(try runEchoLab(["compare", "whole/eval.json", interrupted], in: root).status, 1)
        // A run the baseline had failed, missing now: still a regression, and said as it was.
        let failedLast = try doctored("failed-last.json") { eval in
            Self.editResult(&eval, item: 1, mode: 0) { $0["error"] = "y.wav: broken" }
        }
        let missingFailed = try runEchoLab(["compare", failedLast, missing], in: root)
        XCTAssertEqual(missingFailed.status, 1)
        XCTAssertTrue(missingFailed.standardOutput.contains("| failed | missing |"), missingFailed.standardOutput)
    }

    /// A scenario named otherwise than its file (`speech.json` is "speech"; here "my-speech")
    /// that breaks fails under its own name, which its baseline runs are known by: the gate says
    /// the error against them, not "missing" beside a new item named after the file. Broken in
    /// the baseline and still broken, it fails the gate too.
    func testABrokenScenarioFailsUnderItsOwnNameAndStaysAFailure() throws {
        let corpus = root.appendingPathComponent("corpus")
        let file = corpus.appendingPathComponent("speech.json")
        let healthy = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: "\"name\": \"speech\"", with: "\"name\": \"my-speech\"")
        try healthy.write(to: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(try runEchoLab(["eval", "corpus", "--modes", "disabled", "--out", "named", "--no-taps"], in: root).status, 0)
        try healthy.replacingOccurrences(of: "\"delay_ms\"", with: "\"delay_msec\"").write(to: file, atomically: true, encoding: .utf8)
        let broken = try runEchoLab(["eval", "corpus", "--modes", "disabled", "--out", "broken", "--no-taps"], in: root)
        XCTAssertEqual(broken.status, 1)
        let gate = try runEchoLab(["compare", "named/eval.json", "broken/eval.json", "--junit", "gate.xml"], in: root)
        XCTAssertEqual(gate.status, 1)
        XCTAssertTrue(gate.standardOutput.contains("| my-speech | disabled | run | ran | failed: corpus/speech.json: echo_path.delay_msec: unknown key (did you mean 'delay_ms'?) |"),
                      gate.standardOutput)
        XCTAssertFalse(gate.standardOutput.contains("| speech |"), gate.standardOutput)
        let again = try runEchoLab(["eval", "corpus", "--modes", "disabled", "--out", "again", "--no-taps"], in: root)
        XCTAssertEqual(again.status, 1)
        let still = try runEchoLab(["compare", "broken/eval.json", "again/eval.json", "--junit", "still.xml"], in: root)
        XCTAssertEqual(still.status, 1, still.standardOutput)
        XCTAssertTrue(still.standardOutput.contains("| my-speech | disabled | run | failed | failed: corpus/speech.json: echo_path.delay_msec: unknown key (did you mean 'delay_ms'?) |"),
                      still.standardOutput)
        let junit = try String(contentsOf: root.appendingPathComponent("still.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains("<testcase classname=\"my-speech\" name=\"disabled\">\n      <failure"), junit)
        // A broken copy of a healthy item (an editor's backup, sorting first) does not take its
        // name: the healthy one runs, the copy fails under its file's name.
        try healthy.write(to: file, atomically: true, encoding: .utf8)
        try healthy.replacingOccurrences(of: "\"delay_ms\"", with: "\"delay_msec\"")
            .write(to: corpus.appendingPathComponent("0-backup.json"), atomically: true, encoding: .utf8)
        let backup = try runEchoLab(["eval", "corpus", "--modes", "disabled", "--out", "backup", "--no-taps"], in: root)
        XCTAssertEqual(backup.status, 1)
        let items = try XCTUnwrap(try loadJSON(path("backup/eval.json"))["items"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: items.map { ($0["name"] as! String, ($0["results"] as! [[String: Any]])[0]) })
        XCTAssertTrue(byName["my-speech"]?["error"] is NSNull, "\(byName)")
        XCTAssertTrue((byName["0-backup"]?["error"] as? String)?.contains("echo_path.delay_msec: unknown key") == true, "\(byName)")
    }

    /// An eval that cannot start (no such corpus, none in it, a broken manifest) exits 1 as a
    /// failed run does, so an earlier eval.json in OUT goes: a CI job that accepts exit 1 would
    /// merge or gate it. (A broken manifest left it, and compare passed on the earlier results.)
    func testAnEvalThatCannotStartLeavesNoEarlierReport() throws {
        let whole = root.appendingPathComponent("whole")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("empty"), withIntermediateDirectories: true)
        try Data(#"{"corpus": ["corpus", "nothere"]}"#.utf8).write(to: root.appendingPathComponent("missing.json"))
        try Data(#"{"corpus": ["corpus""#.utf8).write(to: root.appendingPathComponent("cut.json"))
        for corpus in ["corpsu", "empty", "missing.json", "cut.json"] {
            XCTAssertEqual(try runEchoLab(["eval", "corpus", "--modes", "disabled", "--out", "whole", "--no-taps"], in: root).status, 0)
            let failed = try runEchoLab(["eval", corpus, "--modes", "disabled", "--out", "whole", "--no-taps"], in: root)
            XCTAssertEqual(failed.status, 1, corpus)
            for report in ["eval.json", "eval.md", "eval.html"] {
                XCTAssertFalse(FileManager.default.fileExists(atPath: whole.appendingPathComponent(report).path), "\(corpus): \(report)")
            }
        }
        // Refused for where OUT is (inside a folder a manifest names), not for the corpus: the
        // folder's reports are not eval's to remove.
        let reports = root.appendingPathComponent("corpus/reports")
        try FileManager.default.createDirectory(at: reports, withIntermediateDirectories: true)
        XCTAssertEqual(try runEchoLab(["eval", "corpus", "--modes", "disabled", "--out", "whole", "--no-taps"], in: root).status, 0)
        try FileManager.default.copyItem(at: whole.appendingPathComponent("eval.json"), to: reports.appendingPathComponent("eval.json"))
        try Data(#"{"corpus": ["corpus"]}"#.utf8).write(to: root.appendingPathComponent("outer.json"))
        let inside = try runEchoLab(["eval", "outer.json", "--modes", "disabled", "--out", "corpus/reports", "--no-taps"], in: root)
        XCTAssertNotEqual(inside.status, 0)
        XCTAssertTrue(inside.standardError.contains("output folder is inside the corpus folder"), inside.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: reports.appendingPathComponent("eval.json").path), inside.standardError)
    }

    func testUnreadableInputsExitTwoNamingTheFile() throws {
        try Data("{\"schema\": \"echolab.run/1\"}".utf8).write(to: root.appendingPathComponent("run.json"))
        for (file, problem) in [("nothing.json", "no such file"), ("corpus", "is a folder"), ("run.json", "not an EchoLab eval.json"),
                                ("corpus/delay.json", "not an EchoLab eval.json")] {
            let result = try runEchoLab(["compare", file, "whole/eval.json"], in: root)
            XCTAssertEqual(result.status, 2, file)
            XCTAssertEqual(result.standardError, "echolab: \(file): \(problem)\(problem == "is a folder" ? ", not a file" : problem.hasPrefix("not an") ? " (its schema is not echolab.eval/…)" : "")\n")
        }
        // A negative value is a bad value, not a missing one (swift-argument-parser's reading of
        // "-1" as an option name, without `.unconditional`).
        let negative = try runEchoLab(["compare", "whole/eval.json", "whole/eval.json", "--max-regression-db", "-1"], in: root)
        XCTAssertEqual(negative.status, 64)
        XCTAssertTrue(negative.standardError.hasPrefix("Error: --max-regression-db must be a number ≥ 0 (got -1.0)"), negative.standardError)
        // A later schema may mean other things by the same keys.
        let future = try doctored("future.json") { $0["schema"] = "echolab.eval/99" }
        let newer = try runEchoLab(["compare", "whole/eval.json", future], in: root)
        XCTAssertEqual(newer.status, 2)
        XCTAssertEqual(newer.standardError, "echolab: \(future): schema echolab.eval/99 is not one this EchoLab reads "
                       + "(echolab.eval/1 to /4); compare with the EchoLab that wrote it\n")
    }

    /// `--markdown` naming a compared file would replace the report it reads; a pipe or a device
    /// would be replaced by a file (run as root, /dev/null). Both are refused as usage errors
    /// before anything is read or printed, and the file stays what it was.
    func testTheMarkdownNeverReplacesAnInputOrAPipe() throws {
        try FileManager.default.copyItem(atPath: path("whole/eval.json"), toPath: path("current.json"))
        let before = try Data(contentsOf: root.appendingPathComponent("current.json"))
        for spelling in ["current.json", "./current.json", path("current.json")] {
            let result = try runEchoLab(["compare", "whole/eval.json", "current.json", "--markdown", spelling], in: root)
            XCTAssertEqual(result.status, 64, spelling)
            XCTAssertTrue(result.standardError.hasPrefix("Error: --markdown \(spelling): cannot write: it is an input (current.json); choose another file\nUsage: "),
                          result.standardError)
            XCTAssertEqual(result.standardOutput, "", "nothing compared")
        }
        XCTAssertEqual(try Data(contentsOf: root.appendingPathComponent("current.json")), before)
        XCTAssertEqual(mkfifo(path("pipe"), 0o644), 0)
        let pipe = try runEchoLab(["compare", "whole/eval.json", "current.json", "--markdown", "pipe"], in: root)
        XCTAssertEqual(pipe.status, 64)
        XCTAssertTrue(pipe.standardError.hasPrefix("Error: --markdown pipe: cannot write: is a named pipe, not a file; EchoLab replaces only regular files\nUsage: "),
                      pipe.standardError)
        var status = stat()
        XCTAssertEqual(lstat(path("pipe"), &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO, "still a pipe")
    }

    /// The reports go into folders that do not exist yet, made as `process --out` and
    /// `eval --out` make theirs (the Markdown was refused with exit 2, "No such file or directory").
    func testTheReportsGoIntoFoldersMadeForThem() throws {
        try FileManager.default.copyItem(atPath: path("whole/eval.json"), toPath: path("current.json"))
        let result = try runEchoLab(["compare", "whole/eval.json", "current.json", "--markdown", "ci/reports/compare.md",
                                     "--junit", path("ci/junit/compare.xml")], in: root)
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(try String(contentsOfFile: path("ci/reports/compare.md"), encoding: .utf8), result.standardOutput)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("ci/junit/compare.xml")))
    }

    func testABrokenEvalJSONIsRefusedNotPassed() throws {
        // Read leniently, each of these was "No regression" (exit 0), as baseline or as current.
        func editMetrics(_ eval: inout [String: Any], _ edit: @escaping (inout [String: Any]) -> Void) {
            Self.editResult(&eval, item: 0, mode: 0) { result in
                var metrics = result["metrics"] as! [String: Any]
                edit(&metrics)
                result["metrics"] = metrics
            }
        }
        let cases: [(name: String, edit: (inout [String: Any]) -> Void, problem: String)] = [
            ("no-items.json", { $0.removeValue(forKey: "items") }, "items: missing or not a list"),
            ("items-object.json", { $0["items"] = [String: Any]() }, "items: missing or not a list"),
            ("results-number.json", { eval in
                var items = eval["items"] as! [[String: Any]]
                items[0]["results"] = 5
                eval["items"] = items
            }, "items[0].results: missing or not a list"),
            ("metrics-number.json", { Self.editResult(&$0, item: 0, mode: 0) { $0["metrics"] = 7 } },
             "items[0].results[0].metrics: missing or not an object"),
            ("erle-string.json", { editMetrics(&$0) { $0["erle_steady_db"] = "NaN" } },
             "items[0].results[0].metrics.erle_steady_db: not a number or null"),
            ("counter-string.json", { Self.editResult(&$0, item: 0, mode: 0) { result in
                var pipeline = result["pipeline"] as! [String: Any]
                pipeline["aec_resets"] = "0"
                result["pipeline"] = pipeline
            } }, "items[0].results[0].pipeline.aec_resets: not a number"),
            ("duplicate-item.json", { eval in
                var items = eval["items"] as! [[String: Any]]
                items.append(items[0])
                eval["items"] = items
            }, "items[2].index: 0 is also items[0]'s"),
            ("outside.json", { Self.editResult(&$0, item: 0, mode: 0) { $0["folder"] = "../elsewhere/x" } },
             "items[0].results[0].folder: '../elsewhere/x' is not a folder inside the eval's output folder"),
            ("no-complete.json", { $0.removeValue(forKey: "complete") }, "complete: missing or not true/false"),
            // A mode edited to one eval never writes read as a new run.
            ("bogus-mode.json", { Self.editResult(&$0, item: 0, mode: 0) { $0["mode"] = "speex:intensityBogus" } },
             "items[0].results[0].mode: 'speex:intensityBogus' is not disabled or BACKEND:INTENSITY"),
            // A baseline ERLE of 1e308 dB falling to 13 dB read as an improvement, its change overflowing.
            ("erle-1e308.json", { editMetrics(&$0) { $0["erle_steady_db"] = 1e308 } },
             "items[0].results[0].metrics.erle_steady_db: 1e+308 dB is not a level EchoLab writes (at most ±1000 dB)"),
            ("frames-negative.json", { editMetrics(&$0) { $0["erle_steady_analysis_frames"] = -3 } },
             "items[0].results[0].metrics.erle_steady_analysis_frames: -3 is not a count (a whole number, 0 or more)"),
            // A null count read as no count: the figure beside it was gated as if it stood on enough frames.
            ("frames-null.json", { editMetrics(&$0) { $0["erle_steady_analysis_frames"] = NSNull() } },
             "items[0].results[0].metrics.erle_steady_analysis_frames: null, where every run EchoLab writes has a count"),
            ("gate-frames-null.json", { editMetrics(&$0) { metrics in
                var gate = metrics["gate"] as! [String: Any]
                gate["single_talk_analysis_frames"] = NSNull()
                metrics["gate"] = gate
            } }, "items[0].results[0].metrics.gate.single_talk_analysis_frames: null, where every run EchoLab writes has a count"),
            // −5 underruns "rose" by 5 to none, and 1.5 read as 1.
            ("counter-negative.json", { Self.editResult(&$0, item: 0, mode: 0) { result in
                var pipeline = result["pipeline"] as! [String: Any]
                pipeline["underruns"] = -5
                result["pipeline"] = pipeline
            } }, "items[0].results[0].pipeline.underruns: -5 is not a count (a whole number, 0 or more)"),
            ("counter-fraction.json", { Self.editResult(&$0, item: 0, mode: 0) { result in
                var pipeline = result["pipeline"] as! [String: Any]
                pipeline["aec_resets"] = 1.5
                result["pipeline"] = pipeline
            } }, "items[0].results[0].pipeline.aec_resets: 1.5 is not a count (a whole number, 0 or more)"),
            // Taken as no scores, a regression read as "not run on one side".
            ("scores-string.json", { Self.editResult(&$0, item: 0, mode: 0) { $0["scores"] = "4.5" } },
             "items[0].results[0].scores: not a list of scorer results"),
            ("scores-unnamed.json", { Self.editResult(&$0, item: 0, mode: 0) { $0["scores"] = [["talk_types": [Any]()]] } },
             "items[0].results[0].scores: not a list of scorer results"),
        ]
        for (name, edit, problem) in cases {
            let file = try doctored(name, edit)
            for arguments in [["compare", file, "whole/eval.json"], ["compare", "whole/eval.json", file]] {
                let result = try runEchoLab(arguments, in: root)
                XCTAssertEqual(result.status, 2, "\(arguments)")
                XCTAssertEqual(result.standardError, "echolab: \(file): not an EchoLab eval.json: \(problem)\n")
            }
        }
    }

    /// Shards of one manifest run in two checkouts (the same command line, in folders at other
    /// absolute paths) merge: the manifest's entries are named from its path as given. A scenario
    /// edited between the two jobs makes another plan, which merge refuses.
    func testShardsOfOneManifestMergeFromAnotherCheckoutButNotFromAnEditedOne() throws {
        let manifest = #"{"corpus": ["../corpus/delay.json", "../corpus/speech.json"]}"#
        for checkout in ["a", "b", "edited"] {
            let folder = root.appendingPathComponent(checkout)
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("lists"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: root.appendingPathComponent("corpus"), to: folder.appendingPathComponent("corpus"))
            try manifest.write(to: folder.appendingPathComponent("lists/corpus.json"), atomically: true, encoding: .utf8)
        }
        let edited = root.appendingPathComponent("edited/corpus/speech.json")
        try (try String(contentsOf: edited, encoding: .utf8)).replacingOccurrences(of: "\"seed\": 9", with: "\"seed\": 10")
            .write(to: edited, atomically: true, encoding: .utf8)
        for (checkout, shard) in [("a", "1/2"), ("b", "2/2"), ("edited", "2/2")] {
            let result = try runEchoLab(["eval", "lists/corpus.json", "--modes", "disabled", "--out", "../\(checkout)-shard", "--shard", shard, "--no-taps"],
                                        in: root.appendingPathComponent(checkout))
            XCTAssertEqual(result.status, 0, result.standardError)
        }
        let merged = try runEchoLab(["merge", "a-shard", "b-shard", "--out", "ab"], in: root)
        XCTAssertEqual(merged.status, 0, merged.standardError)
        let files = try XCTUnwrap(loadJSON(path("ab/eval.json"))["items"] as? [[String: Any]]).compactMap { $0["file"] as? String }
        XCTAssertEqual(files, ["lists/../corpus/delay.json", "lists/../corpus/speech.json"], "as the manifest names them, from where it was given")
        let refused = try runEchoLab(["merge", "a-shard", "edited-shard", "--out", "bad"], in: root)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.standardError.hasPrefix("echolab: edited-shard/eval.json: its plan differs from a-shard/eval.json's"), refused.standardError)
    }

    /// A merge of a shard whose eval was interrupted (its eval.json "complete": false, the items
    /// it did not reach missing) writes the merge, incomplete as its eval.json says, and exits 1
    /// naming the shard: it exited 0 and a CI job that merges and stops there passed.
    func testAMergeOfAnInterruptedShardExitsOneAndNamesIt() throws {
        let corpus = root.appendingPathComponent("two")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        for name in ["a", "b", "c"] {
            _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 1), named: "\(name).json", in: corpus)
        }
        for name in ["a", "b", "c"] {
            let file = corpus.appendingPathComponent("\(name).json")
            var scenario = try loadJSON(file.path)
            scenario["name"] = name
            try JSONSerialization.data(withJSONObject: scenario).write(to: file)
        }
        for index in 1...2 {
            let shard = try runEchoLab(["eval", "two", "--modes", "disabled", "--out", "s\(index)", "--shard", "\(index)/2", "--no-taps"], in: root)
            XCTAssertEqual(shard.status, 0, shard.standardError)
        }
        // Shard 1/2 holds items 1 and 3: as if interrupted after the first.
        let file = root.appendingPathComponent("s1/eval.json")
        var eval = try loadJSON(file.path)
        eval["complete"] = false
        eval["items"] = Array((eval["items"] as! [[String: Any]]).prefix(1))
        try JSONSerialization.data(withJSONObject: eval).write(to: file)
        let merged = try runEchoLab(["merge", "s1", "s2", "--out", "m"], in: root)
        XCTAssertEqual(merged.status, 1, merged.standardError)
        XCTAssertEqual(merged.standardError, "echolab: s1/eval.json: incomplete: its eval was interrupted (1 of 2 runs)\n")
        XCTAssertEqual(try loadJSON(path("m/eval.json"))["complete"] as? Bool, false)
    }

    /// A merge of shards with a failed run exits as the unsharded eval does (1), says the failed
    /// runs' errors as eval says them, and still writes eval.json with the failure in it: a CI
    /// job that merges and stops there failed green before.
    func testAMergeWithFailedRunsExitsOneAndSaysWhy() throws {
        let broken = root.appendingPathComponent("broken")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 2), named: "a-delay.json", in: broken)
        _ = try writeScenario(#"{"name": "gone", "far_end": "gone.wav", "duration_s": 2}"#, named: "b-gone.json", in: broken)
        let modes = "disabled,speex:intensityMin"
        let whole = try runEchoLab(["eval", "broken", "--modes", modes, "--out", "broken-whole", "--no-taps"], in: root)
        XCTAssertEqual(whole.status, 1)
        for index in 1...2 {
            _ = try runEchoLab(["eval", "broken", "--modes", modes, "--out", "b\(index)", "--shard", "\(index)/2", "--no-taps"], in: root)
        }
        let merged = try runEchoLab(["merge", "b1", "b2", "--out", "broken-merged"], in: root)
        XCTAssertEqual(merged.status, 1, merged.standardError)
        XCTAssertEqual(merged.standardError, withoutModesWarnings(whole.standardError), "the failed runs' errors, as eval said them")
        XCTAssertTrue(merged.standardError.contains("gone.wav"), merged.standardError)
        XCTAssertEqual(merged.standardOutput, "merged 2 shards: 2 of 4 runs succeeded (1 with lint findings) → broken-merged/eval.md\n")
        let document = try loadJSON(path("broken-merged/eval.json"))
        XCTAssertEqual((document["items"] as? [[String: Any]])?.count, 2)
    }

    /// A refused merge leaves OUT's runs as they were and takes away its earlier eval.json, eval.md
    /// and eval.html, as an eval that ran nothing does: its exit status is a merge's with failed
    /// runs, and a CI job accepting that gated the earlier eval.json (a missing shard "passed").
    func testMergeRefusesAnotherPlanAndAnythingOutsideOutAndLeavesOutsRunsAsTheyWere() throws {
        for index in 1...2 {
            let shard = try runEchoLab(["eval", "corpus", "--modes", Self.modes, "--out", "s\(index)", "--shard", "\(index)/2"], in: root)
            XCTAssertEqual(shard.status, 0, shard.standardError)
        }
        XCTAssertEqual(try runEchoLab(["merge", "s1", "s2", "--out", "merged"], in: root).status, 0)
        /// Every file's bytes (a folder: empty), by path relative to `folder`.
        func snapshot(_ folder: String) throws -> [String: Data] {
            var files: [String: Data] = [:]
            for file in allFiles(under: root.appendingPathComponent(folder)) {
                let url = root.appendingPathComponent(folder).appendingPathComponent(file)
                files[file] = url.hasDirectoryPath || (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true
                    ? Data() : try Data(contentsOf: url)
            }
            return files
        }
        let earlier = try snapshot("merged")
        let reports: Set = ["eval.json", "eval.md", "eval.html"]
        let earlierRuns = earlier.filter { !reports.contains($0.key) }
        // A missing shard: refused, the runs kept, the reports of the earlier merge gone and said.
        let missing = try runEchoLab(["merge", "s1", "--out", "merged"], in: root, timeout: 60)
        XCTAssertEqual(missing.status, 1, missing.standardError)
        XCTAssertEqual(missing.standardError, "echolab: merge: shard 2/2 is missing (got 1/2)\n"
                       + "echolab: removed the earlier eval's eval.json, eval.md and eval.html from merged: this merge merged nothing\n")
        XCTAssertEqual(try snapshot("merged"), earlierRuns)
        XCTAssertNotEqual(earlier, earlierRuns, "the earlier merge had its reports")
        // Never from a shard: OUT the shard itself keeps its eval.json.
        let shardOne = try snapshot("s1")
        let intoShard = try runEchoLab(["merge", "s1", "--out", "s1"], in: root, timeout: 60)
        XCTAssertEqual(intoShard.status, 1, intoShard.standardError)
        XCTAssertEqual(intoShard.standardError, "echolab: merge: shard 2/2 is missing (got 1/2)\n")
        XCTAssertEqual(try snapshot("s1"), shardOne)
        /// `merge s1 SHARD --out OUT`, which must fail (exit 1): its stderr.
        func refused(_ shard: String, out: String = "merged") throws -> String {
            let result = try runEchoLab(["merge", "s1", shard, "--out", out], in: root, timeout: 60)
            XCTAssertEqual(result.status, 1, shard)
            return result.standardError
        }
        // Shard 2/2 of the same command in another folder whose corpus lacks a scenario: another
        // plan (its items alone fit beside shard 1's, and made a merge of one run too few).
        let other = root.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other.appendingPathComponent("corpus"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: root.appendingPathComponent("corpus/delay.json"), to: other.appendingPathComponent("corpus/delay.json"))
        let shard = try runEchoLab(["eval", "corpus", "--modes", Self.modes, "--out", "../o2", "--shard", "2/2", "--no-taps"], in: other)
        XCTAssertEqual(shard.status, 0, shard.standardError)
        XCTAssertEqual(try refused("o2", out: "bad"), "echolab: o2/eval.json: its plan differs from s1/eval.json's: its plan has 3 runs, 6 there "
                       + "(another corpus); shards must come from one `eval --shard K/N` command\n")
        // Its shard 1/2 too: of another plan, not shard 1/2 given twice.
        let otherFirst = try runEchoLab(["eval", "corpus", "--modes", Self.modes, "--out", "../o1", "--shard", "1/2"], in: other)
        XCTAssertEqual(otherFirst.status, 0, otherFirst.standardError)
        XCTAssertEqual(try refused("o1", out: "bad"), "echolab: o1/eval.json: its plan differs from s1/eval.json's: its plan has 3 runs, 6 there "
                       + "(another corpus); shards must come from one `eval --shard K/N` command\n")
        // The same corpus by another path: the merge says which item's path differs (it said
        // only that the plan did, a CI engineer's trial).
        let dotted = try runEchoLab(["eval", "./corpus", "--modes", Self.modes, "--out", "dotted", "--shard", "2/2", "--no-taps"], in: root)
        XCTAssertEqual(dotted.status, 0, dotted.standardError)
        let paths = try refused("dotted", out: "bad")
        XCTAssertTrue(paths.hasPrefix("echolab: dotted/eval.json: its plan differs from s1/eval.json's: item 0 is ./corpus/"), paths)
        // The same shard without taps: no one eval writes players for some runs only.
        let noTaps = try runEchoLab(["eval", "corpus", "--modes", Self.modes, "--out", "s2-no-taps", "--shard", "2/2", "--no-taps"], in: root)
        XCTAssertEqual(noTaps.status, 0, noTaps.standardError)
        XCTAssertEqual(try refused("s2-no-taps", out: "bad"),
                       "echolab: s2-no-taps/eval.json: its runs were written without taps (--no-taps), s1/eval.json's with them; run every shard alike\n")
        // A run folder named outside OUT would be written (and replaced) there.
        try FileManager.default.copyItem(atPath: path("s2"), toPath: path("s2-outside"))
        var eval = try loadJSON(path("s2-outside/eval.json"))
        Self.editResult(&eval, item: 0, mode: 0) { $0["folder"] = "../s1/speech/disabled" }
        try JSONSerialization.data(withJSONObject: eval).write(to: root.appendingPathComponent("s2-outside/eval.json"))
        let outside = try refused("s2-outside")
        XCTAssertTrue(outside.hasSuffix("is not a folder inside the eval's output folder\n"), outside)
        // A pipe in a run folder: refused by name, not opened (the copy blocked on it for ever).
        try FileManager.default.copyItem(atPath: path("s2"), toPath: path("s2-pipe"))
        let report = try XCTUnwrap(allFiles(under: root.appendingPathComponent("s2-pipe")).first { $0.hasSuffix("/report.json") })
        let pipe = path("s2-pipe/" + (report as NSString).deletingLastPathComponent + "/zz.fifo")
        XCTAssertEqual(mkfifo(pipe, 0o644), 0)
        XCTAssertEqual(try refused("s2-pipe"), "echolab: \(pipe.replacingOccurrences(of: root.path + "/", with: "")): not a file EchoLab writes "
                       + "(a link, pipe, socket or device) in a shard's run folder; not merged\n")
        // A link in a run folder is not something EchoLab writes (a later eval would write through it).
        try FileManager.default.copyItem(atPath: path("s2"), toPath: path("s2-link"))
        let link = path("s2-link/" + (report as NSString).deletingLastPathComponent + "/elsewhere")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/tmp")
        let linked = try refused("s2-link")
        XCTAssertTrue(linked.contains("elsewhere: not a file EchoLab writes"), linked)
        // A run folder missing a tap its report names, or one of its pages: refused by name (they
        // merged without a word, the pages playing and linking nothing).
        let runFolder = (report as NSString).deletingLastPathComponent
        for (copy, missing) in [("s2-no-sent", "sent.wav"), ("s2-no-page", "report.html")] {
            try FileManager.default.copyItem(atPath: path("s2"), toPath: path(copy))
            try FileManager.default.removeItem(atPath: path("\(copy)/\(runFolder)/\(missing)"))
            XCTAssertEqual(try refused(copy), "echolab: \(copy)/\(runFolder)/\(missing): no such file (the shard's run folder must come with its eval.json)\n")
        }
        // A tap cut short (a shard copied while its eval wrote it): refused by name, with libsndfile's reason.
        try FileManager.default.copyItem(atPath: path("s2"), toPath: path("s2-cut-sent"))
        let cutTap = path("s2-cut-sent/\(runFolder)/sent.wav")
        let whole = try XCTUnwrap(FileManager.default.contents(atPath: cutTap))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: cutTap))
        let cut = try refused("s2-cut-sent")
        XCTAssertTrue(cut.hasPrefix("echolab: s2-cut-sent/\(runFolder)/sent.wav: truncated audio file: "), cut)
        XCTAssertTrue(cut.hasSuffix(" (a tap its run's report names must be whole: copy the shard's run folder again once its eval has finished)\n"), cut)
        // A shard's eval.json that lost a run but still says it is complete: exit 1 says why.
        try FileManager.default.copyItem(atPath: path("s2"), toPath: path("s2-lost-run"))
        var lost = try loadJSON(path("s2-lost-run/eval.json"))
        var lostItems = lost["items"] as! [[String: Any]]
        var lostResults = lostItems[0]["results"] as! [Any]
        lostResults.removeLast()
        lostItems[0]["results"] = lostResults
        lost["items"] = lostItems
        try JSONSerialization.data(withJSONObject: lost).write(to: root.appendingPathComponent("s2-lost-run/eval.json"))
        let lostRun = try refused("s2-lost-run", out: "lost-merged")
        XCTAssertTrue(lostRun.hasPrefix("echolab: incomplete: the shards hold "), lostRun)
        XCTAssertTrue(lostRun.hasSuffix(" runs, though each eval.json says it is complete (edited?)\n"), lostRun)
        // A run's report.json with broken metrics: named, not "run report: metrics: …" alone.
        try FileManager.default.copyItem(atPath: path("s2"), toPath: path("s2-broken-report"))
        let brokenPath = path("s2-broken-report/" + report)
        var brokenReport = try loadJSON(brokenPath)
        // A null: the run merged as one without metrics, which the gate never judged.
        for (metrics, problem) in [(7 as Any, "metrics: not an object or null"), (["erl_db": "high"] as Any, "metrics: erl_db: expected a number, found a string"),
                                   (NSNull() as Any, "metrics: missing or null in the report of a run that was measured")] {
            brokenReport["metrics"] = metrics
            try JSONSerialization.data(withJSONObject: brokenReport).write(to: URL(fileURLWithPath: brokenPath))
            let broken = try refused("s2-broken-report")
            XCTAssertTrue(broken.hasPrefix("echolab: s2-broken-report/\(report): run report: \(problem)"), broken)
            XCTAssertEqual(broken.filter { $0 == "\n" }.count, 1, broken)
        }
        // A run's report.json cut short: the parser's line and column, not "not a run report" alone.
        try Data("{\n  \"schema\": \"echolab.run/2\",\n".utf8).write(to: URL(fileURLWithPath: brokenPath))
        XCTAssertEqual(try refused("s2-broken-report"), "echolab: s2-broken-report/\(report): not a run report EchoLab wrote "
                       + "(line 3, column 1: the file ends inside an object)\n")
        // Valid JSON of something else: nothing to quote.
        try Data(#"{"schema": "other/1"}"#.utf8).write(to: URL(fileURLWithPath: brokenPath))
        XCTAssertEqual(try refused("s2-broken-report"), "echolab: s2-broken-report/\(report): not a run report EchoLab wrote\n")
        // A mistyped shard is named as such (not as an output folder inside the current one).
        XCTAssertEqual(try refused("s2-typo"), "echolab: s2-typo: no such file or folder\n")
        // An item folder that is a link in a shard would bring in runs from outside it.
        try FileManager.default.copyItem(atPath: path("s2"), toPath: path("s2-linked-item"))
        let item = String(report.split(separator: "/")[0])
        try FileManager.default.moveItem(atPath: path("s2-linked-item/\(item)"), toPath: path("outside-item"))
        try FileManager.default.createSymbolicLink(atPath: path("s2-linked-item/\(item)"), withDestinationPath: path("outside-item"))
        XCTAssertEqual(try refused("s2-linked-item"), "echolab: s2-linked-item/\(item): not a folder of the shard's (a link, or missing); not merged\n")
        // A shard where a run's folder goes in OUT would be written into.
        try FileManager.default.createDirectory(atPath: path("over"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path("s2"), toPath: path("over/\(item)"))
        let over = try refused("over/\(item)", out: "over")
        XCTAssertTrue(over.contains("a run would be merged into or over the shard over/\(item)"), over)
        // OUT inside a shard would copy the shard's runs into themselves.
        XCTAssertEqual(try refused("s2", out: "s1/merged"),
                       "echolab: s1/merged: the output folder is one of the shards or inside one; choose another (e.g. merged/)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("bad")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("s1/merged")))
        XCTAssertEqual(try snapshot("merged"), earlierRuns, "the earlier merge's runs are as they were")
        // A report that cannot be written is found before any run is moved: OUT as it was.
        try FileManager.default.createDirectory(atPath: path("blocked/eval.html"), withIntermediateDirectories: true)
        let blocked = try refused("s2", out: "blocked")
        XCTAssertTrue(blocked.hasPrefix("echolab: blocked/eval.html: cannot write:"), blocked)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("blocked")), ["eval.html"])
        // Interrupted while copying: OUT as it was (an earlier merge intact, its reports too; no
        // hidden folder), or, signalled before the handler was in place, killed before anything
        // was written.
        XCTAssertEqual(try runEchoLab(["merge", "s1", "s2", "--out", "merged"], in: root).status, 0)
        let remerged = try snapshot("merged")
        XCTAssertEqual(Set(remerged.keys), Set(earlier.keys))
        for delay in [0.0, 0.01, 0.02, 0.04] {
            let process = Process()
            process.executableURL = try echoLabBinary()
            process.arguments = ["merge", "s1", "s2", "--out", "merged"]
            process.currentDirectoryURL = root
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: delay)
            process.terminate()
            process.waitUntilExit()
            let status = process.terminationStatus
            if process.terminationReason == .exit && status == 0 {
                continue   // finished first: a whole merge, as before
            }
            XCTAssertTrue(process.terminationReason == .uncaughtSignal ? status == SIGTERM : status == 143, "delay \(delay): \(status)")
            XCTAssertEqual(try snapshot("merged"), remerged, "delay \(delay)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("merged")).filter { $0.hasPrefix(".") }, [])
        }
    }

    /// A merge over an earlier one that fails once runs are moving, and then cannot move an
    /// earlier run back (a move made to fail here, as no file system fails on demand), keeps that
    /// run — the only copy of it — where its error says, and the next merge into OUT stops
    /// before deleting it.
    func testAMergeThatCannotPutAnEarlierRunBackKeepsIt() throws {
        for index in 1...2 {
            let shard = try runEchoLab(["eval", "corpus", "--modes", Self.modes, "--out", "s\(index)", "--shard", "\(index)/2", "--no-taps"], in: root)
            XCTAssertEqual(shard.status, 0, shard.standardError)
        }
        XCTAssertEqual(try runEchoLab(["merge", "s1", "s2", "--out", "merged"], in: root).status, 0)
        let shards = try ["s1", "s2"].map { EvalMerge.Shard(path: path("\($0)/eval.json"), folder: path($0), eval: try EvalFile.read(path("\($0)/eval.json"))) }
        let runs = try MergeOutput.runs(of: shards.map { ($0.folder, $0.eval) }, out: path("merged"))
        XCTAssertGreaterThanOrEqual(runs.count, 2)
        let (first, second) = (runs[0].run, runs[1].run)
        let earlierReport = try Data(contentsOf: URL(fileURLWithPath: path("merged/\(first)/report.json")))
        let aside = path("merged/\(MergeOutput.stagingName)/.replaced")
        // How a move fails across file systems: Foundation's error over the system's EXDEV.
        let refused = NSError(domain: NSCocoaErrorDomain, code: CocoaError.fileWriteUnknown.rawValue,
                              userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(EXDEV))])
        var moves: [(String, String)] = []
        XCTAssertThrowsError(try MergeOutput.write(try EvalMerge.merge(shards), runs: runs, to: path("merged"), renderer: nil,
                                                   cancellation: nil) { source, destination in
            moves.append((source, destination))
            // The second run cannot go into place, and the first's earlier run cannot come back.
            if source.hasSuffix("/.echolab-merge.partial/\(second)") || source == "\(aside)/\(first)" { throw refused }
            try FileManager.default.moveItem(atPath: source, toPath: destination)
        }) { error in
            XCTAssertEqual("\(error)", "\(path("merged/\(second)")): cannot move it into place: Invalid cross-device link; "
                           + "and OUT could not be put back as it was: the earlier run \(first) waits in \(aside), the only copy: move it back by hand")
        }
        XCTAssertTrue(moves.contains { $0.0 == "\(aside)/\(first)" }, "the move back was tried")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: "\(aside)/\(first)/report.json")), earlierReport, "kept, byte for byte")
        let again = try runEchoLab(["merge", "s1", "s2", "--out", "merged"], in: root)
        XCTAssertEqual(again.status, 1)
        XCTAssertEqual(again.standardError, "echolab: merged/.echolab-merge.partial/.replaced: holds earlier runs an interrupted merge moved aside, "
                       + "the only copy of them; move them back into OUT or delete the folder, then merge again\n")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: "\(aside)/\(first)/report.json")), earlierReport, "still there")
        // A merge into a folder it made, failing at its first move, removes the folder again:
        // its lock file goes first.
        let freshRuns = try MergeOutput.runs(of: shards.map { ($0.folder, $0.eval) }, out: path("fresh"))
        XCTAssertThrowsError(try MergeOutput.write(try EvalMerge.merge(shards), runs: freshRuns, to: path("fresh"), renderer: nil,
                                                   cancellation: nil) { _, _ in throw refused })
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("fresh")))
    }

    /// Two items of one name (the second refused, listed under the name as failed) and a run
    /// whose current metrics lost a key: what EchoLab writes is read, and the lost key fails.
    func testARefusedDuplicateNameIsReadAndAMissingMetricFails() throws {
        let other = root.appendingPathComponent("more")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: root.appendingPathComponent("corpus/speech.json"), to: other.appendingPathComponent("speech.json"))
        let twice = try runEchoLab(["eval", "corpus", "more", "--modes", Self.modes, "--out", "twice", "--no-taps"], in: root)
        XCTAssertEqual(twice.status, 1, "the second speech fails")
        XCTAssertTrue(twice.standardError.contains("name: 'speech' is already used by"), twice.standardError)
        // The same file given twice (by two paths) is said to be listed twice, not to clash with itself.
        let same = try runEchoLab(["eval", "corpus/speech.json", "corpus/../corpus/speech.json", "--modes", "disabled", "--out", "same", "--no-taps"],
                                  in: root)
        XCTAssertEqual(same.status, 1)
        XCTAssertTrue(same.standardError.contains("corpus/../corpus/speech.json: listed twice in the corpus (also as corpus/speech.json): give each item once"),
                      same.standardError)
        // A broken file given twice: its problem once, then the second listing said as such (its
        // problem was printed for each listing).
        try #"{"name": "broken", "far_end": 3}"#.write(to: other.appendingPathComponent("broken.json"), atomically: true, encoding: .utf8)
        let broken = try runEchoLab(["eval", "more/broken.json", "more/../more/broken.json", "--modes", "disabled", "--out", "broken", "--no-taps"],
                                    in: root)
        XCTAssertEqual(broken.status, 1)
        let lines = broken.standardError.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.contains("far_end: expected a file name (a string) or an object, found a number") }.count, 1, broken.standardError)
        XCTAssertTrue(lines.contains("echolab: more/../more/broken.json: listed twice in the corpus (also as more/broken.json): give each item once"),
                      broken.standardError)
        try FileManager.default.removeItem(at: other.appendingPathComponent("broken.json"))
        // Read, and failed: the clash is a broken corpus, in the baseline as in CURRENT.
        let compared = try runEchoLab(["compare", "twice/eval.json", "twice/eval.json"], in: root)
        XCTAssertEqual(compared.status, 1, compared.standardError + compared.standardOutput)
        XCTAssertTrue(compared.standardOutput.contains("| speech | disabled | run | failed | failed: corpus/speech.json: name: 'speech' is also used by"),
                      compared.standardOutput)
        for index in 1...2 {
            XCTAssertEqual(try runEchoLab(["eval", "corpus", "more", "--modes", Self.modes, "--out", "t\(index)", "--shard", "\(index)/2",
                                           "--no-taps"], in: root).status, 1)
        }
        // Merged twice into one folder: the failed runs (no folder of their own) are not in the way.
        for _ in 0..<2 {
            let merged = try runEchoLab(["merge", "t1", "t2", "--out", "twice-merged"], in: root)
            XCTAssertEqual(merged.status, 1, "failed runs, as in eval: " + merged.standardError)
            XCTAssertEqual(try withoutTiming("twice-merged/eval.json"), try withoutTiming("twice/eval.json"))
        }
        let lost = try doctored("lost.json") { eval in
            Self.editResult(&eval, item: 0, mode: 1) { result in
                var metrics = result["metrics"] as! [String: Any]
                metrics.removeValue(forKey: "erle_steady_db")
                result["metrics"] = metrics
            }
        }
        let judged = try runEchoLab(["compare", "whole/eval.json", lost], in: root)
        XCTAssertEqual(judged.status, 1, judged.standardOutput)
        XCTAssertTrue(judged.standardOutput.contains("| erle_steady_db |") && judged.standardOutput.contains("| not measured |"), judged.standardOutput)
    }

    /// eval.json without timing, as text.
    private func withoutTiming(_ file: String) throws -> String {
        try String(contentsOfFile: path(file), encoding: .utf8).split(separator: "\n").filter { !$0.contains("\"wall_s\"") }.joined(separator: "\n")
    }

    func testMergedShardsEqualTheUnshardedRun() throws {
        for count in [2, 3] {
            var folders: [String] = []
            for index in 1...count {
                let folder = "shard-\(count)-\(index)"
                let shard = try runEchoLab(["eval", "corpus", "--modes", Self.modes, "--out", folder, "--shard", "\(index)/\(count)", "--no-taps"], in: root)
                XCTAssertEqual(shard.status, 0, shard.standardError)
                folders.append(folder)
            }
            // Given in any order.
            let merged = try runEchoLab(["merge"] + folders.reversed() + ["--out", "merged-\(count)"], in: root)
            XCTAssertEqual(merged.status, 0, merged.standardError)
            XCTAssertEqual(merged.standardOutput, "merged \(count) shards: 6 of 6 runs succeeded (2 with lint findings) → merged-\(count)/eval.md\n")
            XCTAssertEqual(try withoutTiming("merged-\(count)/eval.json"), try withoutTiming("whole/eval.json"), "N = \(count)")
            for page in ["eval.md", "eval.html"] {
                XCTAssertEqual(try Data(contentsOf: root.appendingPathComponent("merged-\(count)/\(page)")),
                               try Data(contentsOf: root.appendingPathComponent("whole/\(page)")), page)
            }
            // Every run's folder came along.
            let runs = allFiles(under: root.appendingPathComponent("merged-\(count)")).filter { $0.hasSuffix("/report.json") }
            XCTAssertEqual(runs.count, 6, "\(runs)")
            // The merge passes the gate against the unsharded run.
            XCTAssertEqual(try runEchoLab(["compare", "whole/eval.json", "merged-\(count)/eval.json"], in: root).status, 0)
        }
        let incomplete = try runEchoLab(["merge", "shard-3-1", "shard-3-3", "--out", "bad"], in: root)
        XCTAssertEqual(incomplete.status, 1)
        XCTAssertEqual(incomplete.standardError, "echolab: merge: shard 2/3 is missing (got 1/3, 3/3)\n")
        let mixed = try runEchoLab(["merge", "shard-3-1", "shard-2-2", "--out", "bad"], in: root)
        XCTAssertEqual(mixed.status, 1)
        XCTAssertEqual(mixed.standardError, "echolab: shard-2-2/eval.json: shard 2/2 is not one of 3 like shard-3-1/eval.json\n")
        let whole = try runEchoLab(["merge", "whole", "--out", "bad"], in: root)
        XCTAssertEqual(whole.standardError, "echolab: whole/eval.json: not a shard's eval.json (it has no \"shard\": \"K/N\")\n")
        // One whose shard was edited is not one "without a shard": it says what is wrong with it.
        let edited = root.appendingPathComponent("shard-3-3/eval.json")
        let text = try String(contentsOf: edited, encoding: .utf8)
        XCTAssertTrue(text.contains("\"shard\": \"3/3\""), text)
        try Data(text.replacingOccurrences(of: "\"shard\": \"3/3\"", with: "\"shard\": \"4/3\"").utf8).write(to: edited)
        let misnumbered = try runEchoLab(["merge", "shard-3-1", "shard-3-2", "shard-3-3", "--out", "bad"], in: root)
        XCTAssertEqual(misnumbered.status, 1)
        XCTAssertEqual(misnumbered.standardError, "echolab: shard-3-3/eval.json: shard '4/3': a shard is K/N with 1 ≤ K ≤ N\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("bad/eval.json")))
    }

    /// A recording speaker writes its file whatever the taps: shards of a corpus with one, all run
    /// with --no-taps, merge (they were refused as "written without taps … with them").
    func testNoTapsShardsOfACorpusWithARecordingSpeakerMerge() throws {
        let corpus = root.appendingPathComponent("speakers")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        _ = try writeScenario("""
            {"name": "a-recorded", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "echo_path": {"delay_ms": 25, "gain_db": -8}, "speaker": {"device": "recording", "file": "peer.wav"},
             "aec": {"mode": "intensityMin"}, "duration_s": 2}
            """, named: "a-recorded.json", in: corpus)
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 2), named: "b-delay.json", in: corpus)
        let whole = try runEchoLab(["eval", "speakers", "--modes", "disabled", "--out", "speakers-whole", "--no-taps"], in: root)
        XCTAssertEqual(whole.status, 0, whole.standardError)
        for index in 1...2 {
            let shard = try runEchoLab(["eval", "speakers", "--modes", "disabled", "--out", "speakers-\(index)", "--shard", "\(index)/2",
                                        "--no-taps"], in: root)
            XCTAssertEqual(shard.status, 0, shard.standardError)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("speakers-1/a-recorded/disabled/peer.wav")), "the shards differ as the bug needs")
        let merged = try runEchoLab(["merge", "speakers-2", "speakers-1", "--out", "speakers-merged"], in: root)
        XCTAssertEqual(merged.status, 0, merged.standardError)
        XCTAssertEqual(try withoutTiming("speakers-merged/eval.json"), try withoutTiming("speakers-whole/eval.json"))
    }

    /// `make eval` gates: the Makefile's recipe (the built debug binary standing in for the
    /// release one) exits non-zero when a run is worse than the baseline by more than the threshold.
    /// `make baseline` of another corpus needs a file of its own and never overwrites the default
    /// corpus's baseline; with one, `make eval` gates on it.
    func testMakeBaselineOfAnotherCorpusWritesItsOwnFile() throws {
        func make(_ target: String, _ extra: [String]) throws -> CommandResult {
            let (status, text) = try runProgram(URL(fileURLWithPath: "/usr/bin/make"), [
                "--no-print-directory", "-C", packageRoot.path, "-o", "build", "-o", "deps", target,
                "ECHOLAB=\(try echoLabBinary().path)", "CORPUS=\(path("corpus"))", "MODES=\(Self.modes)",
                // SCORERS=: no AECMOS, installed or not (its start alone takes 10 s).
                "REPORTS=\(path("make-reports"))", "SCORERS="] + extra)
            return CommandResult(status: status, standardOutput: text, standardError: "")
        }
        try FileManager.default.createDirectory(atPath: path("make-reports"), withIntermediateDirectories: true)
        let defaultBaseline = Data("the default corpus's baseline".utf8)
        try defaultBaseline.write(to: root.appendingPathComponent("make-reports/baseline.json"))

        let unnamed = try make("baseline", [])
        XCTAssertNotEqual(unnamed.status, 0, unnamed.standardOutput)
        XCTAssertTrue(unnamed.standardOutput.contains("is not the default corpus in every mode: name its baseline file with BASELINE=file"),
                      unnamed.standardOutput)
        let overwriting = try make("baseline", ["BASELINE=\(path("make-reports/../make-reports/baseline.json"))"])
        XCTAssertNotEqual(overwriting.status, 0, overwriting.standardOutput)
        XCTAssertTrue(overwriting.standardOutput.contains("is the default corpus's baseline: not overwritten"), overwriting.standardOutput)
        // The repository's own, named whatever REPORTS is.
        let committed = packageRoot.appendingPathComponent("reports/baseline.json")
        let committedBytes = try Data(contentsOf: committed)
        let overwritingCommitted = try make("baseline", ["BASELINE=\(committed.path)"])
        XCTAssertNotEqual(overwritingCommitted.status, 0, overwritingCommitted.standardOutput)
        XCTAssertEqual(try Data(contentsOf: committed), committedBytes)
        XCTAssertEqual(try Data(contentsOf: root.appendingPathComponent("make-reports/baseline.json")), defaultBaseline)

        let own = try make("baseline", ["BASELINE=\(path("own-baseline.json"))"])
        XCTAssertEqual(own.status, 0, own.standardOutput)
        XCTAssertEqual((try loadJSON(path("own-baseline.json"))["modes"] as? [String])?.joined(separator: ","), Self.modes)
        let gated = try make("eval", ["BASELINE=\(path("own-baseline.json"))"])
        XCTAssertEqual(gated.status, 0, gated.standardOutput)
        XCTAssertTrue(gated.standardOutput.contains("**No regression.**"), gated.standardOutput)
        XCTAssertEqual(try Data(contentsOf: root.appendingPathComponent("make-reports/baseline.json")), defaultBaseline)
    }

    func testMakeEvalFailsWhenTheBaselineIsBeaten() throws {
        // A baseline that claims 3 dB more steady ERLE than this code gets in one run (the
        // delay item's: the 3 s speech item's steady state stands on too few frames to be gated).
        let better = try doctored("baseline.json") { eval in
            Self.editResult(&eval, item: 0, mode: 1) { result in
                var metrics = result["metrics"] as! [String: Any]
                metrics["erle_steady_db"] = (metrics["erle_steady_db"] as! Double) + 3
                result["metrics"] = metrics
            }
        }
        func make(_ baseline: String) throws -> CommandResult {
            let (status, text) = try runProgram(URL(fileURLWithPath: "/usr/bin/make"), [
                "--no-print-directory", "-C", packageRoot.path, "-o", "build", "-o", "deps", "eval",
                "ECHOLAB=\(try echoLabBinary().path)", "CORPUS=\(path("corpus"))", "MODES=\(Self.modes)",
                "REPORTS=\(path("make-reports"))", "BASELINE=\(baseline)", "SCORERS="])
            return CommandResult(status: status, standardOutput: text, standardError: "")
        }
        let beaten = try make(path(better))
        XCTAssertNotEqual(beaten.status, 0, beaten.standardOutput)
        XCTAssertTrue(beaten.standardOutput.contains("**1 regression.**"), beaten.standardOutput)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("make-reports/compare.md")))
        let equal = try make(path("whole/eval.json"))
        XCTAssertEqual(equal.status, 0, equal.standardOutput)
        XCTAssertTrue(equal.standardOutput.contains("**No regression.**"), equal.standardOutput)
    }
}
