import Evaluation
import Metrics
import XCTest

/// Why a call with a steady ERLE has no convergence: its steady state is too near nothing removed
/// to converge to, or its ERLE had not settled for two windows when it ended. A dash alone beside
/// a steady 30 dB read as a canceller that never converged.
final class ConvergenceUnmeasuredReasonTests: XCTestCase {
    private func metrics(steady: Double?, isLowerBound: Bool = false, convergence: Double?, series: [ERLEPoint] = []) -> EchoMetrics {
        let gate = ActivityGateSummary(method: .nearEndTrack, frames: 500, farEndActiveFrames: 300, singleTalkFrames: 300,
                                       doubleTalkFrames: 0, limitation: nil, echoUnderNoiseFrames: 0)
        return EchoMetrics(erlDB: 6, erleDB: steady, erleSteadyDB: steady, erleSteadyIsLowerBound: isLowerBound, erleSteadyFrames: 150,
                           convergenceSeconds: convergence, delayMilliseconds: 40, erleSeries: series, erleBands: [], gate: gate)
    }

    func testEachNullSaysWhich() {
        XCTAssertEqual(RunEvaluator.convergenceUnmeasuredReason(metrics(steady: 30.24, convergence: nil)),
                       "the ERLE did not stay within ±3 dB of its steady 30.2 dB for two windows before the call ended: still settling, or swinging")
        XCTAssertEqual(RunEvaluator.convergenceUnmeasuredReason(metrics(steady: 39.1, isLowerBound: true, convergence: nil)),
                       "the ERLE did not stay within ±3 dB of its steady ≥ 39.1 dB for two windows before the call ended: still settling, or swinging")
        XCTAssertEqual(RunEvaluator.convergenceUnmeasuredReason(metrics(steady: 4.2, convergence: nil)),
                       "the steady ERLE, 4.2 dB, is 6 dB or less: nothing converged")
        XCTAssertEqual(RunEvaluator.convergenceUnmeasuredReason(metrics(steady: 4.0, isLowerBound: true, convergence: nil)),
                       "the steady ERLE, ≥ 4.0 dB, is a bound at the mic's floor within 6 dB of nothing removed: no convergence can be told")
        // A convergence, or no steady ERLE (its own reason is echo_unmeasured): none.
        XCTAssertNil(RunEvaluator.convergenceUnmeasuredReason(metrics(steady: 30, convergence: 2.5)))
        XCTAssertNil(RunEvaluator.convergenceUnmeasuredReason(metrics(steady: nil, convergence: nil)))
    }

    /// A series that ends at the mic's floor above the steady state's band removed more there
    /// than the steady figure says (double talk's windows pull it down): "still settling" read as
    /// a canceller that had not converged (a new user's trial: steady 35.9 dB, its last windows
    /// ≥ 40.5–43.2 dB). The last window the convergence scan counts is the one read: a call's
    /// last window on a few frames is not.
    func testASeriesEndingAtTheFloorAboveItsSteadyStateSaysSo() {
        let series = [ERLEPoint(timeSeconds: 6, erleDB: 24, frames: 47), ERLEPoint(timeSeconds: 12.5, erleDB: 36, frames: 47),
                      ERLEPoint(timeSeconds: 13, erleDB: 43.2, isLowerBound: true, frames: 47),
                      ERLEPoint(timeSeconds: 13.5, erleDB: 40.46, isLowerBound: true, frames: 40),
                      ERLEPoint(timeSeconds: 14, erleDB: 12, frames: 3)]
        XCTAssertEqual(RunEvaluator.convergenceUnmeasuredReason(metrics(steady: 35.85, convergence: nil, series: series)),
                       "the ERLE ends as a bound at the mic's floor, ≥ 40.5 dB, above ±3 dB of its steady 35.9 dB: "
                       + "the canceller removed more there than the steady figure says, so no settling to it can be told")
        // Not a bound, or within the band: the series is still settling, or swinging.
        var measured = series
        measured[3].isLowerBound = false
        XCTAssertTrue(RunEvaluator.convergenceUnmeasuredReason(metrics(steady: 35.85, convergence: nil, series: measured))?.hasSuffix("still settling, or swinging") == true)
        var within = series
        within[3].erleDB = 38.5
        XCTAssertTrue(RunEvaluator.convergenceUnmeasuredReason(metrics(steady: 35.85, convergence: nil, series: within))?.hasSuffix("still settling, or swinging") == true)
    }
}
