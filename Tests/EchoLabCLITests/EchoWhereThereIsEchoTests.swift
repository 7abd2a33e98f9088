import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// ERL and ERLE count only frames where echo reaches what is sent, standing above the noise at the
/// mic: a file or generator sent instead of the mic, a speaker that plays nothing into the room
/// or an echo under the noise gives no number but a reason, and a call that switches to a file
/// mic keeps the ERLE of its device-mic stretch instead of averaging in the file's.
final class EchoWhereThereIsEchoTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try temporaryDirectory()
        // What the app sends as its mic: speech of its own.
        try SoundFileWriter.write(SignalGenerator.render(.speechLike(levelDBFS: -22, pitchHz: 160), sampleRate: 48_000, count: 480_000, seed: 11),
                                  to: root.appendingPathComponent("app.wav").path, sampleRate: 48_000)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    private static func room(echoGainDB: Int = -8, noiseDBFS: Int = -65) -> String {
        """
        "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
        "near_end": {"generator": "silence"}, "noise": {"level_dbfs": \(noiseDBFS), "seed": 2},
        "echo_path": {"delay_ms": 30, "gain_db": \(echoGainDB)}, "duration_s": 8
        """
    }

    private func run(_ name: String, _ extra: String, room: String = room(), aec: String = "speex:intensityRecommended") throws -> [String: Any] {
        let scenario = try writeScenario("{\"name\": \"\(name)\", \(room)\(extra.isEmpty ? "" : ", " + extra)}", named: "\(name).json", in: root)
        let result = try runEchoLab(["run", scenario, "--aec", aec, "--no-taps", "--out", name], in: root)
        XCTAssertEqual(result.status, 0, result.standardError)
        return try loadJSON(root.appendingPathComponent("\(name)/report.json").path)
    }

    private func metrics(_ report: [String: Any]) -> [String: Any] { report["metrics"] as! [String: Any] }

    /// An echo under digital silence (−105 dBFS, a room without noise) is no echo to cancel: its
    /// ERL is the echo track's, but no canceller has an ERLE there — with AEC off (it read null
    /// without a reason) nor with one whose comfort noise rises over it (it read −24 dB) — and the
    /// report says why instead of "no far-end single talk" beside 465 single-talk frames.
    func testAnEchoUnderDigitalSilenceHasNoERLEAndSaysWhy() throws {
        let room = """
        "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 3},
        "echo_path": {"delay_ms": 40, "gain_db": -85}, "duration_s": 5
        """
        for aec in ["disabled", "webrtc:intensityMax"] {
            let report = try run("quiet-\(aec.prefix(6))", "", room: room, aec: aec)
            let metrics = metrics(report)
            XCTAssertEqual(try XCTUnwrap(metrics["erl_db"] as? Double, aec), 85, accuracy: 0.1, aec)
            XCTAssertTrue(metrics["erle_db"] is NSNull, "\(aec): \(metrics["erle_db"] ?? "")")
            XCTAssertTrue(metrics["erle_steady_db"] is NSNull, aec)
            XCTAssertTrue((metrics["erle_series"] as? [[String: Any]] ?? []).allSatisfy { $0["erle_db"] is NSNull }, aec)
            let reason = try XCTUnwrap(report["echo_unmeasured"] as? String, aec)
            XCTAssertTrue(reason.hasPrefix("the echo at the mic stays under its floor"), reason)
            let page = try String(contentsOf: root.appendingPathComponent("quiet-\(aec.prefix(6))/report.md"), encoding: .utf8)
            XCTAssertTrue(page.contains("No ERLE: the echo at the mic stays under its floor"), aec)
            XCTAssertFalse(page.contains("No far-end single talk"), aec)
        }
    }

    func testNoEchoReachingWhatIsSentGivesNoNumberButAReason() throws {
        let input = try Data(contentsOf: root.appendingPathComponent("app.wav"))
        // The device mic: echo to measure.
        let device = try run("device", "")
        XCTAssertGreaterThan(try XCTUnwrap(metrics(device)["erl_db"] as? Double), 5)
        XCTAssertTrue(device["echo_unmeasured"] is NSNull)

        // A file is the mic all call: nothing of the room is sent. ERL, ERLE, steady ERLE, bands
        // and series have nothing; the reason names the device; webrtc-mobile's suppression of
        // the file (once read as ~30 dB of ERLE) is not an ERLE.
        for aec in ["speex:intensityRecommended", "webrtc-mobile:intensityMax"] {
            let file = try run("file-\(aec.prefix(5))", #""mic": {"device": "file", "file": "app.wav"}"#, aec: aec)
            for key in ["erl_db", "erle_db", "erle_steady_db"] { XCTAssertTrue(metrics(file)[key] is NSNull, "\(aec) \(key)") }
            XCTAssertEqual((metrics(file)["erle_bands"] as? [[String: Any]])?.compactMap { $0["erle_db"] as? Double }, [])
            XCTAssertEqual(file["echo_unmeasured"] as? String, "no echo reached the sent path: custom mic (file microphone)")
            let page = try String(contentsOf: root.appendingPathComponent("file-\(aec.prefix(5))/report.md"), encoding: .utf8)
            XCTAssertTrue(page.contains("> No ERL or ERLE: no echo reached the sent path: custom mic (file microphone)."), page)
        }
        // Nothing is played into the room: no echo at the mic.
        let recording = try run("recording", #""speaker": {"device": "recording", "file": "peer.wav"}"#)
        XCTAssertTrue(metrics(recording)["erle_db"] is NSNull)
        XCTAssertEqual(recording["echo_unmeasured"] as? String,
                       "no echo reached the mic: the custom speaker (recording speaker) plays nothing into the room")
        // An echo 35 dB under the noise (−95 against −60 dBFS): no frame has echo to cancel. The
        // path's loss is a bound, the echo track's over the frames the far end played alone in.
        let buried = try run("buried", "", room: Self.room(echoGainDB: -75, noiseDBFS: -60))
        XCTAssertTrue(metrics(buried)["erle_db"] is NSNull)
        XCTAssertEqual((metrics(buried)["gate"] as! [String: Any])["far_end_active_analysis_frames"] as? Int, 0)
        XCTAssertEqual(try XCTUnwrap(metrics(buried)["erl_db"] as? Double), 75, accuracy: 2)
        XCTAssertEqual(metrics(buried)["erl_is_lower_bound"] as? Bool, true)
        XCTAssertTrue((buried["echo_unmeasured"] as? String)?.hasPrefix("the echo stays under the mic's noise wherever the far end plays alone (") == true,
                      "\(buried["echo_unmeasured"] ?? "")")
        // No far end at all: nothing played, said as such (it read as a far end too quiet).
        let noFarEnd = try run("no-far-end", "", room: #""near_end": {"generator": "speech", "seed": 5}, "echo_path": {"delay_ms": 30, "gain_db": -8}, "duration_s": 4"#)
        XCTAssertEqual(noFarEnd["echo_unmeasured"] as? String,
                       "the far end is silent throughout: nothing was played into the room, so there is no echo to measure")
        // Its delay says the same, not "too little far end" (as if it had been too short).
        XCTAssertEqual(noFarEnd["delay_unmeasured"] as? String,
                       "the far end never plays above −50 dBFS (its reference stays below it in every analysis frame): no echo whose delay to measure")
        // A far end that plays, its echo buried: that reason is not given.
        XCTAssertNotEqual(buried["delay_unmeasured"] as? String, noFarEnd["delay_unmeasured"] as? String)
        XCTAssertEqual(try Data(contentsOf: root.appendingPathComponent("app.wav")), input, "input untouched")
    }

    /// Where no echo can reach what is sent there is no bulk delay reference→mic either: the
    /// default corpus's file mic under AEC3 read 0.0004 ms (its blocks' edges, lined up by AEC3's
    /// latency) beside "no echo reached the sent path", and every other mode said no lag stood out.
    /// The delay is null with the same reason as ERL and ERLE, on report.json and the page; a
    /// speaker that plays nothing into the room gives its own.
    func testNoBulkDelayWhereNoEchoReachesWhatIsSent() throws {
        let scenario = packageRoot.appendingPathComponent("vectors/scenarios/file-mic-aec-off.json").path
        let result = try runEchoLab(["run", scenario, "--aec", "aec3:intensityRecommended", "--no-taps", "--out", "aec3"], in: root)
        XCTAssertEqual(result.status, 0, result.standardError)
        let file = try loadJSON(root.appendingPathComponent("aec3/report.json").path)
        let reason = "no echo reached the sent path: custom mic (file microphone)"
        XCTAssertTrue(metrics(file)["delay_ms"] is NSNull, "\(metrics(file)["delay_ms"] ?? "")")
        XCTAssertEqual(file["delay_unmeasured"] as? String, reason)
        XCTAssertEqual(file["echo_unmeasured"] as? String, reason)
        let page = try String(contentsOf: root.appendingPathComponent("aec3/report.md"), encoding: .utf8)
        XCTAssertTrue(page.contains("| bulk delay reference→mic | — |"), page)
        XCTAssertTrue(page.contains("> No ERL or ERLE: \(reason)."), page)

        let recording = try run("recording", #""speaker": {"device": "recording", "file": "peer.wav"}"#)
        XCTAssertTrue(metrics(recording)["delay_ms"] is NSNull)
        XCTAssertEqual(recording["delay_unmeasured"] as? String,
                       "no echo reached the mic: the custom speaker (recording speaker) plays nothing into the room")
    }

    /// A recording whose mic holds no echo (a headset's; a loopback from another call): the
    /// tap-free gate's fitted echo stays under the mic's noise wherever the near end is silent.
    /// With noise alone at the mic there is no far end at the mic at all: no ERLE but a reason,
    /// and an ERL that is the bound the noise gives, the far end over it (it once read the
    /// reference over the noise as a measured ERL). With a talker too, no ERLE either: the few frames where a path fitted from nothing explained the talker's own tail
    /// (5 here, each 30 dB deep) are too few to be an echo's, and are chance (before the fitted
    /// echo had to stand above the residual, every far-end frame the talker left silent counted;
    /// until chance was ruled out, those 5 read as a low-confidence ERL and ERLE). The same files
    /// with an echo added measure it.
    func testARecordingWithoutEchoAtTheMicGivesNoNumberButABound() throws {
        let rate = 48_000, count = 8 * rate
        let reference = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: rate, count: count, seed: 21)
        var near = SignalGenerator.render(.speechLike(levelDBFS: -26, pitchHz: 210), sampleRate: rate, count: count, seed: 22)
        for index in near.indices where !(3 * rate..<6 * rate).contains(index) { near[index] = 0 }
        let noise = SignalGenerator.render(.whiteNoise(levelDBFS: -62), sampleRate: rate, count: count, seed: 23)
        let talker = zip(near, noise).map { $0 + $1 }
        let echoed = talker.indices.map { talker[$0] + ($0 >= 1440 ? reference[$0 - 1440] * 0.398 : 0) }  // 30 ms, −8 dB
        let files: [(String, [Float])] = [("far", reference), ("near", near), ("noise", noise), ("noise-out", noise.map { $0 * 0.5 }),
                                          ("talker", talker), ("talker-out", talker.map { $0 * 0.5 }),
                                          ("echoed", echoed), ("echoed-out", echoed.map { $0 * 0.1 })]
        for (name, samples) in files {
            try SoundFileWriter.write(samples, to: root.appendingPathComponent("\(name).wav").path, sampleRate: rate)
        }
        let inputs = try files.map { try Data(contentsOf: root.appendingPathComponent("\($0.0).wav")) }
        func metrics(_ mic: String, _ extra: [String] = []) throws -> [String: Any] {
            let result = try runEchoLab(["metrics", "--reference", "far.wav", "--mic", "\(mic).wav", "--processed", "\(mic)-out.wav"] + extra,
                                        in: root)
            XCTAssertEqual(result.status, 0, result.standardError)
            return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        }

        /// The ERL a mic without echo gives: a lower bound on the frames the far end played alone in.
        func bound(_ metrics: [String: Any], _ expected: Double, accuracy: Double) throws {
            XCTAssertEqual(try XCTUnwrap(metrics["erl_db"] as? Double), expected, accuracy: accuracy)
            XCTAssertEqual(metrics["erl_is_lower_bound"] as? Bool, true)
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(metrics["erl_analysis_frames"] as? Int), 20)
            XCTAssertEqual((metrics["gate"] as? [String: Any])?["single_talk_analysis_frames"] as? Int, 0)
        }
        let underNoise = "the echo stays under the mic's noise wherever the far end plays alone ("

        let quiet = try metrics("noise")
        for key in ["erle_db", "erle_steady_db"] { XCTAssertTrue(quiet[key] is NSNull, "\(key): \(quiet[key] ?? "")") }
        // A speech-like far end at −20 dBFS over −62 dBFS of noise.
        try bound(quiet, 40.2, accuracy: 0.5)
        XCTAssertEqual((quiet["gate"] as? [String: Any])?["method"] as? String, "echo_path_fit")
        XCTAssertEqual((quiet["gate"] as? [String: Any])?["far_end_active_analysis_frames"] as? Int, 0)
        XCTAssertTrue((quiet["echo_unmeasured"] as? String)?.hasPrefix(underNoise) == true, "\(quiet["echo_unmeasured"] ?? "")")
        XCTAssertTrue((quiet["echo_unmeasured"] as? String)?.hasSuffix("analysis frames): there is no echo to cancel, so no ERLE (ERL stands on those frames)") == true,
                      "\(quiet["echo_unmeasured"] ?? "")")

        let talking = try metrics("talker")
        let gate = try XCTUnwrap(talking["gate"] as? [String: Any])
        let single = try XCTUnwrap(gate["single_talk_analysis_frames"] as? Int)
        XCTAssertEqual(single, 0, "\(talking)")
        XCTAssertGreaterThan(try XCTUnwrap(gate["double_talk_analysis_frames"] as? Int), 100)
        XCTAssertTrue(talking["erle_db"] is NSNull, "\(talking["erle_db"] ?? "")")
        // The talker's tails the gate took for silence lower the bound: it is still one.
        try bound(talking, 20.9, accuracy: 1)
        XCTAssertTrue((talking["echo_unmeasured"] as? String)?.hasPrefix(underNoise) == true, "\(talking["echo_unmeasured"] ?? "")")

        // With the clean near-end track, mic − track holds no echo above the noise: no single talk, a
        // reason and the bound (it read a measured ERL of 34 dB, the reference over the noise).
        let tracked = try metrics("talker", ["--near-end", "near.wav"])
        XCTAssertEqual((tracked["gate"] as? [String: Any])?["method"] as? String, "near_end_track")
        XCTAssertTrue(tracked["erle_db"] is NSNull, "\(tracked["erle_db"] ?? "")")
        try bound(tracked, 40.0, accuracy: 0.5)
        XCTAssertTrue((tracked["echo_unmeasured"] as? String)?.hasPrefix(underNoise) == true, "\(tracked["echo_unmeasured"] ?? "")")
        let trackedEcho = try metrics("echoed", ["--near-end", "near.wav"])
        XCTAssertEqual(try XCTUnwrap(trackedEcho["erl_db"] as? Double), 8, accuracy: 0.3)
        XCTAssertEqual(try XCTUnwrap(trackedEcho["erle_db"] as? Double), 20, accuracy: 0.3)

        let measured = try metrics("echoed")
        XCTAssertEqual(try XCTUnwrap(measured["erl_db"] as? Double), 8, accuracy: 0.3)
        XCTAssertEqual(try XCTUnwrap(measured["erle_db"] as? Double), 20, accuracy: 0.3)
        // The tracks give 220 single-talk frames. The gate finds 144: the block the talker
        // covers keeps the path fitted before it, which explains this synthetic voice's echo by
        // only 17 dB at pitches it did not hear (a fit of its own found 10 more, and took 5 of the
        // talker's frames as single talk with them).
        XCTAssertGreaterThan(try XCTUnwrap((measured["gate"] as? [String: Any])?["single_talk_analysis_frames"] as? Int), 140)
        XCTAssertTrue(measured["echo_unmeasured"] is NSNull)
        XCTAssertTrue(measured["delay_unmeasured"] is NSNull)
        XCTAssertEqual(try files.map { try Data(contentsOf: root.appendingPathComponent("\($0.0).wav")) }, inputs, "inputs untouched")
    }

    /// A loopback recorded 80 ms late against an echo 30 ms late: the echo leads it, so no delay
    /// in 0–500 ms explains it. `metrics` says so on stderr and in the JSON instead of scoring a
    /// lag the far end's rhythm made up.
    func testALoopbackThatLagsTheMicIsSaidToDoSo() throws {
        let rate = 48_000, count = 8 * rate
        let far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: rate, count: count, seed: 41)
        let noise = SignalGenerator.render(.whiteNoise(levelDBFS: -65), sampleRate: rate, count: count, seed: 42)
        let mic = far.indices.map { ($0 >= 1440 ? far[$0 - 1440] * 0.316 : 0) + noise[$0] }
        let late = far.indices.map { $0 >= 3840 ? far[$0 - 3840] : 0 }
        for (name, samples) in [("far-late", late), ("mic-lead", mic), ("out-lead", mic.map { $0 * 0.5 })] {
            try SoundFileWriter.write(samples, to: root.appendingPathComponent("\(name).wav").path, sampleRate: rate)
        }
        let result = try runEchoLab(["metrics", "--reference", "far-late.wav", "--mic", "mic-lead.wav", "--processed", "out-lead.wav"], in: root)
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardError.contains(
            "echolab metrics: warning: the echo in mic-lead.wav is not within 0–500 ms of far-late.wav: it leads it (a loopback recorded late, or --reference and --mic swapped?) or lags it by more; delay_ms null, and no frame scored (the echo path cannot be fitted)"),
            result.standardError)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        XCTAssertTrue(json["delay_ms"] is NSNull)
        XCTAssertTrue(json["erl_db"] is NSNull)
        let gate = try XCTUnwrap(json["gate"] as? [String: Any])
        XCTAssertEqual(gate["limitation"] as? String, "echo_outside_delay_search")
        // The far end played; no frame was judged: none is single talk, and none is double talk
        // (there is no near talker: every far-end frame counted as double talk before).
        XCTAssertGreaterThan(try XCTUnwrap(gate["far_end_active_analysis_frames"] as? Int), 100)
        XCTAssertEqual(gate["single_talk_analysis_frames"] as? Int, 0)
        XCTAssertEqual(gate["double_talk_analysis_frames"] as? Int, 0)
        XCTAssertEqual(json["delay_unmeasured"] as? String,
                       "the echo is not within 0–500 ms of the reference: it leads it (a loopback recorded late?), or lags it by more")
        XCTAssertEqual(json["echo_unmeasured"] as? String,
                       "the mic's echo is not within 0–500 ms of the reference: it leads the reference (a loopback recorded late?), or lags it by more")
    }

    /// Near-end single talk with its near-end track (the AEC Challenge's layout): judged by what
    /// each mode took off the talker, as a simulated call without a far end is. Every mode read
    /// "—", a canceller that deleted the talker among them, and the eval ended "No best modes".
    /// A lone talker's 6 s at 16 kHz and the room's noise, and the corpus folder `name` made.
    private func loneTalker(in name: String) throws -> (corpus: URL, rate: Int, near: [Float], noise: [Float]) {
        let rate = 16_000, count = 6 * rate
        let corpus = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        let near = SignalGenerator.render(.speechLike(levelDBFS: -24, pitchHz: 210), sampleRate: rate, count: count, seed: 61)
        let noise = SignalGenerator.render(.whiteNoise(levelDBFS: -65), sampleRate: rate, count: count, seed: 62)
        return (corpus, rate, near, noise)
    }

    func testANearEndSingleTalkRecordingIsJudgedOnItsNearEnd() throws {
        let (corpus, rate, near, noise) = try loneTalker(in: "nst")
        try SoundFileWriter.write(zip(near, noise).map { $0 + $1 }, to: corpus.appendingPathComponent("mic.wav").path, sampleRate: rate)
        try SoundFileWriter.write(near, to: corpus.appendingPathComponent("near.wav").path, sampleRate: rate)
        try #"{"corpus": [{"name": "talker_nearend_singletalk", "mic": "mic.wav", "near_end": "near.wav", "talk_type": "nearend_singletalk"}]}"#
            .write(to: corpus.appendingPathComponent("manifest.json"), atomically: true, encoding: .utf8)
        let inputs = try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted().map { try Data(contentsOf: corpus.appendingPathComponent($0)) }
        let result = try runEchoLab(["eval", "nst/manifest.json", "--modes", "disabled,speex:intensityRecommended", "--out", "nst-eval", "--no-taps"],
                                    in: root)
        XCTAssertEqual(result.status, 0, result.standardError)
        let report = try loadJSON(root.appendingPathComponent("nst-eval/talker_nearend_singletalk/disabled/report.json").path)
        XCTAssertEqual(report["echo_unmeasured"] as? String, "the recording has no loopback (near-end single talk): there is no far end to echo")
        let nearEnd = try XCTUnwrap((report["metrics"] as? [String: Any])?["near_end"] as? [String: Any])
        // Nothing processed: nothing taken off the talker.
        XCTAssertEqual(try XCTUnwrap(nearEnd["single_talk_attenuation_db"] as? Double), 0, accuracy: 0.1, "\(nearEnd)")
        let page = try String(contentsOf: root.appendingPathComponent("nst-eval/eval.md"), encoding: .utf8)
        XCTAssertTrue(page.contains("0.0 alone"), page)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("nst-eval/talker_nearend_singletalk/disabled/.loopback.silent.wav").path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted().map { try Data(contentsOf: corpus.appendingPathComponent($0)) },
                       inputs, "inputs untouched")
    }

    /// Without its near-end track the same lone talker is judged on the tap-free estimate as a
    /// lone talker's ("est. alone"), never on the double-talk axis: beside a double-talk
    /// recording it was averaged with that item's estimate and counted in the corpus's near-end
    /// items (a new user's trial: 5 where the tracks gave 4).
    func testATapFreeNearEndSingleTalkRecordingIsJudgedAlone() throws {
        let (corpus, rate, near, noise) = try loneTalker(in: "tapfree")
        let count = near.count
        let far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: rate, count: count, seed: 63)
        var talkOver = near
        for index in talkOver.indices where index < 3 * rate { talkOver[index] = 0 }
        let echoed = far.indices.map { ($0 >= 480 ? far[$0 - 480] * 0.5 : 0) + talkOver[$0] + noise[$0] }
        try SoundFileWriter.write(zip(near, noise).map { $0 + $1 }, to: corpus.appendingPathComponent("alone.wav").path, sampleRate: rate)
        try SoundFileWriter.write(echoed, to: corpus.appendingPathComponent("dt-mic.wav").path, sampleRate: rate)
        try SoundFileWriter.write(far, to: corpus.appendingPathComponent("dt-lpb.wav").path, sampleRate: rate)
        try #"{"corpus": [{"name": "alone", "mic": "alone.wav", "talk_type": "nearend_singletalk"}, {"name": "dt", "mic": "dt-mic.wav", "loopback": "dt-lpb.wav"}]}"#
            .write(to: corpus.appendingPathComponent("manifest.json"), atomically: true, encoding: .utf8)
        let result = try runEchoLab(["eval", "tapfree/manifest.json", "--modes", "disabled,speex:intensityRecommended,webrtc:intensityMax",
                                     "--out", "tapfree-eval", "--no-taps"], in: root)
        XCTAssertEqual(result.status, 0, result.standardError)
        let eval = try loadJSON(root.appendingPathComponent("tapfree-eval/eval.json").path)
        let best = try XCTUnwrap(eval["best_modes"] as? [String: Any])
        XCTAssertEqual(best["near_end_compared_items"] as? Int, 1, "the double-talk item alone: \(best)")
        XCTAssertEqual(best["near_end_estimated_items"] as? Int, 1)
        // The lone talker's item is judged on the near end alone, as with its track.
        let html = try String(contentsOf: root.appendingPathComponent("tapfree-eval/eval.html"), encoding: .utf8)
        XCTAssertEqual(html.components(separatedBy: "Best with the near end alone:").count - 1, 1, "the alone item's verdict")
        XCTAssertTrue(html.contains("What each took off is the estimate from mic and loopback"), "the alone verdict says it rests on the estimate")
        // No track anywhere: the run table has no attenuation column of dashes.
        XCTAssertFalse(html.contains(">near-end attenuation<"), "an empty near-end attenuation column")
        // The mode's mean of estimates is over the double talk's item only.
        let summary = try XCTUnwrap((eval["mode_summary"] as? [[String: Any]])?.first { $0["mode"] as? String == "speex:intensityRecommended" })
        XCTAssertEqual((summary["near_end_estimate_output_drop_db"] as? [String: Any])?["count"] as? Int, 1, "\(summary)")
        let page = try String(contentsOf: root.appendingPathComponent("tapfree-eval/eval.md"), encoding: .utf8)
        let row = try XCTUnwrap(page.split(separator: "\n").first { $0.hasPrefix("| alone |") }, page)
        XCTAssertTrue(row.contains(" est. alone]"), String(row))
    }

    /// A recording in an eval says why its ERL and ERLE are null, in its report.json and on its
    /// pages, as a simulated run's report does: the loopback recorded late, no loopback at all;
    /// one with its echo in range has numbers and no reason. `merge` reads the reason back and
    /// renders the same page.
    func testARecordingsReportSaysWhyItHasNoERLE() throws {
        let rate = 16_000, count = 8 * rate
        let corpus = root.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        let far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: rate, count: count, seed: 51)
        let noise = SignalGenerator.render(.whiteNoise(levelDBFS: -65), sampleRate: rate, count: count, seed: 52)
        let mic = far.indices.map { ($0 >= 480 ? far[$0 - 480] * 0.316 : 0) + noise[$0] }  // 30 ms, −10 dB
        let lateLoopback = far.indices.map { $0 >= 1280 ? far[$0 - 1280] : 0 }  // the loopback 80 ms late
        // Music 150 ms late: its echo is measured, its delay is not (it repeats at every period).
        let music = SignalGenerator.render(.musicLike(levelDBFS: -20), sampleRate: rate, count: count, seed: 53)
        let musicMic = music.indices.map { ($0 >= 2400 ? music[$0 - 2400] * 0.316 : 0) + noise[$0] }
        let files: [(String, [Float])] = [("inrange_farend_singletalk_mic", mic), ("inrange_farend_singletalk_lpb", far),
                                          ("late_farend_singletalk_mic", mic), ("late_farend_singletalk_lpb", lateLoopback),
                                          ("alone_nearend_singletalk_mic", noise),
                                          ("music_farend_singletalk_mic", musicMic), ("music_farend_singletalk_lpb", music),
                                          // The loopback 50 ms short: scored on the overlap, and said so.
                                          ("short_farend_singletalk_mic", mic), ("short_farend_singletalk_lpb", Array(far.dropLast(800)))]
        for (name, samples) in files {
            try SoundFileWriter.write(samples, to: corpus.appendingPathComponent("\(name).wav").path, sampleRate: rate)
        }
        let inputs = try files.map { try Data(contentsOf: corpus.appendingPathComponent("\($0.0).wav")) }
        // In two shards, so that `merge` renders the pages again from their report.json.
        for shard in 1...2 {
            let result = try runEchoLab(["eval", "corpus", "--modes", "speex:intensityRecommended", "--out", "shard-\(shard)", "--no-taps",
                                         "--shard", "\(shard)/2"], in: root)
            XCTAssertEqual(result.status, 0, result.standardError)
        }
        let merged = try runEchoLab(["merge", "shard-1", "shard-2", "--out", "merged"], in: root)
        XCTAssertEqual(merged.status, 0, merged.standardError)
        let folder = "speex-intensityRecommended"
        func report(_ item: String) throws -> [String: Any] { try loadJSON(root.appendingPathComponent("merged/\(item)/\(folder)/report.json").path) }
        func page(_ item: String) throws -> String {
            try String(contentsOf: root.appendingPathComponent("merged/\(item)/\(folder)/report.md"), encoding: .utf8)
        }
        let measured = try report("inrange_farend_singletalk")
        XCTAssertEqual(try XCTUnwrap((measured["metrics"] as? [String: Any])?["erl_db"] as? Double), 10, accuracy: 0.3)
        XCTAssertTrue(measured["echo_unmeasured"] is NSNull)
        XCTAssertTrue(measured["delay_unmeasured"] is NSNull)
        XCTAssertTrue(measured["length_mismatch"] is NSNull)
        XCTAssertEqual(try XCTUnwrap((measured["metrics"] as? [String: Any])?["delay_ms"] as? Double), 30, accuracy: 0.1)
        XCTAssertFalse(try page("inrange_farend_singletalk").contains("No ERL or ERLE"))
        XCTAssertFalse(try page("inrange_farend_singletalk").contains("No bulk delay"))

        let late = try report("late_farend_singletalk")
        XCTAssertTrue((late["metrics"] as? [String: Any])?["erl_db"] is NSNull)
        let reason = "the mic's echo is not within 0–500 ms of the reference: it leads the reference (a loopback recorded late?), or lags it by more"
        XCTAssertEqual(late["echo_unmeasured"] as? String, reason)
        // eval.json says it too, beside the nulls, and nothing where the figure is measured.
        let evalItems = try XCTUnwrap(loadJSON(root.appendingPathComponent("merged/eval.json").path)["items"] as? [[String: Any]])
        func evalRun(_ item: String) -> [String: Any]? {
            (evalItems.first { $0["name"] as? String == item }?["results"] as? [[String: Any]])?.first
        }
        XCTAssertEqual(evalRun("late_farend_singletalk")?["echo_unmeasured"] as? String, reason)
        XCTAssertEqual(evalRun("late_farend_singletalk")?["delay_unmeasured"] as? String, late["delay_unmeasured"] as? String)
        XCTAssertNil(evalRun("inrange_farend_singletalk")?["echo_unmeasured"], "measured: no reason")
        XCTAssertTrue((late["delay_unmeasured"] as? String)?.hasPrefix("the echo is not within 0–500 ms of the reference") == true,
                      "\(late["delay_unmeasured"] ?? "")")
        // The page `merge` rendered from report.json is the page the run rendered.
        let shardPage = try (1...2).compactMap { shard in
            try? String(contentsOf: root.appendingPathComponent("shard-\(shard)/late_farend_singletalk/\(folder)/report.md"), encoding: .utf8)
        }
        XCTAssertEqual(shardPage.count, 1)
        XCTAssertTrue(shardPage.first?.contains("> No ERL or ERLE: \(reason).") == true, shardPage.first ?? "")
        XCTAssertEqual(try page("late_farend_singletalk"), shardPage.first)

        // Near-end single talk: no echo to measure; the near talker would be, against a loopback
        // of silence — this mic holds noise alone, so the gate hears no talker to judge.
        let alone = try report("alone_nearend_singletalk")
        let aloneMetrics = try XCTUnwrap(alone["metrics"] as? [String: Any])
        XCTAssertTrue(aloneMetrics["erl_db"] is NSNull)
        XCTAssertEqual((aloneMetrics["gate"] as? [String: Any])?["far_end_active_analysis_frames"] as? Int, 0)
        let aloneEstimate = try XCTUnwrap(aloneMetrics["near_end_estimate"] as? [String: Any])
        XCTAssertEqual(aloneEstimate["analysis_frames"] as? Int, 0)
        XCTAssertTrue(aloneEstimate["output_drop_db"] is NSNull)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("merged/alone_nearend_singletalk/\(folder)/.loopback.silent.wav").path))
        XCTAssertEqual(alone["echo_unmeasured"] as? String, "the recording has no loopback (near-end single talk): there is no far end to echo")
        XCTAssertEqual(alone["delay_unmeasured"] as? String, alone["echo_unmeasured"] as? String)
        // No loopback, no count of its samples at full scale (it read 0), in the report `merge`
        // read back and in eval.json's health of the run; the one with a loopback counts them.
        let aloneClipped = try XCTUnwrap(alone["clipped_samples"] as? [String: Any])
        XCTAssertEqual(aloneClipped["mic"] as? Int, 0)
        XCTAssertTrue(aloneClipped["loopback"] is NSNull, "\(aloneClipped)")
        XCTAssertEqual((measured["clipped_samples"] as? [String: Any])?["loopback"] as? Int, 0)
        let health = try Dictionary(uniqueKeysWithValues: XCTUnwrap(loadJSON(root.appendingPathComponent("merged/eval.json").path)["items"]
            as? [[String: Any]]).map { item in
                (item["name"] as? String ?? "", ((item["results"] as? [[String: Any]])?.first?["pipeline"] as? [String: Any])?["clipped_samples"] as? [String: Any])
            })
        XCTAssertTrue(health["alone_nearend_singletalk"]??["loopback"] is NSNull, "\(health)")
        XCTAssertEqual(health["inrange_farend_singletalk"]??["loopback"] as? Int, 0)
        // The merge holds shard 1's runs as it measured them; a shard as the baseline judges only
        // its own runs, so the gate fails on it (the other shard's runs would pass unjudged).
        let againstShard = try runEchoLab(["compare", "shard-1/eval.json", "merged/eval.json"], in: root)
        XCTAssertEqual(againstShard.status, 1, againstShard.standardOutput)
        XCTAssertTrue(againstShard.standardOutput.contains("**The baseline is shard 1/2 of an eval**"), againstShard.standardOutput)
        XCTAssertTrue(againstShard.standardOutput.contains("**No regression among the runs the baseline holds.**"), againstShard.standardOutput)

        let short = try report("short_farend_singletalk")
        let mismatch = try XCTUnwrap(short["length_mismatch"] as? [String: Any])
        XCTAssertEqual(mismatch["analysed_samples"] as? Int, count - 800)
        let lengths = try XCTUnwrap(mismatch["files"] as? [[String: Any]]).map { (($0["file"] as? String).map { ($0 as NSString).lastPathComponent }, $0["samples"] as? Int) }
        XCTAssertEqual(lengths.map(\.0), ["short_farend_singletalk_lpb.wav", "short_farend_singletalk_mic.wav"])
        XCTAssertEqual(lengths.map(\.1), [count - 800, count])
        let shortPage = try page("short_farend_singletalk")
        XCTAssertTrue(shortPage.contains("**The inputs differ in length:** short\\_farend\\_singletalk\\_lpb.wav \(count - 800), short\\_farend\\_singletalk\\_mic.wav \(count) samples; the echo metrics are scored on the first \(count - 800)"), shortPage)

        // ERL measured, the delay not: the page says why, as merge renders it from report.json.
        let tonal = try report("music_farend_singletalk")
        XCTAssertEqual(try XCTUnwrap((tonal["metrics"] as? [String: Any])?["erl_db"] as? Double), 10, accuracy: 1)
        XCTAssertTrue((tonal["metrics"] as? [String: Any])?["delay_ms"] is NSNull)
        let tonalReason = try XCTUnwrap(tonal["delay_unmeasured"] as? String)
        XCTAssertTrue(tonalReason.hasPrefix("the far end is tonal"), tonalReason)
        let tonalPage = try page("music_farend_singletalk")
        XCTAssertTrue(tonalPage.contains("> No bulk delay: \(tonalReason)."), tonalPage)
        XCTAssertEqual(try files.map { try Data(contentsOf: corpus.appendingPathComponent("\($0.0).wav")) }, inputs, "inputs untouched")
    }

    /// Music 200 ms late read a delay of 0 ms, and the lint that speex's 190 ms filter misses the
    /// echo stayed silent. The music-like far end is tonal: no delay, a warning from `metrics`,
    /// and the lint judges the scenario's 200 ms (a lower bound of the echo's delay).
    func testATonalFarEndHasNoDelayButTheLintStillJudgesTheReach() throws {
        let room = """
            "far_end": {"generator": "music", "level_dbfs": -20}, "echo_path": {"delay_ms": 200, "gain_db": -6}, "duration_s": 8
            """
        let scenario = try writeScenario("{\"name\": \"music\", \(room)}", named: "music.json", in: root)
        let result = try runEchoLab(["run", scenario, "--aec", "speex:intensityMax", "--out", "music"], in: root)
        XCTAssertEqual(result.status, 0, result.standardError)
        let report = try loadJSON(root.appendingPathComponent("music/report.json").path)
        XCTAssertTrue(metrics(report)["delay_ms"] is NSNull)
        XCTAssertTrue((report["delay_unmeasured"] as? String)?.hasPrefix("the far end is tonal") == true, "\(report["delay_unmeasured"] ?? "")")
        let page = try String(contentsOf: root.appendingPathComponent("music/report.md"), encoding: .utf8)
        XCTAssertTrue(page.contains("> No bulk delay: the far end is tonal"), page)
        XCTAssertEqual(try XCTUnwrap(metrics(report)["erl_db"] as? Double), 6, accuracy: 0.2)
        let findings = try XCTUnwrap(report["findings"] as? [[String: Any]])
        let reach = try XCTUnwrap(findings.first { $0["rule"] as? String == "echo-delay-beyond-filter" }, "\(findings)")
        XCTAssertTrue((reach["message"] as? String)?.hasPrefix("the echo arrives at least 200.0 ms after the reference (the scenario's echo path delay: none was measured)") == true, "\(reach)")

        let scored = try runEchoLab(["metrics", "--reference", "music/reference.wav", "--mic", "music/mic.wav", "--processed", "music/sent.wav"],
                                    in: root)
        XCTAssertEqual(scored.status, 0, scored.standardError)
        XCTAssertTrue(scored.standardError.contains("echolab metrics: warning: the far end in music/reference.wav is tonal"), scored.standardError)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(scored.standardOutput.utf8)) as? [String: Any])
        XCTAssertTrue(json["delay_ms"] is NSNull)
        XCTAssertTrue((json["delay_unmeasured"] as? String)?.hasPrefix("the far end is tonal") == true, "\(json["delay_unmeasured"] ?? "")")
    }

    func testASwitchToAFileMicKeepsTheDeviceStretchsERLE() throws {
        // The device mic for 4 s, then a file: the whole call's ERLE is the device stretch's.
        let switched = try run("switch", #""timeline": [{"at_ms": 4000, "action": "set_custom_mic", "device": "file", "file": "app.wav"}]"#)
        let whole = try XCTUnwrap(metrics(switched)["erle_db"] as? Double)
        let segments = try XCTUnwrap(switched["segments"] as? [[String: Any]])
        XCTAssertEqual(segments.count, 2)
        let deviceStretch = try XCTUnwrap((segments[0]["metrics"] as? [String: Any])?["erle_db"] as? Double ?? segments[0]["erle_db"] as? Double)
        XCTAssertEqual(whole, deviceStretch, accuracy: 0.5, "the file's stretch is not averaged in")
        XCTAssertGreaterThan(whole, 5)
        // The file's stretch has no ERLE of its own.
        let fileStretch = segments[1]["metrics"] as? [String: Any] ?? segments[1]
        XCTAssertTrue(fileStretch["erle_db"] is NSNull, "\(segments[1])")
    }

    /// A muted stretch sends silence: its "ERLE" measured the mute (with the canceller off it
    /// read ≥ 29 dB), so it has none, and the call's ERLE is the unmuted stretches'.
    func testAMutedStretchHasNoERLE() throws {
        let timeline = #""timeline": [{"at_ms": 3000, "action": "mute"}, {"at_ms": 5000, "action": "unmute"}]"#
        for aec in ["disabled", "speex:intensityRecommended"] {
            let muted = try run("muted-\(aec.prefix(5))", timeline, aec: aec)
            let segments = try XCTUnwrap(muted["segments"] as? [[String: Any]])
            XCTAssertEqual(segments.map { $0["start_s"] as? Double }, [0, 3, 5])
            XCTAssertTrue(segments[1]["erle_db"] is NSNull, "\(aec): \(segments[1])")
            XCTAssertEqual(segments[1]["single_talk_analysis_frames"] as? Int, 0)
            let whole = try XCTUnwrap(metrics(muted)["erle_db"] as? Double)
            if aec == "disabled" { XCTAssertEqual(whole, 0, accuracy: 0.01, "nothing cancels: the unmuted stretches' ERLE is 0 dB") }
            for index in [0, 2] { XCTAssertNotNil(segments[index]["erle_db"] as? Double, "\(aec) segment \(index)") }
        }
    }

    /// Muted from 1 s, a near talker from 3 s: the gate leaves the muted stretch out, and hears
    /// no double talk. The reason says the near end talked while muted, how much, and that none
    /// of it was sent: near_end counts it, and the pages say it, instead of a blank.
    func testNoDoubleTalkOutsideAMuteSaysTheTalkWasNotSent() throws {
        let rate = 48_000
        var near = SignalGenerator.render(.speechLike(levelDBFS: -26, pitchHz: 210), sampleRate: rate, count: 8 * rate, seed: 52)
        for index in 0..<(3 * rate) { near[index] = 0 }
        try SoundFileWriter.write(near, to: root.appendingPathComponent("late-talker.wav").path, sampleRate: rate)
        let room = Self.room().replacingOccurrences(of: #""near_end": {"generator": "silence"}"#, with: #""near_end": "late-talker.wav""#)
        let muted = try run("muted-talker", #""timeline": [{"at_ms": 1000, "action": "mute"}]"#, room: room)
        let telephony = try XCTUnwrap(metrics(muted)["telephony"] as? [String: Any])
        let nearEnd = try XCTUnwrap(metrics(muted)["near_end"] as? [String: Any])
        let unsent = try XCTUnwrap(nearEnd["talk_not_sent_analysis_frames"] as? Int)
        // The talker's 5 s at 10 ms a frame, less its pauses.
        XCTAssertGreaterThan(unsent, 150)
        XCTAssertLessThanOrEqual(unsent, 500)
        XCTAssertTrue(nearEnd["attenuation_db"] is NSNull)
        XCTAssertEqual(telephony["double_talk_unmeasured_reason"] as? String,
                       "no double talk outside the muted stretches; the near end talked over \(unsent) analysis frames "
                       + "where nothing of the room was sent (a muted send path is left out of the analysis)")
        let page = try String(contentsOf: root.appendingPathComponent("muted-talker/report.md"), encoding: .utf8)
        XCTAssertTrue(page.contains("| near end talking where nothing of the room was sent | \(unsent) analysis frames (muted, the audio unit stopped, "
                                    + "or a file or generator as the mic): none of it reached the peer; left out of the figures above, which are the "
                                    + "send path's |"), page)
        // A file as the mic from 1 s: the room is not what is sent there either (it read "the
        // near end never talked over the far end", a QA engineer's trial).
        let filed = try run("file-talker", #""timeline": [{"at_ms": 1000, "action": "set_custom_mic", "device": "file", "file": "app.wav"}]"#, room: room)
        let filedUnsent = try XCTUnwrap((metrics(filed)["near_end"] as? [String: Any])?["talk_not_sent_analysis_frames"] as? Int)
        XCTAssertEqual(filedUnsent, unsent, "the same talker, not sent from 1 s either way")
        XCTAssertEqual((metrics(filed)["telephony"] as? [String: Any])?["double_talk_unmeasured_reason"] as? String,
                       "no double talk where the room was sent: the near end never talked over the far end there (a stretch with a file "
                       + "or generator as the mic is left out of the analysis; the near end talked over \(unsent) analysis frames of it, none of it sent)")
        // A file as the mic all through: no echo reached the sent path, and the reason says that.
        let fileAll = try run("file-all", #""mic": {"device": "file", "file": "app.wav"}"#, room: room)
        XCTAssertEqual((metrics(fileAll)["telephony"] as? [String: Any])?["double_talk_unmeasured_reason"] as? String,
                       "no double talk: no echo reached the sent path: custom mic (file microphone)")
        let unmuted = try run("unmuted-quiet", "")
        XCTAssertEqual((metrics(unmuted)["telephony"] as? [String: Any])?["double_talk_unmeasured_reason"] as? String,
                       "no double talk: the near end never talked over the far end")
        XCTAssertNil((metrics(unmuted)["near_end"] as? [String: Any])?["talk_not_sent_analysis_frames"], "written only when some")
    }

    /// Muted from the first frame: no stretch is left to measure, and the reason says so rather
    /// than that the far end never reached the mic (its echo is 8 dB under the reference).
    func testACallMutedThroughoutSaysSo() throws {
        let muted = try run("muted-all", #""timeline": [{"at_ms": 0, "action": "mute"}]"#)
        XCTAssertTrue(metrics(muted)["erle_db"] is NSNull)
        XCTAssertEqual(muted["echo_unmeasured"] as? String, "the call was muted throughout: it sent silence, which holds no echo to measure")
        let unmuted = try run("muted-later", #""timeline": [{"at_ms": 0, "action": "mute"}, {"at_ms": 4000, "action": "unmute"}]"#)
        XCTAssertNotNil(metrics(unmuted)["erle_db"] as? Double)
        XCTAssertTrue(unmuted["echo_unmeasured"] is NSNull)
    }

    func testAnItemWithoutEchoGivesNoWins() throws {
        let corpus = root.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        _ = try writeScenario("{\"name\": \"file\", \(Self.room()), \"mic\": {\"device\": \"file\", \"file\": \"../app.wav\"}}",
                              named: "file.json", in: corpus)
        let eval = try runEchoLab(["eval", "corpus", "--modes", "speex:intensityMin,speex:intensityMax,webrtc-mobile:intensityMax",
                                   "--no-taps", "--out", "out"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        let json = try loadJSON(root.appendingPathComponent("out/eval.json").path)
        XCTAssertEqual((json["mode_summary"] as! [[String: Any]]).map { $0["wins"] as! Int }, [0, 0, 0])
        XCTAssertTrue(json["best_modes"] is NSNull)
        let markdown = try String(contentsOf: root.appendingPathComponent("out/eval.md"), encoding: .utf8)
        XCTAssertFalse(markdown.contains("Best on"), markdown)
        XCTAssertFalse(markdown.contains("[**"), "no item bolds a best mode: \(markdown)")
    }
}
