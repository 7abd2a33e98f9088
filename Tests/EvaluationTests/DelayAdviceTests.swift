import EchoLabTestSupport
import Foundation
import Evaluation
import Reporting
import ScenarioFiles
import Simulation
import XCTest

/// `echo-delay-beyond-filter`'s advice fits who feeds the canceller's reference: the engine (the
/// default speaker: a backend that reaches further, or the route), a custom speaker without the
/// user reference (start it and put what is played), or the app's own user reference (put it
/// when it is played).
final class DelayAdviceTests: XCTestCase {
    private func delayFinding(_ json: String) throws -> RunReport.Finding {
        let report = try runReport(ofScenario: """
            {"name": "reach", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "noise": {"level_dbfs": -65, "seed": 2}, "duration_s": 6, \(json)}
            """)
        return try XCTUnwrap(report.findings.first { $0.rule == "echo-delay-beyond-filter" }, "\(report.findings.map(\.rule))")
    }

    /// The trial's s-a2dp: the default speaker on Bluetooth A2DP. No app-fed reference exists.
    func testTheDefaultSpeakerIsAdvisedABackendOrTheRoute() throws {
        let finding = try delayFinding(#""route": "bluetooth_a2dp", "aec": {"backend": "speex", "mode": "intensityRecommended"}"#)
        XCTAssertTrue(finding.message.hasPrefix("the echo arrives 2"), finding.message)
        XCTAssertTrue(finding.message.hasSuffix("beyond the 190.0 ms speex reaches: the engine feeds the reference itself as the default speaker plays, "
                                                + "so the delay is the output's and the room's: use a backend that reaches further (webrtc-mobile reaches "
                                                + "400.0 ms, aec3 reaches 500.0 ms, echolab reaches 500.0 ms), or a route with less output latency than "
                                                + "bluetooth_a2dp"), finding.message)
        XCTAssertFalse(finding.message.contains("feed the reference when it is played"), finding.message)
    }

    func testACustomSpeakerIsAdvisedTheUserReferenceAndAnAppFedOneToPutItWhenPlayed() throws {
        func speaker(_ reference: Bool) -> String {
            #""echo_path": {"delay_ms": 150, "gain_db": -10}, "aec": {"backend": "webrtc", "mode": "intensityRecommended"}, "#
                + #""speaker": {"device": "passthrough", "aec_reference": \#(reference), "period_ms": 50}"#
        }
        let without = try delayFinding(speaker(false))
        // The app's 50 ms period and buffering come after the engine's reference: 150 ms becomes 260.
        XCTAssertTrue(without.message.hasPrefix("the echo arrives 260.0 ms after the reference"), without.message)
        XCTAssertTrue(without.message.hasSuffix("beyond the 130.0 ms webrtc reaches: start the user AEC reference and put what the custom speaker "
                                                + "plays when it plays it (startUserAcousticEchoCancellerReference(), putUserAcousticEchoCancellerReference), "
                                                + "or use a backend that reaches further (webrtc-mobile reaches 400.0 ms, "
                                                + "aec3 reaches 500.0 ms, echolab reaches 500.0 ms)"), without.message)
        let with = try delayFinding(speaker(true))
        XCTAssertTrue(with.message.contains("beyond the 130.0 ms webrtc reaches: feed the reference when it is played (not when it is received), "
                                            + "or use a backend that reaches further ("), with.message)
    }

    /// A call that changes route has a delay per route: each segment's own is judged over that
    /// segment. The speaker's 42 ms is in WebRTC's reach; the A2DP speaker's 220 ms from 3 s is
    /// not, and the finding's ERLE is the A2DP stretch's alone. AEC3 reaches 500 ms: no finding.
    func testEachRoutesDelayIsJudgedOverItsOwnSegment() throws {
        func report(_ backend: String) throws -> RunReport {
            try runReport(ofScenario: """
                {"name": "reach-routes", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
                 "noise": {"level_dbfs": -65, "seed": 2}, "duration_s": 8, "route": "speaker", "audio_session": {},
                 "aec": {"backend": "\(backend)", "mode": "intensityRecommended"},
                 "timeline": [{"at_ms": 3000, "action": "route_change", "route": "bluetooth_a2dp"}]}
                """)
        }
        let webrtc = try report("webrtc")
        let findings = webrtc.findings.filter { $0.rule == "echo-delay-beyond-filter" }
        XCTAssertEqual(findings.count, 1, "\(findings)")
        let finding = try XCTUnwrap(findings.first)
        XCTAssertEqual(finding.atSeconds, 3)
        XCTAssertEqual(finding.untilSeconds, 8)
        XCTAssertTrue(finding.message.hasPrefix("the echo arrives 220.0 ms after the reference, beyond the 130.0 ms webrtc reaches"), finding.message)
        XCTAssertTrue(finding.message.hasSuffix("or a route with less output latency than bluetooth_a2dp"), finding.message)
        let a2dp = try XCTUnwrap(webrtc.segments.last)
        XCTAssertEqual(a2dp.metrics.delayMilliseconds ?? 0, 220, accuracy: 1)
        XCTAssertEqual(finding.consequenceMetric, "erle_db")
        XCTAssertLessThan(try XCTUnwrap(finding.consequenceDB), 10, "the A2DP stretch's ERLE: the filter ends before the echo")
        XCTAssertFalse(try report("aec3").findings.contains { $0.rule == "echo-delay-beyond-filter" })
    }

    /// On one route, a re-activation with longer buffers moves the delay (4096-frame buffers:
    /// about 170 ms each way): searched again, and judged from there, not by the call's first
    /// search. A route change at the call's start (no second search) is judged by the call's.
    func testADelaySearchedAgainOnOneRouteIsJudgedThere() throws {
        let report = try runReport(ofScenario: """
            {"name": "reach-reactivated", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "noise": {"level_dbfs": -65, "seed": 2}, "duration_s": 8, "route": "speaker", "audio_session": {},
             "aec": {"backend": "webrtc", "mode": "intensityRecommended"},
             "timeline": [{"at_ms": 2000, "action": "deactivate_session"},
                          {"at_ms": 2500, "action": "set_preferred", "io_buffer_duration_s": 0.085},
                          {"at_ms": 3000, "action": "activate_session"}]}
            """)
        let findings = report.findings.filter { $0.rule == "echo-delay-beyond-filter" }
        XCTAssertEqual(findings.map(\.atSeconds), [3], "\(findings.map(\.message))")
        XCTAssertEqual(findings.first?.untilSeconds, 8)
        let atStart = try runReport(ofScenario: """
            {"name": "reach-at-start", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "noise": {"level_dbfs": -65, "seed": 2}, "duration_s": 6, "route": "receiver", "audio_session": {},
             "aec": {"backend": "webrtc", "mode": "intensityRecommended"},
             "timeline": [{"at_ms": 0, "action": "route_change", "route": "bluetooth_a2dp"}]}
            """)
        let first = atStart.findings.filter { $0.rule == "echo-delay-beyond-filter" }
        XCTAssertEqual(first.map(\.atSeconds), [0], "\(atStart.findings.map(\.rule))")
        XCTAssertTrue(first.first?.message.hasSuffix("a route with less output latency than bluetooth_a2dp") ?? false,
                      "the route in force from 0 ms, not the one the call was set up with: \(first.map(\.message))")
    }

    /// A switch to a pass-through mic searches the delay again where its lag is found; an echo
    /// past the search (700 ms) is found by neither search, and the call is judged as one, by the
    /// scenario's delay, a bound.
    func testAnEchoPastTheSearchIsJudgedByTheScenariosDelayAcrossAMicSwitch() throws {
        let report = try runReport(ofScenario: """
            {"name": "reach-far", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "noise": {"level_dbfs": -65, "seed": 2}, "duration_s": 6, "echo_path": {"delay_ms": 700, "gain_db": -6},
             "aec": {"backend": "webrtc", "mode": "intensityRecommended"},
             "timeline": [{"at_ms": 3000, "action": "set_custom_mic", "device": "passthrough"}]}
            """)
        let findings = report.findings.filter { $0.rule == "echo-delay-beyond-filter" }
        XCTAssertEqual(findings.count, 1, "\(report.findings.map(\.rule))")
        XCTAssertTrue(findings.first?.message.hasPrefix("the echo arrives at least 700.0 ms after the reference") ?? false,
                      "\(findings.map(\.message))")
    }
}
