import Evaluation
import Metrics
import XCTest

/// Why a call with a steady ERLE has no convergence: its steady state is too near nothing removed
/// to converge to, or its ERLE had not settled for two windows when it ended. A dash alone beside
/// a steady 30 dB read as a canceller that never converged.
final class ConvergenceUnmeasuredReasonTests: XCTestCase {
    private func metrics(steady: Double?, isLowerBound: Bool = false, convergence: Double?) -> EchoMetrics {
        let gate = ActivityGateSummary(method: .nearEndTrack, frames: 500, farEndActiveFrames: 300, singleTalkFrames: 300,
                                       doubleTalkFrames: 0, limitation: nil, echoUnderNoiseFrames: 0)
        return EchoMetrics(erlDB: 6, erleDB: steady, erleSteadyDB: steady, erleSteadyIsLowerBound: isLowerBound, erleSteadyFrames: 150,
                           convergenceSeconds: convergence, delayMilliseconds: 40, erleSeries: [], erleBands: [], gate: gate)
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
}
