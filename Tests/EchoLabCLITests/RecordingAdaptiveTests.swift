import EchoLabTestSupport
import Foundation
import XCTest

/// `intensityAdaptive` on recordings is the controller a simulated call runs: it measures the
/// recording's echo path and steers the suppression, so it is no silent copy of
/// `intensityRecommended` (its starting point), and its report says what it decided.
final class RecordingAdaptiveTests: XCTestCase {
    func testAdaptiveSteersTheSuppressionOnARecording() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        // A loud speakerphone: the echo 2 dB under the loudspeaker (ERL < 6 dB asks for −60/−25 dB).
        let run = try runEchoLab(["run", try writeScenario("""
            {"name": "loud", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "noise": {"level_dbfs": -65, "seed": 2}, "echo_path": {"delay_ms": 30, "gain_db": -2}, "duration_s": 4}
            """, in: root), "--out", "taps"], in: root)
        XCTAssertEqual(run.status, 0, run.standardError)
        // The echo track too: the scoring then needs no tap-free gate (its clip search takes
        // seconds a run), and what is tested here is the processing, not the scoring.
        try Data("""
            {"corpus": [{"name": "loud", "mic": "taps/mic.wav", "loopback": "taps/reference.wav", "echo": "taps/echo.wav"}]}
            """.utf8).write(to: root.appendingPathComponent("corpus.json"))
        let inputs = try snapshot(root.appendingPathComponent("taps"))
        let modes = "speex:intensityRecommended,speex:intensityAdaptive,webrtc:intensityRecommended,webrtc:intensityAdaptive"
        let eval = try runEchoLab(["eval", "corpus.json", "--modes", modes, "--out", "out"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)

        for backend in ["speex", "webrtc"] {
            let folder = root.appendingPathComponent("out/loud")
            let adaptive = try Data(contentsOf: folder.appendingPathComponent("\(backend)-intensityAdaptive/sent.wav"))
            let recommended = try Data(contentsOf: folder.appendingPathComponent("\(backend)-intensityRecommended/sent.wav"))
            XCTAssertNotEqual(adaptive, recommended, "\(backend): adaptive ran as recommended")
            let report = try loadJSON(folder.appendingPathComponent("\(backend)-intensityAdaptive/report.json").path)
            let decisions = try XCTUnwrap(report["adaptive_aec"] as? [[String: Any]])
            // Its first decision, half a second in (48 kHz samples), from the echo it measured.
            let first = try XCTUnwrap(decisions.first)
            XCTAssertEqual(first["sample"] as? Int, 24_000, "\(backend)")
            XCTAssertLessThan(first["erl_estimate_db"] as! Double, 6, "\(backend)")
            XCTAssertEqual(first["suppression_db"] as? Int, -60, "\(backend)")
            let page = try String(contentsOf: folder.appendingPathComponent("\(backend)-intensityAdaptive/report.md"), encoding: .utf8)
            XCTAssertTrue(page.contains("## Adaptive AEC decisions"), page)
            XCTAssertTrue(page.contains("| 0.50 s | "), page)
            let other = try loadJSON(folder.appendingPathComponent("\(backend)-intensityRecommended/report.json").path)
            XCTAssertEqual((other["adaptive_aec"] as? [Any])?.count, 0)
        }

        // A merge renders the pages again from report.json: the decisions come back with it.
        for (index, shard) in ["1/2", "2/2"].enumerated() {
            let part = try runEchoLab(["eval", "corpus.json", "--modes", "speex:intensityAdaptive,speex:intensityMax", "--shard", shard,
                                       "--out", "s\(index)"], in: root)
            XCTAssertEqual(part.status, 0, part.standardError)
        }
        let merged = try runEchoLab(["merge", "s0", "s1", "--out", "merged"], in: root)
        XCTAssertEqual(merged.status, 0, merged.standardError)
        let page = try String(contentsOf: root.appendingPathComponent("merged/loud/speex-intensityAdaptive/report.md"), encoding: .utf8)
        let original = try String(contentsOf: root.appendingPathComponent("out/loud/speex-intensityAdaptive/report.md"), encoding: .utf8)
        XCTAssertEqual(page.components(separatedBy: "## Adaptive AEC decisions").last?.components(separatedBy: "##").first,
                       original.components(separatedBy: "## Adaptive AEC decisions").last?.components(separatedBy: "##").first)
        XCTAssertEqual(try snapshot(root.appendingPathComponent("taps")), inputs, "inputs untouched")
    }
}
