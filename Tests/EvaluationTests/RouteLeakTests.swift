import AudioCore
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
}
