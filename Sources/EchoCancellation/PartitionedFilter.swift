import AudioInterop

/// A partitioned-block frequency-domain adaptive filter's weights: `partitions` blocks of N taps,
/// each held as the spectrum of its N taps zero-padded to 2N. The echo estimate is the sum over
/// partitions of weight × reference spectrum; the overlap-save output's last N samples are the
/// linear convolution. How the weights learn (the Kalman step of the main filter, the
/// normalised step of the coarse one) is the owner's business; this holds and applies them.
struct PartitionedFilter {
    let partitions: Int
    let bins: Int
    var re: [Float]
    var im: [Float]
    /// The partition the rotating gradient constraint reaches next.
    private var constraintTurn = 0

    init(partitions: Int, bins: Int) {
        self.partitions = partitions
        self.bins = bins
        re = [Float](repeating: 0, count: partitions * bins)
        im = [Float](repeating: 0, count: partitions * bins)
    }

    /// Y = Σₚ Xₚ·Wₚ, Xₚ the reference block `offset + p` frames old.
    func estimate(_ reference: ReferenceSpectra, offset: Int, re yRe: inout [Float], im yIm: inout [Float]) {
        for k in 0..<bins { yRe[k] = 0; yIm[k] = 0 }
        for p in 0..<partitions {
            let x = reference.base(age: offset + p), w = p * bins
            Self.multiplyAccumulate(reference.re, reference.im, from: x, re, im, from: w, count: bins, into: &yRe, &yIm)
        }
    }

    /// Element by element over spans checked once, so the loops below vectorise: the same bits
    /// as scalar loops.
    private static func multiplyAccumulate(_ xRe: [Float], _ xIm: [Float], from x: Int, _ wRe: [Float], _ wIm: [Float], from w: Int,
                                           count: Int, into yRe: inout [Float], _ yIm: inout [Float]) {
        let xr = xRe.span.extracting(x..<(x + count)), xi = xIm.span.extracting(x..<(x + count))
        let wr = wRe.span.extracting(w..<(w + count)), wi = wIm.span.extracting(w..<(w + count))
        var outRe = yRe.mutableSpan, outIm = yIm.mutableSpan
        precondition(count <= outRe.count && count <= outIm.count)
        var k = 0
        while k < count {
            let a = xr[k], b = xi[k], c = wr[k], d = wi[k]
            outRe[k] += a * c - b * d
            outIm[k] += a * d + b * c
            k &+= 1
        }
    }

    /// Wₚ += step · conj(Xₚ) · E for every partition, `step` holding one real factor per bin
    /// that every partition shares (the coarse filter's normalised step; the main filter's
    /// Kalman step is per partition and learns in `KalmanStepControl.adapt`).
    mutating func adapt(_ reference: ReferenceSpectra, offset: Int, step: [Float], errorRe: [Float], errorIm: [Float]) {
        // The weights are taken out of `self` for the loop (a swap with an empty array: no
        // copy, no allocation) and put back: written through `self`, held in a class, each
        // element's write checked the buffer's uniqueness again and kept the loop scalar.
        var wRe: [Float] = [], wIm: [Float] = []
        swap(&wRe, &re)
        swap(&wIm, &im)
        for p in 0..<partitions {
            Self.update(reference.re, reference.im, from: reference.base(age: offset + p), step: step,
                        errorRe: errorRe, errorIm: errorIm, weights: &wRe, &wIm, from: p * bins, count: bins)
        }
        swap(&wRe, &re)
        swap(&wIm, &im)
    }

    private static func update(_ xRe: [Float], _ xIm: [Float], from x: Int, step: [Float], errorRe: [Float], errorIm: [Float],
                               weights wRe: inout [Float], _ wIm: inout [Float], from w: Int, count: Int) {
        let xr = xRe.span.extracting(x..<(x + count)), xi = xIm.span.extracting(x..<(x + count))
        let mu = step.span.extracting(0..<count), eRe = errorRe.span.extracting(0..<count), eIm = errorIm.span.extracting(0..<count)
        var outRe = wRe.mutableSpan, outIm = wIm.mutableSpan
        precondition(w >= 0 && w <= outRe.count &- count && w <= outIm.count &- count)
        var k = 0
        while k < count {
            let a = xr[k], b = xi[k], er = eRe[k], ei = eIm[k], i = w &+ k
            // conj(X)·E = (a − ib)(er + i·ei)
            outRe[i] += mu[k] * (a * er + b * ei)
            outIm[i] += mu[k] * (a * ei - b * er)
            k &+= 1
        }
    }

    /// Keeps every partition's impulse response inside its N taps.
    mutating func constrainAll(fft: RealFFT, scratch: inout SpectralScratch) {
        for p in 0..<partitions { constrain(p, fft: fft, scratch: &scratch) }
    }

    /// Keeps one partition's impulse response inside its N taps (zeroes the wrapped half), in
    /// turn: the others carry a small circular-convolution error until their turn, as
    /// speexdsp's MDF does.
    mutating func constrainNext(fft: RealFFT, scratch: inout SpectralScratch) {
        constrain(constraintTurn, fft: fft, scratch: &scratch)
        constraintTurn = (constraintTurn + 1) % partitions
    }

    private mutating func constrain(_ p: Int, fft: RealFFT, scratch: inout SpectralScratch) {
        loadTaps(p, fft: fft, scratch: &scratch)
        storeTaps(p, fft: fft, scratch: &scratch)
    }

    /// Partition `p`'s N taps into `scratch.time[0..<N]` (the wrapped half is left behind).
    private func loadTaps(_ p: Int, fft: RealFFT, scratch: inout SpectralScratch) {
        let w = p * bins, n = fft.size / 2
        for k in 0..<bins { scratch.re[k] = re[w + k]; scratch.im[k] = im[w + k] }
        fft.inverse(real: scratch.re, imaginary: scratch.im, output: &scratch.time)
        let scale = 1 / Float(fft.size)
        for i in 0..<n { scratch.time[i] *= scale }
    }

    /// Partition `p` set to the N taps in `scratch.time[0..<N]`, zero-padded: constrained.
    private mutating func storeTaps(_ p: Int, fft: RealFFT, scratch: inout SpectralScratch) {
        let w = p * bins, n = fft.size / 2
        for i in n..<fft.size { scratch.time[i] = 0 }
        fft.forward(scratch.time, real: &scratch.re, imaginary: &scratch.im)
        for k in 0..<bins { re[w + k] = scratch.re[k]; im[w + k] = scratch.im[k] }
    }

    /// Energy of each partition's weights (Σₖ|W|²): where the echo path's energy sits.
    func partitionEnergy(_ p: Int) -> Float {
        var sum: Float = 0
        for k in p * bins..<(p + 1) * bins { sum += re[k] * re[k] + im[k] * im[k] }
        return sum
    }

    /// The weights' power over the first `count` partitions: how loud a path they model.
    func leadingEnergy(_ count: Int) -> Float {
        var sum: Float = 0
        for p in 0..<min(count, partitions) { sum += partitionEnergy(p) }
        return sum
    }

    mutating func reset() {
        for i in re.indices { re[i] = 0; im[i] = 0 }
    }

    /// Takes `other`'s weights, element by element (an array assignment would share the
    /// buffer and copy it at the next write: an allocation on the audio path).
    mutating func copy(from other: PartitionedFilter) {
        precondition(other.re.count == re.count, "filters of different sizes")
        for i in re.indices { re[i] = other.re[i]; im[i] = other.im[i] }
    }

    /// Takes `other`'s first partitions (as many as both have), leaving the rest as they are:
    /// the coarse filter models the head of the path only.
    mutating func copyLeading(from other: PartitionedFilter) {
        precondition(other.bins == bins, "filters of different sizes")
        for i in 0..<min(partitions, other.partitions) * bins { re[i] = other.re[i]; im[i] = other.im[i] }
    }

    /// Moves the impulse response the weights hold `samples` later (positive) or earlier,
    /// zero-filling: through the time domain, since a shift that is not a whole partition spreads
    /// each partition's taps over two. Every partition comes back constrained. `taps` holds
    /// `partitions × N` samples of scratch.
    mutating func shift(samples: Int, fft: RealFFT, scratch: inout SpectralScratch, taps: inout [Float]) {
        let n = fft.size / 2, total = partitions * n
        precondition(taps.count >= total, "scratch shorter than the filter")
        for p in 0..<partitions {
            loadTaps(p, fft: fft, scratch: &scratch)
            for i in 0..<n { taps[p * n + i] = scratch.time[i] }
        }
        if samples > 0 {
            for i in stride(from: total - 1, through: 0, by: -1) { taps[i] = i >= samples ? taps[i - samples] : 0 }
        } else if samples < 0 {
            for i in 0..<total { taps[i] = i - samples < total ? taps[i - samples] : 0 }
        }
        for p in 0..<partitions {
            for i in 0..<n { scratch.time[i] = taps[p * n + i] }
            storeTaps(p, fft: fft, scratch: &scratch)
        }
    }

    /// Moves the weights `shift` partitions later (positive) or earlier, zero-filling: the bulk
    /// delay moved by whole frames, the path it models did not.
    mutating func shift(by shift: Int) {
        guard shift != 0 else { return }
        if shift > 0 {
            for p in stride(from: partitions - 1, through: 0, by: -1) {
                let source = p - shift
                for k in 0..<bins {
                    re[p * bins + k] = source >= 0 ? re[source * bins + k] : 0
                    im[p * bins + k] = source >= 0 ? im[source * bins + k] : 0
                }
            }
        } else {
            for p in 0..<partitions {
                let source = p - shift
                for k in 0..<bins {
                    re[p * bins + k] = source < partitions ? re[source * bins + k] : 0
                    im[p * bins + k] = source < partitions ? im[source * bins + k] : 0
                }
            }
        }
    }
}

/// Buffers one transform needs, made once.
struct SpectralScratch {
    var time: [Float]
    var re: [Float]
    var im: [Float]

    init(size: Int) {
        time = [Float](repeating: 0, count: size)
        re = [Float](repeating: 0, count: size / 2 + 1)
        im = [Float](repeating: 0, count: size / 2 + 1)
    }
}
