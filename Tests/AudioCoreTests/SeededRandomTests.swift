import XCTest
@testable import AudioCore

/// Determinism and distribution of `SeededRandom`.
final class SeededRandomTests: XCTestCase {
    func testSameSeedSameSequenceDifferentSeedDifferentSequence() {
        var a = SeededRandom(seed: 42), b = SeededRandom(seed: 42), c = SeededRandom(seed: 43)
        let sa = (0..<1_000).map { _ in a.next() }
        let sb = (0..<1_000).map { _ in b.next() }
        let sc = (0..<1_000).map { _ in c.next() }
        XCTAssertEqual(sa, sb)
        XCTAssertNotEqual(sa, sc)
        XCTAssertEqual(Set(sa).count, 1_000)
    }

    func testSequenceIsPinnedAcrossMachines() {
        // Bit-identical noise across machines is the point; pin the first outputs of seed 0 so a
        // change of algorithm (which would silently change every stored result) is caught.
        var r = SeededRandom(seed: 0)
        let first = (0..<3).map { _ in r.next() }
        var again = SeededRandom(seed: 0)
        XCTAssertEqual(first, (0..<3).map { _ in again.next() })
        XCTAssertEqual(first, Self.pinnedSeedZero)
    }

    /// xoshiro256** seeded by SplitMix64(0), computed independently below.
    static let pinnedSeedZero: [UInt64] = {
        var x: UInt64 = 0
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var s = [splitMix(), splitMix(), splitMix(), splitMix()]
        func rotl(_ v: UInt64, _ k: UInt64) -> UInt64 { (v << k) | (v >> (64 - k)) }
        var out: [UInt64] = []
        for _ in 0..<3 {
            out.append(rotl(s[1] &* 5, 7) &* 9)
            let t = s[1] << 17
            s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45)
        }
        return out
    }()

    func testUnitFloatsStayInRangeAndCoverIt() {
        var r = SeededRandom(seed: 7)
        var lo: Float = 1, hi: Float = 0, sum = 0.0
        var signedLo: Float = 1, signedHi: Float = -1
        for _ in 0..<100_000 {
            let u = r.nextUnitFloat()
            XCTAssertTrue(u >= 0 && u < 1)
            lo = min(lo, u); hi = max(hi, u); sum += Double(u)
            let s = r.nextSignedFloat()
            XCTAssertTrue(s >= -1 && s < 1)
            signedLo = min(signedLo, s); signedHi = max(signedHi, s)
        }
        XCTAssertLessThan(lo, 0.001)
        XCTAssertGreaterThan(hi, 0.999)
        XCTAssertEqual(sum / 100_000, 0.5, accuracy: 0.005)
        XCTAssertLessThan(signedLo, -0.998)
        XCTAssertGreaterThan(signedHi, 0.998)
    }

    func testGaussianHasZeroMeanAndUnitVariance() {
        var r = SeededRandom(seed: 11)
        let n = 100_000
        var sum = 0.0, sumSq = 0.0, maxAbs: Float = 0
        for _ in 0..<n {
            let g = r.nextGaussian()
            sum += Double(g); sumSq += Double(g) * Double(g); maxAbs = max(maxAbs, abs(g))
        }
        let mean = sum / Double(n)
        let variance = sumSq / Double(n) - mean * mean
        XCTAssertEqual(mean, 0, accuracy: 0.02)
        XCTAssertEqual(variance, 1, accuracy: 0.03)
        XCTAssertLessThanOrEqual(maxAbs, 3.4642)     // Irwin–Hall(4) is bounded at 2·√3
        XCTAssertGreaterThan(maxAbs, 2.5)
    }

    func testNextIntStaysInRangeAndHitsEveryValue() {
        var r = SeededRandom(seed: 3)
        var seen = Set<Int64>()
        for _ in 0..<10_000 {
            let v = r.nextInt(in: -3...4)
            XCTAssertTrue((-3...4).contains(v))
            seen.insert(v)
        }
        XCTAssertEqual(seen, Set(-3...4))
        XCTAssertEqual(r.nextInt(in: 5...5), 5)
        // Wide ranges must not trap on the width computation.
        var negative = 0
        for _ in 0..<1_000 {
            if r.nextInt(in: Int64.min...Int64.max) < 0 { negative += 1 }
            let wide = r.nextInt(in: -5...Int64.max)
            XCTAssertGreaterThanOrEqual(wide, -5)
        }
        XCTAssertTrue((400...600).contains(negative), "\(negative) of 1000 full-range draws negative")
    }

    func testWorksAsASystemRandomNumberGenerator() {
        var a = SeededRandom(seed: 5), b = SeededRandom(seed: 5)
        XCTAssertEqual((0..<50).shuffled(using: &a), (0..<50).shuffled(using: &b))
        XCTAssertEqual(Int.random(in: 0..<1_000, using: &a), Int.random(in: 0..<1_000, using: &b))
    }
}
