import XCTest
@testable import AudioCore
@testable import Metrics

/// `PowerSums` keeps four running sums, lane k taking the elements k, k+4, … of the range's
/// four-wide part, the tail going to lane 0, and adds them as (0+1)+(2+3). The reports' numbers
/// depend on that order, bit for bit: these tests pin it on every length of range from every
/// start (the four-wide part, the tail and an offset range all exercised), and the exact sums
/// where they are representable.
final class PowerSumsTests: XCTestCase {
    private func lanes(_ terms: [Double]) -> Double {
        var sums = [0.0, 0.0, 0.0, 0.0]
        let whole = terms.count / 4 * 4
        for i in 0..<whole { sums[i % 4] += terms[i] }
        for i in whole..<terms.count { sums[0] += terms[i] }
        return (sums[0] + sums[1]) + (sums[2] + sums[3])
    }

    func testEverySumFollowsTheFourLaneOrderBitForBit() {
        // Magnitudes from 2⁻⁴⁰ to 2⁴⁰: sums of floats in Double are exact when the terms are alike
        // (any order would pass), so the terms span far more than Double's 53 bits.
        var random = SeededRandom(seed: 11)
        func wide() -> Float { random.nextSignedFloat() * Float(sign: .plus, exponent: Int(random.next() % 81) - 40, significand: 1) }
        let x = (0..<64).map { _ in wide() }
        let y = (0..<64).map { _ in wide() }
        for start in [0, 1, 2, 3, 5, 17] {
            for length in 0...(64 - start - 30) {
                let range = start..<(start + length)
                let xs = Array(x[range]), ys = Array(y[range])
                XCTAssertEqual(PowerSums.sum(x, range).bitPattern, lanes(xs.map(Double.init)).bitPattern, "\(range)")
                XCTAssertEqual(PowerSums.sumOfSquares(x, range).bitPattern,
                               lanes(xs.map { Double($0) * Double($0) }).bitPattern, "\(range)")
                XCTAssertEqual(PowerSums.dot(x, y, range).bitPattern,
                               lanes(zip(xs, ys).map { Double($0) * Double($1) }).bitPattern, "\(range)")
                XCTAssertEqual(PowerSums.sumOfSquaredDifferences(x, y, range).bitPattern,
                               lanes(zip(xs, ys).map { Double($0 - $1) * Double($0 - $1) }).bitPattern, "\(range)")
            }
        }
    }

    func testExactSumsOfIntegers() {
        let x = (0..<23).map(Float.init)   // 0, 1, …, 22
        let ones = [Float](repeating: 1, count: 23)
        XCTAssertEqual(PowerSums.sum(x, 0..<23), 253)                        // 22·23/2
        XCTAssertEqual(PowerSums.sumOfSquares(x, 3..<22), 3_311 - 5)         // Σ_{3…21} k² = 21·22·43/6 − (0 + 1 + 4)
        XCTAssertEqual(PowerSums.dot(x, ones, 4..<11), 49)                   // 4 + … + 10
        XCTAssertEqual(PowerSums.sumOfSquaredDifferences(x, ones, 1..<4), 5) // 0 + 1 + 4
        XCTAssertEqual(PowerSums.sumOfSquares(x, 7..<7), 0)
    }
}
