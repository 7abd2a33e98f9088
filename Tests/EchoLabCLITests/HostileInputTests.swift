import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// The command given what users give it: paths with `..` from every working folder, an output
/// folder that holds the inputs, empty and lying WAVs, duplicate keys, audio above full scale, a
/// full temporary folder. Each through the real binary; the inputs are byte-identical afterwards.
final class HostileInputTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }


    /// corpus/inputs/{far,near}.wav (16 kHz Int16, 2 s) and corpus/scenarios/{a,b}.json naming
    /// them as `../inputs/…`, the layout of the shipped vectors.
    private func makeCorpus() throws -> URL {
        let corpus = root.appendingPathComponent("corpus")
        let inputs = corpus.appendingPathComponent("inputs"), scenarios = corpus.appendingPathComponent("scenarios")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: scenarios, withIntermediateDirectories: true)
        try writeWAV(inputs.appendingPathComponent("far.wav"), .speechLike(levelDBFS: -20, pitchHz: 120), seconds: 2, seed: 1)
        try writeWAV(inputs.appendingPathComponent("near.wav"), .speechLike(levelDBFS: -26, pitchHz: 210), seconds: 2, seed: 2)
        for (name, mode) in [("a", "disabled"), ("b", "intensityMin")] {
            _ = try writeScenario("""
                {"name": "\(name)", "far_end": "../inputs/far.wav", "near_end": "../inputs/near.wav",
                 "echo_path": {"delay_ms": 30, "gain_db": -10}, "aec": {"mode": "\(mode)"}}
                """, named: "\(name).json", in: scenarios)
        }
        return corpus
    }

    private func writeWAV(_ url: URL, _ kind: SignalKind, seconds: Double, seed: UInt64, rate: Int = 16_000) throws {
        let samples = SignalGenerator.render(kind, sampleRate: rate, count: Int(seconds * Double(rate)), seed: seed)
        try SoundFileWriter.write(samples, to: url.path, sampleRate: rate, encoding: .pcm16)
    }

    private func assertOneLineError(_ result: CommandResult, status: Int32 = 1, mentions needles: [String],
                                    file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, status, result.standardError, file: file, line: line)
        XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, "one line expected: \(result.standardError)", file: file, line: line)
        for needle in needles {
            XCTAssertTrue(result.standardError.contains(needle), "'\(result.standardError)' should mention \(needle)", file: file, line: line)
        }
    }

    // MARK: `..` in scenario paths

    func testParentFolderPathsResolveFromEveryWorkingFolder() throws {
        let corpus = try makeCorpus()
        let before = try snapshot(corpus)
        let scenarios = corpus.appendingPathComponent("scenarios")
        // From inside the scenario's folder, relative scenario and output paths.
        let inside = try runEchoLab(["run", "a.json", "--out", "../../out-inside", "--no-taps"], in: scenarios)
        XCTAssertEqual(inside.status, 0, inside.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("out-inside/report.json").path))
        // From the corpus folder: `eval scenarios`.
        let fromCorpus = try runEchoLab(["eval", "scenarios", "--out", "../out-eval", "--no-taps"], in: corpus)
        XCTAssertEqual(fromCorpus.status, 0, fromCorpus.standardError)
        XCTAssertTrue(fromCorpus.standardOutput.hasPrefix("2 of 2 runs succeeded"), fromCorpus.standardOutput)
        // From an unrelated folder with absolute paths, and with a path that itself holds `..`.
        let elsewhere = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let absolute = try runEchoLab(["run", scenarios.appendingPathComponent("b.json").path, "--out", "out", "--no-taps"], in: elsewhere)
        XCTAssertEqual(absolute.status, 0, absolute.standardError)
        let dotted = try runEchoLab(["run", "corpus/inputs/../scenarios/a.json", "--out", "out-dotted", "--no-taps"], in: root)
        XCTAssertEqual(dotted.status, 0, dotted.standardError)
        // The scenario file's folder is what counts, also when it is reached through a link.
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("link"), withDestinationURL: scenarios)
        let linked = try runEchoLab(["run", "link/a.json", "--out", "out-link", "--no-taps"], in: root)
        XCTAssertEqual(linked.status, 0, linked.standardError)
        XCTAssertEqual(try snapshot(corpus), before)
    }

    // MARK: `--out` that holds the inputs

    func testOutputFolderHoldingAnInputIsRefusedAndNothingIsTouched() throws {
        let folder = root.appendingPathComponent("call")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try writeWAV(folder.appendingPathComponent("mic.wav"), .whiteNoise(levelDBFS: -20), seconds: 1, seed: 3, rate: 48_000)
        try writeWAV(folder.appendingPathComponent("near.wav"), .whiteNoise(levelDBFS: -30), seconds: 1, seed: 4, rate: 48_000)
        let scenario = try writeScenario("""
            {"name": "clobber", "far_end": "mic.wav", "near_end": "near.wav", "aec": {"mode": "disabled"}}
            """, in: folder)
        let before = try snapshot(folder)
        for out in [folder.path, ".", root.path] {
            let result = try runEchoLab(["run", scenario, "--out", out], in: folder)
            assertOneLineError(result, mentions: ["output folder holds", "choose a folder"])
            XCTAssertEqual(try snapshot(folder), before, "inputs changed with --out \(out)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("report.json").path))
    }

    func testOnlyFilesAPreviousReportListsAreDeleted() throws {
        let corpus = try makeCorpus()
        let out = root.appendingPathComponent("out")
        let first = try runEchoLab(["run", "corpus/scenarios/a.json", "--out", "out", "--all-taps"], in: root)
        XCTAssertEqual(first.status, 0, first.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("played.wav").path))
        // A user's file that happens to have a tap's name, and one of their own, both unlisted.
        let report = try loadJSON(out.appendingPathComponent("report.json").path)
        var taps = report["taps"] as! [String: String]
        taps.removeValue(forKey: "near")
        var edited = report
        edited["taps"] = taps
        try JSONSerialization.data(withJSONObject: edited).write(to: out.appendingPathComponent("report.json"))
        try Data("mine".utf8).write(to: out.appendingPathComponent("notes.wav"))
        let corpusBefore = try snapshot(corpus)
        let second = try runEchoLab(["run", "corpus/scenarios/a.json", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(second.status, 0, second.standardError)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: out.path))
        // Listed taps are gone; near.wav was no longer listed, so it stays, as does notes.wav.
        XCTAssertEqual(left, ["report.json", "report.md", "report.html", "near.wav", "notes.wav"])
        XCTAssertEqual(try snapshot(corpus), corpusBefore)
    }

    // MARK: A WAV with a valid header and no frames

    /// With a length of its own (duration_s) it is an error too: it played as silence, and a
    /// gate took the broken input for an item without a far end.
    func testZeroFrameWAVSettingTheCallLengthIsAnErrorNotACrash() throws {
        let folder = root.appendingPathComponent("zero")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try SoundFileWriter.write([], to: folder.appendingPathComponent("empty.wav").path, sampleRate: 48_000)
        try writeWAV(folder.appendingPathComponent("ok.wav"), .whiteNoise(levelDBFS: -20), seconds: 1, seed: 5)
        _ = try writeScenario(#"{"name": "empty", "far_end": "empty.wav"}"#, named: "1-empty.json", in: folder)
        _ = try writeScenario(#"{"name": "fine", "far_end": "ok.wav", "aec": {"mode": "disabled"}}"#, named: "2-fine.json", in: folder)
        _ = try writeScenario(#"{"name": "empty-fixed", "far_end": "empty.wav", "duration_s": 0.5, "aec": {"mode": "disabled"}}"#,
                              named: "3-empty-fixed.json", in: folder)
        let before = try snapshot(folder)
        let single = try runEchoLab(["run", "1-empty.json", "--out", "../out-single"], in: folder)
        assertOneLineError(single, mentions: ["1-empty.json", "far_end", "empty.wav holds no audio (0 frames)"])
        XCTAssertEqual(allFiles(under: root).filter { $0.contains("partial") }, [])
        let corpus = try runEchoLab(["eval", "zero", "--out", "out-eval", "--no-taps"], in: root)
        XCTAssertEqual(corpus.status, 1)
        XCTAssertTrue(corpus.standardError.contains("1-empty.json: far_end"), corpus.standardError)
        XCTAssertTrue(corpus.standardError.contains("3-empty-fixed.json: far_end"), corpus.standardError)
        XCTAssertTrue(corpus.standardOutput.hasPrefix("1 of 3 runs succeeded"), corpus.standardOutput)
        // In two modes the broken item fails twice the same way: one line says so, with the count.
        let modes = try runEchoLab(["eval", "zero", "--out", "out-modes", "--no-taps", "--modes", "disabled,speex:intensityRecommended"], in: root)
        XCTAssertEqual(modes.status, 1)
        let lines = modes.standardError.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, modes.standardError)
        XCTAssertTrue(lines.first?.contains("1-empty.json: far_end") == true && lines.first?.hasSuffix(" (2 runs)") == true, modes.standardError)
        XCTAssertTrue(modes.standardOutput.hasPrefix("2 of 6 runs succeeded"), modes.standardOutput)
        XCTAssertEqual(try snapshot(folder), before)
        // One frame runs, and its report says why nothing is measured: not a silent far end.
        try SoundFileWriter.write([0.5], to: folder.appendingPathComponent("one.wav").path, sampleRate: 48_000)
        let one = try writeScenario(#"{"name": "one", "far_end": "one.wav", "aec": {"mode": "disabled"}}"#, named: "one.json", in: folder)
        XCTAssertEqual(try runEchoLab(["run", one, "--out", "out-one"], in: root).status, 0)
        let markdown = try String(contentsOf: root.appendingPathComponent("out-one/report.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("No ERL or ERLE: the call (10.00 ms) is shorter than one analysis frame"), markdown)
    }

    // MARK: eval reads its own outputs; an empty corpus

    func testEvalOverAFolderHoldingEchoLabsOwnOutputs() throws {
        let corpus = try makeCorpus()
        let before = try snapshot(corpus.appendingPathComponent("inputs"))
        // `.` holds an earlier eval's reports/ (beside the scenarios) and a golden.json: they are
        // EchoLab's outputs, passed over, not scenarios.
        try Data(#"{"schema": "echolab.golden/1", "scenarios": {}}"#.utf8).write(to: corpus.appendingPathComponent("golden.json"))
        let first = try runEchoLab(["eval", "scenarios", "--no-taps"], in: corpus)
        XCTAssertEqual(first.status, 0, first.standardError)
        for _ in 0..<2 {
            let result = try runEchoLab(["eval", ".", "--no-taps", "--out", "../out"], in: corpus)
            XCTAssertEqual(result.status, 0, result.standardError)
            XCTAssertTrue(result.standardOutput.hasPrefix("2 of 2 runs succeeded"), result.standardOutput)
        }
        let eval = try loadJSON(root.appendingPathComponent("out/eval.json").path)
        XCTAssertEqual((eval["items"] as! [[String: Any]]).map { $0["name"] as! String }, ["a", "b"])
        XCTAssertEqual(eval["complete"] as? Bool, true)
        let reports = try snapshot(corpus)
        // An output folder that holds the corpus, or lies inside it (the default reports/ in
        // `.`, a folder a manifest names), is refused before anything runs.
        let holds = try runEchoLab(["eval", "scenarios", "--out", "."], in: corpus)
        assertOneLineError(holds, mentions: [".: the output folder holds the corpus folder scenarios;"])
        // It read "output folder holds the corpus scenarios" of the folder itself.
        let same = try runEchoLab(["eval", "scenarios", "--out", "scenarios/"], in: corpus)
        assertOneLineError(same, mentions: ["scenarios/: the output folder is the corpus folder; choose a folder outside it"])
        // A corpus file given as --out too read as "the output folder is the corpus folder".
        let file = try runEchoLab(["eval", "scenarios/a.json", "--out", "scenarios/a.json"], in: corpus)
        assertOneLineError(file, mentions: ["scenarios/a.json: --out names the corpus's own file, not a folder"])
        let canonical = corpus.resolvingSymlinksInPath().path
        let inside = try runEchoLab(["eval", "."], in: corpus)
        assertOneLineError(inside, mentions: ["reports: output folder is inside the corpus folder .",
                                              "choose a folder outside it (e.g. --out \(canonical)-reports)"])
        let deeper = try runEchoLab(["eval", "scenarios", "--out", "scenarios/new/out"], in: corpus)
        assertOneLineError(deeper, mentions: ["scenarios/new/out: output folder is inside the corpus folder scenarios"])
        try Data(#"{"corpus": ["corpus/scenarios"]}"#.utf8).write(to: root.appendingPathComponent("m.json"))
        let named = try runEchoLab(["eval", "m.json", "--out", "corpus/scenarios/out"], in: root)
        assertOneLineError(named, mentions: ["corpus/scenarios/out: output folder is inside the corpus folder", "scenarios"])
        // A link inside the corpus to a folder outside: the outputs would land outside, but the
        // corpus's discovery follows the link and would read them.
        try FileManager.default.createDirectory(at: root.appendingPathComponent("elsewhere"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: corpus.appendingPathComponent("scenarios/link"), withDestinationURL: root.appendingPathComponent("elsewhere"))
        let linked = try runEchoLab(["eval", "scenarios", "--out", "scenarios/link/out"], in: corpus)
        assertOneLineError(linked, mentions: ["scenarios/link/out: output folder is inside the corpus folder scenarios"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("elsewhere/out").path))
        try FileManager.default.removeItem(at: corpus.appendingPathComponent("scenarios/link"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: corpus.appendingPathComponent("scenarios/new").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: corpus.appendingPathComponent("scenarios/out").path))
        XCTAssertEqual(try snapshot(corpus), reports, "nothing written into the corpus")
        XCTAssertEqual(try snapshot(corpus.appendingPathComponent("inputs")), before)
    }

    /// A scenario in the corpus that is a link to nothing, or a pipe, was passed over: the
    /// corpus ran one item short, exit 0. Each fails as an item now, named; the others run.
    func testAScenarioThatCannotBeReadFailsAsAnItemNotPassedOver() throws {
        let corpus = try makeCorpus()
        let before = try snapshot(corpus)
        let scenarios = corpus.appendingPathComponent("scenarios")
        try FileManager.default.createSymbolicLink(atPath: scenarios.appendingPathComponent("gone.json").path, withDestinationPath: root.appendingPathComponent("moved.json").path)
        XCTAssertEqual(mkfifo(scenarios.appendingPathComponent("pipe.json").path, 0o644), 0)
        let result = try runEchoLab(["eval", "scenarios", "--no-taps", "--out", "../out"], in: corpus, timeout: 60)
        XCTAssertEqual(result.status, 1, result.standardError)
        XCTAssertEqual(result.standardError, """
            echolab: scenarios/gone.json: a symbolic link to nothing
            echolab: scenarios/pipe.json: is not a regular file (a device, pipe or socket)

            """)
        let eval = try loadJSON(root.appendingPathComponent("out/eval.json").path)
        let items = eval["items"] as! [[String: Any]]
        XCTAssertEqual(items.map { $0["name"] as! String }, ["a", "b", "gone", "pipe"])
        XCTAssertEqual(items.map { ($0["results"] as! [[String: Any]])[0]["error"] is NSNull }, [true, true, false, false])
        try FileManager.default.removeItem(at: scenarios.appendingPathComponent("gone.json"))
        try FileManager.default.removeItem(at: scenarios.appendingPathComponent("pipe.json"))
        XCTAssertEqual(try snapshot(corpus), before)
    }

    /// A folder in the corpus that cannot be read was passed over by the search: its scenarios
    /// left out, exit 0. It is an error now, naming the folder, before anything runs. (Run as
    /// `nobody` when the tests run as root, whom no permission stops.)
    func testAFolderOfTheCorpusThatCannotBeReadIsAnError() throws {
        let corpus = try makeCorpus()
        let scenarios = corpus.appendingPathComponent("scenarios")
        let hidden = scenarios.appendingPathComponent("private")
        try FileManager.default.createDirectory(at: hidden, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: scenarios.appendingPathComponent("a.json"), to: hidden.appendingPathComponent("c.json"))
        for folder in [root!, corpus, scenarios, corpus.appendingPathComponent("inputs")] {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: hidden.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hidden.path) }
        let arguments = ["eval", "scenarios", "--no-taps", "--out", "../out"]
        let (status, text) = try runEchoLabUnprivileged(arguments, in: corpus)
        XCTAssertEqual(status, 1, text)
        XCTAssertEqual(text, "echolab: scenarios/private: cannot be read (Permission denied): the scenarios in it would be left out\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/eval.json").path))
    }

    func testEvalOfAFolderWithoutScenariosFails() throws {
        let empty = root.appendingPathComponent("nothing")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let result = try runEchoLab(["eval", "nothing", "--out", "out"], in: root)
        assertOneLineError(result, mentions: ["nothing", "no scenario files"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/eval.json").path))
    }

    // MARK: Duplicate keys

    func testDuplicateKeyIsRefusedWithItsLine() throws {
        let path = try writeScenario("""
            {"name": "dup",
             "duration_s": 1,
             "echo_path": {"delay_ms": 10, "delay_ms": 20}}
            """, in: root)
        let result = try runEchoLab(["run", path, "--out", root.appendingPathComponent("out").path])
        assertOneLineError(result, mentions: ["scenario.json", "duplicate key 'delay_ms'", "line 3"])
    }

    // MARK: Messages that mislead

    func testMessagesSayWhatIsWrong() throws {
        let folder = root.appendingPathComponent("m")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("a-folder.wav"), withIntermediateDirectories: true)
        try SoundFileWriter.write([], to: folder.appendingPathComponent("empty-ir.wav").path, sampleRate: 48_000)
        try SoundFileWriter.write([0.1, .nan, 0.1, 0.2], to: folder.appendingPathComponent("nan.wav").path, sampleRate: 48_000)
        let cases: [(json: String, needles: [String])] = [
            (#"{"far_end": "a-folder.wav", "duration_s": 1}"#, ["far_end", "a-folder.wav", "is a folder"]),
            (#"{"echo_path": {"impulse_response": "empty-ir.wav"}, "duration_s": 1}"#, ["echo_path.impulse_response", "no samples"]),
            (#"{"near_end": "nan.wav", "duration_s": 1, "aec": {"mode": "disabled"}}"#, ["scenario.json", "near_end", "nan.wav", "NaN"]),
            (#"{"far_end": "", "duration_s": 1}"#, ["far_end", "empty file name"]),
        ]
        for (json, needles) in cases {
            let path = try writeScenario(json, in: folder)
            assertOneLineError(try runEchoLab(["run", path, "--out", root.appendingPathComponent("out").path]), mentions: needles)
            XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("out").path))
        }
        let scenario = try writeScenario(#"{"duration_s": 1, "aec": {"mode": "disabled"}}"#, in: folder)
        // A usage error is swift-argument-parser's: the message first, then the usage lines.
        let emptyOut = try runEchoLab(["run", scenario, "--out", ""])
        XCTAssertEqual(emptyOut.status, 64)
        XCTAssertTrue(emptyOut.standardError.hasPrefix("Error: --out must name a folder (got an empty string)"), emptyOut.standardError)
        assertOneLineError(try runEchoLab(["run", scenario, "--out", scenario + "/sub"]), mentions: ["cannot create the folder", "is a file, not a folder"])
        let jobs = try runEchoLab(["eval", folder.path, "--jobs", "-1"])
        XCTAssertEqual(jobs.status, 64)
        XCTAssertTrue(jobs.standardError.contains("--jobs must be at least 1 (got -1)"), jobs.standardError)
        // The other options whose value may start with "-": a bad value, not a missing one.
        for (arguments, message) in [(["eval", folder.path, "--shard", "-1/2"], "--shard"),
                                     (["metrics", "--reference", scenario, "--mic", scenario, "--processed", scenario, "--channel", "-1"],
                                      "--channel takes a channel number from 0 or downmix (got -1)"),
                                     (["process", "--mic", scenario, "--reference", scenario, "--out", "x.wav", "--channel", "-1"],
                                      "--channel takes a channel number from 0 or downmix (got -1)")] {
            let result = try runEchoLab(arguments, in: root)
            XCTAssertEqual(result.status, 64, "\(arguments)")
            XCTAssertTrue(result.standardError.hasPrefix("Error: " + message), result.standardError)
            XCTAssertFalse(result.standardError.contains("Missing value"), result.standardError)
        }
        let verify = try runEchoLab(["vectors", "verify"], in: root)
        assertOneLineError(verify, mentions: ["golden.json", "--vectors"])
        XCTAssertFalse(verify.standardError.contains("make golden"))
        // A file name is quoted as it is, except control characters: an ESC sequence would clear
        // the screen, a NUL or a tab hide what follows.
        let hostile = try runEchoLab(["run", "clear\u{1B}[2J\ttab\u{7F}.json", "--out", root.appendingPathComponent("out").path], in: folder)
        XCTAssertEqual(hostile.status, 1)
        XCTAssertEqual(hostile.standardError, "echolab: clear\\x1b[2J tab\\x7f.json: no such file\n")
        let reordered = try runEchoLab(["run", "a\u{202E}nosj.b\u{2028}c.json", "--out", root.appendingPathComponent("out").path], in: folder)
        XCTAssertEqual(reordered.standardError, "echolab: a\\u{202E}nosj.b c.json: no such file\n")
    }

    // MARK: Audio above full scale

    /// The issue's two cases: the echo path's +40 dB drives the mic past full scale; a float far
    /// end at +25 dBFS drives the playout past it. Both are saturated where a device would clip,
    /// counted per stage, linted — and speexdsp's reset warnings are counted, never printed.
    func testAudioAboveFullScaleIsSaturatedCountedAndLinted() throws {
        let folder = root.appendingPathComponent("loud")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try SoundFileWriter.write(SignalGenerator.render(.whiteNoise(levelDBFS: 25), sampleRate: 48_000, count: 48_000 * 6, seed: 4),
                                  to: folder.appendingPathComponent("loud.wav").path, sampleRate: 48_000)
        _ = try writeScenario("""
            {"name": "gain40", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "echo_path": {"delay_ms": 40, "gain_db": 40}, "aec": {"mode": "intensityRecommended"}, "duration_s": 6}
            """, named: "gain40.json", in: folder)
        _ = try writeScenario("""
            {"name": "loud-far-end", "far_end": "loud.wav", "noise": {"level_dbfs": -60, "seed": 2},
             "echo_path": {"delay_ms": 40, "gain_db": -20}, "aec": {"mode": "intensityRecommended"}}
            """, named: "loud.json", in: folder)
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 6), named: "quiet.json", in: folder)
        let before = try snapshot(folder)
        var reports: [String: [String: Any]] = [:]
        for name in ["gain40", "loud", "quiet"] {
            let result = try runEchoLab(["run", "loud/\(name).json", "--out", "out-\(name)", "--no-taps"], in: root)
            XCTAssertEqual(result.status, 0, result.standardError)
            XCTAssertEqual(result.standardError, "", "nothing printed by the C library")
            reports[name] = try loadJSON(root.appendingPathComponent("out-\(name)/report.json").path)
        }
        func clipped(_ name: String) -> [String: Int] { (reports[name]!["pipeline"] as! [String: Any])["clipped_samples"] as! [String: Int] }
        func rules(_ name: String) -> [String] {
            (reports[name]!["findings"] as! [[String: Any]]).filter { $0["kind"] as? String == "lint" }.map { $0["rule"] as! String }
        }
        // +20 dBFS of echo at the mic: most samples saturate there, nowhere else.
        XCTAssertGreaterThan(clipped("gain40")["mic"]!, 6 * 48_000 / 2)
        XCTAssertEqual(clipped("gain40")["playout"], 0)
        XCTAssertEqual(rules("gain40"), ["mic-clipping"])
        // speexdsp diverged on it and reset itself: counted (its warning was not printed, above).
        XCTAssertGreaterThan((reports["gain40"]!["pipeline"] as! [String: Any])["aec_resets"] as! Int, 0)
        // The canceller cannot cancel a saturated mic: ERLE is what it really removes, near 0,
        // not the 20 dB that Int16 saturation inside the canceller used to show.
        let gainMetrics = reports["gain40"]!["metrics"] as! [String: Any]
        XCTAssertLessThan(gainMetrics["erle_db"] as! Double, 3)
        // +25 dBFS float far end: the playout saturates (and so the reference, the same signal).
        XCTAssertGreaterThan(clipped("loud")["playout"]!, 48_000)
        XCTAssertEqual(clipped("loud")["mic"], 0)
        XCTAssertEqual(rules("loud"), ["loudspeaker-clipping"])
        let finding = (reports["loud"]!["findings"] as! [[String: Any]])[0]["consequence"] as! [String: Any]
        XCTAssertEqual(finding["metric"] as? String, "erle_db")
        XCTAssertTrue((finding["meaning"] as! String).contains("loudspeaker samples clipped"), "\(finding)")
        XCTAssertEqual(clipped("quiet"), ["playout": 0, "loudspeaker": 0, "mic": 0, "capture": 0, "reference": 0])
        XCTAssertEqual(rules("quiet"), [])
        XCTAssertEqual((reports["quiet"]!["pipeline"] as! [String: Any])["aec_resets"] as? Int, 0)
        XCTAssertEqual(try snapshot(folder), before)
    }

    // MARK: Lying headers, tiny folders, a full temporary folder

    /// A FLAC whose header claims 2^36 − 1 frames (18 days) setting the call's length trapped on
    /// an overflow; and a one-character output folder trapped inside Foundation.
    func testLyingLengthAndOneCharacterFolderAreNoCrash() throws {
        let reproducer = packageRoot.appendingPathComponent("Fuzz/corpus/regressions/scenario-runner-duration-overflow")
        let before = try snapshot(reproducer)
        let lying = try runEchoLab(["run", reproducer.appendingPathComponent("scenario.json").path, "--out", "x"], in: root)
        assertOneLineError(lying, mentions: ["far_end", "peer.flac", "a call is at most 24 h"])
        XCTAssertEqual(try snapshot(reproducer), before)
        _ = try writeScenario(#"{"duration_s": 0.5, "aec": {"mode": "disabled"}}"#, named: "s.json", in: root)
        let short = try runEchoLab(["run", "s.json", "--out", "o", "--no-taps"], in: root)
        XCTAssertEqual(short.status, 0, short.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("o/report.json").path))
    }

    /// A long call spills its metric rows to the temporary folder; when that folder is full the
    /// call stops with the folder and the reason, not a crash (needs a small tmpfs: root only).
    /// Runs `body` with a 16 kB tmpfs mounted under the test's folder (it needs root, as CI runs).
    private func withFullTemporaryFolder(_ body: (URL) throws -> Void) throws {
        let mount = root.appendingPathComponent("tmpfs")
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
        let mounted = Process()
        mounted.executableURL = URL(fileURLWithPath: "/bin/mount")
        mounted.arguments = ["-t", "tmpfs", "-o", "size=16k", "tmpfs", mount.path]
        mounted.standardError = FileHandle.nullDevice
        try mounted.run()
        mounted.waitUntilExit()
        guard mounted.terminationStatus == 0 else {
            return XCTFail("mounting a 16 kB tmpfs failed: this test needs root (as CI runs) to fill a temporary folder")
        }
        defer {
            let unmount = Process()
            unmount.executableURL = URL(fileURLWithPath: "/bin/umount")
            unmount.arguments = [mount.path]
            try? unmount.run()
            unmount.waitUntilExit()
        }
        try body(mount)
    }

    func testFullTemporaryFolderStopsALongCallWithItsReason() throws {
        try withFullTemporaryFolder { mount in
            _ = try writeScenario("""
                {"name": "long", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
                 "aec": {"mode": "disabled"}, "duration_s": 420}
                """, in: root)
            let (status, text) = try runCapturingErrors(try echoLabBinary(), ["run", "scenario.json", "--out", "out", "--no-taps"], in: root,
                                         environment: ["TMPDIR": mount.path])
            XCTAssertEqual(status, 1, text)
            XCTAssertEqual(text.split(separator: "\n").count, 1, text)
            XCTAssertTrue(text.contains(mount.path) && text.contains("No space left on device"), text)
            XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("out").path))
        }
    }

    /// A scorer's stretches cannot be written to a full temporary folder: the runs stand,
    /// unscored, with the reason, and the reason names no folder made for that run (one with a
    /// random name made every eval's report.json differ from the last).
    func testAFullTemporaryFolderLeavesRunsUnscoredWithAReasonThatIsTheSameEachTime() throws {
        try withFullTemporaryFolder { mount in
            let scorer = packageRoot.appendingPathComponent("Examples/Scorers/level_ratio.py").path
            let item = packageRoot.appendingPathComponent("vectors/scenarios/speech-room-doubletalk.json").path
            var reasons: [String] = []
            for out in ["first", "second"] {
                let (status, text) = try runCapturingErrors(try echoLabBinary(), ["eval", item, "--modes", "speex:intensityRecommended", "--out", out,
                                                                  "--no-taps", "--scorer", "level=python3 \(scorer)"], in: root,
                                             environment: ["TMPDIR": mount.path, "PATH": "/usr/bin:/bin"])
                XCTAssertEqual(status, 0, text)
                let report = try loadJSON(root.appendingPathComponent("\(out)/eval.json").path)
                let result = try XCTUnwrap(((report["items"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])?.first)
                let score = try XCTUnwrap((result["scores"] as? [[String: Any]])?.first)
                reasons.append(try XCTUnwrap(score["unscored_reason"] as? String, "\(score)"))
            }
            XCTAssertTrue(reasons[0].contains("No space left on device"), reasons[0])
            XCTAssertFalse(reasons[0].contains(mount.path), reasons[0])
            XCTAssertEqual(reasons[0], reasons[1])
        }
    }
}
