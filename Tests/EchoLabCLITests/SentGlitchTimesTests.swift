import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// A report says where the sent audio clicked or went silent, not only how often: report.json
/// lists each click and gap with its time, report.md and report.html name the times.
final class SentGlitchTimesTests: XCTestCase {
    func testClicksAndGapsInTheSentAudioAreListedWithTheirTimes() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A tone from a file the app pushes, muted from 1.0 to 1.2 s (the cut clicks at both
        // edges); the file's own phase jumps by half a period at 1.5 s, and it pauses in digital
        // silence from 2.2 to 2.6 s.
        let rate = 48_000
        let tone = (0..<(3 * rate)).map { i -> Float in
            let phase = 2 * Double.pi * 440 * Double(i) / Double(rate) + (i >= 3 * rate / 2 ? Double.pi : 0)
            return (2_200 * 48..<2_600 * 48).contains(i) ? 0 : Float(0.1 * sin(phase))
        }
        try SoundFileWriter.write(tone, to: folder.appendingPathComponent("clicky.wav").path, sampleRate: rate)
        let scenario = try writeScenario("""
            {"name": "clicky", "mic": {"device": "file", "file": "clicky.wav"}, "aec": {"mode": "disabled"}, "duration_s": 3,
             "timeline": [{"at_ms": 1000, "action": "mute"}, {"at_ms": 1200, "action": "unmute"}]}
            """, in: folder)
        let run = try runEchoLab(["run", scenario, "--out", "out", "--no-taps"], in: folder)
        XCTAssertEqual(run.status, 0, run.standardError)
        let report = try loadJSON(folder.appendingPathComponent("out/report.json").path)
        let glitches = try XCTUnwrap(report["sent_glitches"] as? [String: Any])
        let clicks = try XCTUnwrap(glitches["clicks"] as? [[String: Any]])
        let pipeline = try XCTUnwrap(report["pipeline"] as? [String: Any])
        XCTAssertEqual(clicks.count, pipeline["sent_clicks"] as? Int)
        // The file's own pause is the file's, not a dropout, and so are its jump and the steps
        // into and out of its pause: the same voice as a near end never counted them (a new
        // user's trial read 9 gaps). What is left are the pipeline's: the mute's two cuts, and
        // the step out of the engine's priming into the file's first samples.
        XCTAssertEqual(pipeline["sent_gaps"] as? Int, 0, "\(glitches)")
        let times = try clicks.map { try XCTUnwrap($0["t_s"] as? Double) }
        XCTAssertEqual(times, [0.02, 1, 1.2], "\(clicks)")
        // The one-line summary says so too (1046 clicks read as a clean run there).
        XCTAssertTrue(run.standardOutput.contains(", 3 clicks in the sent audio, "), run.standardOutput)
        XCTAssertFalse(run.standardOutput.contains("gap"), run.standardOutput)
        let cut = clicks[1]
        XCTAssertEqual(try XCTUnwrap(cut["sample"] as? Double), 48_000)
        XCTAssertGreaterThan(try XCTUnwrap(cut["strength_db"] as? Double), 0)
        let markdown = try String(contentsOf: folder.appendingPathComponent("out/report.md"), encoding: .utf8)
        let line = try XCTUnwrap(markdown.split(separator: "\n").first { $0.hasPrefix("Clicks in the sent audio at ") }, markdown)
        XCTAssertTrue(line.contains("1.00 s") && line.contains("1.20 s"), String(line))

        // With the audio session modelled (no event of it in this call) the file's own pause and
        // jump are still its own: no device stands between the file and what the app pushes (a
        // text-to-speech mic read 26 gaps with an empty "audio_session", none without).
        let session = try writeScenario("""
            {"name": "clicky-session", "mic": {"device": "file", "file": "clicky.wav"}, "aec": {"mode": "disabled"}, "duration_s": 3,
             "audio_session": {}, "timeline": [{"at_ms": 1000, "action": "mute"}, {"at_ms": 1200, "action": "unmute"}]}
            """, named: "session.json", in: folder)
        let modelled = try runEchoLab(["run", session, "--out", "session", "--no-taps"], in: folder)
        XCTAssertEqual(modelled.status, 0, modelled.standardError)
        let sessionReport = try loadJSON(folder.appendingPathComponent("session/report.json").path)
        let sessionPipeline = try XCTUnwrap(sessionReport["pipeline"] as? [String: Any])
        XCTAssertEqual(sessionPipeline["sent_gaps"] as? Int, 0, "\(String(describing: sessionReport["sent_glitches"]))")
        XCTAssertEqual(sessionPipeline["sent_clicks"] as? Int, pipeline["sent_clicks"] as? Int, "\(String(describing: sessionReport["sent_glitches"]))")

        // Gaps where no echo reaches what is sent are kept: webrtc-mobile sends exact zeros over
        // the file's audio under a far end (the file holds no echo to suppress), each listed
        // where sent.wav holds them, none in the file's pause.
        let gated = try writeScenario("""
            {"name": "gated", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "mic": {"device": "file", "file": "clicky.wav"}, "aec": {"mode": "intensityMax", "backend": "webrtc-mobile"}, "duration_s": 3}
            """, named: "gated.json", in: folder)
        let mobile = try runEchoLab(["run", gated, "--out", "gated", "--all-taps"], in: folder)
        XCTAssertEqual(mobile.status, 0, mobile.standardError)
        let gatedReport = try loadJSON(folder.appendingPathComponent("gated/report.json").path)
        let gaps = try XCTUnwrap((gatedReport["sent_glitches"] as? [String: Any])?["gaps"] as? [[String: Any]])
        XCTAssertEqual(gaps.count, (gatedReport["pipeline"] as? [String: Any])?["sent_gaps"] as? Int)
        XCTAssertGreaterThan(gaps.count, 0, "the suppression's zeros are gaps")
        let sent = try AudioFileStream.readAll(path: folder.appendingPathComponent("gated/sent.wav").path).samples
        // Digital silence as the detector reads it: under 1e-6 (the rate converters' tails).
        var zeroRuns: [Range<Int>] = [], runStart: Int?
        for (index, sample) in sent.enumerated() {
            if abs(sample) < 1e-6 { runStart = runStart ?? index } else if let start = runStart { zeroRuns.append(start..<index); runStart = nil }
        }
        for gap in gaps {
            let (start, end) = (try XCTUnwrap(gap["start_s"] as? Double), try XCTUnwrap(gap["end_s"] as? Double))
            XCTAssertTrue(zeroRuns.contains { abs(Double($0.lowerBound) / Double(rate) - start) <= 0.0002 && abs(Double($0.upperBound) / Double(rate) - end) <= 0.0002 },
                          "a gap at \(start)–\(end) s where sent.wav holds no silence")
            XCTAssertFalse(start >= 2.2 && end <= 2.7, "the file's pause at \(start)–\(end) s")
        }
        let gatedMarkdown = try String(contentsOf: folder.appendingPathComponent("gated/report.md"), encoding: .utf8)
        let gatedLine = try XCTUnwrap(gatedMarkdown.split(separator: "\n").first { $0.contains("gaps at ") }, gatedMarkdown)
        XCTAssertTrue(gatedLine.contains(String(format: "gaps at %.2f s–%.2f s", gaps[0]["start_s"] as! Double, gaps[0]["end_s"] as! Double)), String(gatedLine))
        let html = try String(contentsOf: folder.appendingPathComponent("gated/report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains(String(gatedLine)), "report.html says the same")
    }

    /// A canceller that suppresses echo to exact zeros (AECM does, for up to ~150 ms) made no
    /// dropout: its zeros over live echo are its suppression, judged by ERLE and the near end's
    /// figures. Counted as gaps they made every webrtc-mobile run "a run with pipeline issues",
    /// and moving a scenario's echo path by 1 ms moved its count by 2 and failed the gate (a CI
    /// engineer's trial). The same zeros over a near end with no echo are a gap: there was no
    /// echo to suppress.
    func testZerosOverLiveEchoAreTheCancellersSuppressionNotAGap() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let drops = try CancellerPluginTests.misbehaving("drops", in: folder)
        func gaps(_ name: String, _ sources: String, arguments: [String] = []) throws -> [[String: Any]] {
            let scenario = try writeScenario("""
                {"name": "\(name)", \(sources), "noise": {"level_dbfs": -60, "seed": 7}, "echo_path": {"delay_ms": 40, "gain_db": -6},
                 "aec": {"mode": "intensityMax", "backend": "drops", "plugin": "\(drops)"}, "duration_s": 3}
                """, named: "\(name).json", in: folder)
            let run = try runEchoLab(["run", scenario, "--out", name, "--no-taps"] + arguments, in: folder)
            XCTAssertEqual(run.status, 0, run.standardError)
            let report = try loadJSON(folder.appendingPathComponent("\(name)/report.json").path)
            let listed = try XCTUnwrap((report["sent_glitches"] as? [String: Any])?["gaps"] as? [[String: Any]])
            XCTAssertEqual(listed.count, (report["pipeline"] as? [String: Any])?["sent_gaps"] as? Int, name)
            return listed
        }
        XCTAssertEqual(try gaps("echo", #""far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1}"#).count, 0)
        let talker = try gaps("talker", #""near_end": {"generator": "white_noise", "level_dbfs": -30, "seed": 2}"#)
        XCTAssertEqual(talker.count, 1, "\(talker)")
        // A faint far end whose echo never falls silent, under a louder near end: the zeros cut the
        // talker, not the echo (echo present is not echo suppressed).
        let over = try gaps("over", #""far_end": {"generator": "white_noise", "level_dbfs": -50, "seed": 1}, "near_end": {"generator": "white_noise", "level_dbfs": -25, "seed": 2}"#)
        XCTAssertEqual(over.count, 1, "\(over)")
        XCTAssertEqual(try XCTUnwrap(talker.first?["start_s"] as? Double), 1, accuracy: 0.005)
        XCTAssertEqual(try XCTUnwrap(talker.first?["end_s"] as? Double), 1.15, accuracy: 0.005)
        // AECM itself on the default corpus's double-talk room: 3 gaps before, all its suppression.
        let corpus = packageRoot.appendingPathComponent("vectors/scenarios")
        let run = try runEchoLab(["run", corpus.appendingPathComponent("speech-room-doubletalk.json").path, "--out", "aecm", "--no-taps",
                                  "--aec", "webrtc-mobile:intensityRecommended"], in: folder)
        XCTAssertEqual(run.status, 0, run.standardError)
        let report = try loadJSON(folder.appendingPathComponent("aecm/report.json").path)
        XCTAssertEqual((report["pipeline"] as? [String: Any])?["sent_gaps"] as? Int, 0)
    }

    /// A text-to-speech far end pauses in exact zeros, and so does its echo in a room without
    /// noise: with the canceller off, what is sent is that input, and its pauses and plosives
    /// are the input's, not dropouts or clicks of the pipeline (one espeak-ng voice read 15 gaps
    /// and 4 clicks). A mute in the same call is no gap either (the pipeline sent that silence on
    /// purpose: `SilencedStretchGapTests`), but its edges are clicks.
    func testTheRoomsOwnPausesAndClicksAreNotThePipelines() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try speak("Hello, this is the far end talking. I am calling to ask whether the report is ready. Please send it soon.",
                  to: "far.wav", in: folder)
        let far = try AudioFileStream.readAll(path: folder.appendingPathComponent("far.wav").path).samples
        // Runs of exact zeros of 5 ms or more between its words.
        var pauses = 0, run = 0
        for sample in far { if sample == 0 { run += 1 } else { pauses += run >= 110 ? 1 : 0; run = 0 } }
        XCTAssertGreaterThan(pauses, 3, "the voice pauses in digital silence")
        for (name, timeline, gaps) in [("plain", "", 0), ("muted", #", "timeline": [{"at_ms": 2000, "action": "mute"}, {"at_ms": 2500, "action": "unmute"}]"#, 0)] {
            let scenario = try writeScenario("""
                {"name": "\(name)", "far_end": "far.wav", "echo_path": {"delay_ms": 40, "gain_db": -6}, "aec": {"mode": "disabled"}\(timeline)}
                """, named: "\(name).json", in: folder)
            let run = try runEchoLab(["run", scenario, "--out", name, "--no-taps"], in: folder)
            XCTAssertEqual(run.status, 0, run.standardError)
            let report = try loadJSON(folder.appendingPathComponent("\(name)/report.json").path)
            let pipeline = try XCTUnwrap(report["pipeline"] as? [String: Any])
            XCTAssertEqual(pipeline["sent_gaps"] as? Int, gaps, name)
            // The only clicks are the mute's own edges (the output cut, then back mid-word).
            let clicks = try XCTUnwrap((report["sent_glitches"] as? [String: Any])?["clicks"] as? [[String: Any]])
            XCTAssertEqual(clicks.count, pipeline["sent_clicks"] as? Int)
            if name == "muted" { XCTAssertGreaterThan(clicks.count, 0, "the output cut mid-word clicks") }
            for click in clicks {
                let time = try XCTUnwrap(click["t_s"] as? Double)
                XCTAssertTrue(name == "muted" && (abs(time - 2) <= 0.01 || abs(time - 2.5) <= 0.01), "\(name): a click at \(time) s")
            }
        }
    }
}
