import XCTest
@testable import EchoCancellation

/// The main filter's Kalman step on its own, where its arithmetic can be followed by hand.
final class KalmanStepControlTests: XCTestCase {
    /// With a silent reference nothing is learned, so each uncertainty only decays by the drift
    /// and grows by it in proportion to its weight: P' = (1 − d)·P + d·|W|² + 10⁻⁹. A frame with
    /// `driftScale` 0.1 (the canceller's, while a talker is heard) adds a tenth of that growth.
    func testTheDriftScaleSetsWhatAFrameAddsToTheUncertainty() {
        let bins = 3
        var filter = PartitionedFilter(partitions: 1, bins: bins)
        for k in 0..<bins { filter.re[k] = 0.5 }                     // |W|² = 0.25
        let reference = ReferenceSpectra(bins: bins, capacity: 2)
        let silence = [Float](repeating: 0, count: bins)
        func uncertaintyAfterAFrame(driftScale: Float) -> Float {
            var kalman = KalmanStepControl(partitions: 1, bins: bins, initialUncertainty: 1, drift: 2e-4)
            kalman.reset(scale: 1e-3)                                  // P = 10⁻³, under its ceiling (the prior, 1)
            kalman.adapt(&filter, reference: reference, offset: 0, errorRe: silence, errorIm: silence, residualEcho: silence,
                         driftScale: driftScale)
            return kalman.uncertainty[0]
        }
        let full = uncertaintyAfterAFrame(driftScale: 1), tenth = uncertaintyAfterAFrame(driftScale: 0.1)
        XCTAssertEqual(Double(full), (1 - 2e-4) * 1e-3 + 2e-4 * 0.25 + 1e-9, accuracy: 1e-9)
        XCTAssertEqual(Double(tenth), (1 - 2e-5) * 1e-3 + 2e-5 * 0.25 + 1e-9, accuracy: 1e-9)
        XCTAssertEqual(Double(tenth - 1e-3) / Double(full - 1e-3), 0.1, accuracy: 0.01, "a tenth of the growth")
        XCTAssertEqual(filter.re[0], 0.5, "a silent reference moves no weight")
    }
}
