import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// A recording's report lists and draws the talk the gate heard, window by window, as a call's
/// does: without tracks its figures rest on the tap-free gate's decisions, which its pages did
/// not show (an audio engineer's trial could not tell where the gate heard double talk).
final class RecordingTalkLanesTests: XCTestCase {
    func testARecordingsReportShowsTheTalkTheGateHeard() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        // Speech from the far end throughout, a near talker from 2 to 3.5 s.
        let rate = 48_000
        var talker = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 210), sampleRate: rate, count: 5 * rate, seed: 5)
        for index in talker.indices where !(2 * rate..<(7 * rate / 2)).contains(index) { talker[index] = 0 }
        try SoundFileWriter.write(talker, to: root.appendingPathComponent("talker.wav").path, sampleRate: rate)
        let run = try runEchoLab(["run", try writeScenario("""
            {"name": "talk", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4}, "near_end": "talker.wav",
             "noise": {"level_dbfs": -65, "seed": 2}, "echo_path": {"delay_ms": 30, "gain_db": -6}, "duration_s": 5}
            """, in: root), "--out", "taps", "--all-taps"], in: root)
        XCTAssertEqual(run.status, 0, run.standardError)
        try Data("""
            {"corpus": [{"name": "tapfree", "mic": "taps/mic.wav", "loopback": "taps/reference.wav"},
                        {"name": "tracked", "mic": "taps/mic.wav", "loopback": "taps/reference.wav", "echo": "taps/echo.wav", "near_end": "taps/near.wav"}]}
            """.utf8).write(to: root.appendingPathComponent("corpus.json"))
        let inputs = try snapshot(root.appendingPathComponent("taps"))
        let eval = try runEchoLab(["eval", "corpus.json", "--modes", "speex:intensityRecommended", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)

        for item in ["tapfree", "tracked"] {
            let folder = root.appendingPathComponent("out/\(item)/speex-intensityRecommended")
            let report = try loadJSON(folder.appendingPathComponent("report.json").path)
            let windows = try XCTUnwrap(report["activity_series"] as? [[String: Any]], item)
            XCTAssertGreaterThan(windows.count, 8, item)
            func count(_ key: String, _ window: [String: Any]) -> Int { window[key] as? Int ?? -1 }
            // The double talk the gate heard lies where the talker spoke (its windows end half a
            // second after they start) — all of it with the tracks, nearly all where the tap-free
            // gate hears it (a frame or two elsewhere) — and the windows add up to the gate's counts.
            let total = windows.reduce(0) { $0 + count("double_talk_analysis_frames", $1) }
            let whileTalking = windows.filter { ($0["end_s"] as! Double) >= 2 && ($0["t_s"] as! Double) <= 3.6 }
                .reduce(0) { $0 + count("double_talk_analysis_frames", $1) }
            XCTAssertGreaterThan(total, 40, item)
            XCTAssertGreaterThanOrEqual(Double(whileTalking), (item == "tracked" ? 1 : 0.95) * Double(total), item)
            let gate = try XCTUnwrap((report["metrics"] as? [String: Any])?["gate"] as? [String: Any])
            XCTAssertEqual(windows.reduce(0) { $0 + count("double_talk_analysis_frames", $1) }, gate["double_talk_analysis_frames"] as? Int, item)
            XCTAssertEqual(windows.reduce(0) { $0 + count("far_end_analysis_frames", $1) }, gate["far_end_active_analysis_frames"] as? Int, item)
            // Drawn under the ERLE plot, as a call's are, with the plot's bounds marked.
            let html = try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8)
            for lane in ["far end talks", "near end talks", "double talk"] {
                XCTAssertTrue(html.contains("<text class=\"lane-label\"") && html.contains(">\(lane)</text>"), "\(item): \(lane)")
            }
        }

        // A merge renders a recording's pages again from its report.json: the lanes come back.
        for (index, shard) in ["1/2", "2/2"].enumerated() {
            let part = try runEchoLab(["eval", "corpus.json", "--modes", "speex:intensityRecommended", "--shard", shard,
                                       "--out", "s\(index)", "--no-taps"], in: root)
            XCTAssertEqual(part.status, 0, part.standardError)
        }
        XCTAssertEqual(try runEchoLab(["merge", "s0", "s1", "--out", "merged"], in: root).status, 0)
        for item in ["tapfree", "tracked"] {
            let page = "\(item)/speex-intensityRecommended/report.html"
            XCTAssertEqual(try Data(contentsOf: root.appendingPathComponent("merged/\(page)")),
                           try Data(contentsOf: root.appendingPathComponent("out/\(page)")), page)
        }
        XCTAssertEqual(try snapshot(root.appendingPathComponent("taps")), inputs, "inputs untouched")
    }
}
