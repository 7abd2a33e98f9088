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
        var total = [Double](repeating: 0, count: bins)
        for j in 0..<segments {
            fft.forward(reference, offset: j * length, real: &referenceReal[j], imaginary: &referenceImaginary[j])
            for k in 0..<bins {
                let re = Double(referenceReal[j][k]), im = Double(referenceImaginary[j][k])
                total[k] += re * re + im * im
            }
        }
        // A floor of 1e-3 of the mean bin power: bins the far end never reaches (above 8 kHz of a
        // 16 kHz far end) would otherwise get enormous steps from rounding noise.
        let mean = total.reduce(0, +) / Double(bins)
        let floor = max(mean * 1e-3, 1e-30)
        for k in 0..<bins { power[k] = Float(total[k] + floor) }
    }

    /// ŷ of the loaded block for the path `pathReal/pathImaginary` (the spectrum of h zero-padded
    /// to 2L), into `output[0..<segments·L]`.
    func predict(pathReal: [Float], pathImaginary: [Float], into output: inout [Float]) {
        let scale = 1 / Float(2 * length)
        for j in 0..<segments {
            let xr = referenceReal[j], xi = referenceImaginary[j]
            for k in 0..<bins {
                workReal[k] = (xr[k] * pathReal[k] - xi[k] * pathImaginary[k]) * scale
                workImaginary[k] = (xr[k] * pathImaginary[k] + xi[k] * pathReal[k]) * scale
            }
            fft.inverse(real: workReal, imaginary: workImaginary, output: &time)
            for n in 0..<length { output[j * length + n] = time[length + n] }
        }
    }

    /// Refines the path (spectrum, updated in place) by at most `iterations` preconditioned CG steps on
    /// the weighted error against `mic[0..<segments·L]`; `prediction` holds ŷ of the current path
    /// on entry and is kept up to date.
    func refine(pathReal: inout [Float], pathImaginary: inout [Float], mic: [Float], weights: [Float],
                prediction: inout [Float], iterations: Int) {
        let span = segments * length
        var error = [Float](repeating: 0, count: span)
        var direction = [Float](repeating: 0, count: length)
        var directionReal = [Float](repeating: 0, count: bins), directionImaginary = directionReal
        var step = [Float](repeating: 0, count: span)
        var previousRZ = 0.0
        for iteration in 0..<iterations {
            for n in 0..<span { error[n] = weights[n] * (mic[n] - prediction[n]) }
            let gradient = correlate(error)
            let preconditioned = applyPreconditioner(gradient)
            var rz = 0.0
            for l in 0..<length { rz += Double(gradient[l]) * Double(preconditioned[l]) }
            guard rz > 0, rz.isFinite else { return }
            let beta = iteration == 0 || previousRZ == 0 ? 0 : Float(rz / previousRZ)
            previousRZ = rz
            for l in 0..<length { direction[l] = preconditioned[l] + beta * direction[l] }
            spectrum(of: direction, real: &directionReal, imaginary: &directionImaginary)
            predict(pathReal: directionReal, pathImaginary: directionImaginary, into: &step)
            var numerator = 0.0, denominator = 0.0
            for n in 0..<span {
                let q = Double(weights[n] * step[n])
                numerator += Double(error[n]) * q
                denominator += q * q
            }
            guard denominator > 0 else { return }
            let alpha = Float(numerator / denominator)
            // The step removes numerator²/denominator of the weighted error energy; once that is
            // under 0.1 % of what is left, further steps change nothing the gate could see.
            var energy = 0.0
            for n in 0..<span { energy += Double(error[n]) * Double(error[n]) }
            let converged = numerator * numerator / denominator < 1e-3 * energy
            for k in 0..<bins {
                pathReal[k] += alpha * directionReal[k]
                pathImaginary[k] += alpha * directionImaginary[k]
            }
            for n in 0..<span { prediction[n] += alpha * step[n] }
            if converged { return }
        }
    }

    /// Aᵀe: Σ_j the correlation of segment j's reference frame with [0_L, e_j], lags 0..<L.
    private func correlate(_ error: [Float]) -> [Float] {
        for k in 0..<bins { sumReal[k] = 0; sumImaginary[k] = 0 }
        for j in 0..<segments {
            for n in 0..<length { time[n] = 0; time[length + n] = error[j * length + n] }
            fft.forward(time, real: &workReal, imaginary: &workImaginary)
            let xr = referenceReal[j], xi = referenceImaginary[j]
            for k in 0..<bins {
                // conj(X)·E
                sumReal[k] += Double(xr[k] * workReal[k] + xi[k] * workImaginary[k])
                sumImaginary[k] += Double(xr[k] * workImaginary[k] - xi[k] * workReal[k])
            }
        }
        let scale = 1 / Double(2 * length)
        for k in 0..<bins { workReal[k] = Float(sumReal[k] * scale); workImaginary[k] = Float(sumImaginary[k] * scale) }
        fft.inverse(real: workReal, imaginary: workImaginary, output: &time)
        return Array(time[0..<length])
    }

    /// M⁻¹g: g zero-padded, divided by the reference power per bin, cut back to L lags.
    private func applyPreconditioner(_ gradient: [Float]) -> [Float] {
        spectrum(of: gradient, real: &workReal, imaginary: &workImaginary)
        let scale = 1 / Float(2 * length)
        for k in 0..<bins {
            workReal[k] = workReal[k] / power[k] * scale
            workImaginary[k] = workImaginary[k] / power[k] * scale
        }
        fft.inverse(real: workReal, imaginary: workImaginary, output: &time)
        return Array(time[0..<length])
    }

    /// Spectrum of `taps` (L) zero-padded to 2L.
    func spectrum(of taps: [Float], real: inout [Float], imaginary: inout [Float]) {
        for n in 0..<length { time[n] = taps[n]; time[length + n] = 0 }
        fft.forward(time, real: &real, imaginary: &imaginary)
    }
}
