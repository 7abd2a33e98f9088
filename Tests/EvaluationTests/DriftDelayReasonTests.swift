import Evaluation
import XCTest

/// Clock drift smears the echo's lag over the seconds the delay estimate sums: where no lag stands
/// out on a drifting call, the reason names the drift, not only a far end too short or an echo
/// missing (a white-noise far end 13 dB over its echo read so).
final class DriftDelayReasonTests: XCTestCase {
    func testNoDelayOnADriftingCallNamesTheDrift() throws {
        func reason(drift: Int) throws -> (delay: Double?, reason: String?) {
            let report = try runReport(ofScenario: """
                {"name": "drift", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1}, "route": "bluetooth_a2dp",
                 "clock_drift_ppm": \(drift), "noise": {"level_dbfs": -65, "seed": 2},
                 "aec": {"mode": "intensityRecommended", "backend": "speex"}, "duration_s": 20}
                """)
            return (report.metrics.delayMilliseconds, report.delayUnmeasuredReason)
        }
        let drifting = try reason(drift: 150)
        XCTAssertNil(drifting.delay)
        XCTAssertEqual(drifting.reason, "no lag of the reference stands out in the mic over the first 12 s at most, where the delay is estimated: "
                       + "too little far end there, or no echo of it at the mic there, or the call's 150 ppm of clock drift smeared "
                       + "the echo's lag over the seconds the estimate sums")
        let steady = try reason(drift: 0)
        XCTAssertEqual(try XCTUnwrap(steady.delay), 220, accuracy: 1, "the same call without drift has its delay")
        XCTAssertNil(steady.reason)
    }
}
