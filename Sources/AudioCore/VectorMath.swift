/// Block operations for per-tick code. They take their arrays `inout` or by value, so a loop
/// touches local storage: the same loop written against a class's stored arrays pays a dynamic
/// exclusivity check and a uniqueness check on every element (measured: most of a tick's time).
/// The hot ones loop over spans, checked once against `count`, with a wrapping index, so the loop has no
/// bounds or overflow check left and vectorises (element-wise: the results are the same bits).
public enum VectorMath {
    /// `destination[d..<d+count] = source[s..<s+count]`.
    @inlinable
    public static func copy(_ source: [Float], from sourceOffset: Int = 0, into destination: inout [Float],
                            at destinationOffset: Int = 0, count: Int) {
        // Spans, not a slice assignment: the slice retained and released `source` on every call,
        // and that release was a seventh of the call thread's profile in `run` (a tap copies six
        // signals a tick); spans only borrow. The loop vectorises like memcpy; both ranges are
        // checked first (`extracting` and the precondition).
        let input = source.span.extracting(sourceOffset..<(sourceOffset + count))
        var output = destination.mutableSpan
        precondition(destinationOffset >= 0 && destinationOffset <= output.count &- count)
        var i = 0
        while i < count { output[destinationOffset &+ i] = input[i]; i &+= 1 }
    }

    @inlinable
    public static func fill(_ destination: inout [Float], with value: Float = 0, count: Int) {
        var output = destination.mutableSpan
        precondition(count <= output.count)
        var i = 0
        while i < count { output[i] = value; i &+= 1 }
    }

    /// `destination = a + b`.
    @inlinable
    public static func add(_ a: [Float], _ b: [Float], into destination: inout [Float], count: Int) {
        let x = a.span.extracting(0..<count), y = b.span.extracting(0..<count)
        var output = destination.mutableSpan
        precondition(count <= output.count)
        var i = 0
        while i < count { output[i] = x[i] + y[i]; i &+= 1 }
    }

    /// `destination += source`.
    @inlinable
    public static func accumulate(_ source: [Float], into destination: inout [Float], count: Int) {
        let input = source.span.extracting(0..<count)
        var output = destination.mutableSpan
        precondition(count <= output.count)
        var i = 0
        while i < count { output[i] += input[i]; i &+= 1 }
    }

    /// `destination += source · gain` (a mixer bus with its volume).
    @inlinable
    public static func accumulate(_ source: [Float], gain: Float, into destination: inout [Float], count: Int) {
        let x = source.span.extracting(0..<count)
        var output = destination.mutableSpan
        precondition(count <= output.count)
        var i = 0
        while i < count { output[i] += x[i] * gain; i &+= 1 }
    }

    /// `x *= gain`.
    @inlinable
    public static func scale(_ x: inout [Float], by gain: Float, count: Int) {
        var output = x.mutableSpan
        precondition(count <= output.count)
        var i = 0
        while i < count { output[i] *= gain; i &+= 1 }
    }

    /// `destination = destination + (to − destination) · ramp`, a crossfade from what
    /// `destination` holds with `ramp` going 0 → 1, in place (given as a source too, it was copied).
    @inlinable
    public static func crossfade(inPlace destination: inout [Float], to: [Float], ramp: [Float], count: Int) {
        for i in 0..<count { destination[i] = destination[i] + (to[i] - destination[i]) * ramp[i] }
    }

    /// Clamps into `[-limit, limit]`.
    @inlinable
    public static func clip(_ source: [Float], limit: Float, into destination: inout [Float], count: Int) {
        for i in 0..<count { destination[i] = min(max(source[i], -limit), limit) }
    }

    /// Saturates at full scale (±1, what a DAC or ADC can represent) in place; returns how many
    /// samples were beyond it. NaN, which no converter can hold, becomes 0 and counts too (`min`
    /// and `max` pass a NaN through: a custom mic's NaN reached the canceller). One pass, no
    /// branch (vectorises).
    @inlinable
    public static func saturate(_ x: inout [Float], count: Int) -> Int {
        var values = x.mutableSpan
        precondition(count <= values.count && count <= Int(UInt32.max))
        // A 32-bit count fills the vector lanes beside the Float compares (a 64-bit one halves them).
        var over: UInt32 = 0, i = 0
        while i < count {
            let value = values[i], bounded = min(max(value, -1), 1)
            let clamped = bounded == bounded ? bounded : 0
            over &+= clamped == value ? 0 : 1
            values[i] = clamped
            i &+= 1
        }
        return Int(over)
    }

    /// Σx² of the first `count` samples, in Float: eight running sums (one vector), summed in a
    /// fixed order at the end, so the loop is not one long chain of dependent adds (a tick's level
    /// took 4× longer as two chains) and the result is the same bits on every run.
    ///
    /// The span is checked once; inside the loop `i + 7 < count`, so the reads skip the check
    /// (`unchecked`): checked, each of the eight reads kept a compare and branch and the loads
    /// stayed scalar (a third of this function's time).
    @inlinable
    public static func sumOfSquares(_ x: [Float], count: Int) -> Float {
        let values = x.span.extracting(0..<count)
        var lanes = SIMD8<Float>()
        var i = 0
        while i &+ 8 <= count {
            let v = SIMD8<Float>(values[unchecked: i], values[unchecked: i &+ 1], values[unchecked: i &+ 2],
                                 values[unchecked: i &+ 3], values[unchecked: i &+ 4], values[unchecked: i &+ 5],
                                 values[unchecked: i &+ 6], values[unchecked: i &+ 7])
            lanes += v * v
            i &+= 8
        }
        var tail: Float = 0
        while i < count { tail += values[i] * values[i]; i &+= 1 }
        return (((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))) + tail
    }

    /// Whether `a[aOffset..<aOffset + count]` and `b[bOffset..<bOffset + count]` hold the same
    /// bits (−0 and +0 differ, as do NaNs: equal bits give equal results downstream). The
    /// differing bits are OR-ed over the whole range without an early exit, so the loop
    /// vectorises; the equal case, the common one, has to be read to the end anyway.
    @inlinable
    public static func bitwiseEqual(_ a: [Float], from aOffset: Int, _ b: [Float], from bOffset: Int, count: Int) -> Bool {
        let x = a.span.extracting(aOffset..<(aOffset + count)), y = b.span.extracting(bOffset..<(bOffset + count))
        var differing: UInt32 = 0
        for index in 0..<count { differing |= x[index].bitPattern ^ y[index].bitPattern }
        return differing == 0
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
