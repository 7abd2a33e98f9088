import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import Reporting
import XCTest

/// A corpus manifest lists scenarios, folders and recordings from anywhere; its paths are read
/// from its own folder, so `eval` runs it from any working folder; mistakes name the manifest and
/// the entry.
final class CorpusManifestTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws { root = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    private func write(_ text: String, to relative: String) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func testAManifestOfScenariosFoldersAndRecordingsRunsFromAnyFolder() throws {
        try write(delayScenario(aec: "intensityMin", seconds: 2), to: "a/delay.json")
        try write(delayScenario(aec: "intensityMax", seconds: 2), to: "b/nested/max.json")
        _ = try writeScenario("""
            {"name": "call", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "near_end": {"generator": "speech", "level_dbfs": -26, "seed": 5},
             "noise": {"level_dbfs": -65, "seed": 2}, "echo_path": {"delay_ms": 30, "gain_db": -8}, "duration_s": 3}
            """, in: root)
        let taps = try runEchoLab(["run", "scenario.json", "--aec", "disabled", "--all-taps", "--out", "rec"], in: root)
        XCTAssertEqual(taps.status, 0, taps.standardError)
        try write("""
            {"description": "two places and a recording",
             "corpus": ["../a/delay.json", "../b",
                        {"name": "office", "mic": "../rec/mic.wav", "loopback": "../rec/reference.wav",
                         "echo": "../rec/echo.wav", "near_end": "../rec/near.wav", "talk_type": "doubletalk"}]}
            """, to: "lists/corpus.json")
        // A manifest inside a scenario folder is not taken for a scenario.
        try write("{\"corpus\": [\"delay.json\"]}", to: "a/manifest.json")
        let inputs = try snapshot(root)

        let elsewhere = try temporaryDirectory("elsewhere")
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let eval = try runEchoLab(["eval", root.appendingPathComponent("lists/corpus.json").path, "--modes", "speex:intensityMin",
                                   "--out", "out", "--no-taps"], in: elsewhere)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        XCTAssertTrue(eval.standardOutput.hasPrefix("3 of 3 runs succeeded"), eval.standardOutput)
        let report = try loadJSON(elsewhere.appendingPathComponent("out/eval.json").path)
        let items = report["items"] as! [[String: Any]]
        XCTAssertEqual(items.map { $0["name"] as! String }, ["delay40-intensityMin", "delay40-intensityMax", "office"])
        // The recording ran with its ground truth: the gate is exact.
        let office = (items[2]["results"] as! [[String: Any]])[0]["metrics"] as! [String: Any]
        XCTAssertEqual((office["gate"] as! [String: Any])["method"] as? String, "near_end_track")
        XCTAssertGreaterThan(office["erl_db"] as! Double, 7)

        // The folder alone: the manifest inside it is passed over, not run as a scenario.
        let folder = try runEchoLab(["eval", "a", "--out", "out-a", "--no-taps"], in: root)
        XCTAssertEqual(folder.status, 0, folder.standardError)
        XCTAssertTrue(folder.standardOutput.hasPrefix("1 of 1 runs succeeded"), folder.standardOutput)
        try FileManager.default.removeItem(at: root.appendingPathComponent("out-a"))

        // Named without `.` components, which name nothing: `./recordings.json` listing
        // `./rec/mic.wav` named it `././rec/mic.wav`.
        try write("{\"corpus\": [{\"name\": \"dotted\", \"mic\": \"./rec/mic.wav\", \"loopback\": \"rec/./reference.wav\"}]}",
                  to: "recordings.json")
        let dotted = try runEchoLab(["eval", "./recordings.json", "--modes", "speex:intensityMin", "--out", "out-dotted", "--no-taps"], in: root)
        XCTAssertEqual(dotted.status, 0, dotted.standardError)
        let dottedItems = try loadJSON(root.appendingPathComponent("out-dotted/eval.json").path)["items"] as! [[String: Any]]
        XCTAssertEqual(dottedItems.first?["file"] as? String, "rec/mic.wav")
        try FileManager.default.removeItem(at: root.appendingPathComponent("out-dotted"))
        // A manifest that lists its own folder: with its `.` dropped, "." read as an empty path.
        try write("{\"corpus\": [\".\"]}", to: "a/here.json")
        for manifest in ["./a/here.json", "a/here.json"] {
            let here = try runEchoLab(["eval", manifest, "--modes", "speex:intensityMin", "--out", "out-here", "--no-taps"], in: root)
            XCTAssertEqual(here.status, 0, here.standardError)
            XCTAssertTrue(here.standardOutput.hasPrefix("1 of 1 runs succeeded"), here.standardOutput)
            try FileManager.default.removeItem(at: root.appendingPathComponent("out-here"))
        }
        try FileManager.default.removeItem(at: root.appendingPathComponent("a/here.json"))
        try FileManager.default.removeItem(at: root.appendingPathComponent("recordings.json"))
        XCTAssertEqual(try snapshot(root), inputs, "inputs are never modified")
    }

    /// A manifest past a scenario's 4 MiB (a recording set lists tens of thousands of entries) is
    /// read as one: it was taken for a scenario, "a scenario is at most 4 MiB", and its corpus
    /// never ran.
    func testAManifestPastFourMebibytesIsReadAsAManifest() throws {
        try write(delayScenario(aec: "intensityMin", seconds: 1), to: "delay.json")
        try write(#"{"description": "\#(String(repeating: "x", count: 5_000_000))", "corpus": ["delay.json"]}"#, to: "big.json")
        let result = try runEchoLab(["eval", "big.json", "--modes", "disabled", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(result.status, 0, result.standardError)
        let items = try XCTUnwrap(loadJSON(root.appendingPathComponent("out/eval.json").path)["items"] as? [[String: Any]])
        XCTAssertEqual(items.compactMap { $0["file"] as? String }, ["delay.json"])
    }

    func testMistakesNameTheManifestAndTheEntry() throws {
        try write(delayScenario(aec: "intensityMin", seconds: 1), to: "delay.json")
        let cases: [(String, String)] = [
            ("{\"corpus\": [\"nothing.json\"]}", "corpus[0]: nothing.json: no such file"),
            ("{\"corpus\": [1]}", "corpus[0]: expected a path or a recording object, found a number"),
            ("{\"corpus\": \"delay.json\"}", "corpus: expected an array, found a string"),
            ("{\"corpus\": [], \"extra\": 1}", "unknown key 'extra' (a manifest has corpus and description)"),
            ("{\"corpus\": [], \"descripton\": \"x\"}", "unknown key 'descripton' (did you mean 'description'? a manifest has corpus and description)"),
            ("{\"corpus\": [], \"description\": 5}", "description: expected a string, found a number"),
            ("{\"corpus\": []}", "corpus: lists no items; list scenarios, folders, manifests or recordings"),
            ("{\"corpus\": [{\"name\": \"r\", \"mic\": \"delay.json\", \"loopbak\": \"x.wav\"}]}",
             "corpus[0] (r): unknown key 'loopbak' (did you mean 'loopback'? a recording has name, mic, loopback, echo, near_end, talk_type, channel)"),
            ("{\"corpus\": [{\"name\": \"r\"}]}", "corpus[0] (r): mic: missing"),
            ("{\"corpus\": [{\"name\": \"r\", \"mic\": \"m.wav\", \"loopback\": \"l.wav\"}]}", "corpus[0] (r): mic: m.wav: no such file"),
            ("{\"corpus\": [{\"name\": \"r\", \"mic\": \"delay.json\"}]}", "corpus[0] (r): loopback: missing (only near-end single talk has none)"),
            ("{\"corpus\": [{\"name\": \"../r\", \"mic\": \"delay.json\", \"talk_type\": \"nearend_singletalk\"}]}", "corpus[0].name: '../r' must be 1 to 128 letters, digits, '-', '_', '.' or '+', not starting with '.'"),
            ("{\"corpus\": [{\"name\": \".hidden\", \"mic\": \"delay.json\", \"talk_type\": \"nearend_singletalk\"}]}",
             "corpus[0].name: '.hidden' must be 1 to 128 letters, digits, '-', '_', '.' or '+', not starting with '.'"),
            ("{\"corpus\": [{\"name\": \"my call\", \"mic\": \"delay.json\", \"talk_type\": \"nearend_singletalk\"}]}",
             "corpus[0].name: 'my call' must be 1 to 128 letters, digits, '-', '_', '.' or '+', not starting with '.'"),
            // 128 letters, 384 bytes: a folder name passes 255 bytes; it failed only at its run's mkdir.
            ("{\"corpus\": [{\"name\": \"\(String(repeating: "中", count: 128))\", \"mic\": \"delay.json\", \"talk_type\": \"nearend_singletalk\"}]}",
             "corpus[0].name: '\(String(repeating: "中", count: 128))' is 384 bytes in UTF-8; a name is a folder, at most 255 bytes"),
            ("{\"corpus\": [{\"name\": \"r\", \"mic\": \"delay.json\", \"talk_type\": \"monologue\"}]}",
             "corpus[0] (r): talk_type: 'monologue' is not one of farend_singletalk, farend_singletalk_with_movement, doubletalk, doubletalk_with_movement, nearend_singletalk"),
            ("{\"corpus\": [\"manifest.json\"]}", "corpus[0]: manifest.json: a cycle of manifests (it is being read already)"),
            ("{\"corpus\": [\"\"]}", "corpus[0]: an empty path; name a scenario, folder or manifest (\".\" for this folder)"),
            ("{\"corpus\": [], \"corpus\": []}", "not valid JSON: line 1, column 16: duplicate key 'corpus' (JSON readers disagree on which one wins; give it once)"),
            // Broken after its `corpus` key, it is still a manifest: it stops the eval, and is
            // not run as a scenario that fails (which wrote an eval.json of that one failure).
            ("{\"corpus\": [\"delay.json\"], \"description\": \"a\", \"description\": \"b\"}",
             "not valid JSON: line 1, column 48: duplicate key 'description' (JSON readers disagree on which one wins; give it once)"),
            ("{\"corpus\": [\"delay.json\"]", "not valid JSON: line 1, column 26: the file ends inside an object"),
            ("{\"corpus\"", "not valid JSON: line 1, column 10: the file ends inside an object"),
            ("{\"corpus\" []}", "not valid JSON: line 1, column 11: expected ':' after the key 'corpus'"),
            // A manifest given a name is a manifest with an unknown key, not a scenario.
            ("{\"name\": \"my corpus\", \"corpus\": [\"delay.json\"]}", "unknown key 'name' (a manifest has corpus and description)"),
        ]
        for (text, problem) in cases {
            try write(text, to: "manifest.json")
            try? FileManager.default.removeItem(at: root.appendingPathComponent("out"))
            let result = try runEchoLab(["eval", "manifest.json", "--out", "out"], in: root)
            XCTAssertEqual(result.status, 1, text)
            XCTAssertEqual(result.standardError, "echolab: manifest.json: \(problem)\n", text)
            if problem.hasPrefix("not valid JSON") {
                XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/eval.json").path), "nothing ran: \(text)")
            }
        }
        // A recording named like eval's own report is named by its entry (the line named its mic).
        try SoundFileWriter.write([Float](repeating: 0.1, count: 4800), to: root.appendingPathComponent("m.wav").path, sampleRate: 48_000)
        try write("{\"corpus\": [{\"name\": \"eval.json\", \"mic\": \"m.wav\", \"talk_type\": \"nearend_singletalk\"}]}", to: "manifest.json")
        let report = try runEchoLab(["eval", "manifest.json", "--out", "out"], in: root)
        XCTAssertEqual(report.status, 1)
        XCTAssertEqual(report.standardError,
                       "echolab: manifest.json: corpus[0]: name: 'eval.json' is a report eval writes in its output folder; choose another\n")
        // A recording's WAV given as the corpus says so (it read as a scenario: "not valid JSON").
        try SoundFileWriter.write([Float](repeating: 0.1, count: 480), to: root.appendingPathComponent("X_doubletalk_mic.wav").path, sampleRate: 48_000)
        // (The eval before it wrote out/eval.json: an eval that cannot start removes it, and says so.)
        let audio = try runEchoLab(["eval", "X_doubletalk_mic.wav", "--out", "out"], in: root)
        XCTAssertEqual(audio.status, 1)
        XCTAssertEqual(audio.standardError, "echolab: removed the earlier eval's eval.json, eval.md and eval.html from out: this eval ran nothing\n"
                       + "echolab: X_doubletalk_mic.wav: an audio file, not a corpus; give its AEC-Challenge folder, "
                       + "or list it in a manifest as a recording ({\"name\", \"mic\", \"loopback\"}), or a scenario that plays it\n")
        // Listed by a manifest as a path, it is named by the manifest and the entry too.
        try write("{\"corpus\": [\"delay.json\", \"X_doubletalk_mic.wav\"]}", to: "manifest.json")
        let listed = try runEchoLab(["eval", "manifest.json", "--out", "out"], in: root)
        XCTAssertEqual(listed.status, 1)
        XCTAssertTrue(listed.standardError.hasPrefix("echolab: manifest.json: corpus[1]: "), listed.standardError)
        XCTAssertTrue(listed.standardError.contains("X_doubletalk_mic.wav: an audio file, not a corpus"), listed.standardError)
        XCTAssertEqual(listed.standardError.split(separator: "\n").count, 1, listed.standardError)
    }

    /// A recording entry that cannot run fails as its own item — named by the manifest, its
    /// place and its name — and the rest of the corpus still runs; so does an AEC-Challenge mic
    /// without its loopback. A stereo recording runs on the channel its entry names.
    func testABrokenRecordingFailsAloneAndTheOthersRun() throws {
        try write(delayScenario(aec: "intensityMin", seconds: 1), to: "delay.json")
        let stereo = root.appendingPathComponent("stereo.wav").path, mono = root.appendingPathComponent("mono.wav").path
        let speech = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 140), sampleRate: 16_000, count: 16_000, seed: 3)
        let writer = try SoundFileWriter(path: stereo, sampleRate: 16_000, channelCount: 2)
        try writer.write(speech.flatMap { [0, $0 * 0.5] }, frames: speech.count)
        try writer.finish()
        try SoundFileWriter.write(speech, to: mono, sampleRate: 16_000)
        try write("""
            {"corpus": ["delay.json",
                        {"name": "gone", "mic": "missing.wav", "loopback": "mono.wav"},
                        {"name": "two-channels", "mic": "stereo.wav", "loopback": "mono.wav"},
                        {"name": "right", "mic": "stereo.wav", "loopback": "mono.wav", "channel": 1},
                        {"name": "bad-channel", "mic": "stereo.wav", "loopback": "mono.wav", "channel": -1}]}
            """, to: "manifest.json")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("aec/"), withIntermediateDirectories: true)
        try SoundFileWriter.write(speech, to: root.appendingPathComponent("aec/X_doubletalk_mic.wav").path, sampleRate: 16_000)
        let inputs = try snapshot(root)

        let result = try runEchoLab(["eval", "manifest.json", "aec", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(result.status, 1, result.standardError)
        XCTAssertTrue(result.standardOutput.hasPrefix("2 of 6 runs succeeded"), result.standardOutput)
        let lines = result.standardError.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, result.standardError)
        XCTAssertEqual(lines[0], "echolab: manifest.json: corpus[1] (gone): mic: missing.wav: no such file")
        // Named as the manifest names it, from the manifest's folder as given (here the run's own).
        XCTAssertTrue(lines[1].hasPrefix("echolab: manifest.json: corpus[2] (two-channels): stereo.wav: has 2 channels"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("echolab: manifest.json: corpus[4] (bad-channel): channel: expected a channel number"), lines[2])
        XCTAssertTrue(lines[3].hasSuffix("aec/X_doubletalk_lpb.wav: missing: the loopback of X_doubletalk_mic.wav (doubletalk needs one)"), lines[3])
        let items = try loadJSON(root.appendingPathComponent("out/eval.json").path)["items"] as! [[String: Any]]
        XCTAssertEqual(items.map { $0["name"] as! String }, ["delay40-intensityMin", "gone", "two-channels", "right", "bad-channel", "X_doubletalk"])
        let right = (items[3]["results"] as! [[String: Any]])[0]
        XCTAssertTrue(right["error"] is NSNull, "\(right)")
        // The right channel is the loopback at half the amplitude: an ERL of 20·log10(2) dB.
        XCTAssertEqual((right["metrics"] as? [String: Any])?["erl_db"] as? Double ?? 0, 20 * log10(2), accuracy: 0.01, "\(right)")
        // How many runs there were and how many succeeded ("2 runs, 4 failed" read as 2 of 6);
        // a figure's unit before its mark.
        let summary = try String(contentsOf: root.appendingPathComponent("out/eval.md"), encoding: .utf8)
        XCTAssertTrue(summary.contains(": 6 runs: 2 succeeded, 4 failed."), summary)
        XCTAssertTrue(summary.contains("| `speex:intensityRecommended` | 1 of 5 (4 failed) |"), summary)
        // A 1 s item's steady state stands on few frames, and the matrix says on how many.
        let rightFrames = try XCTUnwrap((right["metrics"] as? [String: Any])?["erle_steady_analysis_frames"] as? Int, "\(right)")
        XCTAssertLessThan(rightFrames, 20)
        XCTAssertTrue(summary.contains("[14.0 dB (\(rightFrames) frames)](right/"), summary)
        // Every link of eval.html reaches a file: failed runs (no folder) are not linked.
        let page = try String(contentsOf: root.appendingPathComponent("out/eval.html"), encoding: .utf8)
        // A failed item's section says it failed and why, and draws no empty plots that read
        // "no far-end single talk" (they did, with "No audio taps were written (--no-taps)").
        let gone = try XCTUnwrap(page.components(separatedBy: "id=\"item-gone\"").dropFirst().first?.components(separatedBy: "<h3").first)
        XCTAssertTrue(gone.contains("Every run of this item failed: manifest.json: corpus[1] (gone): mic: missing.wav: no such file (every mode)."), gone)
        XCTAssertFalse(gone.contains("<svg") || gone.contains("No audio taps"), gone)
        let targets = (page.attributes("href", of: "a") + page.attributes("src", of: "audio")).filter { !$0.hasPrefix("#") }
        XCTAssertFalse(targets.isEmpty)
        for target in targets {
            let path = root.appendingPathComponent("out").appendingPathComponent(target.removingPercentEncoding ?? target).path
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "eval.html links \(target), which is not there")
        }
        // The run's reports say which channel they measured.
        let rightRun = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: root.appendingPathComponent("out/right").path)
            .first { $0.hasSuffix("report.json") })
        let rightFolder = root.appendingPathComponent("out/right").appendingPathComponent(rightRun).deletingLastPathComponent()
        XCTAssertEqual(try loadJSON(rightFolder.appendingPathComponent("report.json").path)["channel"] as? Int, 1)
        XCTAssertTrue(try String(contentsOf: rightFolder.appendingPathComponent("report.md"), encoding: .utf8)
            .contains("Channel 1 (counted from 0) of multichannel files was measured."))
        // eval.html's player plays the file as it is, every channel: its label says which one was scored.
        XCTAssertTrue(try String(contentsOf: root.appendingPathComponent("out/eval.html"), encoding: .utf8)
            .contains("<figcaption>mic (recording, every channel; its channel 1 was scored, counted from 0)</figcaption>"))
        try FileManager.default.removeItem(at: root.appendingPathComponent("out"))

        // Sharded in two modes and merged: the failed runs (one folder name per item, none on
        // disk) are entries like any other, and the merge equals the unsharded eval.
        let modes = "disabled,speex:intensityMin"
        XCTAssertEqual(try runEchoLab(["eval", "manifest.json", "aec", "--modes", modes, "--out", "whole", "--no-taps"], in: root).status, 1)
        for shard in ["1/2", "2/2"] {
            let part = try runEchoLab(["eval", "manifest.json", "aec", "--modes", modes, "--shard", shard, "--out", "shard-\(shard.prefix(1))",
                                       "--no-taps"], in: root)
            XCTAssertEqual(part.status, 1, part.standardError)
        }
        // The broken item's runs failed: merge exits 1, as eval does, and says why.
        let merged = try runEchoLab(["merge", "shard-1", "shard-2", "--out", "merged"], in: root)
        XCTAssertEqual(merged.status, 1, merged.standardError)
        XCTAssertTrue(merged.standardError.contains("missing.wav: no such file"), merged.standardError)
        func withoutTiming(_ folder: String) throws -> [String: Any] {
            var eval = try loadJSON(root.appendingPathComponent("\(folder)/eval.json").path)
            eval["timing"] = nil
            return eval
        }
        XCTAssertEqual(try withoutTiming("merged") as NSDictionary, try withoutTiming("whole") as NSDictionary)
        // Merged two folders deeper, from inside one of them, out of shards copied elsewhere
        // after their eval (as CI artifacts are), a recording run's players still reach the
        // corpus's mic and loopback: the pages are rendered from report.json's files, not from
        // where the shards are now.
        try FileManager.default.createDirectory(at: root.appendingPathComponent("deeper/still"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("downloaded/artifacts"), withIntermediateDirectories: true)
        for shard in ["shard-1", "shard-2"] {
            try FileManager.default.copyItem(at: root.appendingPathComponent(shard), to: root.appendingPathComponent("downloaded/artifacts/\(shard)"))
        }
        let deeper = try runEchoLab(["merge", "../../downloaded/artifacts/shard-1", "../../downloaded/artifacts/shard-2", "--out", "merged"],
                                    in: root.appendingPathComponent("deeper/still"))
        XCTAssertEqual(deeper.status, 1, deeper.standardError)
        let run = root.appendingPathComponent("deeper/still/merged/right/speex-intensityMin")
        let markdown = try String(contentsOf: run.appendingPathComponent("report.md"), encoding: .utf8)
        let html = try String(contentsOf: run.appendingPathComponent("report.html"), encoding: .utf8)
        let links = Self.playerLinks(markdown: markdown) + Self.playerLinks(html: html)
        XCTAssertEqual(links.count, 4, "mic and loopback in each report (no sent.wav: --no-taps)")
        for link in links {
            XCTAssertTrue(link.hasPrefix("../../../../../"), link)
            XCTAssertTrue(FileManager.default.fileExists(atPath: run.appendingPathComponent(link).standardizedFileURL.path), link)
        }
        XCTAssertEqual(Set(links.map { run.appendingPathComponent($0).standardizedFileURL.path }),
                       [stereo, mono].map { URL(fileURLWithPath: $0).standardizedFileURL.path }.reduce(into: Set<String>()) { $0.insert($1) })
        for folder in ["whole", "shard-1", "shard-2", "merged", "deeper", "downloaded"] { try FileManager.default.removeItem(at: root.appendingPathComponent(folder)) }
        XCTAssertEqual(try snapshot(root), inputs, "inputs are never modified")
    }

    /// An entry's `channel` matters only for multichannel files: with mono ones the reports say
    /// no channel was picked (null), not one the files do not have.
    func testAChannelOnMonoRecordingsIsReportedAsNone() throws {
        let speech = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 140), sampleRate: 16_000, count: 16_000, seed: 3)
        try SoundFileWriter.write(speech, to: root.appendingPathComponent("mono.wav").path, sampleRate: 16_000)
        try write(#"{"corpus": [{"name": "mono", "mic": "mono.wav", "loopback": "mono.wav", "channel": 5}]}"#, to: "manifest.json")
        let result = try runEchoLab(["eval", "manifest.json", "--modes", "disabled", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(result.status, 0, result.standardError)
        let run = root.appendingPathComponent("out/mono/disabled")
        XCTAssertTrue(try loadJSON(run.appendingPathComponent("report.json").path)["channel"] is NSNull)
        XCTAssertFalse(try String(contentsOf: run.appendingPathComponent("report.md"), encoding: .utf8).contains("multichannel"))
        XCTAssertTrue(try String(contentsOf: root.appendingPathComponent("out/eval.html"), encoding: .utf8)
            .contains("<figcaption>mic (recording)</figcaption>"))
    }

    /// A scenario that also has a `corpus` key (it has a `name`, which no manifest has) is a
    /// scenario with an unknown key: in a folder it runs and fails as an item, where it was
    /// passed over as a manifest and the eval passed on the others without a word.
    func testAScenarioWithACorpusKeyFailsAsAScenario() throws {
        try write(delayScenario(aec: "intensityMin", seconds: 1), to: "folder/delay.json")
        try write(#"{"name": "sc", "duration_s": 1, "corpus": null}"#, to: "folder/sc.json")
        let result = try runEchoLab(["eval", "folder", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(result.status, 1, result.standardError)
        XCTAssertTrue(result.standardOutput.hasPrefix("1 of 2 runs succeeded"), result.standardOutput)
        XCTAssertTrue(result.standardError.contains("sc.json: corpus: unknown key"), result.standardError)
    }

    /// `eval` of a manifest of two recordings of one mic, named `first` and `second`.
    private func evalTwoRecordings(named first: String, _ second: String) throws -> (status: Int32, standardOutput: String, standardError: String) {
        let speech = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 140), sampleRate: 16_000, count: 16_000, seed: 3)
        try SoundFileWriter.write(speech, to: root.appendingPathComponent("mono.wav").path, sampleRate: 16_000)
        try write(#"{"corpus": [{"name": "\#(first)", "mic": "mono.wav", "loopback": "mono.wav"}, {"name": "\#(second)", "mic": "mono.wav", "loopback": "mono.wav"}]}"#,
                  to: "manifest.json")
        let result = try runEchoLab(["eval", "manifest.json", "--modes", "disabled", "--out", "out", "--no-taps"], in: root)
        return (result.status, result.standardOutput, result.standardError)
    }

    /// Two manifest entries of one name that share a mic are a name clash, not the same file
    /// listed twice (a recording's file is its mic), said of the two entries.
    func testTwoRecordingsOfOneNameAndMicClash() throws {
        let result = try evalTwoRecordings(named: "r", "r")
        XCTAssertEqual(result.status, 1)
        // Named by the manifest's entries, as other problems of an entry are: not by the mic
        // both share, which read as a file clashing with itself.
        XCTAssertTrue(result.standardError.contains("echolab: manifest.json: corpus[1]: name: 'r' is already used by manifest.json: corpus[0]\n"),
                      result.standardError)
        XCTAssertFalse(result.standardError.contains("listed twice"), result.standardError)
    }

    /// Two items whose names differ only in case clash: OUT/NAME/ of the two is one folder on a
    /// case-insensitive file system (macOS's default), where one's runs would overwrite the other's.
    func testNamesThatDifferOnlyInCaseClash() throws {
        let result = try evalTwoRecordings(named: "Call", "call")
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.standardError.contains("echolab: manifest.json: corpus[1]: name: 'call' is already used by manifest.json: corpus[0] "
                                                    + "(as 'Call': names that differ only in case are one folder on a case-insensitive file system)\n"),
                      result.standardError)
        XCTAssertTrue(result.standardError.contains("echolab: manifest.json: corpus[0]: name: 'Call' is also used by manifest.json: corpus[1]"),
                      result.standardError)
    }

    /// Every relative link of every report under `folder` (Markdown links, HTML `href` and
    /// `src`) reaches a file, resolved from the report's own folder as a browser does: `..`
    /// climbs the report's address as text (through any link in it), then the kernel follows
    /// the rest.
    private func assertEveryLinkResolves(in folder: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        var checked = 0
        for relative in try FileManager.default.subpathsOfDirectory(atPath: folder.path)
        where relative.hasSuffix(".md") || relative.hasSuffix(".html") {
            let report = folder.appendingPathComponent(relative)
            let text = try String(contentsOf: report, encoding: .utf8)
            var targets = text.attributes("href", of: "a") + text.attributes("src", of: "audio")
            for piece in text.components(separatedBy: "](").dropFirst() { targets.append(String(piece.prefix { $0 != ")" })) }
            for target in targets where !target.hasPrefix("#") && !target.hasPrefix("http") {
                let path = URL(fileURLWithPath: report.deletingLastPathComponent().path + "/" + (target.removingPercentEncoding ?? target))
                    .standardizedFileURL.path
                XCTAssertTrue(FileManager.default.fileExists(atPath: path), "\(relative) links \(target)", file: file, line: line)
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 0, "no link checked", file: file, line: line)
    }

    /// A manifest reached through a linked folder, its entries climbing out of it (`../aec`), a
    /// scenario folder given as a link, a linked folder inside it, and an output folder reached
    /// through a link: the items run, and every player links its file, opened by the path given
    /// (`link/..` is the link target's parent for the kernel, not the link's folder).
    func testCorporaThroughSymbolicLinks() throws {
        let speech = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 140), sampleRate: 16_000, count: 16_000, seed: 3)
        for file in ["data/rec/office_mic.wav", "data/rec/office_lpb.wav", "data/aec/A1_doubletalk_mic.wav", "data/aec/A1_doubletalk_lpb.wav"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(file).deletingLastPathComponent(), withIntermediateDirectories: true)
            try SoundFileWriter.write(speech, to: root.appendingPathComponent(file).path, sampleRate: 16_000)
        }
        try write(#"{"corpus": [{"name": "office", "mic": "office_mic.wav", "loopback": "office_lpb.wav"}, "../aec"]}"#, to: "data/rec/c.json")
        try write(delayScenario(aec: "intensityMin", seconds: 1), to: "data/scenarios/delay.json")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("reclink").path, withDestinationPath: "data/rec")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("sclink").path, withDestinationPath: "data/scenarios")
        try write(delayScenario(aec: "intensityMax", seconds: 1), to: "data/more/max.json")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("data/scenarios/more").path, withDestinationPath: "../more")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("data/more/up").path, withDestinationPath: "../scenarios")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("store/x"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("outlink").path, withDestinationPath: "store/x")
        let inputs = try snapshot(root.appendingPathComponent("data"))
        for out in ["out", "outlink/results"] {
            let result = try runEchoLab(["eval", "reclink/c.json", "sclink", "--modes", "disabled", "--out", out], in: root)
            XCTAssertEqual(result.status, 0, result.standardError)
            // The linked folder inside is searched once (its link back up would loop).
            XCTAssertTrue(result.standardOutput.hasPrefix("4 of 4 runs succeeded"), result.standardOutput)
            try assertEveryLinkResolves(in: root.appendingPathComponent(out))
        }
        XCTAssertEqual(try snapshot(root.appendingPathComponent("data")), inputs, "inputs are never modified")
    }

    /// A folder given that holds no scenario stops the eval, also beside other items (a gate
    /// passed on less than was asked for), and says which manifests it passed over; listed in a
    /// manifest, the error names the manifest and the entry.
    func testAFolderWithoutScenariosStopsTheEvalAndNamesItsManifests() throws {
        try write(delayScenario(aec: "intensityMin", seconds: 1), to: "delay.json")
        try write(#"{"corpus": ["../delay.json"], "corpus": []}"#, to: "manifests/broken.json")
        try write(#"{"corpus": ["../delay.json"]}"#, to: "manifests/good.json")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("empty"), withIntermediateDirectories: true)
        // Plain WAVs in a folder of spaces: recordings in no layout EchoLab reads, and it says which it reads.
        try FileManager.default.createDirectory(at: root.appendingPathComponent("takes two"), withIntermediateDirectories: true)
        for name in ["a.wav", "b.WAV"] {
            try SoundFileWriter.write([Float](repeating: 0.1, count: 4_800), to: root.appendingPathComponent("takes two/\(name)").path, sampleRate: 48_000)
        }
        let cases: [([String], String)] = [
            (["takes two"], "takes two: no scenario files (*.json) found; its 2 WAV files are in no recording layout EchoLab reads "
                + "(the AEC Challenge's, or a manifest that names mic and loopback: docs/recordings.md)"),
            (["delay.json", "manifests"], "manifests: no scenario files (*.json) found (passed over 2 manifests: broken.json, good.json; give a manifest to eval to run it)"),
            (["delay.json", "empty"], "empty: no scenario files (*.json) found"),
            (["lists.json"], "lists.json: corpus[1]: empty: no scenario files (*.json) found"),
        ]
        try write(#"{"corpus": ["delay.json", "empty"]}"#, to: "lists.json")
        for (paths, message) in cases {
            let result = try runEchoLab(["eval"] + paths + ["--out", "out", "--no-taps"], in: root)
            XCTAssertEqual(result.status, 1, "\(paths)")
            XCTAssertEqual(result.standardError, "echolab: \(message)\n", "\(paths)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("out").path), "nothing ran: \(paths)")
        }
    }

    /// The players' links of a report.md: the targets on its "Listen:" lines (the file names
    /// here hold no brackets or parentheses), percent-decoded.
    static func playerLinks(markdown: String) -> [String] {
        markdown.split(separator: "\n").filter { $0.hasPrefix("Listen: ") }.flatMap { line in
            line.components(separatedBy: "](").dropFirst().compactMap { $0.split(separator: ")").first.flatMap { String($0).removingPercentEncoding } }
        }
    }

    /// The players' links of a report.html: its audio elements' `src`, percent-decoded.
    static func playerLinks(html: String) -> [String] {
        html.components(separatedBy: "<audio controls preload=\"none\" src=\"").dropFirst().compactMap {
            $0.split(separator: "\"").first.flatMap { String($0).replacingOccurrences(of: "&amp;", with: "&").removingPercentEncoding }
        }
    }
}
