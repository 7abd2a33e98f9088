import AudioCore
import XCTest

/// `VectorMath.bitwiseEqual`: what the echo records and the measurement's "processed is the mic"
/// shortcut rest on — equal bits, not equal values.
final class VectorMathBitwiseEqualTests: XCTestCase {
    func testEqualBitsAtOffsetsAreEqual() {
        let a: [Float] = [9, 1, 2, 3, 4, 5, 6, 7, 8, 0.5]
        let b: [Float] = [1, 2, 3, 4, 5, 6, 7, 8, 0.5]
        XCTAssertTrue(VectorMath.bitwiseEqual(a, from: 1, b, from: 0, count: 9))
        XCTAssertFalse(VectorMath.bitwiseEqual(a, from: 0, b, from: 0, count: 9), "shifted by one")
        XCTAssertTrue(VectorMath.bitwiseEqual(a, from: 0, b, from: 0, count: 0), "nothing to differ")
    }

    func testSignedZerosDifferAndTheSameNaNIsEqual() {
        XCTAssertFalse(VectorMath.bitwiseEqual([0], from: 0, [-0.0], from: 0, count: 1), "+0 == −0 as floats, not as bits")
        XCTAssertTrue(VectorMath.bitwiseEqual([.nan], from: 0, [.nan], from: 0, count: 1), "the same NaN's bits")
        XCTAssertFalse(VectorMath.bitwiseEqual([.nan], from: 0, [Float(nan: 1, signaling: false)], from: 0, count: 1), "NaNs of other payloads")
    }

    /// A difference in the last sample of a long range (past the vectorised lanes) is found.
    func testADifferenceAnywhereIsFound() {
        let a = [Float](repeating: 0.25, count: 1003)
        for index in [0, 500, 1002] {
            var b = a
            b[index] = b[index].nextUp
            XCTAssertFalse(VectorMath.bitwiseEqual(a, from: 0, b, from: 0, count: a.count), "at \(index)")
        }
        XCTAssertTrue(VectorMath.bitwiseEqual(a, from: 0, a, from: 0, count: a.count))
    }
}
