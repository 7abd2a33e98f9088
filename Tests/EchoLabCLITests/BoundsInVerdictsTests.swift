import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// Through the binary: a residual under the noise floor is a lower bound ("≥"), never 103–156 dB;
/// a near end removed entirely is a bound that the gate fails on; a figure on too few frames is
/// marked and left out of the means, the wins and the gate.
final class BoundsInVerdictsTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws { root = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    private func noise(_ count: Int, dbfs: Double, seed: UInt64) -> [Float] {
        var random = SeededRandom(seed: seed)
        let amplitude = Float(pow(10, dbfs / 20))
        return (0..<count).map { _ in random.nextGaussian() * amplitude }
    }

    /// A recording's signals at 48 kHz, 10 s: a far end of white noise at −20 dBFS that talks one
    /// second in two, its echo 6 dB under it and 40 ms late, a near talker at −30 dBFS from
    /// `nearFrom` seconds on, and background noise at `noiseDBFS`.
    private func recordingScene(nearFrom: Int, noiseDBFS: Double)
        -> (rate: Int, reference: [Float], echo: [Float], near: [Float], background: [Float], mic: [Float]) {
        let rate = 48_000, count = 10 * rate
        let reference = noise(count, dbfs: -20, seed: 1).enumerated().map { ($0.offset / rate) % 2 == 0 ? $0.element : 0 }
        let echo = (0..<count).map { $0 >= 1920 ? reference[$0 - 1920] * 0.5 : 0 }
        let near = noise(count, dbfs: -30, seed: 9).enumerated().map { $0.offset >= nearFrom * rate ? $0.element : 0 }
        let background = noise(count, dbfs: noiseDBFS, seed: 7)
        return (rate, reference, echo, near, background, (0..<count).map { echo[$0] + near[$0] + background[$0] })
    }

    /// A recording (loopback and mic, a far end that pauses) and a canceller output of zeros:
    /// `metrics` reads ERLE as at least the mic's level over its noise, and with the near-end
    /// track the near end as lost, at least its level over digital silence.
    func testMetricsBoundsAnOutputOfZeros() throws {
        // Echo over −60 dBFS of noise; the near talker in the last 4 s.
        let (rate, reference, _, near, background, mic) = recordingScene(nearFrom: 6, noiseDBFS: -60)
        let count = mic.count
        let recordings = root.appendingPathComponent("recordings")
        try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)
        for (name, samples) in [("loopback", reference), ("mic", mic), ("silence", [Float](repeating: 0, count: count)),
                                ("near", near.enumerated().map { $0.element + background[$0.offset] })] {
            try SoundFileWriter.write(samples, to: recordings.appendingPathComponent("\(name).wav").path, sampleRate: rate, encoding: .float32)
        }
        let inputs = try snapshot(recordings)
        let elsewhere = root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let result = try runEchoLab(["metrics", "--reference", "../recordings/loopback.wav", "--mic", "../recordings/mic.wav",
                                     "--processed", recordings.appendingPathComponent("silence.wav").path, "--processed-lag-ms", "0"],
                                    in: elsewhere)
        XCTAssertEqual(result.status, 0, result.standardError)
        let metrics = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual((metrics["gate"] as? [String: Any])?["method"] as? String, "echo_path_fit")
        XCTAssertEqual(metrics["erle_is_lower_bound"] as? Bool, true, result.standardOutput)
        // Echo −26 dBFS plus noise −60 dBFS, over the noise: 34.0 dB (the quiet frames' 10th percentile).
        let expected = 10 * log10(pow(10, -2.6) + pow(10, -6.0)) + 60
        XCTAssertEqual(try XCTUnwrap(metrics["erle_db"] as? Double), expected, accuracy: 0.5, result.standardOutput)
        XCTAssertEqual(try XCTUnwrap(metrics["erle_steady_db"] as? Double), expected, accuracy: 0.5)
        XCTAssertEqual(metrics["erle_steady_is_lower_bound"] as? Bool, true)
        let steadyFrames = try XCTUnwrap(metrics["erle_steady_analysis_frames"] as? Int)
        XCTAssertGreaterThanOrEqual(steadyFrames, 20)

        let tracked = try runEchoLab(["metrics", "--reference", "../recordings/loopback.wav", "--mic", "../recordings/mic.wav",
                                      "--processed", "../recordings/silence.wav", "--near-end", "../recordings/near.wav",
                                      "--processed-lag-ms", "0"], in: elsewhere)
        XCTAssertEqual(tracked.status, 0, tracked.standardError)
        let nearEnd = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(tracked.standardOutput.utf8)) as? [String: Any])?["near_end"] as? [String: Any])
        XCTAssertEqual(nearEnd["attenuation_is_lower_bound"] as? Bool, true, tracked.standardOutput)
        XCTAssertGreaterThan(nearEnd["double_talk_analysis_frames"] as? Int ?? 0, 100)
        // The near end (−30 dBFS talker, −60 dBFS noise) over 16-bit quantisation noise (−101.2 dBFS).
        let nearOverSilence = 10 * log10(pow(10, -3.0) + pow(10, -6.0)) - 10 * log10(1.0 / (12 * Double(1 << 30)))
        XCTAssertEqual(try XCTUnwrap(nearEnd["attenuation_db"] as? Double), nearOverSilence, accuracy: 0.2)
        XCTAssertTrue(nearEnd["distortion_db"] is NSNull)
        XCTAssertEqual(try snapshot(recordings), inputs, "inputs untouched")
    }

    /// From mic and loopback alone: an output that removed the near talker the tap-free gate
    /// hears is reported as near-end loss, with its frames; an output that kept it is not.
    func testMetricsFindsTheNearEndLostFromMicAndLoopbackAlone() throws {
        // The near talker from 5 s on: over the far end and in its pauses.
        let (rate, reference, echo, near, background, mic) = recordingScene(nearFrom: 5, noiseDBFS: -65)
        let count = mic.count
        // One canceller keeps the talker (30 dB of echo removed); the other removes the talker too.
        let kept = (0..<count).map { echo[$0] * 0.03 + near[$0] + background[$0] }
        let removed = (0..<count).map { echo[$0] * 0.03 + near[$0] * 0.001 + background[$0] }
        for (name, samples) in [("loopback", reference), ("mic", mic), ("kept", kept), ("removed", removed)] {
            try SoundFileWriter.write(samples, to: root.appendingPathComponent("\(name).wav").path, sampleRate: rate, encoding: .float32)
        }
        func estimate(_ output: String) throws -> [String: Any] {
            let result = try runEchoLab(["metrics", "--reference", "loopback.wav", "--mic", "mic.wav", "--processed", "\(output).wav",
                                         "--processed-lag-ms", "0"], in: root)
            XCTAssertEqual(result.status, 0, result.standardError)
            let metrics = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            XCTAssertTrue(metrics["near_end"] is NSNull)
            return try XCTUnwrap(metrics["near_end_estimate"] as? [String: Any], result.standardOutput)
        }
        let keptEstimate = try estimate("kept"), removedEstimate = try estimate("removed")
        // The talker (−30 dBFS) is judged where it stands at or above the predicted echo
        // (−26 dBFS while the far end talks): in the far end's pauses after 5 s, about 2.5 s of
        // 10.7 ms frames, the same in both — the talker alone, its own figure; over the far end it
        // stands under the echo, and the double-talk figure has too few frames to count.
        let frames = try XCTUnwrap(keptEstimate["single_talk_analysis_frames"] as? Int)
        XCTAssertGreaterThan(frames, 200)
        XCTAssertEqual(removedEstimate["single_talk_analysis_frames"] as? Int, frames)
        XCTAssertLessThan(try XCTUnwrap(keptEstimate["analysis_frames"] as? Int), 20)
        XCTAssertEqual(keptEstimate["single_talk_near_end_lost"] as? Bool, false)
        XCTAssertEqual(try XCTUnwrap(keptEstimate["single_talk_output_drop_db"] as? Double), 0, accuracy: 1)
        XCTAssertLessThan(try XCTUnwrap(keptEstimate["single_talk_lost_analysis_frames"] as? Int), frames / 20)
        XCTAssertEqual(removedEstimate["single_talk_near_end_lost"] as? Bool, true)
        // The talker 60 dB down, the output holding the echo's rest (−56 dBFS) and noise: the drop
        // is what those leave, over 20 dB in every frame.
        XCTAssertGreaterThan(try XCTUnwrap(removedEstimate["single_talk_output_drop_db"] as? Double), 20)
        XCTAssertGreaterThan(try XCTUnwrap(removedEstimate["single_talk_lost_analysis_frames"] as? Int), frames * 9 / 10)
    }

    /// An eval whose one item has a steady state on too few frames: the item's figure is shown,
    /// marked, and left out of each mode's statistics; the output that fell under the noise floor
    /// counts at its bound and the statistics say they include bounds. A run whose near end is
    /// lost fails the gate by name.
    func testAnEvalLeavesThinFiguresOutAndTheGateFailsALostNearEnd() throws {
        let corpus = root.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        let inputs = packageRoot.appendingPathComponent("vectors/inputs").path
        _ = try writeScenario("""
            {"name": "call", "far_end": "\(inputs)/farend_speech_16k.wav", "near_end": "\(inputs)/nearend_speech_16k.wav",
             "noise": {"level_dbfs": -60, "seed": 7},
             "echo_path": {"delay_ms": 60, "gain_db": -10, "impulse_response": "\(inputs)/room_rir_48k.wav"}, "duration_s": 8}
            """, named: "call.json", in: corpus)
        _ = try writeScenario("""
            {"name": "blip", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -60, "seed": 7}, "echo_path": {"delay_ms": 10, "gain_db": -6}, "duration_s": 0.3}
            """, named: "blip.json", in: corpus)
        let before = try snapshot(corpus)
        let modes = "speex:intensityRecommended,webrtc:intensityRecommended,webrtc:intensityMax"
        let eval = try runEchoLab(["eval", "corpus", "--modes", modes, "--no-taps", "--out", "out"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        XCTAssertEqual(try snapshot(corpus), before, "inputs untouched")
        let json = try loadJSON(root.appendingPathComponent("out/eval.json").path)
        let items = json["items"] as! [[String: Any]]
        func metrics(_ item: String, _ mode: String) -> [String: Any] {
            let results = items.first { $0["name"] as? String == item }!["results"] as! [[String: Any]]
            return results.first { $0["mode"] as? String == mode }!["metrics"] as! [String: Any]
        }
        var sawBound = false
        for mode in modes.split(separator: ",").map(String.init) {
            let blip = metrics("blip", mode), call = metrics("call", mode)
            let blipFrames = try XCTUnwrap(blip["erle_steady_analysis_frames"] as? Int)
            XCTAssertGreaterThan(blipFrames, 0)
            XCTAssertLessThan(blipFrames, 20, "the short item's steady state stands on few frames")
            XCTAssertNotNil(blip["erle_steady_db"] as? Double, "shown, with its frames")
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(call["erle_steady_analysis_frames"] as? Int), 20)
            let summary = (json["mode_summary"] as! [[String: Any]]).first { $0["mode"] as? String == mode }!
            let steady = summary["erle_steady_db"] as! [String: Any]
            XCTAssertEqual(steady["count"] as? Int, 1, mode)
            XCTAssertEqual(steady["low_confidence_left_out"] as? Int, 1, mode)
            XCTAssertEqual(try XCTUnwrap(steady["mean"] as? Double), try XCTUnwrap(call["erle_steady_db"] as? Double), accuracy: 1e-9, mode)
            let bound = call["erle_steady_is_lower_bound"] as? Bool == true
            XCTAssertEqual(steady["lower_bounds"] as? Int, bound ? 1 : 0, mode)
            sawBound = sawBound || bound
        }
        XCTAssertTrue(sawBound, "WebRTC at Max takes the output under this room's noise floor")
        let markdown = try String(contentsOf: root.appendingPathComponent("out/eval.md"), encoding: .utf8)
        // The matrix says on how few frames, as the run's page does.
        let speexBlipFrames = try XCTUnwrap(metrics("blip", "speex:intensityRecommended")["erle_steady_analysis_frames"] as? Int)
        XCTAssertTrue(markdown.contains(" (\(speexBlipFrames) frames)"), markdown)
        XCTAssertTrue(markdown.contains("| ≥ "), "a mean over bounds reads as one: \(markdown)")
        let page = try String(contentsOf: root.appendingPathComponent("out/blip/speex-intensityRecommended/report.md"), encoding: .utf8)
        XCTAssertTrue(page.contains("(low confidence: "), page)
        // So does `run`'s summary line, where a figure would otherwise read as any other.
        let blipRun = try runEchoLab(["run", "corpus/blip.json", "--aec", "speex:intensityRecommended", "--no-taps", "--out", "blip-run"], in: root)
        XCTAssertEqual(blipRun.status, 0, blipRun.standardError)
        let blipMetrics = try XCTUnwrap(try loadJSON(root.appendingPathComponent("blip-run/report.json").path)["metrics"] as? [String: Any])
        let blipRunFrames = try XCTUnwrap(blipMetrics["erle_steady_analysis_frames"] as? Int)
        XCTAssertTrue(blipRun.standardOutput.contains(" dB (low confidence: \(blipRunFrames) analysis frames))"), blipRun.standardOutput)

        // The gate: a baseline whose near end was kept, against a run that lost it.
        let eval0 = try Data(contentsOf: root.appendingPathComponent("out/eval.json"))
        var lost = try JSONSerialization.jsonObject(with: eval0) as! [String: Any]
        var edited = lost["items"] as! [[String: Any]]
        let index = edited.firstIndex { $0["name"] as? String == "call" }!
        var results = edited[index]["results"] as! [[String: Any]]
        var run = results[0], runMetrics = run["metrics"] as! [String: Any], nearEnd = runMetrics["near_end"] as! [String: Any]
        XCTAssertEqual(nearEnd["attenuation_is_lower_bound"] as? Bool, false)
        nearEnd["attenuation_is_lower_bound"] = true
        runMetrics["near_end"] = nearEnd; run["metrics"] = runMetrics; results[0] = run
        edited[index]["results"] = results; lost["items"] = edited
        try JSONSerialization.data(withJSONObject: lost).write(to: root.appendingPathComponent("lost.json"))
        let gate = try runEchoLab(["compare", "out/eval.json", "lost.json"], in: root)
        XCTAssertEqual(gate.status, 1, gate.standardOutput + gate.standardError)
        XCTAssertTrue(gate.standardOutput.contains("near end lost"), gate.standardOutput)
        // The other way round it is a fix, and a bound's attenuation is never compared as a level.
        let fixed = try runEchoLab(["compare", "lost.json", "out/eval.json"], in: root)
        XCTAssertEqual(fixed.status, 0, fixed.standardOutput + fixed.standardError)
        XCTAssertTrue(fixed.standardOutput.contains("near end kept"), fixed.standardOutput)
        XCTAssertFalse(fixed.standardOutput.contains("near_end.attenuation_db"), fixed.standardOutput)
        // The thin figures judge nothing: the eval against itself with the short item's steady
        // state 10 dB worse still passes.
        var thin = try JSONSerialization.jsonObject(with: eval0) as! [String: Any]
        var thinItems = thin["items"] as! [[String: Any]]
        let blipIndex = thinItems.firstIndex { $0["name"] as? String == "blip" }!
        thinItems[blipIndex]["results"] = (thinItems[blipIndex]["results"] as! [[String: Any]]).map { result in
            var result = result, m = result["metrics"] as! [String: Any]
            m["erle_steady_db"] = (m["erle_steady_db"] as! Double) - 10
            result["metrics"] = m
            return result
        }
        thin["items"] = thinItems
        try JSONSerialization.data(withJSONObject: thin).write(to: root.appendingPathComponent("thin.json"))
        let passes = try runEchoLab(["compare", "out/eval.json", "thin.json"], in: root)
        XCTAssertEqual(passes.status, 0, passes.standardOutput + passes.standardError)
    }
}
