/// A small, fast, seedable generator (xoshiro256**, seeded through SplitMix64) so that noise,
/// jitter and synthetic rooms are bit-identical for the same seed on every machine.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    public init(seed: UInt64) {
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix(); s1 = splitMix(); s2 = splitMix(); s3 = splitMix()
    }

    @inlinable
    public mutating func next() -> UInt64 { nextValue() }

    @usableFromInline
    mutating func nextValue() -> UInt64 {
        let result = rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = rotl(s3, 45)
        return result
    }

    private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// Uniform in [0, 1) with 24 bits, exactly representable as Float.
    @inlinable
    public mutating func nextUnitFloat() -> Float { Float(nextValue() >> 40) * (1.0 / 16_777_216.0) }

    /// Uniform in [−1, 1).
    @inlinable
    public mutating func nextSignedFloat() -> Float { nextUnitFloat() * 2 - 1 }

    /// Approximately standard normal (Irwin–Hall sum of four 16-bit uniforms taken from one
    /// 64-bit draw, scaled to unit variance): cheap enough for per-sample noise, bounded at
    /// ±3.46 σ, bit-identical everywhere.
    @inlinable
    public mutating func nextGaussian() -> Float {
        let bits = nextValue()
        let sum = Int32(truncatingIfNeeded: bits & 0xFFFF) + Int32(truncatingIfNeeded: (bits >> 16) & 0xFFFF)
            + Int32(truncatingIfNeeded: (bits >> 32) & 0xFFFF) + Int32(truncatingIfNeeded: bits >> 48)
        // Each 16-bit part is uniform on [0, 65535]; centre on 2·65535 and scale: variance of the
        // sum is 4·(65536² − 1)/12.
        return Float(sum - 131_070) * (1.732_050_8 / 65_536)
    }

    /// Uniform integer in `range` without modulo bias that matters at these sizes.
    @inlinable
    public mutating func nextInt(in range: ClosedRange<Int64>) -> Int64 {
        // The width is formed in two's complement so that ranges wider than Int64.max (down to
        // the full Int64 range, whose width wraps to 0) do not trap.
        let width = UInt64(bitPattern: range.upperBound &- range.lowerBound) &+ 1
        if width == 0 { return Int64(bitPattern: nextValue()) }
        return range.lowerBound &+ Int64(bitPattern: nextValue() % width)
    }
}
