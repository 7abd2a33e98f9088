/// The canceller's per-frame sample loops, over spans checked once. Written against the
/// canceller's stored arrays, every element paid an exclusivity check and a uniqueness check;
/// here the element-wise loops vectorise, and each sum still runs in index order, so the bits
/// are those of the plain loops.
enum FrameLoops {
    /// `a[i] = ramp[i]·a[i] + (1 − ramp[i])·b[i]`: from `b` to `a` over the frame.
    static func crossfade(_ a: inout [Float], from b: [Float], ramp: [Float], count: Int) {
        let old = b.span.extracting(0..<count), r = ramp.span.extracting(0..<count)
        var out = a.mutableSpan
        precondition(count <= out.count)
        var i = 0
        while i < count { out[i] = r[i] * out[i] + (1 - r[i]) * old[i]; i &+= 1 }
    }

    /// Σ x[i]² in index order (`VectorMath.sumOfSquares` sums in lanes: other bits).
    static func energy(_ x: [Float], count: Int) -> Float {
        let a = x.span.extracting(0..<count)
        var energy: Float = 0
        var i = 0
        while i < count { energy += a[i] * a[i]; i &+= 1 }
        return energy
    }

    /// Σ x[i]² and Σ (x[i] − y[i])², each summed in index order.
    static func energies(_ x: [Float], minus y: [Float], count: Int) -> (x: Float, difference: Float) {
        let a = x.span.extracting(0..<count), b = y.span.extracting(0..<count)
        var energy: Float = 0, difference: Float = 0
        var i = 0
        while i < count {
            let d = a[i] - b[i]
            difference += d * d
            energy += a[i] * a[i]
            i &+= 1
        }
        return (energy, difference)
    }

    /// `echo[i] *= from + (to − from)·ramp[i]`, then `output[i] = frame[i] − echo[i]`.
    static func weigh(_ echo: inout [Float], from: Float, to: Float, ramp: [Float], frame: [Float], output: inout [Float], count: Int) {
        let r = ramp.span.extracting(0..<count), x = frame.span.extracting(0..<count)
        var e = echo.mutableSpan, out = output.mutableSpan
        precondition(count <= e.count && count <= out.count)
        var i = 0
        while i < count {
            let weight = from + (to - from) * r[i]
            e[i] *= weight
            out[i] = x[i] - e[i]
            i &+= 1
        }
    }

    /// `difference[i] = x[i] − y[i]`; returns Σ difference² and Σ y², each in index order.
    static func subtract(_ x: [Float], minus y: [Float], into difference: inout [Float], count: Int) -> (difference: Float, y: Float) {
        let a = x.span.extracting(0..<count), b = y.span.extracting(0..<count)
        var out = difference.mutableSpan
        precondition(count <= out.count)
        var differenceEnergy: Float = 0, yEnergy: Float = 0
        var i = 0
        while i < count {
            out[i] = a[i] - b[i]
            differenceEnergy += out[i] * out[i]
            yEnergy += b[i] * b[i]
            i &+= 1
        }
        return (differenceEnergy, yEnergy)
    }

    /// `destination[i] = source[s + i] · window[w + i]` for `count` samples, written at `d`.
    static func multiply(_ source: [Float], from s: Int, by window: [Float], from w: Int, into destination: inout [Float], at d: Int, count: Int) {
        let x = source.span.extracting(s..<(s + count)), h = window.span.extracting(w..<(w + count))
        var out = destination.mutableSpan
        precondition(d >= 0 && d <= out.count &- count)
        var i = 0
        while i < count { out[d &+ i] = x[i] * h[i]; i &+= 1 }
    }

    /// Σ a[s + i]·b[t + i] over `count` samples, in four interleaved partial sums (a fixed order:
    /// the same bits every run), so that a long correlation is not one dependent chain of adds.
    static func dot(_ a: [Float], from s: Int, _ b: [Float], from t: Int, count: Int) -> Float {
        let x = a.span.extracting(s..<(s + count)), y = b.span.extracting(t..<(t + count))
        var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
        var i = 0
        while i &+ 4 <= count {
            s0 += x[i] * y[i]
            s1 += x[i &+ 1] * y[i &+ 1]
            s2 += x[i &+ 2] * y[i &+ 2]
            s3 += x[i &+ 3] * y[i &+ 3]
            i &+= 4
        }
        while i < count { s0 += x[i] * y[i]; i &+= 1 }
        return (s0 + s1) + (s2 + s3)
    }
}
