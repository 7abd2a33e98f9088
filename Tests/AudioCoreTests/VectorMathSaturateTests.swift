import AudioCore
import XCTest

/// `VectorMath.saturate`: what a converter can hold, and a count of what it could not.
final class VectorMathSaturateTests: XCTestCase {
    /// Full scale is kept, beyond it is clamped and counted; ±∞ clamp to ±1; NaN — which `min`
    /// and `max` pass through, so a custom mic's NaN reached the canceller — becomes 0, counted.
    func testBeyondFullScaleAndNaNAreCountedAndBounded() {
        var samples: [Float] = [0.5, -1, 1, 1.5, -3, .infinity, -.infinity, .nan, 0, 7]
        let over = VectorMath.saturate(&samples, count: 9)
        XCTAssertEqual(over, 5)
        XCTAssertEqual(samples, [0.5, -1, 1, 1, -1, 1, -1, 0, 0, 7], "the tenth is past count: untouched")
    }
}
