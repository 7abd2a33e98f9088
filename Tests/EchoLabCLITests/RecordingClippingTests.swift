import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// A recording that clipped is found and counted: `process` warns naming the file, and an eval's
/// report of it says how many samples were at full scale (its echo metrics are uncertain).
final class RecordingClippingTests: XCTestCase {
    /// A file resampled for the canceller (a plugin at 48 kHz, a 16 kHz recording) is counted at
    /// its own rate: its samples stay under full scale however far the resampler overshoots them.
    /// A new user's trial read "lpb.wav … peaking at +0.1 dBFS … audio scaled after capture" of
    /// a 16-bit file that peaked at −0.01 dBFS.
    func testAFileResampledForTheCancellerIsCountedAsItIs() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        var random = SeededRandom(seed: 8)
        let noise = (0..<(3 * 16_000)).map { _ in random.nextGaussian() }
        let loudest = try XCTUnwrap(noise.map(abs).max())
        let loopback = noise.map { $0 / loudest * 0.999 }
        try SoundFileWriter.write(loopback, to: root.appendingPathComponent("lpb.wav").path, sampleRate: 16_000)
        try SoundFileWriter.write(loopback.map { $0 * 0.1 }, to: root.appendingPathComponent("mic.wav").path, sampleRate: 16_000)
        let resampled = try AudioFileStream.readAll(path: root.appendingPathComponent("lpb.wav").path, targetRate: 48_000).samples
        XCTAssertGreaterThan(resampled.map(abs).max() ?? 0, 1, "the resampler overshoots full scale")
        let passThrough = try CancellerPluginTests.misbehaving("passthrough", in: root)
        let plugged = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "lpb.wav", "--out", "out.wav",
                                      "--plugin", "mine=\(passThrough)", "--aec", "mine:intensityRecommended"], in: root)
        XCTAssertEqual(plugged.status, 0, plugged.standardError)
        XCTAssertFalse(plugged.standardError.contains("full scale"), plugged.standardError)
    }

    func testAClippedRecordingIsCountedAndSaidSo() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try runEchoLab(["run", try writeScenario("""
            {"name": "room", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "noise": {"level_dbfs": -65, "seed": 2}, "echo_path": {"delay_ms": 30, "gain_db": -3}, "duration_s": 4}
            """, in: root), "--out", "taps"], in: root)
        XCTAssertEqual(run.status, 0, run.standardError)
        // The mic 26 dB hotter, clipped at full scale as a phone's converter clips it.
        let mic = try AudioFileStream.readAll(path: root.appendingPathComponent("taps/mic.wav").path).samples
        let clipped = mic.map { max(-1, min(1, $0 * 20)) }
        let fullScale = clipped.filter { abs($0) >= 32_767 / 32_768 }.count
        XCTAssertGreaterThan(fullScale, 100)
        try SoundFileWriter.write(clipped, to: root.appendingPathComponent("hot-mic.wav").path, sampleRate: 48_000)
        let inputs = try snapshot(root.appendingPathComponent("taps"))

        let processed = try runEchoLab(["process", "--mic", "hot-mic.wav", "--reference", "taps/reference.wav", "--out", "sent.wav"], in: root)
        XCTAssertEqual(processed.status, 0, processed.standardError)
        XCTAssertEqual(processed.standardError, "echolab process: warning: hot-mic.wav has \(fullScale) samples at full scale "
                       + String(format: "(%.2f %%)", 100 * Double(fullScale) / Double(mic.count))
                       + ": the recording clipped, so its echo is not linear and the echo metrics from it are uncertain\n")
        let clean = try runEchoLab(["process", "--mic", "taps/mic.wav", "--reference", "taps/reference.wav", "--out", "clean.wav"], in: root)
        XCTAssertEqual(clean.standardError, "")
        // A float mic over full scale (scaled after capture) is said to be so, with its peak, and
        // what became of it: a canceller's output stays within full scale (its part over it is
        // clipped there), `disabled` passes it on as it is.
        let scaled = mic.map { $0 * 20 }
        let over = scaled.filter { abs($0) >= 32_767 / 32_768 }.count
        let peak = try XCTUnwrap(scaled.map(abs).max())
        XCTAssertGreaterThan(peak, 1.5)
        try SoundFileWriter.write(scaled, to: root.appendingPathComponent("scaled-mic.wav").path, sampleRate: 48_000)
        let head = "echolab process: warning: scaled-mic.wav has \(over) samples at or over full scale "
            + String(format: "(%.2f %%, peaking at %+.1f dBFS)", 100 * Double(over) / Double(mic.count), 20 * log10(Double(peak)))
            + ": louder than any converter records or plays (audio scaled after capture; if it was clipped before it was scaled, its echo is not linear); "
        for (mode, handled, outputPeak) in [("speex:intensityRecommended", "given to the canceller as it is, whose output stays within full scale: "
                                                + "what the mic holds over it is clipped there", Float(1)),
                                            ("disabled", "passed on as it is", peak)] {
            let run = try runEchoLab(["process", "--mic", "scaled-mic.wav", "--reference", "taps/reference.wav", "--out", "scaled-out.wav",
                                      "--aec", mode], in: root)
            XCTAssertEqual(run.status, 0, run.standardError)
            XCTAssertEqual(run.standardError, head + handled + "\n")
            let output = try AudioFileStream.readAll(path: root.appendingPathComponent("scaled-out.wav").path).samples
            XCTAssertEqual(output.map(abs).max(), outputPeak, mode)
        }
        // A plugin's output is its own: a pass-through carries the mic over full scale, and the
        // warning does not say it was clipped.
        let passThrough = try CancellerPluginTests.misbehaving("passthrough", in: root)
        let plugged = try runEchoLab(["process", "--mic", "scaled-mic.wav", "--reference", "taps/reference.wav", "--out", "scaled-out.wav",
                                      "--plugin", "mine=\(passThrough)", "--aec", "mine:intensityRecommended"], in: root)
        XCTAssertEqual(plugged.status, 0, plugged.standardError)
        XCTAssertEqual(plugged.standardError, head + "given to the canceller as it is\n")
        XCTAssertEqual(try AudioFileStream.readAll(path: root.appendingPathComponent("scaled-out.wav").path).samples.map(abs).max(), peak)
        // `metrics` says so too, and counts them in its JSON (it was silent about clipping).
        let scored = try runEchoLab(["metrics", "--reference", "taps/reference.wav", "--mic", "hot-mic.wav", "--processed", "sent.wav"], in: root)
        XCTAssertEqual(scored.status, 0, scored.standardError)
        XCTAssertTrue(scored.standardError.contains("echolab metrics: warning: hot-mic.wav has \(fullScale) samples at full scale"), scored.standardError)
        let counted = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(scored.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual((counted["clipped_samples"] as? [String: Any])?["mic"] as? Int, fullScale)
        XCTAssertEqual((counted["clipped_samples"] as? [String: Any])?["loopback"] as? Int, 0)
        // A mic of digital silence is named as such, not only by null figures.
        try SoundFileWriter.write([Float](repeating: 0, count: mic.count), to: root.appendingPathComponent("dead-mic.wav").path, sampleRate: 48_000)
        let dead = try runEchoLab(["metrics", "--reference", "taps/reference.wav", "--mic", "dead-mic.wav", "--processed", "dead-mic.wav"], in: root)
        XCTAssertEqual(dead.status, 0, dead.standardError)
        XCTAssertTrue(dead.standardError.contains("echolab metrics: warning: dead-mic.wav is digital silence throughout: nothing was recorded"),
                      dead.standardError)
        XCTAssertFalse(scored.standardError.contains("digital silence"), scored.standardError)

        try Data("""
            {"corpus": [{"name": "hot", "mic": "hot-mic.wav", "loopback": "taps/reference.wav"},
                        {"name": "clean", "mic": "taps/mic.wav", "loopback": "taps/reference.wav"}]}
            """.utf8).write(to: root.appendingPathComponent("corpus.json"))
        let eval = try runEchoLab(["eval", "corpus.json", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        let hot = try loadJSON(root.appendingPathComponent("out/hot/speex-intensityRecommended/report.json").path)
        XCTAssertEqual((hot["clipped_samples"] as? [String: Any])?["mic"] as? Int, fullScale)
        XCTAssertEqual((hot["clipped_samples"] as? [String: Any])?["loopback"] as? Int, 0)
        let page = try String(contentsOf: root.appendingPathComponent("out/hot/speex-intensityRecommended/report.md"), encoding: .utf8)
        XCTAssertTrue(page.contains("**The recording clipped:** \(fullScale) mic and 0 loopback samples at full scale"), page)
        let cool = try loadJSON(root.appendingPathComponent("out/clean/speex-intensityRecommended/report.json").path)
        XCTAssertEqual((cool["clipped_samples"] as? [String: Any])?["mic"] as? Int, 0)
        let coolPage = try String(contentsOf: root.appendingPathComponent("out/clean/speex-intensityRecommended/report.md"), encoding: .utf8)
        XCTAssertFalse(coolPage.contains("clipped"), coolPage)
        // eval.json carries a recording's faults where the gate reads a run's (its `pipeline`,
        // which was null for every recording), and the pages say the recording clipped.
        let results = try XCTUnwrap((try loadJSON(root.appendingPathComponent("out/eval.json").path)["items"] as? [[String: Any]])?
            .first { $0["name"] as? String == "hot" }?["results"] as? [[String: Any]])
        let pipeline = try XCTUnwrap(results.first?["pipeline"] as? [String: Any], "\(results)")
        XCTAssertEqual(pipeline["aec_resets"] as? Int, 0)
        XCTAssertEqual((pipeline["clipped_samples"] as? [String: Any])?["mic"] as? Int, fullScale)
        let evalPage = try String(contentsOf: root.appendingPathComponent("out/eval.html"), encoding: .utf8)
        XCTAssertTrue(evalPage.contains("ok (the recording clipped)") && evalPage.contains("\(fullScale) mic samples clipped"), evalPage)
        // The gate judges it as a simulated run's counter: a baseline that clipped less fails.
        var baseline = try loadJSON(root.appendingPathComponent("out/eval.json").path)
        var items = baseline["items"] as! [[String: Any]]
        let hotIndex = items.firstIndex { $0["name"] as? String == "hot" }!
        var runs = items[hotIndex]["results"] as! [[String: Any]]
        var counters = runs[0]["pipeline"] as! [String: Any]
        counters["clipped_samples"] = ["mic": fullScale - 10, "loopback": 0]
        runs[0]["pipeline"] = counters
        items[hotIndex]["results"] = runs
        baseline["items"] = items
        try JSONSerialization.data(withJSONObject: baseline).write(to: root.appendingPathComponent("baseline.json"))
        let gate = try runEchoLab(["compare", "baseline.json", "out/eval.json"], in: root)
        XCTAssertEqual(gate.status, 1, gate.standardOutput + gate.standardError)
        XCTAssertTrue(gate.standardOutput.contains("clipped_samples.mic"), gate.standardOutput)
        XCTAssertEqual(try snapshot(root.appendingPathComponent("taps")), inputs, "inputs untouched")
    }
}
