/// Sums over sample and bin ranges with four interleaved accumulators: one running Double sum is
/// a chain of dependent additions (latency-bound, ~4 cycles per element); four independent
/// chains keep the FPU busy. The order of additions is fixed, so results are still bit-identical
/// run to run.
enum PowerSums {
    /// Σ x[i] over `range`, in Double.
    static func sum(_ values: [Float], _ range: Range<Int>) -> Double {
        var a = 0.0, b = 0.0, c = 0.0, d = 0.0
        var index = range.lowerBound
        let end = range.upperBound
        while index + 4 <= end {
            a += Double(values[index]); b += Double(values[index + 1])
            c += Double(values[index + 2]); d += Double(values[index + 3])
            index += 4
        }
        while index < end { a += Double(values[index]); index += 1 }
        return (a + b) + (c + d)
    }

    /// Σ x[i]² over `range`, in Double.
    static func sumOfSquares(_ values: [Float], _ range: Range<Int>) -> Double {
        var a = 0.0, b = 0.0, c = 0.0, d = 0.0
        var index = range.lowerBound
        let end = range.upperBound
        while index + 4 <= end {
            let x0 = Double(values[index]), x1 = Double(values[index + 1])
            let x2 = Double(values[index + 2]), x3 = Double(values[index + 3])
            a += x0 * x0; b += x1 * x1; c += x2 * x2; d += x3 * x3
            index += 4
        }
        while index < end { let x = Double(values[index]); a += x * x; index += 1 }
        return (a + b) + (c + d)
    }

    /// Σ (x[i] − y[i])² over `range`, in Double (the difference is taken in Float, as a
    /// sample-wise mic − echo signal would hold it).
    static func sumOfSquaredDifferences(_ x: [Float], _ y: [Float], _ range: Range<Int>) -> Double {
        var a = 0.0, b = 0.0, c = 0.0, d = 0.0
        var index = range.lowerBound
        let end = range.upperBound
        while index + 4 <= end {
            let x0 = Double(x[index] - y[index]), x1 = Double(x[index + 1] - y[index + 1])
            let x2 = Double(x[index + 2] - y[index + 2]), x3 = Double(x[index + 3] - y[index + 3])
            a += x0 * x0; b += x1 * x1; c += x2 * x2; d += x3 * x3
            index += 4
        }
        while index < end { let v = Double(x[index] - y[index]); a += v * v; index += 1 }
        return (a + b) + (c + d)
    }

    /// Σ x[i]·y[i] over `range`, in Double.
    static func dot(_ x: [Float], _ y: [Float], _ range: Range<Int>) -> Double {
        var a = 0.0, b = 0.0, c = 0.0, d = 0.0
        var index = range.lowerBound
        let end = range.upperBound
        while index + 4 <= end {
            a += Double(x[index]) * Double(y[index]); b += Double(x[index + 1]) * Double(y[index + 1])
            c += Double(x[index + 2]) * Double(y[index + 2]); d += Double(x[index + 3]) * Double(y[index + 3])
            index += 4
        }
        while index < end { a += Double(x[index]) * Double(y[index]); index += 1 }
        return (a + b) + (c + d)
    }
}
