import EchoLabTestSupport
import Foundation
import XCTest

/// The field's ordering of cancellers, through `eval --scorer aecmos` on a room the test builds:
/// two espeak-ng voices (a far end, and a near end that talks from the first second: espeak-ng
/// drops the leading `<break>` its text asks for, so double talk starts with the call), a 0.3 s
/// RT60 synthetic room at 0 dB echo gain (double talk near 0 dB SER). scripts/aecmos-rooms.sh
/// scores this room beside one whose talker does start 7 s in. WebRTC's AEC leaves less echo
/// than speexdsp (AECMOS echo higher) and cuts the near talker more (double-talk other lower);
/// and eval.json's scores are the same bytes with one job and with two.
///
/// Long: it needs `make scorers` and espeak-ng (`make test-deps`); `make test-long` runs it.
final class AecmosOrderingTests: XCTestCase {
    static let farText = "Hello, this is the far end talking. I am calling to ask whether the report on echo cancellation is ready. We need it before the meeting tomorrow morning, so please send it as soon as you can. The numbers from last week looked good, but the double talk tests were missing. Could you run them again with the new corpus and tell me what you find."
    static let nearText = #"<speak><break time="7s"/>Yes, I can hear you. The report is almost done. I ran the tests this morning and the results look much better than before. Let me check the last few items and then I will send it over.</speak>"#

    func testWebRTCRemovesMoreEchoAndKeepsLessOfTheNearTalkerThanSpeex() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try speak(Self.farText, to: "far.wav", in: root)
        try speak(Self.nearText, voice: "en-gb+f3", wordsPerMinute: 140, extra: ["-m"], to: "near.wav", in: root)
        _ = try writeScenario("""
            {"name": "voices", "far_end": "far.wav", "near_end": "near.wav", "noise": {"level_dbfs": -65, "seed": 3},
             "echo_path": {"delay_ms": 40, "gain_db": 0, "synthetic_room": {"rt60_ms": 300, "seed": 1}},
             "aec": {"backend": "speex", "mode": "intensityRecommended"}}
            """, named: "voices.json", in: root)
        let inputs = try snapshot(root)
        let modes = "speex:intensityRecommended,webrtc:intensityRecommended"
        for (folder, jobs) in [("two", "2"), ("one", "1")] {
            let eval = try runEchoLab(["eval", "voices.json", "--modes", modes, "--out", folder, "--jobs", jobs, "--no-taps",
                                       "--scorer", "aecmos", "--scorer-timeout", "300"], in: root, timeout: 900)
            XCTAssertEqual(eval.status, 0, eval.standardError)
            XCTAssertFalse(eval.standardError.contains("warning: scorer"), eval.standardError)
        }
        var one = try loadJSON(root.appendingPathComponent("one/eval.json").path), two = try loadJSON(root.appendingPathComponent("two/eval.json").path)
        one["timing"] = nil
        two["timing"] = nil
        XCTAssertEqual(NSDictionary(dictionary: one), NSDictionary(dictionary: two), "eval.json's scores do not depend on --jobs")

        // Per mode: talk type → score → mean.
        var means: [String: [String: [String: Double]]] = [:]
        for summary in try XCTUnwrap(two["mode_summary"] as? [[String: Any]]) {
            let mode = try XCTUnwrap(summary["mode"] as? String)
            let scorer = try XCTUnwrap((summary["scores"] as? [[String: Any]])?.first)
            XCTAssertEqual(scorer["scorer"] as? String, "aecmos")
            XCTAssertEqual(scorer["unscored_runs"] as? Int, 0)
            for score in try XCTUnwrap(scorer["scores"] as? [[String: Any]]) {
                let talk = try XCTUnwrap(score["talk_type"] as? String), name = try XCTUnwrap(score["score"] as? String)
                means[mode, default: [:]][talk, default: [:]][name] = (score["statistics"] as? [String: Any])?["mean"] as? Double
            }
        }
        let speex = try XCTUnwrap(means["speex:intensityRecommended"]), webrtc = try XCTUnwrap(means["webrtc:intensityRecommended"])
        let speexEcho = try XCTUnwrap(speex["dt"]?["aecmos_echo"]), webrtcEcho = try XCTUnwrap(webrtc["dt"]?["aecmos_echo"])
        let speexOther = try XCTUnwrap(speex["dt"]?["aecmos_other"]), webrtcOther = try XCTUnwrap(webrtc["dt"]?["aecmos_other"])
        XCTAssertGreaterThan(webrtcEcho, speexEcho, "WebRTC's AEC leaves less echo in double talk")
        XCTAssertLessThan(webrtcOther, speexOther - 0.5, "WebRTC's AEC cuts the near talker in double talk, speexdsp keeps it")
        XCTAssertGreaterThan(try XCTUnwrap(webrtc["st"]?["aecmos_echo"]), 4.5, "the issue's table: 4.7 in far-end single talk")
        XCTAssertGreaterThan(try XCTUnwrap(webrtc["st"]?["aecmos_echo"]), try XCTUnwrap(speex["st"]?["aecmos_echo"]))

        // The run's own report carries the scores, with the scorer's identity, in every format.
        let report = try String(contentsOf: root.appendingPathComponent("two/voices/webrtc-intensityRecommended/report.md"), encoding: .utf8)
        XCTAssertTrue(report.contains("## Scores"), report)
        XCTAssertTrue(report.contains("speechmos aecmos"), report)   // the scorer as it names itself
        let page = try String(contentsOf: root.appendingPathComponent("two/eval.html"), encoding: .utf8)
        XCTAssertTrue(page.contains("AECMOS in double talk"), "the both-axes plot")
        XCTAssertEqual(try snapshot(root).filter { inputs[$0.key] != nil }, inputs, "inputs unchanged")
    }
}
