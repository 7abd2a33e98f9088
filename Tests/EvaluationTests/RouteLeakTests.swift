import AudioCore
import AudioInterop
import EchoLabTestSupport
import EchoLabJSON
import Foundation
import Evaluation
import Reporting
import ScenarioFiles
import Simulation
import XCTest

/// `echo-leak-after-route-change` judges the first second of audio that flows on the new route,
/// and only where the echo reaching the peer got louder than before the change.
final class RouteLeakTests: XCTestCase {
    /// `signals`: the far end (and near end) and noise; white noise by default.
    private func report(_ json: String, signals: String = #""far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1}, "noise": {"level_dbfs": -70, "seed": 7}"#) throws -> RunReport {
        try runReport(ofScenario: """
            {"name": "leak", \(signals), \(json)}
            """)
    }

    private func leaks(_ report: RunReport) -> [RunReport.Finding] { report.findings.filter { $0.rule == "echo-leak-after-route-change" } }

    /// A quiet route → the speaker while audio flows, speex re-learning for seconds: a leak,
    /// with how much louder the echo reaching the peer got.
    func testAQuietRouteToTheSpeakerWhileActiveLeaks() throws {
        let broken = try report(#""duration_s": 8, "route": "receiver", "timeline": [{"at_ms": 5000, "action": "route_change", "route": "speaker"}]"#)
        let leak = try XCTUnwrap(leaks(broken).first)
        XCTAssertEqual(leak.atSeconds, 5)
        XCTAssertEqual(leak.untilSeconds, 6)
        XCTAssertLessThan(try XCTUnwrap(leak.consequenceDB), 10)
        XCTAssertTrue(leak.consequence.contains(" in the first second of audio on speaker; the echo reaching the peer is "), leak.consequence)
        XCTAssertTrue(leak.consequence.contains(" dB louder than before the change (echo loss "), leak.consequence)
    }

    /// The speaker's echo cancelled down to the noise before a change to the receiver: the echo
    /// loss before is only a bound (at least 40 dB), so the echo reaching the peer is at least,
    /// not exactly, that much louder after (a trial's report said a flat 23.1 dB).
    func testALeakAfterABoundIsAtLeastThatMuchLouder() throws {
        let report = try report(#""duration_s": 10, "route": "speaker", "aec": {"mode": "intensityRecommended", "backend": "speex"}, "timeline": [{"at_ms": 5000, "action": "route_change", "route": "receiver"}]"#,
                                signals: #""far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1}, "noise": {"level_dbfs": -60, "seed": 7}"#)
        let leak = try XCTUnwrap(leaks(report).first, "\(report.findings.map(\.rule))")
        XCTAssertTrue(leak.consequence.contains("; the echo reaching the peer is at least "), leak.consequence)
        XCTAssertTrue(leak.consequence.contains(" dB louder than before the change (echo loss "), leak.consequence)
        XCTAssertTrue(leak.consequence.hasSuffix(" dB, was at least 40.0 dB)"), leak.consequence)
    }

    /// The trial's s-rr-right (003's fix): the route changes to the speaker while the session is
    /// inactive and audio flows from the activation on. Nothing flowed before the change, so the
    /// canceller had no path to lose: its first second is the call's own convergence. No leak.
    func testARouteChangeBeforeAudioFlowsIsNoLeak() throws {
        let right = try report("""
            "duration_s": 4, "route": "receiver", "audio_session": {"active_at_start": false, "manual_audio": true},
            "timeline": [{"at_ms": 500, "action": "route_change", "route": "speaker"}, {"at_ms": 1000, "action": "activate_session"},
                         {"at_ms": 1000, "action": "set_audio_enabled", "enabled": true}]
            """)
        XCTAssertEqual(right.hardware?.silenced, [0..<48_000])
        XCTAssertEqual(leaks(right).count, 0, "\(right.findings.map(\.consequence))")
    }

    /// A change while a generator mic feeds the call: nothing leaks until the device mic is back,
    /// and the leak is judged from there (a trial's was judged over 2 s of a file mic's audio).
    func testAChangeWhileAMicHearsNoRoomIsJudgedWhenTheDeviceMicIsBack() throws {
        let report = try report("""
            "duration_s": 12, "route": "receiver",
            "timeline": [{"at_ms": 3000, "action": "set_custom_mic", "device": "generator", "signal": "tone", "frequency_hz": 440, "level_dbfs": -30},
                         {"at_ms": 5000, "action": "route_change", "route": "speaker"}, {"at_ms": 7000, "action": "reset_custom_mic"}]
            """)
        let leak = try XCTUnwrap(leaks(report).first, "\(report.findings.map(\.rule))")
        XCTAssertGreaterThanOrEqual(leak.atSeconds, 7)
        XCTAssertLessThan(leak.atSeconds, 7.1)
        XCTAssertTrue(leak.consequence.contains(" s, when the device mic was back)"), leak.consequence)
        XCTAssertEqual(report.findings.filter { $0.rule == MicSwitchLeakFinding.rule }.count, 0, "one leak, the route's")
    }

    /// A change the app mutes over: nothing leaks to the peer until the unmute, and the leak is
    /// judged from there. Judged from the change instead, a 3.5 s mute's first second holds
    /// nothing the peer hears and the leak after the unmute goes unsaid; a 0.6 s mute's "first
    /// second of audio" is mostly the mute's.
    func testAChangeWhileMutedIsJudgedFromTheUnmute() throws {
        for unmute in [5.6, 8.5] {
            let report = try report("""
                "duration_s": 11, "route": "receiver",
                "timeline": [{"at_ms": 4900, "action": "mute"}, {"at_ms": 5000, "action": "route_change", "route": "speaker"},
                             {"at_ms": \(Int(unmute * 1000)), "action": "unmute"}]
                """)
            let leak = try XCTUnwrap(leaks(report).first, "unmute at \(unmute): \(report.findings.map(\.rule))")
            XCTAssertEqual(leak.atSeconds, unmute)
            XCTAssertEqual(leak.untilSeconds, unmute + 1)
            XCTAssertLessThan(try XCTUnwrap(leak.consequenceDB), 10)
            XCTAssertTrue(leak.consequence.contains("in the first second of audio on speaker (from \(unmute) s, at the unmute); "
                                                    + "the echo reaching the peer is "), leak.consequence)
        }
    }

    /// A mute over a change that lasts past a gap in the audio (the session deactivated and
    /// activated again while muted): judged from the unmute in the later stretch, not left
    /// without a verdict because the first stretch held no unmute.
    func testAMuteLastingPastAGapInTheAudioIsJudgedFromTheUnmute() throws {
        let report = try report("""
            "duration_s": 11, "route": "receiver",
            "timeline": [{"at_ms": 4900, "action": "mute"}, {"at_ms": 5000, "action": "route_change", "route": "speaker"},
                         {"at_ms": 5500, "action": "deactivate_session"}, {"at_ms": 6000, "action": "activate_session"},
                         {"at_ms": 7000, "action": "unmute"}]
            """)
        let leak = try XCTUnwrap(leaks(report).first, "\(report.findings.map(\.rule))")
        XCTAssertEqual(leak.atSeconds, 7)
        XCTAssertTrue(leak.consequence.contains("(from 7.0 s, at the unmute)"), leak.consequence)
    }

    /// A change while the session is inactive mid-call (audio flowed before): the first second
    /// judged is the first second of audio after the reactivation, not the silent gap.
    func testAChangeWhileInactiveIsJudgedWhenAudioFlowsAgain() throws {
        let report = try report("""
            "duration_s": 9, "route": "receiver",
            "timeline": [{"at_ms": 5000, "action": "deactivate_session"}, {"at_ms": 5500, "action": "route_change", "route": "speaker"},
                         {"at_ms": 6000, "action": "activate_session"}]
            """)
        XCTAssertEqual(report.hardware?.silenced, [240_000..<288_000])
        let leak = try XCTUnwrap(leaks(report).first)
        XCTAssertEqual(leak.atSeconds, 6)
        XCTAssertEqual(leak.untilSeconds, 7)
        XCTAssertTrue(leak.consequence.contains("in the first second of audio on speaker (from 6.0 s, when audio flowed again)"), leak.consequence)
    }

    /// The trial's s-leak-down (the default corpus's recorded voices): speaker → receiver at 3 s.
    /// The canceller re-learns (little ERLE in the first second) but the receiver's echo is 20 dB
    /// weaker and the peer hears less echo than before, which is no leak.
    func testAChangeToAQuieterRouteIsNoLeak() throws {
        let inputs = packageRoot.appendingPathComponent("vectors/inputs").path
        let down = try report(#""duration_s": 8, "route": "speaker", "timeline": [{"at_ms": 3000, "action": "route_change", "route": "receiver"}]"#,
                              signals: """
                                  "far_end": "\(inputs)/farend_speech_16k.wav", "near_end": "\(inputs)/nearend_speech_16k.wav",
                                  "noise": {"level_dbfs": -60, "seed": 7}
                                  """)
        let erl = down.segments.map(\.metrics.erlDB)
        XCTAssertGreaterThan(try XCTUnwrap(erl[1]), try XCTUnwrap(erl[0]) + 15, "\(erl)")
        XCTAssertEqual(leaks(down).count, 0, "\(down.findings.map(\.consequence))")
    }

    /// Speaker → Bluetooth HFP with speex: HFP's echo path is far weaker, so the echo reaching the
    /// peer is quieter than on the speaker, but speex, still modelling the speaker's path, sends
    /// more than the mic holds (ERLE below 0 dB). That is a leak: it went unflagged.
    func testACancellerThatAddsEchoOnAQuieterRouteLeaks() throws {
        let routes = try report(#""duration_s": 12, "route": "speaker", "aec": {"backend": "speex", "mode": "intensityRecommended"}, "timeline": [{"at_ms": 4000, "action": "route_change", "route": "bluetooth_hfp"}]"#,
                                signals: #""far_end": {"generator": "speech", "level_dbfs": -20, "seed": 2}, "noise": {"level_dbfs": -70, "seed": 3}"#)
        let erl = routes.segments.map(\.metrics.erlDB)
        XCTAssertGreaterThan(try XCTUnwrap(erl[1]), try XCTUnwrap(erl[0]) + 15, "\(erl)")
        let leak = try XCTUnwrap(leaks(routes).first, "\(routes.findings.map(\.rule))")
        XCTAssertEqual(leak.atSeconds, 4)
        let erle = try XCTUnwrap(leak.consequenceDB)
        XCTAssertLessThan(erle, 0)
        // Louder than at the mic, not at the peer: the route's weaker path still leaves the peer less
        // echo than before, and the finding says how much (a QA engineer read "echo made 7.7 dB
        // louder" as louder at the peer).
        let prefix = "echo made \(FixedDecimal.text(-erle, fractionDigits: 1)) dB louder than at the mic in the first second of audio on bluetooth_hfp; "
            + "the new route's weaker path still leaves the peer "
        XCTAssertTrue(leak.consequence.hasPrefix(prefix), leak.consequence)
        XCTAssertTrue(leak.consequence.contains(" dB less echo than before the change (echo loss "), leak.consequence)
    }

    /// A change to the speaker while the far end is quiet for the 3 s the rule widens to: no
    /// far-end single talk to judge the leak on. No finding, and the segment the change opens
    /// says the leak was not judged (a missing finding read as no leak). The same change with the
    /// far end playing on is judged, and says nothing of it.
    func testALeakTooThinToJudgeIsSaidNotJudged() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // White noise at −20 dBFS, silent from 3.9 to 7.5 s.
        let noise = SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: 48_000, count: 8 * 48_000, seed: 1)
        let paused = noise.indices.map { (187_200..<360_000).contains($0) ? 0 : noise[$0] }
        let file = folder.appendingPathComponent("paused.wav").path
        try SoundFileWriter.write(paused, to: file, sampleRate: 48_000)
        let scene = #""duration_s": 8, "route": "receiver", "timeline": [{"at_ms": 4000, "action": "route_change", "route": "speaker"}]"#
        let quiet = try report(scene, signals: #""far_end": "\#(file)", "noise": {"level_dbfs": -70, "seed": 7}"#)
        XCTAssertTrue(leaks(quiet).isEmpty)
        XCTAssertEqual(quiet.segments[1].echoLeakUnjudgedReason,
                       "the first 3.0 s of audio on speaker hold 0 far-end single-talk analysis frames, fewer than the 20 an ERLE needs "
                       + "(the near end talked over the change, or the far end was quiet)")
        XCTAssertNil(quiet.segments[0].echoLeakUnjudgedReason)
        let segments = try XCTUnwrap(quiet.json()["segments"]?.arrayValue)
        XCTAssertEqual(segments[1]["echo_leak_unjudged"]?.stringValue, quiet.segments[1].echoLeakUnjudgedReason)
        XCTAssertNil(segments[0]["echo_leak_unjudged"], "written for route-change segments only")
        let page = MarkdownWriter.render(RunReportDocument.make(quiet))
        XCTAssertTrue(page.contains("4.00 s, the echo leak is not judged: the first 3.0 s of audio on speaker hold 0 "), page)
        let judged = try report(scene)
        XCTAssertNil(judged.segments[1].echoLeakUnjudgedReason)
        XCTAssertEqual(judged.json()["segments"]?.arrayValue?[1]["echo_leak_unjudged"], .null)
    }

    /// Speaker → wired headset: the headset's echo stays under the mic's noise, so there is no
    /// ERLE, but speex, still modelling the speaker's path, sends far more than the mic holds: a
    /// leak, judged from the headset's audio on (the 40 ms the new streams add) over the sent
    /// signal against the mic. With the canceller off nothing is added, and nothing is found.
    func testACancellerThatAddsWhatTheMicDidNotHoldOnAHeadsetLeaks() throws {
        let scene = #""duration_s": 10, "route": "speaker", "audio_session": {}, "timeline": [{"at_ms": 6000, "action": "route_change", "route": "wired_headset"}]"#
        let speex = try report(scene)
        XCTAssertTrue(speex.segments[1].metrics.erlIsLowerBound, "the headset's echo stays under the noise")
        let leak = try XCTUnwrap(leaks(speex).first)
        XCTAssertEqual(leak.atSeconds, 6.04, accuracy: 1e-9)
        XCTAssertEqual(leak.untilSeconds, 7.04, accuracy: 1e-9)
        XCTAssertEqual(leak.consequenceMetric, "sent_over_mic_db")
        XCTAssertGreaterThan(try XCTUnwrap(leak.consequenceDB), 20)
        XCTAssertTrue(leak.consequence.hasPrefix("what was sent in the first second of audio on wired_headset is "), leak.consequence)
        let off = try report(#""aec": {"mode": "disabled"}, "# + scene)
        XCTAssertTrue(leaks(off).isEmpty)
        // Gain control in the send path may raise what is sent whatever the canceller does: not judged so.
        let gained = try report(#""auto_gain_control": "software", "# + scene)
        XCTAssertTrue(leaks(gained).isEmpty, "\(leaks(gained))")
    }

    /// The same change with the near end talking over it: what is sent beyond what the mic held
    /// cannot show the old path's residual under the talker, so the leak is not judged, and said
    /// so. It read as judged, no leak (echo_leak_unjudged null), the residual 14 dB under a talker.
    func testAHeadsetChangeUnderATalkerIsNotJudged() throws {
        let scene = #""duration_s": 9, "route": "speaker", "audio_session": {}, "timeline": [{"at_ms": 3000, "action": "route_change", "route": "wired_headset"}]"#
        let talker = #""far_end": {"generator": "white_noise", "level_dbfs": -25, "seed": 3}, "near_end": {"generator": "speech", "level_dbfs": -20, "seed": 5}, "noise": {"level_dbfs": -70, "seed": 1}"#
        let talked = try report(scene, signals: talker)
        XCTAssertTrue(talked.segments[1].metrics.erlIsLowerBound, "the headset's echo stays under the noise")
        XCTAssertTrue(leaks(talked).isEmpty)
        let reason = try XCTUnwrap(talked.segments[1].echoLeakUnjudgedReason)
        XCTAssertTrue(reason.hasPrefix("the near end talked over the first ") && reason.hasSuffix(
            " while its echo stays under the mic's noise: a residual under the talker cannot be told from what was sent"), reason)
    }
}
