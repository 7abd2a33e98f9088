import AudioInterop

/// A least-squares FIR fit of the echo path reference → mic over one block of a recording, and
/// the echo it predicts. Offline and non-causal: the whole block is known.
///
/// Model: mic[n] ≈ Σ_{l<L} h[l]·x[n−l], with x the reference already shifted by the bulk delay
/// (less a small margin), h of `length` L taps (~341 ms). The block is cut into K segments of L
/// output samples; each segment's prediction is exact by overlap-save (a 2L FFT of the reference
/// from L samples before the segment, times H, last L samples), so the fit minimises the true
/// time-domain error Σ w[n]·(mic[n] − ŷ[n])², with per-sample weights w ∈ {0, 1} (the gate
/// leaves frames it judged near-end-active out of the fit).
///
/// Solver: conjugate gradients preconditioned by the block's reference power spectrum (the
/// diagonal of the normal equations in the frequency domain, which takes out speech's spectral
/// tilt), each step length from an exact line search. Per iteration: one FFT and one inverse FFT
/// per segment. The reference's segment spectra are computed once per block and kept, so the
/// gate can predict a block with a neighbour's fit at the cost of one inverse FFT per segment.
///
/// The loops run over spans taken once per loop: indexing the class's arrays element by element
/// costs a dynamic exclusivity check and a uniqueness check per access, which took 40 % of a
/// recording's analysis.
final class EchoPathFit {
    let length: Int
    let segments: Int
    private let fft: RealFFT
    private var bins: Int { length + 1 }
    /// Reference spectra of each segment's 2L frame, and their power sum (the preconditioner).
    private(set) var referenceReal: [[Float]]
    private(set) var referenceImaginary: [[Float]]
    private var power: [Float]
    private var time: [Float]
    private var workReal: [Float], workImaginary: [Float]
    private var sumReal: [Double], sumImaginary: [Double]

    init(length: Int, segments: Int) {
        self.length = length
        self.segments = segments
        fft = RealFFT(size: 2 * length)
        let bins = length + 1
        referenceReal = [[Float]](repeating: [Float](repeating: 0, count: bins), count: segments)
        referenceImaginary = referenceReal
        power = [Float](repeating: 0, count: bins)
        time = [Float](repeating: 0, count: 2 * length)
        workReal = [Float](repeating: 0, count: bins)
        workImaginary = workReal
        sumReal = [Double](repeating: 0, count: bins)
        sumImaginary = sumReal
    }

    /// Takes the block's shifted reference: `reference[0..<(segments + 1)·L]`, starting L samples
    /// before the block's first output sample.
    func load(reference: [Float]) {
        precondition(reference.count >= (segments + 1) * length)
        let bins = self.bins
        var total = [Double](repeating: 0, count: bins)
        for j in 0..<segments {
            fft.forward(reference, offset: j * length, real: &referenceReal[j], imaginary: &referenceImaginary[j])
            let real = referenceReal[j], imaginary = referenceImaginary[j]
            let xr = real.span.extracting(0..<bins), xi = imaginary.span.extracting(0..<bins)
            var sum = total.mutableSpan
            for k in 0..<bins {
                let re = Double(xr[k]), im = Double(xi[k])
                sum[k] += re * re + im * im
            }
        }
        // A floor of 1e-3 of the mean bin power: bins the far end never reaches (above 8 kHz of a
        // 16 kHz far end) would otherwise get enormous steps from rounding noise.
        let mean = total.reduce(0, +) / Double(bins)
        let floor = max(mean * 1e-3, 1e-30)
        Self.store(total, adding: floor, into: &power)
    }

    /// power[k] = Float(total[k] + floor), bin by bin.
    private static func store(_ total: [Double], adding floor: Double, into power: inout [Float]) {
        let sums = total.span
        var preconditioner = power.mutableSpan
        for k in 0..<sums.count { preconditioner[k] = Float(sums[k] + floor) }
    }

    /// ŷ of the loaded block for the path `pathReal/pathImaginary` (the spectrum of h zero-padded
    /// to 2L), into `output[0..<segments·L]`.
    func predict(pathReal: [Float], pathImaginary: [Float], into output: inout [Float]) {
        let scale = 1 / Float(2 * length)
        let bins = self.bins, length = self.length
        let hr = pathReal.span.extracting(0..<bins), hi = pathImaginary.span.extracting(0..<bins)
        var out = output.mutableSpan
        for j in 0..<segments {
            let real = referenceReal[j], imaginary = referenceImaginary[j]
            let xr = real.span.extracting(0..<bins), xi = imaginary.span.extracting(0..<bins)
            Self.multiply(xr, xi, by: hr, hi, scale: scale, into: &workReal, &workImaginary)
            fft.inverse(real: workReal, imaginary: workImaginary, output: &time)
            let t = time.span.extracting(length..<(2 * length))
            for n in 0..<length { out[j * length + n] = t[n] }
        }
    }

    /// (xr + i·xi)(hr + i·hi)·scale, bin by bin.
    private static func multiply(_ xr: Span<Float>, _ xi: Span<Float>, by hr: Span<Float>, _ hi: Span<Float>, scale: Float,
                                 into real: inout [Float], _ imaginary: inout [Float]) {
        let bins = xr.count
        var wr = real.mutableSpan, wi = imaginary.mutableSpan
        for k in 0..<bins {
            wr[k] = (xr[k] * hr[k] - xi[k] * hi[k]) * scale
            wi[k] = (xr[k] * hi[k] + xi[k] * hr[k]) * scale
        }
    }

    /// Refines the path (spectrum, updated in place) by at most `iterations` preconditioned CG steps on
    /// the weighted error against `mic[0..<segments·L]`; `prediction` holds ŷ of the current path
    /// on entry and is kept up to date.
    func refine(pathReal: inout [Float], pathImaginary: inout [Float], mic: [Float], weights: [Float],
                prediction: inout [Float], iterations: Int) {
        let length = self.length, bins = self.bins, samples = segments * length
        var error = [Float](repeating: 0, count: samples)
        var direction = [Float](repeating: 0, count: length)
        var directionReal = [Float](repeating: 0, count: bins), directionImaginary = directionReal
        var step = [Float](repeating: 0, count: samples)
        var previousRZ = 0.0
        let w = weights.span.extracting(0..<samples), m = mic.span.extracting(0..<samples)
        for iteration in 0..<iterations {
            do {
                let y = prediction.span.extracting(0..<samples)
                var e = error.mutableSpan
                for n in 0..<samples { e[n] = w[n] * (m[n] - y[n]) }
            }
            let gradient = correlate(error)
            let preconditioned = applyPreconditioner(gradient)
            let g = gradient.span.extracting(0..<length), z = preconditioned.span.extracting(0..<length)
            var rz = 0.0
            for l in 0..<length { rz += Double(g[l]) * Double(z[l]) }
            guard rz > 0, rz.isFinite else { return }
            let beta = iteration == 0 || previousRZ == 0 ? 0 : Float(rz / previousRZ)
            previousRZ = rz
            do {
                var d = direction.mutableSpan
                for l in 0..<length { d[l] = z[l] + beta * d[l] }
            }
            spectrum(of: direction, real: &directionReal, imaginary: &directionImaginary)
            predict(pathReal: directionReal, pathImaginary: directionImaginary, into: &step)
            var numerator = 0.0, denominator = 0.0
            do {
                let e = error.span, q = step.span.extracting(0..<samples)
                for n in 0..<samples {
                    let weighted = Double(w[n] * q[n])
                    numerator += Double(e[n]) * weighted
                    denominator += weighted * weighted
                }
            }
            guard denominator > 0 else { return }
            let alpha = Float(numerator / denominator)
            // The step removes numerator²/denominator of the weighted error energy; once that is
            // under 0.1 % of what is left, further steps change nothing the gate could see.
            var energy = 0.0
            do {
                let e = error.span
                for n in 0..<samples { energy += Double(e[n]) * Double(e[n]) }
            }
            let converged = numerator * numerator / denominator < 1e-3 * energy
            do {
                let dr = directionReal.span, di = directionImaginary.span
                var pathRe = pathReal.mutableSpan, pathImag = pathImaginary.mutableSpan
                for k in 0..<bins {
                    pathRe[k] += alpha * dr[k]
                    pathImag[k] += alpha * di[k]
                }
                let q = step.span
                var y = prediction.mutableSpan
                for n in 0..<samples { y[n] += alpha * q[n] }
            }
            if converged { return }
        }
    }

    /// Aᵀe: Σ_j the correlation of segment j's reference frame with [0_L, e_j], lags 0..<L.
    private func correlate(_ error: [Float]) -> [Float] {
        let bins = self.bins, length = self.length
        do {
            var sr = sumReal.mutableSpan, si = sumImaginary.mutableSpan
            for k in 0..<bins { sr[k] = 0; si[k] = 0 }
        }
        let e = error.span
        for j in 0..<segments {
            do {
                var t = time.mutableSpan
                for n in 0..<length { t[n] = 0; t[length + n] = e[j * length + n] }
            }
            fft.forward(time, real: &workReal, imaginary: &workImaginary)
            let real = referenceReal[j], imaginary = referenceImaginary[j]
            Self.addConjugateProduct(real.span.extracting(0..<bins), imaginary.span.extracting(0..<bins),
                                     workReal.span.extracting(0..<bins), workImaginary.span.extracting(0..<bins),
                                     to: &sumReal, &sumImaginary)
        }
        let scale = 1 / Double(2 * length)
        do {
            let sr = sumReal.span, si = sumImaginary.span
            var wr = workReal.mutableSpan, wi = workImaginary.mutableSpan
            for k in 0..<bins { wr[k] = Float(sr[k] * scale); wi[k] = Float(si[k] * scale) }
        }
        fft.inverse(real: workReal, imaginary: workImaginary, output: &time)
        return Array(time[0..<length])
    }

    /// sum += conj(X)·E, bin by bin, each product rounded to Float before it is added.
    private static func addConjugateProduct(_ xr: Span<Float>, _ xi: Span<Float>, _ er: Span<Float>, _ ei: Span<Float>,
                                            to sumReal: inout [Double], _ sumImaginary: inout [Double]) {
        let bins = xr.count
        var sr = sumReal.mutableSpan, si = sumImaginary.mutableSpan
        for k in 0..<bins {
            sr[k] += Double(xr[k] * er[k] + xi[k] * ei[k])
            si[k] += Double(xr[k] * ei[k] - xi[k] * er[k])
        }
    }

    /// M⁻¹g: g zero-padded, divided by the reference power per bin, cut back to L lags.
    private func applyPreconditioner(_ gradient: [Float]) -> [Float] {
        spectrum(of: gradient, real: &workReal, imaginary: &workImaginary)
        let scale = 1 / Float(2 * length), bins = self.bins
        do {
            let p = power.span.extracting(0..<bins)
            var wr = workReal.mutableSpan, wi = workImaginary.mutableSpan
            for k in 0..<bins {
                wr[k] = wr[k] / p[k] * scale
                wi[k] = wi[k] / p[k] * scale
            }
        }
        fft.inverse(real: workReal, imaginary: workImaginary, output: &time)
        return Array(time[0..<length])
    }

    /// The path's L taps from its spectrum (what `spectrum(of:)` made).
    func taps(pathReal: [Float], pathImaginary: [Float]) -> [Float] {
        let scale = 1 / Float(2 * length)
        for k in 0..<bins {
            workReal[k] = pathReal[k] * scale
            workImaginary[k] = pathImaginary[k] * scale
        }
        fft.inverse(real: workReal, imaginary: workImaginary, output: &time)
        return Array(time[0..<length])
    }

    /// Spectrum of `taps` (L) zero-padded to 2L.
    func spectrum(of taps: [Float], real: inout [Float], imaginary: inout [Float]) {
        let length = self.length
        do {
            let source = taps.span.extracting(0..<length)
            var t = time.mutableSpan
            for n in 0..<length { t[n] = source[n]; t[length + n] = 0 }
        }
        fft.forward(time, real: &real, imaginary: &imaginary)
    }
}
