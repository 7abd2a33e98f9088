import XCTest
@testable import AudioCore

/// `VectorMath.sumOfSquares` runs eight sums at once; its result must be the exact Σx² where
/// that is representable, use only the first `count` samples, and handle a tail shorter than
/// one vector.
final class VectorMathSumOfSquaresTests: XCTestCase {
    func testExactSumsForIntegersWithATail() {
        let values = (1...19).map(Float.init) + [1000]   // the last one is past `count`
        XCTAssertEqual(VectorMath.sumOfSquares(values, count: 19), 2470)   // 19·20·39/6
        XCTAssertEqual(VectorMath.sumOfSquares(values, count: 16), 1496)   // 16·17·33/6, no tail
        XCTAssertEqual(VectorMath.sumOfSquares(values, count: 3), 14)      // tail only
        XCTAssertEqual(VectorMath.sumOfSquares(values, count: 0), 0)
    }

    func testMatchesADoubleSumOnNoiseToFloatPrecision() {
        var random = SeededRandom(seed: 7)
        let values = (0..<480).map { _ in random.nextSignedFloat() }
        let reference = values.reduce(0.0) { $0 + Double($1) * Double($1) }
        XCTAssertEqual(Double(VectorMath.sumOfSquares(values, count: 480)), reference, accuracy: reference * 1e-6)
    }
}

/// The order of `VectorMath.sumOfSquares`, bit for bit (the level plots depend on it): lane k of
/// eight takes the samples k, k+8, … of the eight-wide part, the lanes are added pairwise, then
/// the tail's own sum.
final class VectorMathSumOfSquaresOrderTests: XCTestCase {
    func testEveryCountFollowsTheEightLaneOrder() {
        var random = SeededRandom(seed: 23)
        let values = (0..<80).map { _ in random.nextSignedFloat() }
        for count in 0...80 {
            var lanes = [Float](repeating: 0, count: 8)
            let whole = count / 8 * 8
            for i in 0..<whole { lanes[i % 8] += values[i] * values[i] }
            var tail: Float = 0
            for i in whole..<count { tail += values[i] * values[i] }
            let expected = (((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))) + tail
            XCTAssertEqual(VectorMath.sumOfSquares(values, count: count).bitPattern, expected.bitPattern, "count \(count)")
        }
    }
}
