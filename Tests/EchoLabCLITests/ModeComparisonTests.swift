import EchoLabTestSupport
import Foundation
import XCTest

/// `eval --modes`: every item in every mode, into OUT/ITEM/MODE/, with eval.json whose bytes do
/// not depend on --jobs; `--shard` slices; `run --aec` runs one scenario in another mode.
final class ModeComparisonTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try temporaryDirectory()
        try writeTwoItemCorpus(in: root.appendingPathComponent("corpus"))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private static let modes = "disabled,speex:intensityMin,speex:intensityMax"

    /// eval.json without its timing, for byte comparison.
    private func evalWithoutTiming(_ folder: URL) throws -> String {
        var eval = try loadJSON(folder.appendingPathComponent("eval.json").path)
        XCTAssertNotNil(eval.removeValue(forKey: "timing"))
        return String(decoding: try JSONSerialization.data(withJSONObject: eval, options: [.sortedKeys]), as: UTF8.self)
    }

    func testEveryItemRunsInEveryModeAndTheReportDoesNotDependOnJobs() throws {
        let one = try runEchoLab(["eval", "corpus", "--modes", Self.modes, "--out", "one", "--jobs", "1", "--no-taps"], in: root)
        XCTAssertEqual(one.status, 0, one.standardError)
        XCTAssertTrue(one.standardOutput.hasPrefix("6 of 6 runs succeeded"), one.standardOutput)
        let two = try runEchoLab(["eval", "corpus", "--modes", Self.modes, "--out", "two", "--jobs", "2", "--no-taps"], in: root)
        XCTAssertEqual(two.status, 0, two.standardError)
        XCTAssertEqual(try evalWithoutTiming(root.appendingPathComponent("one")), try evalWithoutTiming(root.appendingPathComponent("two")))
        for page in ["eval.md", "eval.html"] {   // the pages for people carry no timing at all
            XCTAssertEqual(try Data(contentsOf: root.appendingPathComponent("one/\(page)")),
                           try Data(contentsOf: root.appendingPathComponent("two/\(page)")), page)
        }
        // Every mode (21) with one job and two: EchoLabLongTests.EveryModeTests.

        let eval = try loadJSON(root.appendingPathComponent("one/eval.json").path)
        XCTAssertEqual(eval["modes"] as? [String], ["disabled", "speex:intensityMin", "speex:intensityMax"])
        let items = eval["items"] as! [[String: Any]]
        XCTAssertEqual(items.map { $0["name"] as! String }, ["delay40-intensityRecommended", "speech"])
        for item in items {
            let results = item["results"] as! [[String: Any]]
            XCTAssertEqual(results.map { $0["mode"] as! String }, ["disabled", "speex:intensityMin", "speex:intensityMax"])
            for result in results {
                let folder = result["folder"] as! String
                let report = try loadJSON(root.appendingPathComponent("one/\(folder)/report.json").path)
                XCTAssertEqual((report["aec"] as! [String: Any])["mode"] as? String, (result["mode"] as! String).split(separator: ":").last.map(String.init))
                let metrics = result["metrics"] as! [String: Any]
                XCTAssertEqual(metrics["erle_steady_db"] as? Double, (report["metrics"] as! [String: Any])["erle_steady_db"] as? Double)
                if result["mode"] as? String == "disabled" {
                    XCTAssertEqual(metrics["erle_db"] as? Double, 0, "AEC disabled removes nothing")
                } else {
                    XCTAssertGreaterThan(metrics["erle_db"] as? Double ?? 0, 5, "\(item["name"]!) \(result["mode"]!)")
                }
            }
        }
        // The mode overrides the timeline's set_aec too: the speech item in `disabled` never cancels.
        let speech = try loadJSON(root.appendingPathComponent("one/speech/disabled/report.json").path)
        XCTAssertEqual(((speech["metrics"] as! [String: Any])["erle_db"] as? Double), 0)
        // Per-mode statistics over the two items; `disabled` wins nothing.
        let summary = eval["mode_summary"] as! [[String: Any]]
        XCTAssertEqual(summary.map { $0["mode"] as! String }, ["disabled", "speex:intensityMin", "speex:intensityMax"])
        XCTAssertEqual(summary[0]["wins"] as? Int, 0)
        XCTAssertEqual(summary.reduce(0) { $0 + ($1["wins"] as! Int) } >= 2, true)
        let steady = items.map { item in ((item["results"] as! [[String: Any]])[1]["metrics"] as! [String: Any])["erle_steady_db"] as! Double }
        let stats = summary[1]["erle_steady_db"] as! [String: Any]
        XCTAssertEqual(stats["mean"] as! Double, (steady[0] + steady[1]) / 2, accuracy: 1e-3)
        XCTAssertEqual(stats["median"] as! Double, (steady[0] + steady[1]) / 2, accuracy: 1e-3)
        XCTAssertEqual(stats["p10"] as! Double, min(steady[0], steady[1]) + 0.1 * abs(steady[0] - steady[1]), accuracy: 1e-3)
        let markdown = try String(contentsOf: root.appendingPathComponent("one/eval.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("| speech |"), markdown)
        // Each item's echo path beside its cells: a pure 40 ms delay at −6 dB has an ERL of exactly
        // 6 dB in every mode; the room's is the range of its runs' figures in eval.json.
        XCTAssertTrue(markdown.contains("| delay40-intensityRecommended | ERL 6.0 dB, 40 ms | "), markdown)
        let room = (items[1]["results"] as! [[String: Any]]).map { $0["metrics"] as! [String: Any] }
        let erls = room.map { $0["erl_db"] as! Double }, delays = room.map { $0["delay_ms"] as! Double }
        func printed(_ values: [Double], _ format: String) -> String {
            let (low, high) = (String(format: format, values.min()!), String(format: format, values.max()!))
            return low == high ? low : "\(low) to \(high)"
        }
        XCTAssertTrue(markdown.contains("| speech | ERL \(printed(erls, "%.1f")) dB, \(printed(delays, "%.0f")) ms | "), markdown)
        // The modes table counts runs with lint findings apart from runs with pipeline issues:
        // its last cell per mode is the number of that mode's runs whose findings are not empty.
        XCTAssertTrue(markdown.contains("| wins | runs with pipeline issues | runs with lint findings |"), markdown)
        var findingRuns = 0
        for mode in ["disabled", "speex:intensityMin", "speex:intensityMax"] {
            let runs = items.flatMap { $0["results"] as! [[String: Any]] }.filter { $0["mode"] as? String == mode }
            // Lint findings only: a missed telephony requirement is counted in the telephony table.
            let withFindings = runs.filter { (($0["findings"] as? [String]) ?? []).contains { $0 != "echo-loss-below-ts26131" } }.count
            findingRuns += withFindings
            // The best on both axes are starred.
            let row = try XCTUnwrap(markdown.split(separator: "\n").first { $0.hasPrefix("| `\(mode)` |") || $0.hasPrefix("| `\(mode)` ★ |") }, mode)
            XCTAssertTrue(row.hasSuffix("| \(withFindings) |"), "\(mode): \(row)")
        }
        XCTAssertGreaterThan(findingRuns, 0, "the AEC-disabled runs break a lint rule: the column is exercised")
        // The telephony table counts the runs below TS 26.131's 46 dB: the runs with that finding.
        var belowRuns = 0
        for mode in ["disabled", "speex:intensityMin", "speex:intensityMax"] {
            let runs = items.flatMap { $0["results"] as! [[String: Any]] }.filter { $0["mode"] as? String == mode }
            let below = runs.filter { (($0["findings"] as? [String]) ?? []).contains("echo-loss-below-ts26131") }.count
            belowRuns += below
            let lines = markdown.split(separator: "\n")
            let header = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("| mode | TCLw median | TCLw p10 | runs below 46 dB |") }, markdown)
            let telephony = try XCTUnwrap(lines[header...].first { $0.hasPrefix("| `\(mode)` |") }, mode)
            let cells = telephony.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertEqual(cells.count > 3 ? cells[3] : nil, "\(below)", "\(mode): \(telephony)")
            // Beside it, the runs whose TCLw is a bound that may meet 46 dB: neither below nor over.
            let unjudged = runs.filter { run in
                let loss = ((run["metrics"] as? [String: Any])?["telephony"] as? [String: Any])?["echo_loss"] as? [String: Any]
                return loss != nil && loss?["meets_ts26131_46db"] is NSNull && ((loss?["analysis_frames"] as? Int) ?? 0) >= 20
            }.count
            XCTAssertEqual(cells.count > 4 ? cells[4] : nil, "\(unjudged)", "\(mode): \(telephony)")
        }
        XCTAssertGreaterThan(belowRuns, 0, "the AEC-disabled runs miss 46 dB: the column is exercised")
    }

    func testShardsSliceThePlanWithoutOverlap() throws {
        var seen: [String] = []
        for index in 1...2 {
            let result = try runEchoLab(["eval", "corpus", "--modes", Self.modes, "--shard", "\(index)/2", "--out", "shard\(index)", "--no-taps"], in: root)
            XCTAssertEqual(result.status, 0, result.standardError)
            let eval = try loadJSON(root.appendingPathComponent("shard\(index)/eval.json").path)
            XCTAssertEqual(eval["shard"] as? String, "\(index)/2")
            for item in eval["items"] as! [[String: Any]] {
                seen += (item["results"] as! [[String: Any]]).map { "\(item["name"]!)/\($0["mode"]!)" }
            }
        }
        XCTAssertEqual(seen.count, 6)
        XCTAssertEqual(Set(seen).count, 6)
    }

    func testRunInAnotherModeAndBadModes() throws {
        let run = try runEchoLab(["run", "corpus/delay.json", "--aec", "disabled", "--out", "run", "--no-taps"], in: root)
        XCTAssertEqual(run.status, 0, run.standardError)
        let report = try loadJSON(root.appendingPathComponent("run/report.json").path)
        XCTAssertEqual((report["aec"] as! [String: Any])["mode"] as? String, "disabled")
        for (arguments, message) in [
            (["eval", "corpus", "--modes", "speex:loud"], "unknown intensity 'loud'"),
            (["eval", "corpus", "--modes", "acme:intensityMin"], "unknown backend 'acme'"),
            (["eval", "corpus", "--modes", "disabled,disabled"], "given twice"),
            (["eval", "corpus", "--shard", "3/2"], "a shard is K/N"),
            // A stray separator is no shard either (`3/3/` read as 3/3).
            (["eval", "corpus", "--shard", "2/2/"], "'2/2/': a shard is K/N"),
            (["eval", "corpus", "--shard", "/2"], "'/2': a shard is K/N"),
            (["run", "corpus/delay.json", "--out", "x", "--aec", "intensityMin"], "expected disabled or BACKEND:INTENSITY"),
        ] {
            let result = try runEchoLab(arguments, in: root)
            XCTAssertEqual(result.status, 64, "\(arguments)")
            XCTAssertTrue(result.standardError.contains(message), "\(arguments): \(result.standardError)")
        }
    }
}
