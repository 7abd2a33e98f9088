import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import Evaluation
import Reporting
import ScenarioFiles
import Simulation
import XCTest

/// Scenario files and runs checked as people write and run them: exit codes, names that are
/// paths, generator options, stereo inputs, honest nulls, a starved user reference, clear messages.
final class ScenarioChecksTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws { folder = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func load(_ json: String, named name: String = "scenario.json") throws -> Scenario {
        try ScenarioLoader.load(path: writeScenario(json, named: name, in: folder))
    }

    private func loadError(_ json: String) -> String {
        do {
            _ = try load(json)
            return "no error"
        } catch {
            return String(describing: error)
        }
    }

    func testUsageErrorsExitWithEXUsageAndStrictNamesTheRules() throws {
        XCTAssertEqual(try runEchoLab(["run"]).status, 64)
        XCTAssertEqual(try runEchoLab(["eval", folder.path, "--jobs", "0"]).status, 64)
        let path = try writeScenario(delayScenario(aec: "disabled", seconds: 1), in: folder)
        let strict = try runEchoLab(["run", path, "--out", folder.appendingPathComponent("out").path, "--strict", "--no-taps"])
        XCTAssertEqual(strict.status, 3)
        XCTAssertTrue(strict.standardError.hasPrefix("echolab: 1 lint finding in "), strict.standardError)
        XCTAssertTrue(strict.standardError.contains("aec-disabled-with-real-devices"), strict.standardError)
        // As eval --strict: the canceller turned off by --aec is the reference run asked for,
        // not the app's choice; the report still lists the finding.
        let enabled = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 1), named: "on.json", in: folder)
        let off = folder.appendingPathComponent("off")
        let reference = try runEchoLab(["run", enabled, "--aec", "disabled", "--out", off.path, "--strict", "--no-taps"])
        XCTAssertEqual(reference.status, 0, reference.standardError)
        let report = try loadJSON(off.appendingPathComponent("report.json").path)
        XCTAssertEqual((report["findings"] as? [[String: Any]])?.compactMap { $0["rule"] as? String }.contains("aec-disabled-with-real-devices"), true)
    }

    /// A manifest or an eval.json given to `run` is said as what it is, not as its first unknown
    /// key ("corpus: unknown key (and 1 more: description)").
    func testRunSaysAManifestOrAnOutputIsNoScenario() throws {
        let manifest = folder.appendingPathComponent("corpus.json")
        try Data(#"{"corpus": ["a.json"], "description": "mine"}"#.utf8).write(to: manifest)
        let listed = try runEchoLab(["run", "corpus.json", "--out", "out"], in: folder)
        XCTAssertEqual(listed.status, 1)
        XCTAssertEqual(listed.standardError, "echolab: corpus.json: a corpus manifest, not a scenario; `echolab eval corpus.json` runs its items\n")
        try Data(#"{"schema": "echolab.eval/4", "items": [], "best_modes": null}"#.utf8).write(to: folder.appendingPathComponent("eval.json"))
        let output = try runEchoLab(["run", "eval.json", "--out", "out"], in: folder)
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(output.standardError, "echolab: eval.json: an EchoLab output (echolab.eval/4), not a scenario\n")
    }

    /// `eval --strict` fails (3) on the lint's findings in any run and names each rule with its
    /// runs in one line; a missed telephony requirement alone leaves it at 0; a failed run's 1
    /// comes first. Without --strict the same corpus exits 0.
    func testEvalStrictFailsOnTheLintsFindingsAndNamesThem() throws {
        let corpus = folder.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        _ = try writeScenario(delayScenario(aec: "disabled", seconds: 1), named: "a-off.json", in: corpus)
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 4), named: "b-on.json", in: corpus)
        func eval(_ extra: [String], _ paths: [String] = ["corpus"]) throws -> (status: Int32, standardError: String) {
            let result = try runEchoLab(["eval"] + paths + ["--out", "out", "--no-taps"] + extra, in: folder)
            return (result.status, result.standardError)
        }
        let plain = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps"], in: folder)
        XCTAssertEqual(plain.status, 0, plain.standardError)
        XCTAssertEqual(plain.standardOutput, "2 of 2 runs succeeded (1 with lint findings) → out/eval.md\n", "the line a CI log shows")
        let strict = try eval(["--strict"])
        XCTAssertEqual(strict.status, 3, strict.standardError)
        XCTAssertEqual(strict.standardError, "echolab: lint findings in 1 of 2 runs (out/eval.md): "
                       + "aec-disabled-with-real-devices in delay40-disabled (disabled)\n")
        // `disabled` asked for by --modes is the eval's reference, not the app's choice: its
        // aec-disabled-with-real-devices is reported, and --strict passes over it.
        let twoModes = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps", "--strict", "--modes", "disabled,speex:intensityMin"], in: folder)
        XCTAssertEqual(twoModes.status, 0, twoModes.standardError)
        XCTAssertFalse(twoModes.standardError.contains("lint findings"), twoModes.standardError)
        // Its summary and eval.md say what --strict left out, not that it fails on every finding.
        XCTAssertEqual(twoModes.standardOutput, "4 of 4 runs succeeded (2 with lint findings, 0 of them failing --strict) → out/eval.md\n")
        let page = try String(contentsOf: folder.appendingPathComponent("out/eval.md"), encoding: .utf8)
        XCTAssertTrue(page.contains("eval --strict fails on them but for aec-disabled-with-real-devices in the runs --modes turned the "
                                    + "canceller off in, the reference the eval asked for: 0 of the 2 runs)"), page)
        let reference = try loadJSON(folder.appendingPathComponent("out/delay40-disabled/disabled/report.json").path)
        XCTAssertEqual((reference["findings"] as? [[String: Any]])?.compactMap { $0["rule"] as? String }.contains("aec-disabled-with-real-devices"), true)
        // A sharded eval's merge judges the lint as eval --strict does, once every run is in.
        for shard in ["1/2", "2/2"] {
            let part = try runEchoLab(["eval", "corpus", "--out", "shard-\(shard.prefix(1))", "--no-taps", "--shard", shard], in: folder)
            XCTAssertEqual(part.status, 0, part.standardError)
        }
        let merged = try runEchoLab(["merge", "shard-1", "shard-2", "--out", "merged", "--strict"], in: folder)
        XCTAssertEqual(merged.status, 3, merged.standardError)
        XCTAssertEqual(merged.standardError, "echolab: lint findings in 1 of 2 runs (merged/eval.md): "
                       + "aec-disabled-with-real-devices in delay40-disabled (disabled)\n")
        XCTAssertEqual(try runEchoLab(["merge", "shard-1", "shard-2", "--out", "merged-plain"], in: folder).status, 0)
        // A shard past the plan's two runs holds none, and says so.
        let empty = try runEchoLab(["eval", "corpus", "--out", "shard-3", "--no-taps", "--shard", "3/3"], in: folder)
        XCTAssertEqual(empty.status, 0, empty.standardError)
        XCTAssertEqual(empty.standardError, "echolab eval: warning: shard 3/3 holds no run: the plan has 2 runs, fewer than 3 shards; "
                       + "merge the others as they are\n")
        XCTAssertEqual(try eval(["--strict"], ["corpus/b-on.json"]).status, 0, "a requirement's finding is not the lint's")
        _ = try writeScenario(#"{"name": "gone", "far_end": "gone.wav", "duration_s": 1}"#, named: "c-gone.json", in: corpus)
        // A failed run's exit 1 comes first; the lint's line is said all the same.
        let failed = try eval(["--strict"])
        XCTAssertEqual(failed.status, 1, failed.standardError)
        XCTAssertTrue(failed.standardError.hasSuffix("echolab: lint findings in 1 of 3 runs (out/eval.md): "
                                                     + "aec-disabled-with-real-devices in delay40-disabled (disabled)\n"), failed.standardError)
    }

    /// A recording given to `run` as its scenario is said to be one, as eval says it of a
    /// corpus (it read "not valid JSON: line 1, column 1: expected a value, found 'R'").
    func testARecordingGivenAsTheScenarioIsSaidToBeOne() throws {
        let wav = folder.appendingPathComponent("mic.wav").path
        try SoundFileWriter.write([Float](repeating: 0.1, count: 4_800), to: wav, sampleRate: 48_000)
        let run = try runEchoLab(["run", "mic.wav", "--out", "out"], in: folder)
        XCTAssertEqual(run.status, 1, run.standardError)
        XCTAssertEqual(run.standardError, "echolab: mic.wav: an audio file, not a scenario; `echolab process --mic MIC --reference LOOPBACK` "
                       + "runs a recording, or a scenario plays it (`far_end`, `near_end`)\n")
    }

    /// --modes replaces a timeline's set_aec intensities (the app's own mid-call choices), as
    /// it replaces the scenario's aec: said once on stderr, naming the scenario, and not where
    /// nothing was replaced.
    func testModesReplacingTheTimelinesAECChangesIsSaid() throws {
        let corpus = folder.appendingPathComponent("changes")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        let changing = delayScenario(aec: "intensityMin", seconds: 2).replacingOccurrences(
            of: #""duration_s": 2}"#, with: #""duration_s": 2, "timeline": [{"at_ms": 1000, "action": "set_aec", "mode": "intensityMax"}]}"#)
        _ = try writeScenario(changing, named: "a-changes.json", in: corpus)
        let warning = "echolab eval: warning: --modes replaces each scenario's AEC intensity, its timeline's set_aec too: "
            + "changes/a-changes.json changes it mid-call, run in the mode's intensity (set_aec disabled stays); eval without --modes runs a scenario as written\n"
        let replaced = try runEchoLab(["eval", "changes", "--out", "out", "--no-taps", "--modes", "speex:intensityRecommended,disabled"], in: folder)
        XCTAssertEqual(replaced.status, 0, replaced.standardError)
        XCTAssertTrue(replaced.standardError.hasSuffix(warning), replaced.standardError)
        XCTAssertEqual(replaced.standardError.components(separatedBy: "set_aec too").count, 2, "said once")
        let asWritten = try runEchoLab(["eval", "changes", "--out", "out", "--no-taps"], in: folder)
        XCTAssertFalse(asWritten.standardError.contains("set_aec too"), asWritten.standardError)
        let sameIntensity = try runEchoLab(["eval", "changes", "--out", "out", "--no-taps", "--modes", "speex:intensityMax"], in: folder)
        XCTAssertFalse(sameIntensity.standardError.contains("set_aec too"), sameIntensity.standardError)
    }

    /// TS 26.131's echo-loss miss is a finding of its own kind: reported, and left out of
    /// `--strict`, which fails on the lint's findings (an app's mistakes) only.
    func testStrictLeavesAMissedTelephonyRequirementToTheReport() throws {
        let path = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 4), in: folder)
        let out = folder.appendingPathComponent("out")
        let strict = try runEchoLab(["run", path, "--out", out.path, "--strict", "--no-taps"])
        XCTAssertEqual(strict.status, 0, strict.standardError)
        XCTAssertTrue(strict.standardOutput.contains(", 1 finding (not the lint's), "), strict.standardOutput)
        let findings = try XCTUnwrap(loadJSON(out.appendingPathComponent("report.json").path)["findings"] as? [[String: Any]])
        XCTAssertEqual(findings.map { $0["rule"] as? String }, ["echo-loss-below-ts26131"])
        XCTAssertEqual(findings.first?["kind"] as? String, "requirement")
        let markdown = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("**echo-loss-below-ts26131** (a telephony requirement, not an AEC rule)"), markdown)
    }

    func testScenarioNamesMustNotBePaths() {
        for name in ["../escaped", "", ".hidden", "a/b"] {
            let message = loadError("{\"name\": \"\(name)\", \"far_end\": {\"generator\": \"white_noise\"}, \"duration_s\": 1}")
            XCTAssertTrue(message.contains("scenario.json: name:"), "\(name): \(message)")
        }
    }

    func testRecordingFileCannotTakeATapsName() {
        let message = loadError("""
            {"far_end": {"generator": "white_noise"}, "duration_s": 1, "speaker": {"device": "recording", "file": "sent.wav"}}
            """)
        XCTAssertTrue(message.contains("speaker.file") && message.contains("tap"), message)
    }

    func testGeneratorOptionsBelongToTheirGenerator() {
        let message = loadError("""
            {"far_end": {"generator": "speech", "frequency_hz": 1000}, "duration_s": 1}
            """)
        XCTAssertTrue(message.contains("far_end.frequency_hz: applies to the tone generator only"), message)
    }

    func testBrokenAudioIsReportedWithTheScenarioAndKey() throws {
        try Data("not audio".utf8).write(to: folder.appendingPathComponent("x.wav"))
        let message = loadError("{\"far_end\": {\"generator\": \"white_noise\"}, \"near_end\": \"x.wav\", \"duration_s\": 1}")
        XCTAssertTrue(message.hasPrefix(folder.appendingPathComponent("scenario.json").path + ": near_end: "), message)
        XCTAssertTrue(message.contains("x.wav"), message)
    }

    func testStereoInputNeedsAChannelCountedFromZero() throws {
        let stereo = folder.appendingPathComponent("stereo.wav")
        let writer = try SoundFileWriter(path: stereo.path, sampleRate: 48_000, channelCount: 2)
        try writer.write([Float](repeating: 0.1, count: 9_600), frames: 4_800)
        try writer.finish()
        XCTAssertTrue(loadError("{\"far_end\": \"stereo.wav\"}").contains("counted from 0"))
        XCTAssertTrue(loadError("{\"far_end\": {\"file\": \"stereo.wav\", \"channel\": 2}}").contains("has no channel 2"))
        XCTAssertEqual(loadError("{\"far_end\": {\"file\": \"stereo.wav\", \"channel\": 1}}"), "no error")
    }

    func testEvalRefusesTwoScenariosWithOneName() throws {
        let corpus = folder.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        _ = try writeScenario(delayScenario(aec: "disabled", seconds: 1), named: "a.json", in: corpus)
        _ = try writeScenario(delayScenario(aec: "disabled", seconds: 1), named: "b.json", in: corpus)
        let result = try runEchoLab(["eval", corpus.path, "--out", folder.appendingPathComponent("r").path, "--no-taps"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.standardError.contains("b.json: name: 'delay40-disabled' is already used by"), result.standardError)
        // Neither runs: under the name, eval.json and the gate would hold whichever sorts first.
        XCTAssertTrue(result.standardError.contains("a.json: name: 'delay40-disabled' is also used by \(corpus.path)/b.json: neither runs, "
                                                    + "since eval.json and the gate know an item by its name; give each its own"), result.standardError)
        XCTAssertTrue(result.standardOutput.hasPrefix("0 of 2 runs succeeded"), result.standardOutput)
    }

    /// Nothing plays into the room: no ERL is made up, and no delay between unrelated signals.
    func testRecordingSpeakerHasNoERLAndNoDelay() throws {
        let scenario = try load("""
            {"far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1}, "near_end": {"generator": "speech", "pitch_hz": 220, "seed": 2},
             "echo_path": {"delay_ms": 40, "gain_db": -6}, "aec": {"mode": "disabled"}, "duration_s": 4,
             "speaker": {"device": "recording", "file": "peer.wav"}}
            """)
        let out = folder.appendingPathComponent("out")
        let report = try RunOutput(scenario: scenario, outputDirectory: out.path, taps: .none, renderer: ReportPages()).run()
        XCTAssertNil(report.metrics.erlDB)
        XCTAssertNil(report.metrics.delayMilliseconds)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("peer.wav").path))
    }

    /// `user_reference` started but nothing put: the canceller hears silence; the lint says so.
    func testStarvedUserReferenceIsFound() throws {
        let scenario = try load("""
            {"far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1}, "echo_path": {"delay_ms": 40, "gain_db": -6},
             "aec": {"mode": "intensityRecommended"}, "duration_s": 3, "user_reference": true}
            """)
        let report = try RunOutput(scenario: scenario, outputDirectory: folder.appendingPathComponent("out").path, taps: .none, renderer: ReportPages()).run()
        XCTAssertEqual(report.findings.map(\.rule), ["user-reference-not-fed"])
        // The far end played and echoed: the reasons name the silent reference, not the far end
        // ("the far end never plays above −50 dBFS", "never reached the mic").
        XCTAssertNil(report.metrics.erlDB)
        for reason in [report.echoUnmeasuredReason, report.delayUnmeasuredReason] {
            XCTAssertTrue(reason?.hasPrefix("the canceller's reference, the user AEC reference the app started, stays silent") == true, reason ?? "nil")
        }
    }

    /// A wired headset in a room without noise: the echo at the mic is about −80 dBFS, and speex
    /// sends exact zeros for it. That mutes nothing, and is no `silent-send-in-single-talk` ("the
    /// canceller muted rather than cancelled"); its ERLE is still the bound the silence allows.
    func testSendingSilenceForANextToSilentMicIsNoMute() throws {
        let scenario = try load("""
            {"far_end": {"generator": "speech", "level_dbfs": -20, "seed": 5}, "route": "wired_headset",
             "aec": {"mode": "intensityRecommended"}, "duration_s": 8}
            """)
        let report = try RunOutput(scenario: scenario, outputDirectory: folder.appendingPathComponent("out").path, taps: .none, renderer: ReportPages()).run()
        XCTAssertTrue(report.metrics.erleIsLowerBound)
        XCTAssertFalse(report.metrics.isProcessedSilentInSingleTalk)
        XCTAssertFalse(report.findings.map(\.rule).contains(RequirementFindings.silentSendRule), "\(report.findings.map(\.rule))")
    }

    func testFailedRunLeavesNoFolderBehind() throws {
        // The file is valid when the scenario loads and broken when the call reads it.
        let wav = folder.appendingPathComponent("later.wav")
        try SoundFileWriter.write([Float](repeating: 0.1, count: 48_000), to: wav.path, sampleRate: 48_000)
        let scenario = try load("{\"far_end\": \"later.wav\", \"duration_s\": 1}")
        try Data("not audio any more".utf8).write(to: wav)
        let out = folder.appendingPathComponent("fresh")
        XCTAssertThrowsError(try RunOutput(scenario: scenario, outputDirectory: out.path, renderer: ReportPages()).run())
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
    }
}
