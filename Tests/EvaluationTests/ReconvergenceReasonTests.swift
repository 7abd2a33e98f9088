import Foundation
import Evaluation
import XCTest

/// A segment's null re-convergence says why, as the call's null convergence does: the speaker
/// segment of a route change read "—" in the page and null in report.json beside a steady 16 dB.
final class ReconvergenceReasonTests: XCTestCase {
    func testEachSegmentsNullReconvergenceSaysWhy() throws {
        let report = try runReport(ofScenario: """
            {"name": "route", "far_end": {"generator": "speech", "pitch_hz": 120, "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -60, "seed": 0}, "route": "receiver", "duration_s": 12,
             "timeline": [{"at_ms": 4000, "action": "route_change", "route": "speaker"},
                          {"at_ms": 10000, "action": "set_aec", "mode": "disabled"}]}
            """)
        XCTAssertEqual(report.segments.map(\.startSeconds), [0, 4, 10])
        let (receiver, speaker, off) = (report.segments[0], report.segments[1], report.segments[2])
        XCTAssertEqual(receiver.reconvergenceSeconds, 3)
        XCTAssertNil(receiver.reconvergenceUnmeasuredReason, "it has one")
        XCTAssertNil(speaker.reconvergenceSeconds)
        let steady = try XCTUnwrap(speaker.metrics.erleSteadyDB)
        XCTAssertEqual(speaker.reconvergenceUnmeasuredReason,
                       "the ERLE did not stay within ±3 dB of its steady \(String(format: "%.1f", steady)) dB for two windows before the segment ended: "
                       + "still settling, or swinging")
        XCTAssertNil(off.reconvergenceSeconds)
        XCTAssertEqual(off.reconvergenceUnmeasuredReason, "AEC is disabled where the segment starts: nothing re-converges")
        // report.json has it beside reconvergence_s.
        let segments = try XCTUnwrap(report.json()["segments"]?.arrayValue)
        XCTAssertEqual(segments[2]["reconvergence_unmeasured"]?.stringValue, off.reconvergenceUnmeasuredReason)
        XCTAssertEqual(segments[0]["reconvergence_unmeasured"], .null)
    }

    /// A set_aec between two ticks takes effect at the next tick: its segment starts with the
    /// canceller it turned on (it read "AEC is disabled where the segment starts").
    func testASegmentOpenedBetweenTicksStartsWithItsMode() throws {
        let report = try runReport(ofScenario: """
            {"name": "between-ticks", "far_end": {"generator": "speech", "pitch_hz": 120, "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -60, "seed": 7}, "echo_path": {"delay_ms": 40, "gain_db": -6}, "duration_s": 10,
             "timeline": [{"at_ms": 0, "action": "set_aec", "mode": "disabled"}, {"at_ms": 5000.5, "action": "set_aec", "mode": "intensityMax"}]}
            """)
        let on = try XCTUnwrap(report.segments.last)
        XCTAssertEqual(on.startSeconds, 5.0005)
        XCTAssertNotEqual(on.reconvergenceUnmeasuredReason, "AEC is disabled where the segment starts: nothing re-converges")
        XCTAssertGreaterThan(try XCTUnwrap(on.metrics.erleDB), 6)
    }
}
