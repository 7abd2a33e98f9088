import AudioCore
import EchoLabTestSupport
@testable import Evaluation
import Foundation
import ScenarioFiles
import XCTest

/// `clock-drift-not-followed`: a mic on a drifting clock moves the echo all call long, and a
/// canceller that does not follow it — that keeps 6 dB less than on one clock — is named with
/// its steady ERLE and the control's.
final class ClockDriftFindingTests: XCTestCase {
    /// A white-noise far end over a 20 ms, −10 dB room (the `hw-drift-100ppm` vector's), 20 s.
    /// `convertingOnOneClock`: the capture stream converts at 0 ppm too, as the finding's control does.
    private func report(drift: Double, aec: String = #"{"backend": "speex", "mode": "intensityRecommended"}"#,
                        timeline: String = "[]", convertingOnOneClock: Bool = false) throws -> RunReport {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeScenario("""
            {"name": "drift", "duration_s": 20, "clock_drift_ppm": \(drift), "aec": \(aec), "timeline": \(timeline),
             "echo_path": {"delay_ms": 20, "gain_db": -10, "synthetic_room": {"rt60_ms": 100, "seed": 2}},
             "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1}, "noise": {"level_dbfs": -65, "seed": 4}}
            """, in: folder)
        var scenario = try ScenarioLoader.load(path: path)
        scenario.hardware?.convertsCaptureOnOneClock = convertingOnOneClock
        return try RunOutput(scenario: scenario, outputDirectory: folder.appendingPathComponent("out").path, taps: .none, renderer: nil).run()
    }

    /// As the finding prints a figure.
    private func format(_ value: Double) -> String { FixedDecimal.text(value, fractionDigits: 1) }

    private func drifts(_ report: RunReport) -> [RunReport.Finding] { report.findings.filter { $0.rule == ClockDriftFinding.rule } }

    /// speex at 30 ppm keeps a few dB: the finding, over the whole call, says how fast the echo
    /// moves and what the drift cost.
    func testSpeexOnADriftingMicIsNamed() throws {
        let fast = try report(drift: 30)
        let finding = try XCTUnwrap(drifts(fast).first, "\(fast.findings.map(\.rule))")
        XCTAssertEqual(finding.kind, .canceller)
        XCTAssertEqual(finding.atSeconds, 0)
        XCTAssertEqual(finding.untilSeconds, 20)
        XCTAssertEqual(finding.consequenceMetric, "erle_steady_db")
        XCTAssertEqual(finding.consequenceDB, fast.metrics.erleSteadyDB, "the call's own steady ERLE")
        XCTAssertLessThan(try XCTUnwrap(finding.consequenceDB), ClockDriftFinding.followedERLEThresholdDB)
        XCTAssertTrue(finding.message.hasPrefix("the mic's clock runs 30.0 ppm fast against the loudspeaker's, so the echo's delay moves 30.0 µs a second, "),
                      finding.message)
        // The control is the same call on one clock through the same converter, measured: what
        // it keeps is what the drift cost.
        let control = try report(drift: 0, convertingOnOneClock: true).metrics
        let oneClock = try XCTUnwrap(control.erleSteadyDB), bound = control.erleSteadyIsLowerBound ? "at least " : ""
        XCTAssertTrue(finding.consequence.contains(" of these 20.0 s; the same call on one clock keeps \(bound)\(format(oneClock)) dB there "),
                      finding.consequence)
        XCTAssertTrue(finding.consequence.hasSuffix("the drift costs \(bound)\(format(oneClock - (finding.consequenceDB ?? 0))) dB"),
                      finding.consequence)

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

    /// WebRTC's AEC keeps little of a white-noise echo on one clock too: its low ERLE at 100 ppm
    /// is not the drift's, and the drift is not named (a trial's 14.8 dB on one clock, 13.9 at
    /// 300 ppm read "does not follow it").
    func testACancellerLimitedByTheRoomIsNotBlamedOnTheDrift() throws {
        let webrtc = #"{"backend": "webrtc", "mode": "intensityRecommended"}"#
        let drifting = try report(drift: 100, aec: webrtc), oneClock = try report(drift: 0, aec: webrtc, convertingOnOneClock: true)
        XCTAssertLessThan(try XCTUnwrap(drifting.metrics.erleSteadyDB), ClockDriftFinding.followedERLEThresholdDB)
        XCTAssertLessThan(try XCTUnwrap(oneClock.metrics.erleSteadyDB), ClockDriftFinding.followedERLEThresholdDB)
        XCTAssertEqual(drifts(drifting).count, 0, "\(drifts(drifting).map(\.consequence))")
    }

    /// A route change splits the call: each route is judged on its own, so that the control's
    /// own leak after the change does not weigh on a figure for the whole call (a trial's
    /// speaker → receiver call at 300 ppm lost 22 dB on the speaker and had no finding).
    func testEachRouteIsJudgedOnItsOwn() throws {
        let report = try report(drift: 300, timeline: #"[{"at_ms": 8000, "action": "route_change", "route": "receiver"}]"#)
        let findings = drifts(report)
        XCTAssertEqual(findings.first?.atSeconds, 0, "\(findings.map(\.consequence))")
        XCTAssertEqual(findings.first?.untilSeconds, 8)
        XCTAssertTrue(findings.allSatisfy { $0.atSeconds == 0 || $0.atSeconds == 8 })
        // The speaker's figure is its segment's own.
        XCTAssertEqual(findings.first?.consequenceDB, report.segments.first?.metrics.erleSteadyDB)
    }

    /// The control runs once, when first asked; one that cannot run is nil with its failure
    /// kept (the run fails with it: `RunOutput`), and is not tried again.
    func testTheControlRunsOnceAndKeepsItsFailure() {
        struct Broken: Error {}
        var runs = 0
        let failing = OneClockControl { runs += 1; throw Broken() }
        XCTAssertNil(failing.metrics(in: 0..<48_000))
        XCTAssertNil(failing.metrics(in: 0..<96_000))
        XCTAssertEqual(runs, 1)
        XCTAssertTrue(failing.failure is Broken)
    }

    /// A drift under a ppm is printed with its digits, not as "0.0".
    func testSmallDriftsKeepTheirDigits() {
        XCTAssertEqual(ClockDriftFinding.significant(300), "300.0")
        XCTAssertEqual(ClockDriftFinding.significant(1), "1.0")
        XCTAssertEqual(ClockDriftFinding.significant(0.5), "0.50")
        XCTAssertEqual(ClockDriftFinding.significant(0.04), "0.040")
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
        XCTAssertTrue(finding.consequence.contains(" of these 12.0 s; the same call on one clock keeps "), finding.consequence)
    }
}
