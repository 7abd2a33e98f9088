import Evaluation
import Foundation
import XCTest

/// `echo-leak-after-mic-switch`: back on the device mic after a mic that hears no room, a
/// canceller that lost the echo path leaks until it learns it again.
final class MicSwitchLeakTests: XCTestCase {
    /// A speech far end over the vectors' room, 16 s; `timeline`: the switches.
    private func report(_ timeline: String) throws -> RunReport {
        let inputs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../vectors/inputs").standardized.path
        return try runReport(ofScenario: """
            {"name": "mic-switch", "duration_s": 16, "aec": {"backend": "speex", "mode": "intensityRecommended"},
             "echo_path": {"delay_ms": 60, "gain_db": -10, "impulse_response": "\(inputs)/room_rir_48k.wav"},
             "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 3}, "noise": {"level_dbfs": -60, "seed": 7},
             "timeline": \(timeline.replacingOccurrences(of: "FILE", with: "\(inputs)/file_mic_44k.wav"))}
            """)
    }

    private func leaks(_ report: RunReport) -> [RunReport.Finding] { report.findings.filter { $0.rule == MicSwitchLeakFinding.rule } }

    /// speex left on through a file mic's 5 s: the first second back leaks, against the second
    /// before the switch away, by the report's own segment figures.
    func testACancellerLeftOnThroughAFileMicLeaks() throws {
        let report = try report(#"[{"action": "set_custom_mic", "at_ms": 5000, "device": "file", "file": "FILE"}, {"action": "reset_custom_mic", "at_ms": 10000}]"#)
        let leak = try XCTUnwrap(leaks(report).first, "\(report.findings.map(\.rule))")
        XCTAssertEqual(leak.kind, .canceller)
        XCTAssertEqual(leak.atSeconds, 10)
        XCTAssertEqual(leak.untilSeconds, 11)
        let erle = try XCTUnwrap(leak.consequenceDB)
        XCTAssertLessThan(erle, HardwareFindings.leakERLEThresholdDB)
        // The segment back on the device mic settles far above what leaked in its first second.
        let back = try XCTUnwrap(report.segments.last)
        XCTAssertEqual(back.startSeconds, 10)
        XCTAssertGreaterThan(try XCTUnwrap(back.metrics.erleSteadyDB), erle + 10)
        XCTAssertTrue(leak.message.hasPrefix("back on the device mic after 5.0 s on a mic that hears no room"), leak.message)
        XCTAssertTrue(leak.consequence.contains(" in the first second back on the device mic, against "), leak.consequence)
        // Against the last second the device mic fed the call before the switch away.
        XCTAssertTrue(leak.consequence.contains(" dB over 4.0–5.0 s before the switch away; the echo reaching the peer is "), leak.consequence)
    }

    /// Turned off for the file mic and on again, the canceller starts anew: a larger leak.
    func testACancellerTurnedOffAndOnLeaksToo() throws {
        let report = try report("""
            [{"action": "set_custom_mic", "at_ms": 5000, "device": "file", "file": "FILE"}, {"action": "set_aec", "at_ms": 5000, "mode": "disabled"},
             {"action": "reset_custom_mic", "at_ms": 10000}, {"action": "set_aec", "at_ms": 10000, "mode": "intensityRecommended"}]
            """)
        XCTAssertLessThan(try XCTUnwrap(leaks(report).first?.consequenceDB), 3)
    }

    /// The second before the switch away is the canceller's, whatever else the switch did: turned
    /// off with the file mic (PlanetKit's advice), the canceller stops at 4.00 s while the file mic
    /// takes over a tick or two later, and the device mic's frames between went out raw. Counted,
    /// they read the second before 21.7 dB where the canceller left on read ≥ 30, and the leak
    /// 8 dB smaller (a trial's white-noise call). Both runs send the same before 4.00 s, and read
    /// the same "before".
    func testTheSecondBeforeTheSwitchIsTheSameWhateverTheSwitchTurnsOff() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../vectors/inputs/file_mic_44k.wav")
            .standardized.path
        func before(_ actions: String) throws -> String {
            let report = try runReport(ofScenario: """
                {"name": "file-mic", "duration_s": 14, "aec": {"backend": "speex", "mode": "intensityRecommended"},
                 "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 5}, "noise": {"level_dbfs": -60, "seed": 3},
                 "echo_path": {"delay_ms": 30, "gain_db": -10, "synthetic_room": {"rt60_ms": 250, "seed": 1}},
                 "timeline": [{"action": "set_custom_mic", "at_ms": 4000, "device": "file", "file": "\(file)", "loop": true},
                              {"action": "reset_custom_mic", "at_ms": 8000}\(actions)]}
                """)
            let leak = try XCTUnwrap(leaks(report).first, "\(report.findings.map(\.rule))")
            // "… against at least 30.0 dB over 3.0–4.0 s before the switch away; …"
            let against = try XCTUnwrap(leak.consequence.range(of: ", against "))
            let over = try XCTUnwrap(leak.consequence.range(of: " before the switch away"))
            return String(leak.consequence[against.upperBound..<over.lowerBound])
        }
        let left = try before("")
        XCTAssertTrue(left.hasPrefix("at least 30.0 dB over "), left)
        XCTAssertEqual(try before(#", {"action": "set_aec", "at_ms": 4000, "mode": "disabled"}, {"action": "set_aec", "at_ms": 8000, "mode": "intensityRecommended"}"#),
                       left)
    }

    /// A canceller turned on only with the file mic had no path to lose: back on the device mic it
    /// converges for the first time, and the switch is not judged — no finding, and no "too little
    /// far-end single talk" said of a device-mic stretch that had plenty, with the canceller off
    /// (a review's): the device mic fed it a tick or two before the file mic took over, and that
    /// is said.
    func testACancellerOffAllTheDeviceMicsStretchIsNotJudged() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../vectors/inputs/file_mic_44k.wav")
            .standardized.path
        let report = try runReport(ofScenario: """
            {"name": "off-before", "duration_s": 12, "aec": {"backend": "speex", "mode": "disabled"},
             "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 5}, "noise": {"level_dbfs": -60, "seed": 3},
             "echo_path": {"delay_ms": 30, "gain_db": -10, "synthetic_room": {"rt60_ms": 250, "seed": 1}},
             "timeline": [{"action": "set_custom_mic", "at_ms": 4000, "device": "file", "file": "\(file)", "loop": true},
                          {"action": "set_aec", "at_ms": 4000, "mode": "intensityRecommended"}, {"action": "reset_custom_mic", "at_ms": 8000}]}
            """)
        XCTAssertEqual(leaks(report), [])
        XCTAssertGreaterThan(try XCTUnwrap(report.segments.first?.metrics.singleTalkFrames), 300, "the device mic's stretch had far end to judge by")
        XCTAssertEqual(report.segments.compactMap(\.echoLeakUnjudgedReason),
                       ["back on the device mic, the canceller had been on it for 0.02 s before the switch away, "
                        + "under the second it takes to converge: no path learnt to lose, nothing to compare with"])
    }

    /// Muted when it switches back, the call is judged from the unmute: what the peer heard.
    func testAMutedSwitchIsJudgedFromTheUnmute() throws {
        let report = try report("""
            [{"action": "set_custom_mic", "at_ms": 5000, "device": "file", "file": "FILE"}, {"action": "mute", "at_ms": 8000},
             {"action": "reset_custom_mic", "at_ms": 10000}, {"action": "unmute", "at_ms": 10500}]
            """)
        let leak = try XCTUnwrap(leaks(report).first, "\(report.findings.map(\.rule))")
        XCTAssertEqual(leak.atSeconds, 10.5)
        XCTAssertTrue(leak.consequence.contains(" in the first second back on the device mic (from the unmute at 10.5 s), against "), leak.consequence)
    }

    /// A switch back too close to the call's end to judge is said on its segment, not left as
    /// no finding.
    func testASwitchTooLateToJudgeSaysSo() throws {
        let report = try report(#"[{"action": "set_custom_mic", "at_ms": 5000, "device": "file", "file": "FILE"}, {"action": "reset_custom_mic", "at_ms": 15900}]"#)
        XCTAssertEqual(leaks(report).count, 0)
        let back = try XCTUnwrap(report.segments.last)
        XCTAssertEqual(back.startSeconds, 15.9)
        let reason = try XCTUnwrap(back.echoLeakUnjudgedReason)
        XCTAssertTrue(reason.hasPrefix("back on the device mic, the first 0.1 s back hold "), reason)
        // report.json says it on the segment too.
        let segments = try XCTUnwrap(report.json()["segments"]?.arrayValue)
        XCTAssertEqual(segments.last?["echo_leak_unjudged"]?.stringValue, reason)
    }

    /// A call that starts on a file mic had no echo path to lose: the device mic's first second
    /// is the canceller's first convergence, not a leak. Nor is a canceller off on the way back.
    func testNoPathToLoseOrNoCancellerIsNoLeak() throws {
        let fromStart = try report(#"[{"action": "set_custom_mic", "at_ms": 0, "device": "file", "file": "FILE"}, {"action": "reset_custom_mic", "at_ms": 5000}]"#)
        XCTAssertEqual(leaks(fromStart).count, 0)
        XCTAssertEqual(fromStart.segments.compactMap(\.echoLeakUnjudgedReason), [], "nothing to judge, not unjudged")
        let off = try report("""
            [{"action": "set_custom_mic", "at_ms": 5000, "device": "file", "file": "FILE"}, {"action": "reset_custom_mic", "at_ms": 10000},
             {"action": "set_aec", "at_ms": 10000, "mode": "disabled"}]
            """)
        XCTAssertEqual(leaks(off).count, 0)
        XCTAssertEqual(off.segments.compactMap(\.echoLeakUnjudgedReason), [])
    }
}
