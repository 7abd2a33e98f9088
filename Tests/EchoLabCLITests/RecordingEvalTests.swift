import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// `eval` over recordings in the AEC-Challenge layouts, made here from a simulated call's taps:
/// read as they are, run straight through the canceller, scored — with the synthetic layout's
/// echo and near-end tracks the numbers match the simulated call's own.
class RecordingEvalFixture: XCTestCase {
    fileprivate var root: URL!

    override func setUpWithError() throws { root = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    fileprivate func copy(_ from: String, to relative: String) throws {
        let target = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: root.appendingPathComponent(from), to: target)
    }
}

/// Both layouts over a simulated call in two modes: long (`make test-long`, ~20 s).
final class RecordingEvalLongTests: RecordingEvalFixture {
    func testAECChallengeLayoutsRunAndScore() throws {
        _ = try writeScenario("""
            {"name": "call", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "near_end": {"generator": "speech", "level_dbfs": -26, "pitch_hz": 210, "seed": 5},
             "noise": {"level_dbfs": -65, "seed": 2}, "echo_path": {"delay_ms": 30, "gain_db": -8}, "duration_s": 8}
            """, in: root)
        let taps = try runEchoLab(["run", "scenario.json", "--aec", "disabled", "--all-taps", "--out", "taps"], in: root)
        XCTAssertEqual(taps.status, 0, taps.standardError)
        try copy("taps/reference.wav", to: "syn/farend_speech/farend_speech_fileid_1.wav")
        try copy("taps/mic.wav", to: "syn/nearend_mic_signal/nearend_mic_fileid_1.wav")
        try copy("taps/echo.wav", to: "syn/echo_signal/echo_fileid_1.wav")
        try copy("taps/near.wav", to: "syn/nearend_speech/nearend_speech_fileid_1.wav")
        try copy("taps/mic.wav", to: "real/AB_doubletalk_mic.wav")
        try copy("taps/reference.wav", to: "real/AB_doubletalk_lpb.wav")
        try copy("taps/near.wav", to: "real/CD_nearend_singletalk_mic.wav")
        let before = try snapshot(root.appendingPathComponent("syn")).merging(try snapshot(root.appendingPathComponent("real"))) { $1 }

        let eval = try runEchoLab(["eval", "syn", "real", "--modes", "speex:intensityRecommended", "--out", "out"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        XCTAssertTrue(eval.standardOutput.hasPrefix("3 of 3 runs succeeded"), eval.standardOutput)
        let report = try loadJSON(root.appendingPathComponent("out/eval.json").path)
        let items = report["items"] as! [[String: Any]]
        XCTAssertEqual(items.map { $0["name"] as! String }, ["fileid_1", "AB_doubletalk", "CD_nearend_singletalk"])
        func metrics(_ index: Int) -> [String: Any]? { (items[index]["results"] as! [[String: Any]])[0]["metrics"] as? [String: Any] }

        // The synthetic item has the echo and near-end tracks: the same gate and ERL as the
        // simulated call, and the same canceller on the same frames, both scored with `sent` lined
        // up with the mic — the same ERLE but for the Welch frame grid, which the recording run
        // starts one speex frame earlier (measured: 6.5 vs 7.1 dB on this 8 s double-talk call).
        let simulated = try runEchoLab(["run", "scenario.json", "--aec", "speex:intensityRecommended", "--no-taps", "--out", "sim"], in: root)
        XCTAssertEqual(simulated.status, 0, simulated.standardError)
        let truth = (try loadJSON(root.appendingPathComponent("sim/report.json").path))["metrics"] as! [String: Any]
        let synthetic = try XCTUnwrap(metrics(0))
        XCTAssertEqual((synthetic["gate"] as! [String: Any])["method"] as? String, "near_end_track")
        XCTAssertEqual(synthetic["erl_db"] as! Double, truth["erl_db"] as! Double, accuracy: 0.1)
        XCTAssertEqual(synthetic["erle_db"] as! Double, truth["erle_db"] as! Double, accuracy: 1)
        // eval's numbers are `echolab metrics` on the files it wrote.
        let scored = try runEchoLab(["metrics", "--reference", "syn/farend_speech/farend_speech_fileid_1.wav",
                                     "--mic", "syn/nearend_mic_signal/nearend_mic_fileid_1.wav",
                                     "--processed", "out/fileid_1/speex-intensityRecommended/sent.wav",
                                     "--echo", "syn/echo_signal/echo_fileid_1.wav", "--near-end", "syn/nearend_speech/nearend_speech_fileid_1.wav"],
                                    in: root)
        XCTAssertEqual(scored.status, 0, scored.standardError)
        let independent = try JSONSerialization.jsonObject(with: Data(scored.standardOutput.utf8)) as! [String: Any]
        XCTAssertEqual(independent["erle_db"] as? Double, synthetic["erle_db"] as? Double)
        XCTAssertEqual(independent["erle_steady_db"] as? Double, synthetic["erle_steady_db"] as? Double)
        // A simulated call reports how the near end survives (its near-end tap is the track).
        let simulatedNearEnd = try XCTUnwrap(truth["near_end"] as? [String: Any])
        XCTAssertGreaterThan(simulatedNearEnd["double_talk_analysis_frames"] as! Int, 0)
        let simulatedMarkdown = try String(contentsOf: root.appendingPathComponent("sim/report.md"), encoding: .utf8)
        XCTAssertTrue(simulatedMarkdown.contains("| near-end attenuation, double talk |"), simulatedMarkdown)
        // eval summarises near-end attenuation per mode, over the items that have a near-end track.
        let modeSummary = (report["mode_summary"] as! [[String: Any]])[0]
        XCTAssertEqual((modeSummary["near_end_attenuation_db"] as! [String: Any])["count"] as? Int, 1)
        let evalMarkdown = try String(contentsOf: root.appendingPathComponent("out/eval.md"), encoding: .utf8)
        XCTAssertTrue(evalMarkdown.contains("near-end attenuation mean"), evalMarkdown)
        // The estimate of a run without a near-end track says where it stands and which way it errs.
        XCTAssertTrue(evalMarkdown.contains("the output's drop under the talker the gate hears, in double talk: it errs towards kept, "
                                            + "the more the harder a canceller cut the talker"), evalMarkdown)
        // Its pipeline column counts what a recording's run measures: no clicks, no gaps.
        XCTAssertTrue(evalMarkdown.contains("Runs of recordings (3 of 3 runs) count only canceller resets as pipeline issues: clicks and "
                                            + "gaps in a recording's output are not measured"), evalMarkdown)
        let simulatedEval = try runEchoLab(["eval", "scenario.json", "--modes", "disabled", "--no-taps", "--out", "sim-eval"], in: root)
        XCTAssertEqual(simulatedEval.status, 0, simulatedEval.standardError)
        let simulatedEvalMarkdown = try String(contentsOf: root.appendingPathComponent("sim-eval/eval.md"), encoding: .utf8)
        XCTAssertFalse(simulatedEvalMarkdown.contains("Runs of recordings"), simulatedEvalMarkdown)
        // The synthetic layout's near-end track gives the near end's preservation.
        let nearEnd = try XCTUnwrap(synthetic["near_end"] as? [String: Any])
        XCTAssertGreaterThan(nearEnd["double_talk_analysis_frames"] as! Int, 0)
        XCTAssertNotNil(nearEnd["attenuation_db"] as? Double)
        // The real item has mic and loopback only: the tap-free gate fits the echo path and finds
        // the double talk itself. The same call's ERL comes within 1.5 dB of the synthetic item's
        // (scored with both tracks). This call is a hard case: a generator near end that talks
        // through 77 % of the far end's frames (265 of 343 double talk by the track) leaves the
        // 2.7 s block fits too little single talk, and the gate finds 12 of the 77 single-talk
        // frames (measured ERLE 12.3 dB against 7.1); it never takes double talk for single talk
        // (it counts at least the track's double-talk frames). `TapFreeGateTests` holds the goals
        // on speech with pauses.
        let real = try XCTUnwrap(metrics(1))
        let realGate = real["gate"] as! [String: Any], syntheticGate = synthetic["gate"] as! [String: Any]
        XCTAssertEqual(realGate["method"] as? String, "echo_path_fit")
        XCTAssertEqual(real["erl_db"] as! Double, synthetic["erl_db"] as! Double, accuracy: 1.5)
        XCTAssertGreaterThanOrEqual(realGate["double_talk_analysis_frames"] as! Int, syntheticGate["double_talk_analysis_frames"] as! Int)
        XCTAssertTrue(real["near_end"] is NSNull, "no near-end track, nothing to compare with")
        // Near-end single talk: measured against a loopback of silence, the near end alone (speex
        // keeps the talker: the output's drop under it is small, nothing lost).
        let alone = try XCTUnwrap(metrics(2))
        XCTAssertTrue(alone["erl_db"] is NSNull)
        XCTAssertEqual((alone["gate"] as? [String: Any])?["far_end_active_analysis_frames"] as? Int, 0)
        // Its estimate is the lone talker's: no double talk without a far end.
        let estimate = try XCTUnwrap(alone["near_end_estimate"] as? [String: Any])
        XCTAssertEqual(estimate["analysis_frames"] as? Int, 0)
        XCTAssertTrue(estimate["output_drop_db"] is NSNull, "\(estimate)")
        XCTAssertGreaterThan(try XCTUnwrap(estimate["single_talk_analysis_frames"] as? Int), 200, "\(estimate)")
        XCTAssertLessThan(try XCTUnwrap(estimate["single_talk_output_drop_db"] as? Double), 3, "\(estimate)")
        XCTAssertLessThan(try XCTUnwrap(estimate["single_talk_lost_analysis_frames"] as? Int), 10, "\(estimate)")
        // eval.html's every-run table gives that lone talker's figure, not the empty double-talk one.
        let everyRun = try String(contentsOf: root.appendingPathComponent("out/eval.html"), encoding: .utf8)
        XCTAssertTrue(everyRun.contains(", talking alone"), "the lone talker's row")
        XCTAssertFalse(everyRun.contains("—, talking alone"), "a lone talker's estimate read as no figure")
        for folder in ["fileid_1", "AB_doubletalk", "CD_nearend_singletalk"] {
            let sent = try SoundFileReader(path: root.appendingPathComponent("out/\(folder)/speex-intensityRecommended/sent.wav").path)
            XCTAssertEqual(sent.frameCount, 48_000 * 8, folder)
            let own = try loadJSON(root.appendingPathComponent("out/\(folder)/speex-intensityRecommended/report.json").path)
            XCTAssertEqual(own["schema"] as? String, "echolab.recording/2")
            XCTAssertEqual(own["latency_samples"] as? Int, 480)
            XCTAssertTrue(own["channel"] is NSNull, "mono recordings: no channel picked")
        }
        // eval.html's players link each recording's own mic (outside out/) and each run's sent.wav.
        let page = try String(contentsOf: root.appendingPathComponent("out/eval.html"), encoding: .utf8)
        let sources = page.attributes("src", of: "audio")
        XCTAssertEqual(sources.count, 6, "a mic and a sent per item")
        XCTAssertTrue(sources.contains("../syn/nearend_mic_signal/nearend_mic_fileid_1.wav"), "\(sources)")
        for source in sources {
            XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/\(source)").path), source)
        }
        let runPage = try String(contentsOf: root.appendingPathComponent("out/AB_doubletalk/speex-intensityRecommended/report.html"), encoding: .utf8)
        XCTAssertTrue(runPage.contains("src=\"../../../real/AB_doubletalk_mic.wav\""), "the recording's report links its mic")

        // `--no-taps` into the same folder: each output is scored and deleted — the same numbers,
        // no sent.wav (the earlier run's, which its report listed as its own, goes too), no hidden
        // scratch left, and the reports link no output.
        let noTaps = try runEchoLab(["eval", "syn", "real", "--modes", "speex:intensityRecommended", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(noTaps.status, 0, noTaps.standardError)
        let again = (try loadJSON(root.appendingPathComponent("out/eval.json").path))["items"] as! [[String: Any]]
        for index in 0..<2 {
            let first = (items[index]["results"] as! [[String: Any]])[0]["metrics"] as! [String: Any]
            let second = (again[index]["results"] as! [[String: Any]])[0]["metrics"] as! [String: Any]
            XCTAssertEqual(second["erle_db"] as? Double, first["erle_db"] as? Double)
            XCTAssertEqual(second["erl_db"] as? Double, first["erl_db"] as? Double)
        }
        for folder in ["fileid_1", "AB_doubletalk", "CD_nearend_singletalk"] {
            let run = root.appendingPathComponent("out/\(folder)/speex-intensityRecommended")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: run.path).sorted(), ["report.html", "report.json", "report.md"], folder)
            let own = try loadJSON(run.appendingPathComponent("report.json").path)
            XCTAssertTrue((own["files"] as! [String: Any])["sent"] is NSNull, folder)
            XCTAssertFalse(try String(contentsOf: run.appendingPathComponent("report.html"), encoding: .utf8).contains("sent.wav"), folder)
        }
        let quietPage = try String(contentsOf: root.appendingPathComponent("out/eval.html"), encoding: .utf8)
        XCTAssertFalse(quietPage.attributes("src", of: "audio").contains { $0.hasSuffix("sent.wav") })
        XCTAssertTrue(quietPage.attributes("src", of: "audio").contains("../syn/nearend_mic_signal/nearend_mic_fileid_1.wav"),
                      "a recording's mic is an input: still played")
        let after = try snapshot(root.appendingPathComponent("syn")).merging(try snapshot(root.appendingPathComponent("real"))) { $1 }
        XCTAssertEqual(after, before, "recordings are read, never written")
    }

}

final class RecordingEvalTests: RecordingEvalFixture {
    /// The files a `--no-taps` recording run deletes are its own only: a folder at its hidden
    /// scratch name fails the run and stays; a previous report that lists a report as its
    /// `sent` deletes nothing of the new run; a loopback at another rate fails before any
    /// processing, leaving no scratch.
    func testAnUnkeptOutputDeletesOnlyItsOwnFile() throws {
        var random = SeededRandom(seed: 9)
        let far = (0..<16_000).map { _ in random.nextSignedFloat() * 0.2 }
        try SoundFileWriter.write(far, to: root.appendingPathComponent("lpb.wav").path, sampleRate: 16_000)
        try SoundFileWriter.write(far.map { $0 * 0.5 }, to: root.appendingPathComponent("mic.wav").path, sampleRate: 16_000)
        try SoundFileWriter.write(far, to: root.appendingPathComponent("lpb8.wav").path, sampleRate: 8_000)
        try Data(#"{"corpus": [{"name": "rec", "mic": "mic.wav", "loopback": "lpb.wav"}]}"#.utf8).write(to: root.appendingPathComponent("a.json"))
        try Data(#"{"corpus": [{"name": "rec", "mic": "mic.wav", "loopback": "lpb8.wav"}]}"#.utf8).write(to: root.appendingPathComponent("b.json"))
        let run = root.appendingPathComponent("out/rec/speex-intensityRecommended")
        try FileManager.default.createDirectory(at: run.appendingPathComponent(".sent.wav.scored"), withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: run.appendingPathComponent(".sent.wav.scored/keep.txt"))
        let blocked = try runEchoLab(["eval", "a.json", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(blocked.status, 1)
        XCTAssertTrue(blocked.standardError.contains(".sent.wav.scored") && blocked.standardError.contains("folder"), blocked.standardError)
        XCTAssertEqual(try String(contentsOf: run.appendingPathComponent(".sent.wav.scored/keep.txt"), encoding: .utf8), "mine")
        try FileManager.default.removeItem(at: run.appendingPathComponent(".sent.wav.scored"))

        XCTAssertEqual(try runEchoLab(["eval", "a.json", "--out", "out", "--no-taps"], in: root).status, 0)
        // A doctored earlier report: its `sent` names the report itself.
        let reportPath = run.appendingPathComponent("report.json")
        let doctored = try String(contentsOf: reportPath, encoding: .utf8).replacingOccurrences(of: #""sent": null"#, with: #""sent": "report.json""#)
        XCTAssertTrue(doctored.contains(#""sent": "report.json""#))
        try doctored.write(to: reportPath, atomically: true, encoding: .utf8)
        XCTAssertEqual(try runEchoLab(["eval", "a.json", "--out", "out", "--no-taps"], in: root).status, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: run.path).sorted(), ["report.html", "report.json", "report.md"])

        // A folder at the scratch name: had the rates been checked only after processing, the
        // run would fail on the folder instead.
        let other = root.appendingPathComponent("other/rec/speex-intensityRecommended/.sent.wav.scored")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let mismatched = try runEchoLab(["eval", "b.json", "--out", "other", "--no-taps"], in: root)
        XCTAssertEqual(mismatched.status, 1)
        XCTAssertTrue(mismatched.standardError.contains("mic.wav: sample rate 16000 Hz differs from the reference") && mismatched.standardError.contains("lpb8.wav (8000 Hz)"), mismatched.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: other.path), "a folder this run did not make stays")
    }

    /// A recording whose mic is digital silence throughout reads as such in eval, as in `metrics`:
    /// eval said "the far end never reached the mic" where `metrics` named the dead mic.
    func testADeadMicIsTheReasonInEvalAsInMetrics() throws {
        var random = SeededRandom(seed: 3)
        let far = (0..<48_000).map { _ in random.nextSignedFloat() * 0.2 }
        try SoundFileWriter.write(far, to: root.appendingPathComponent("lpb.wav").path, sampleRate: 16_000)
        try SoundFileWriter.write([Float](repeating: 0, count: far.count), to: root.appendingPathComponent("mic.wav").path, sampleRate: 16_000)
        try Data(#"{"corpus": [{"name": "dead", "mic": "mic.wav", "loopback": "lpb.wav"}]}"#.utf8).write(to: root.appendingPathComponent("dead.json"))
        XCTAssertEqual(try runEchoLab(["eval", "dead.json", "--modes", "disabled", "--out", "out", "--no-taps"], in: root).status, 0)
        let report = try loadJSON(root.appendingPathComponent("out/dead/disabled/report.json").path)
        let reason = "the mic is digital silence throughout: nothing was recorded, so there is no echo to measure"
        XCTAssertEqual(report["echo_unmeasured"] as? String, reason)
        // The gate row counts its double-talk frames too, as report.json does.
        let gate = try XCTUnwrap((report["metrics"] as? [String: Any])?["gate"] as? [String: Any])
        let markdown = try String(contentsOf: root.appendingPathComponent("out/dead/disabled/report.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("analysis frames, \(try XCTUnwrap(gate["double_talk_analysis_frames"] as? Int)) double-talk"), markdown)
        let metrics = try runEchoLab(["metrics", "--reference", "lpb.wav", "--mic", "mic.wav", "--processed", "mic.wav"], in: root)
        let scored = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(metrics.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(scored["echo_unmeasured"] as? String, reason)
    }
}
