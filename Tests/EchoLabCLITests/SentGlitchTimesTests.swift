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
        // A tone whose phase jumps by half a period at 1.5 s (one click) and that drops out from
        // 2.2 to 2.6 s (one gap), from a file the app pushes.
        let rate = 48_000
        let tone = (0..<(3 * rate)).map { i -> Float in
            let phase = 2 * Double.pi * 440 * Double(i) / Double(rate) + (i >= 3 * rate / 2 ? Double.pi : 0)
            return (2_200 * 48..<2_600 * 48).contains(i) ? 0 : Float(0.1 * sin(phase))
        }
        try SoundFileWriter.write(tone, to: folder.appendingPathComponent("clicky.wav").path, sampleRate: rate)
        let scenario = try writeScenario("""
            {"name": "clicky", "mic": {"device": "file", "file": "clicky.wav"}, "aec": {"mode": "disabled"}, "duration_s": 3}
            """, in: folder)
        let run = try runEchoLab(["run", scenario, "--out", "out", "--no-taps"], in: folder)
        XCTAssertEqual(run.status, 0, run.standardError)
        let report = try loadJSON(folder.appendingPathComponent("out/report.json").path)
        let glitches = try XCTUnwrap(report["sent_glitches"] as? [String: Any])
        let clicks = try XCTUnwrap(glitches["clicks"] as? [[String: Any]])
        let gaps = try XCTUnwrap(glitches["gaps"] as? [[String: Any]])
        let pipeline = try XCTUnwrap(report["pipeline"] as? [String: Any])
        XCTAssertEqual(clicks.count, pipeline["sent_clicks"] as? Int)
        XCTAssertEqual(gaps.count, pipeline["sent_gaps"] as? Int)
        // The one-line summary says so too (1046 clicks read as a clean run there).
        func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s") in the sent audio, " }
        XCTAssertTrue(run.standardOutput.contains(", " + counted(clicks.count, "click") + counted(gaps.count, "gap")), run.standardOutput)
        // The jump, a send path's latency later.
        let jump = try XCTUnwrap(clicks.first { (($0["t_s"] as? Double) ?? 0) >= 1.5 && (($0["t_s"] as? Double) ?? 0) < 1.6 }, "\(clicks)")
        XCTAssertEqual(try XCTUnwrap(jump["sample"] as? Double), (jump["t_s"] as! Double) * Double(rate), accuracy: 5)   // t_s to four decimals
        XCTAssertGreaterThan(try XCTUnwrap(jump["strength_db"] as? Double), 0)
        let dropout = try XCTUnwrap(gaps.first, "the dropout is a gap: \(glitches)")
        XCTAssertEqual(try XCTUnwrap(dropout["start_s"] as? Double), 2.2, accuracy: 0.06)
        XCTAssertEqual(try XCTUnwrap(dropout["end_s"] as? Double), 2.6, accuracy: 0.06)

        let markdown = try String(contentsOf: folder.appendingPathComponent("out/report.md"), encoding: .utf8)
        let line = try XCTUnwrap(markdown.split(separator: "\n").first { $0.hasPrefix("Clicks in the sent audio at ") }, markdown)
        XCTAssertTrue(line.contains(String(format: "%.2f s", jump["t_s"] as! Double)), String(line))
        XCTAssertTrue(line.contains(String(format: "gaps at %.2f s–%.2f s", dropout["start_s"] as! Double, dropout["end_s"] as! Double)), String(line))
        let html = try String(contentsOf: folder.appendingPathComponent("out/report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains(String(line)), "report.html says the same")
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
