/// Sums over sample and bin ranges with four interleaved accumulators: one running Double sum is
/// a chain of dependent additions (latency-bound, ~4 cycles per element); four independent
/// chains keep the FPU busy. The order of additions is fixed, so results are still bit-identical
/// run to run. The ranges are checked once (a span); in the four-wide loops `i + 3 < x.count`,
/// so their reads skip the check (`unchecked`) and the four sums share vector lanes. Checked,
/// every read kept a compare and branch, and the loads stayed scalar.
enum PowerSums {
    /// Σ x[i] over `range`, in Double.
    static func sum(_ values: [Float], _ range: Range<Int>) -> Double {
        let x = values.span.extracting(range)
        var a = 0.0, b = 0.0, c = 0.0, d = 0.0
        var i = 0
        while i &+ 4 <= x.count {
            a += Double(x[unchecked: i]); b += Double(x[unchecked: i &+ 1]); c += Double(x[unchecked: i &+ 2]); d += Double(x[unchecked: i &+ 3])
            i &+= 4
        }
        while i < x.count { a += Double(x[i]); i &+= 1 }
        return (a + b) + (c + d)
    }

    /// Σ x[i]² over `range`, in Double.
    static func sumOfSquares(_ values: [Float], _ range: Range<Int>) -> Double {
        let x = values.span.extracting(range)
        var a = 0.0, b = 0.0, c = 0.0, d = 0.0
        var i = 0
        while i &+ 4 <= x.count {
            let x0 = Double(x[unchecked: i]), x1 = Double(x[unchecked: i &+ 1]), x2 = Double(x[unchecked: i &+ 2]), x3 = Double(x[unchecked: i &+ 3])
            a += x0 * x0; b += x1 * x1; c += x2 * x2; d += x3 * x3
            i &+= 4
        }
        while i < x.count { let v = Double(x[i]); a += v * v; i &+= 1 }
        return (a + b) + (c + d)
    }

    /// Σ (x[i] − y[i])² over `range`, in Double (the difference is taken in Float, as a
    /// sample-wise mic − echo signal would hold it).
    static func sumOfSquaredDifferences(_ xValues: [Float], _ yValues: [Float], _ range: Range<Int>) -> Double {
        let x = xValues.span.extracting(range), y = yValues.span.extracting(range)
        var a = 0.0, b = 0.0, c = 0.0, d = 0.0
        var i = 0
        while i &+ 4 <= x.count {
            let v0 = Double(x[unchecked: i] - y[unchecked: i]), v1 = Double(x[unchecked: i &+ 1] - y[unchecked: i &+ 1])
            let v2 = Double(x[unchecked: i &+ 2] - y[unchecked: i &+ 2]), v3 = Double(x[unchecked: i &+ 3] - y[unchecked: i &+ 3])
            a += v0 * v0; b += v1 * v1; c += v2 * v2; d += v3 * v3
            i &+= 4
        }
        while i < x.count { let v = Double(x[i] - y[i]); a += v * v; i &+= 1 }
        return (a + b) + (c + d)
    }

    /// Σ x[i]·y[i] over `range`, in Double.
    static func dot(_ xValues: [Float], _ yValues: [Float], _ range: Range<Int>) -> Double {
        let x = xValues.span.extracting(range), y = yValues.span.extracting(range)
        var a = 0.0, b = 0.0, c = 0.0, d = 0.0
        var i = 0
        while i &+ 4 <= x.count {
            a += Double(x[unchecked: i]) * Double(y[unchecked: i]); b += Double(x[unchecked: i &+ 1]) * Double(y[unchecked: i &+ 1])
            c += Double(x[unchecked: i &+ 2]) * Double(y[unchecked: i &+ 2]); d += Double(x[unchecked: i &+ 3]) * Double(y[unchecked: i &+ 3])
            i &+= 4
        }
        while i < x.count { a += Double(x[i]) * Double(y[i]); i &+= 1 }
        return (a + b) + (c + d)
    }
}
