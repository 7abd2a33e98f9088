/// Block operations for per-tick code. They take their arrays `inout` or by value, so a loop
/// touches local storage: the same loop written against a class's stored arrays pays a dynamic
/// exclusivity check and a uniqueness check on every element (measured: most of a tick's time).
public enum VectorMath {
    /// `destination[d..<d+count] = source[s..<s+count]`.
    @inlinable
    public static func copy(_ source: [Float], from sourceOffset: Int = 0, into destination: inout [Float],
                            at destinationOffset: Int = 0, count: Int) {
        precondition(sourceOffset + count <= source.count && destinationOffset + count <= destination.count)
        for i in 0..<count { destination[destinationOffset + i] = source[sourceOffset + i] }
    }

    @inlinable
    public static func fill(_ destination: inout [Float], with value: Float = 0, count: Int) {
        for i in 0..<count { destination[i] = value }
    }

    /// `destination = a + b`.
    @inlinable
    public static func add(_ a: [Float], _ b: [Float], into destination: inout [Float], count: Int) {
        for i in 0..<count { destination[i] = a[i] + b[i] }
    }

    /// `destination += source`.
    @inlinable
    public static func accumulate(_ source: [Float], into destination: inout [Float], count: Int) {
        for i in 0..<count { destination[i] += source[i] }
    }

    /// `destination = from + (to − from) · ramp`, a crossfade with `ramp` going 0 → 1.
    @inlinable
    public static func crossfade(from: [Float], to: [Float], ramp: [Float], into destination: inout [Float], count: Int) {
        for i in 0..<count { destination[i] = from[i] + (to[i] - from[i]) * ramp[i] }
    }

    /// Clamps into `[-limit, limit]`.
    @inlinable
    public static func clip(_ source: [Float], limit: Float, into destination: inout [Float], count: Int) {
        for i in 0..<count { destination[i] = min(max(source[i], -limit), limit) }
    }

    /// Saturates at full scale (±1, what a DAC or ADC can represent) in place; returns how many
    /// samples were beyond it. One pass, no branch (vectorises).
    @inlinable
    public static func saturate(_ x: inout [Float], count: Int) -> Int {
        var over = 0
        for i in 0..<count {
            let value = x[i], clamped = min(max(value, -1), 1)
            over &+= clamped == value ? 0 : 1
            x[i] = clamped
        }
        return over
    }

    /// Mean square of the first `count` samples.
    @inlinable
    public static func meanSquare(_ x: [Float], count: Int) -> Float {
        var sum: Float = 0
        for i in 0..<count { sum += x[i] * x[i] }
        return count > 0 ? sum / Float(count) : 0
    }

    /// Float32 → Int16 (rounded, saturated), `count` samples.
    @inlinable
    public static func convert(_ source: [Float], into destination: inout [Int16], count: Int) {
        for i in 0..<count { destination[i] = SampleConversion.int16(fromFloat: source[i]) }
    }

    /// Int16 → Float32, `count` samples.
    @inlinable
    public static func convert(_ source: [Int16], into destination: inout [Float], count: Int) {
        for i in 0..<count { destination[i] = SampleConversion.float(fromInt16: source[i]) }
    }
}
