import Evaluation
import XCTest

/// `clock-drift-not-followed`: a mic on a drifting clock moves the echo all call long, and a
/// canceller that does not follow it is named with its steady ERLE.
final class ClockDriftFindingTests: XCTestCase {
    /// A white-noise far end over a 20 ms, −10 dB room (the `hw-drift-100ppm` vector's), 20 s.
    private func report(drift: Double, aec: String = #"{"backend": "speex", "mode": "intensityRecommended"}"#,
                        timeline: String = "[]") throws -> RunReport {
        try runReport(ofScenario: """
            {"name": "drift", "duration_s": 20, "clock_drift_ppm": \(drift), "aec": \(aec), "timeline": \(timeline),
             "echo_path": {"delay_ms": 20, "gain_db": -10, "synthetic_room": {"rt60_ms": 100, "seed": 2}},
             "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1}, "noise": {"level_dbfs": -65, "seed": 4}}
            """)
    }

    private func drifts(_ report: RunReport) -> [RunReport.Finding] { report.findings.filter { $0.rule == ClockDriftFinding.rule } }

    /// speex at 30 ppm keeps a few dB: the finding, over the whole call, says how far the echo moved.
    func testSpeexOnADriftingMicIsNamed() throws {
        let fast = try report(drift: 30)
        let finding = try XCTUnwrap(drifts(fast).first, "\(fast.findings.map(\.rule))")
        XCTAssertEqual(finding.kind, .canceller)
        XCTAssertEqual(finding.atSeconds, 0)
        XCTAssertEqual(finding.untilSeconds, 20)
        XCTAssertEqual(finding.consequenceMetric, "erle_steady_db")
        XCTAssertEqual(finding.consequenceDB, fast.metrics.erleSteadyDB, "the call's own steady ERLE")
        XCTAssertLessThan(try XCTUnwrap(finding.consequenceDB), ClockDriftFinding.followedERLEThresholdDB)
        XCTAssertTrue(finding.message.hasPrefix("the mic's clock runs 30.0 ppm fast against the loudspeaker's, so the echo's delay moves 0.6 ms over these 20.0 s"),
                      finding.message)

        let slow = try XCTUnwrap(drifts(try report(drift: -30)).first)
        XCTAssertTrue(slow.message.hasPrefix("the mic's clock runs 30.0 ppm slow"), slow.message)
    }

    /// The same call on one clock keeps its ERLE well over the threshold, and nothing is said: the
    /// finding separates drift from the room.
    func testOneClockIsNotNamed() throws {
        let steady = try report(drift: 0)
        XCTAssertEqual(drifts(steady).count, 0)
        XCTAssertGreaterThan(try XCTUnwrap(steady.metrics.erleSteadyDB), ClockDriftFinding.followedERLEThresholdDB + 10)
    }

    /// EchoLab's own canceller follows 100 ppm: no finding, and the ERLE that says why.
    func testACancellerThatFollowsDriftIsNotNamed() throws {
        let followed = try report(drift: 100, aec: #"{"backend": "echolab", "mode": "intensityRecommended"}"#)
        XCTAssertEqual(drifts(followed).count, 0)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(followed.metrics.erleSteadyDB), ClockDriftFinding.followedERLEThresholdDB)
    }

    /// With the canceller off nothing follows anything: `aec-disabled-with-real-devices` says so,
    /// not this rule. Turned off halfway, the finding covers the stretch it was on.
    func testOnlyTheStretchWithTheCancellerOnIsJudged() throws {
        XCTAssertEqual(drifts(try report(drift: 100, aec: #"{"backend": "speex", "mode": "disabled"}"#)).count, 0)
        let half = try report(drift: 100, timeline: #"[{"at_ms": 12000, "action": "set_aec", "mode": "disabled"}]"#)
        let finding = try XCTUnwrap(drifts(half).first, "\(half.findings.map(\.rule))")
        XCTAssertEqual(finding.atSeconds, 0)
        XCTAssertEqual(finding.untilSeconds, 12)
        XCTAssertTrue(finding.message.contains("moves 1.2 ms over these 12.0 s"), finding.message)
    }
}
