import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// Scorers on whole corpora (`eval --scorer`), on one call (`run`), on a processed recording
/// (`process`), and their scores in the gate (`compare --max-regression-mos`) and in `merge`:
/// what the scorer answers is what the reports hold, summarised per mode; one program starts per
/// worker, not per run; a failing scorer leaves every run standing with its reason.
final class EvalScorerTests: XCTestCase {
    /// Answers the mic-over-output level of each stretch (Examples/Scorers/level_ratio.py, the
    /// docs' example) and notes its own process id in `starts` once, when it starts.
    static let levelScorer: String = {
        let example = try! String(contentsOf: packageRoot.appendingPathComponent("Examples/Scorers/level_ratio.py"), encoding: .utf8)
        return "import os\nopen('starts', 'a').write(f'{os.getpid()}\\n')\n" + example
    }()

    /// Keeps each request's files in the folder argv[1] names, under the request's number, and
    /// answers a constant (one that rounds to 3.11 from itself and to 3.12 from its four decimals).
    static let keeper = #"""
        import json, os, shutil, sys
        for line in sys.stdin:
            request = json.loads(line)
            number = request["id"].replace("/", "_")
            for key in ("reference", "mic", "output", "near_end", "echo"):
                if request[key]:
                    shutil.copy(request[key], os.path.join(sys.argv[1], f"{number}-{key}.wav"))
            with open(os.path.join(sys.argv[1], f"{number}.json"), "w") as kept:
                json.dump(request, kept)
            print(json.dumps({"id": request["id"], "scores": {"kept": {"value": 3.11496, "higher_is_better": True, "min": 0, "max": 5}}}), flush=True)
        """#

    static let modes = "speex:intensityRecommended,webrtc:intensityRecommended"

    private func corpus(in root: URL) throws -> [String] {
        try Self.levelScorer.write(to: root.appendingPathComponent("level.py"), atomically: true, encoding: .utf8)
        return ["speech-room-doubletalk", "nearend-only"].map { packageRoot.appendingPathComponent("vectors/scenarios/\($0).json").path }
    }

    /// A scorer that once answers a request twice is out of step: every later request would
    /// read the answer before its own ("answered for id …"), and one stray line left all the
    /// eval's runs unscored. It is started again, and the runs after are scored.
    func testAScorerOutOfStepStartsAgain() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let items = try corpus(in: root)
        // Its very first answer twice (a marker file: a restarted program answers once).
        let stray = #"""
            import json, os, sys
            for line in sys.stdin:
                request = json.loads(line)
                answer = json.dumps({"id": request["id"], "scores": {"one": {"value": 1, "higher_is_better": True, "min": 0, "max": 1}}})
                print(answer, flush=True)
                if not os.path.exists("answered"):
                    open("answered", "w").close()
                    print(answer, flush=True)
            """#
        try stray.write(to: root.appendingPathComponent("stray.py"), atomically: true, encoding: .utf8)
        let eval = try runEchoLab(["eval"] + items + ["--modes", Self.modes, "--out", "out", "--jobs", "1", "--no-taps",
                                                     "--scorer", "stray=python3 stray.py"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        let results = (try loadJSON(root.appendingPathComponent("out/eval.json").path)["items"] as! [[String: Any]])
            .flatMap { $0["results"] as! [[String: Any]] }.map { ($0["scores"] as? [[String: Any]])?.first ?? [:] }
        XCTAssertEqual(results.count, 4)
        XCTAssertTrue((results[0]["unscored_reason"] as? String)?.hasPrefix("answered for id ") == true, "\(results[0])")
        for result in results.dropFirst() { XCTAssertNotNil(result["talk_types"] as? [[String: Any]], "\(result)") }
    }

    func testEveryRunIsScoredByOneProgramPerWorkerAndSummarisedPerMode() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let items = try corpus(in: root)
        for (folder, jobs) in [("two", "2"), ("one", "1")] {
            try? FileManager.default.removeItem(at: root.appendingPathComponent("starts"))
            let eval = try runEchoLab(["eval"] + items + ["--modes", Self.modes, "--out", folder, "--jobs", jobs, "--no-taps",
                                                         "--scorer", "level=python3 level.py", "--scorer", "crash=echo 'no model' >&2; exit 3"],
                                      in: root)
            XCTAssertEqual(eval.status, 0, "a failing scorer fails no run: \(eval.standardError)")
            // One line per scorer and reason, with how many runs it left unscored.
            // Once per scorer, not once per run.
            let warnings = eval.standardError.split(separator: "\n").filter { $0.contains("warning: scorer") }
            XCTAssertEqual(warnings.count, 1, eval.standardError)
            XCTAssertTrue(warnings.first?.hasPrefix("echolab eval: warning: scorer crash left 4 of 4 runs unscored (the first: exited with status 3 before answering ") == true, eval.standardError)
            XCTAssertTrue(warnings.first?.contains(": no model); each run's report says why") == true, eval.standardError)
            let starts = try String(contentsOf: root.appendingPathComponent("starts"), encoding: .utf8).split(separator: "\n")
            XCTAssertEqual(starts.count, Int(jobs), "one start per worker, not per run (4 runs)")
        }
        var two = try loadJSON(root.appendingPathComponent("two/eval.json").path), one = try loadJSON(root.appendingPathComponent("one/eval.json").path)
        two["timing"] = nil
        one["timing"] = nil
        XCTAssertEqual(NSDictionary(dictionary: two), NSDictionary(dictionary: one), "scores do not depend on --jobs")

        // Each run's scores as its report.json holds them; the mode's statistics over them.
        var values: [String: [String: [Double]]] = [:]   // mode → talk type → values
        for item in try XCTUnwrap(two["items"] as? [[String: Any]]) {
            for result in try XCTUnwrap(item["results"] as? [[String: Any]]) {
                let mode = try XCTUnwrap(result["mode"] as? String)
                let scores = try XCTUnwrap(result["scores"] as? [[String: Any]])
                XCTAssertEqual(scores.map { $0["name"] as? String }, ["level", "crash"])
                XCTAssertTrue(scores[1]["talk_types"] is NSNull)
                XCTAssertTrue((scores[1]["unscored_reason"] as? String)?.contains("no model") == true)
                let report = try loadJSON(root.appendingPathComponent("two/\(result["folder"] as! String)/report.json").path)
                XCTAssertEqual(NSArray(array: try XCTUnwrap(report["scores"] as? [Any])), NSArray(array: scores), "eval.json lists the report's scores")
                XCTAssertEqual(scores[0]["reported_name"] as? String, "level-ratio")
                for talk in try XCTUnwrap(scores[0]["talk_types"] as? [[String: Any]]) {
                    let score = try XCTUnwrap((talk["scores"] as? [String: [String: Any]])?["mic_over_output_db"])
                    values[mode, default: [:]][talk["talk_type"] as! String, default: []].append(try XCTUnwrap(score["value"] as? Double))
                }
            }
        }
        // The near-end-only call has near-end single talk only; the double-talk call far-end
        // single talk and double talk.
        XCTAssertEqual(values["webrtc:intensityRecommended"]?["nst"]?.count, 1)
        XCTAssertEqual(values["webrtc:intensityRecommended"]?["st"]?.count, 1)
        XCTAssertEqual(values["webrtc:intensityRecommended"]?["dt"]?.count, 1)
        for summary in try XCTUnwrap(two["mode_summary"] as? [[String: Any]]) {
            let mode = try XCTUnwrap(summary["mode"] as? String)
            let scorers = try XCTUnwrap(summary["scores"] as? [[String: Any]])
            XCTAssertEqual(scorers.map { $0["scorer"] as? String }, ["level", "crash"])
            XCTAssertEqual(scorers.map { $0["unscored_runs"] as? Int }, [0, 2])
            XCTAssertEqual((scorers[1]["scores"] as? [Any])?.count, 0)
            for score in try XCTUnwrap(scorers[0]["scores"] as? [[String: Any]]) {
                let runs = try XCTUnwrap(values[mode]?[score["talk_type"] as! String])
                let statistics = try XCTUnwrap(score["statistics"] as? [String: Any])
                XCTAssertEqual(statistics["count"] as? Int, runs.count)
                // As eval.json prints them: four decimals (the statistics themselves: ScoreStatisticsTests).
                XCTAssertEqual(try XCTUnwrap(statistics["mean"] as? Double), runs.reduce(0, +) / Double(runs.count), accuracy: 1e-4)
                XCTAssertEqual(score["higher_is_better"] as? Bool, score["talk_type"] as? String == "st")
            }
        }
        let markdown = try String(contentsOf: root.appendingPathComponent("two/eval.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("## Scores"), markdown)
        // eval.html: the modes' trade-off plot and its caption stay with the modes, before the
        // Scores section (after it, they read as the scores' chart's).
        let html = try String(contentsOf: root.appendingPathComponent("two/eval.html"), encoding: .utf8)
        let plot = try XCTUnwrap(html.range(of: "Each point is a mode's mean steady ERLE")), scores = try XCTUnwrap(html.range(of: ">Scores</h2>"))
        XCTAssertLessThan(plot.lowerBound, scores.lowerBound)
        // One row per mode: the level scorer's three talk types, then each scorer's unscored runs.
        XCTAssertTrue(markdown.contains("| mode | mic_over_output_db st: mean / p10 | mic_over_output_db dt: mean / p10 | mic_over_output_db nst: mean / p10 | unscored runs (level) | unscored runs (crash) |"), markdown)
        let row = try XCTUnwrap(markdown.split(separator: "\n").first { $0.hasPrefix("| `webrtc:intensityRecommended` |") && $0.contains(" / ") })
        XCTAssertTrue(row.hasSuffix("| 0 | 2 |"), String(row))
        // Each talk type is in one of the mode's two calls: each mean says it is over 1 of 2 runs.
        XCTAssertEqual(row.components(separatedBy: " (1 of 2) |").count - 1, 3, String(row))
        let report = try String(contentsOf: root.appendingPathComponent("two/nearend-only/webrtc-intensityRecommended/report.md"), encoding: .utf8)
        XCTAssertTrue(report.contains("| crash | — | — | none: exited with status 3"), report)
        XCTAssertTrue(report.contains("near-end single talk (1 stretch"), report)

        // Shards merged: the same eval.json as the unsharded run.
        for shard in ["1/2", "2/2"] {
            let eval = try runEchoLab(["eval"] + items + ["--modes", Self.modes, "--out", "s\(shard.prefix(1))", "--shard", shard, "--no-taps",
                                                         "--scorer", "level=python3 level.py", "--scorer", "crash=echo 'no model' >&2; exit 3"], in: root)
            XCTAssertEqual(eval.status, 0, eval.standardError)
        }
        XCTAssertEqual(try runEchoLab(["merge", "s1", "s2", "--out", "merged"], in: root).status, 0)
        var merged = try loadJSON(root.appendingPathComponent("merged/eval.json").path)
        merged["timing"] = nil
        XCTAssertEqual(NSDictionary(dictionary: merged), NSDictionary(dictionary: two), "merge keeps the scores")
    }

    /// The gate: a score that fell by more than --max-regression-mos fails, in the score's own
    /// direction; a run no longer scored fails; a scorer not run now, or of another version, is
    /// listed and not judged.
    func testCompareJudgesScoresByTheirOwnDirection() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let items = try corpus(in: root)
        let eval = try runEchoLab(["eval", items[0], "--modes", "webrtc:intensityRecommended", "--out", "base", "--no-taps",
                                   "--scorer", "level=python3 level.py"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        let baseline = try loadJSON(root.appendingPathComponent("base/eval.json").path)
        /// The baseline with its one run's `level` score changed by `change`, written as FILE.
        func current(_ name: String, _ change: (inout [String: Any]) -> Void) throws -> String {
            var document = baseline
            var items = document["items"] as! [[String: Any]]
            var results = items[0]["results"] as! [[String: Any]]
            var scores = results[0]["scores"] as! [[String: Any]]
            change(&scores[0])
            results[0]["scores"] = scores
            items[0]["results"] = results
            document["items"] = items
            try JSONSerialization.data(withJSONObject: document).write(to: root.appendingPathComponent(name))
            return name
        }
        /// `talk` → the score's value moved by `delta`.
        func moved(_ talk: String, by delta: Double) -> (inout [String: Any]) -> Void {
            { scorer in
                var talkTypes = scorer["talk_types"] as! [[String: Any]]
                let index = talkTypes.firstIndex { $0["talk_type"] as? String == talk }!
                var scores = talkTypes[index]["scores"] as! [String: [String: Any]]
                scores["mic_over_output_db"]!["value"] = (scores["mic_over_output_db"]!["value"] as! Double) + delta
                talkTypes[index]["scores"] = scores
                scorer["talk_types"] = talkTypes
            }
        }
        func compare(_ file: String, _ extra: [String] = []) throws -> CommandResult {
            try runEchoLab(["compare", "base/eval.json", file] + extra, in: root)
        }
        // st: higher is better (the example scorer's own direction); dt: lower is.
        let fell = try compare(try current("st-fell.json", moved("st", by: -0.2)))
        XCTAssertEqual(fell.status, 1, fell.standardOutput)
        XCTAssertTrue(fell.standardOutput.contains("| score level mic_over_output_db (st) |"), fell.standardOutput)
        XCTAssertTrue(fell.standardOutput.contains("| -0.20 |"), fell.standardOutput)
        XCTAssertEqual(try compare("st-fell.json", ["--max-regression-mos", "0.3"]).status, 0)
        XCTAssertEqual(try compare(try current("st-small.json", moved("st", by: -0.05))).status, 0)
        XCTAssertEqual(try compare(try current("dt-rose.json", moved("dt", by: 0.2))).status, 1, "dt's score is lower-is-better")
        let better = try compare(try current("dt-fell.json", moved("dt", by: -0.2)))
        XCTAssertEqual(better.status, 0)
        XCTAssertTrue(better.standardOutput.contains("## Improvements"), better.standardOutput)
        let unscored = try compare(try current("unscored.json") { scorer in
            scorer["talk_types"] = NSNull()
            scorer["unscored_reason"] = "gave no answer within 60.0 s"
        })
        XCTAssertEqual(unscored.status, 1, "a run no longer scored: the gate does not pass on less work")
        XCTAssertTrue(unscored.standardOutput.contains("unscored: gave no answer within 60.0 s"), unscored.standardOutput)
        let other = try compare(try current("other-version.json") { $0["version"] = "2" })
        XCTAssertEqual(other.status, 0)
        XCTAssertTrue(other.standardOutput.contains("## Scores not compared (not judged)"), other.standardOutput)
        // Declared the other way round (or over another range), it is not the same score: a
        // fall of 0.2 read as 8 regressions of a score that had flipped its direction.
        let flipped = try compare(try current("flipped.json") { scorer in
            moved("st", by: -0.2)(&scorer)
            var talkTypes = scorer["talk_types"] as! [[String: Any]]
            let index = talkTypes.firstIndex { $0["talk_type"] as? String == "st" }!
            var scores = talkTypes[index]["scores"] as! [String: [String: Any]]
            scores["mic_over_output_db"]!["higher_is_better"] = false
            talkTypes[index]["scores"] = scores
            scorer["talk_types"] = talkTypes
        })
        XCTAssertEqual(flipped.status, 0, flipped.standardOutput)
        XCTAssertTrue(flipped.standardOutput.contains("## Scores not compared (not judged)"), flipped.standardOutput)
        XCTAssertTrue(flipped.standardOutput.contains("(lower is better, "), flipped.standardOutput)
        let bad = try runEchoLab(["compare", "base/eval.json", "st-fell.json", "--max-regression-mos", "-1"], in: root)
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.standardError.contains("--max-regression-mos must be a number ≥ 0 (got -1.0)"), bad.standardError)
    }

    /// A simulated call's scorer hears the output lined up with the mic as the report scores it:
    /// WebRTC's AEC sends 7 ms late, and in the near-end single talk of a call the output's best
    /// match with the mic is within a few samples of lag 0. `run` and `process` take --scorer too.
    func testRunAndProcessScoreTheOutputAlignedWithTheMic() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let items = try corpus(in: root)
        try Self.keeper.write(to: root.appendingPathComponent("keeper.py"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("kept"), withIntermediateDirectories: true)
        let run = try runEchoLab(["run", items[1], "--aec", "webrtc:intensityRecommended", "--out", "call", "--scorer", "keep=python3 keeper.py kept"],
                                 in: root)
        XCTAssertEqual(run.status, 0, run.standardError)
        XCTAssertTrue(run.standardOutput.contains("\nkeep nst ("), run.standardOutput)
        // The terminal prints a score as report.md does, from report.json's four decimals.
        XCTAssertTrue(run.standardOutput.contains("): kept 3.12\n"), run.standardOutput)
        let page = try String(contentsOf: root.appendingPathComponent("call/report.md"), encoding: .utf8)
        XCTAssertTrue(page.contains("| `kept` | 3.12 (0–5, higher is better) |"), page)
        let requests = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("kept").path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertFalse(requests.isEmpty, "the near end's stretches")
        let prefix = String(try XCTUnwrap(requests.first).dropLast(5))
        XCTAssertTrue(prefix.hasPrefix("nearend-only_webrtc-intensityRecommended#"), prefix)
        let request = try loadJSON(root.appendingPathComponent("kept/\(prefix).json").path)
        XCTAssertEqual(request["talk_type"] as? String, "nst")
        func read(_ track: String) throws -> [Float] {
            try AudioFileStream.readAll(path: root.appendingPathComponent("kept/\(prefix)-\(track).wav").path).samples
        }
        let mic = try read("mic"), output = try read("output")
        XCTAssertEqual(mic.count, output.count)
        // Lined up by the send path's 7 ms (336 samples); what is left is the band-split
        // filters' own delay of a few samples.
        XCTAssertLessThanOrEqual(abs(Self.bestLag(of: output, behind: mic, upTo: 960)), 8, "the output is lined up with the mic")

        // process: the recording's output, scored per talk type, printed.
        let processed = try runEchoLab(["process", "--mic", "call/mic.wav", "--reference", "call/reference.wav", "--out", "out.wav",
                                        "--aec", "speex:intensityRecommended", "--scorer", "level=python3 level.py"], in: root)
        XCTAssertEqual(processed.status, 0, processed.standardError)
        XCTAssertTrue(processed.standardOutput.contains("level nst (1 stretch, "), processed.standardOutput)
        XCTAssertTrue(processed.standardOutput.contains("mic_over_output_db "), processed.standardOutput)
    }

    /// The lag (−`upTo`…`upTo` samples) at which `signal` best matches `reference` delayed.
    static func bestLag(of signal: [Float], behind reference: [Float], upTo maximum: Int) -> Int {
        let n = min(signal.count, reference.count) - 2 * maximum
        var best = 0, bestValue = -Double.infinity
        for lag in -maximum...maximum {
            var sum = 0.0
            for i in stride(from: maximum, to: maximum + n, by: 2) { sum += Double(signal[i + lag]) * Double(reference[i]) }
            if sum > bestValue { bestValue = sum; best = lag }
        }
        return best
    }
}
