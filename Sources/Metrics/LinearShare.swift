import AudioInterop

/// How much of a signal another explains linearly at one alignment: the share of `y`'s power that
/// a filter from `x` (about half a block long, centred on `lag`) predicts, from Welch cross
/// spectra (Σ_k |S_xy|² / S_xx over Σ_k S_yy: the coherence, weighted by `y`'s power).
///
/// Why: a whitened correlation (GCC-PHAT) peaks wherever two signals share their phase at one
/// lag, however little of the power that carries. Two espeak-ng voices — a far end and a near
/// talker over a mic without echo — peaked 30 times over the correlation's median at −130 ms,
/// and `metrics` read "the echo leads the reference" where there was no echo; at that lag the far
/// end explained 0.48 % of the mic, what unrelated signals give by chance over 211 blocks. An
/// echo explains far more: a pure delay all of it, a room's echo under a louder talker 4 %.
struct LinearShare {
    /// The share, and the blocks it stands on: unrelated signals give about 1 / `blocks`.
    let share: Double
    let blocks: Int

    /// A share at least this many times what unrelated signals give by chance (about 1 /
    /// `blocks`) may be an echo's: the two voices' share was 1.0 times it, an echo of a speech far
    /// end 18 dB under a talker who never pauses 2.6 times, a pure delay `blocks` times.
    static let overChance = 2.0

    /// Fewer blocks than this weigh nothing: with one, chance alone explains it all.
    static let minimumBlocks = 8

    /// Whether `y` holds enough of `x` at `lag` to be its echo (`overChance`); true where the
    /// overlap is too short to tell (under `minimumBlocks`), so that the check never removes a
    /// verdict it cannot weigh.
    static func isAnEcho(x: [Float], y: [Float], lag: Int, sampleRate: Int) -> Bool {
        let atLag = LinearShare(x: x, y: y, lag: lag, sampleRate: sampleRate)
        return atLag.blocks < minimumBlocks || atLag.share >= overChance / Double(atLag.blocks)
    }

    /// `lag`: how far `y` lags `x` (negative: `y` leads it), in samples. Blocks of at least 125 ms
    /// (a power of two: 128 ms at 16 kHz, 171 ms at 48 kHz), Hann-windowed, half a block apart,
    /// over the two signals' overlap.
    init(x: [Float], y: [Float], lag: Int, sampleRate: Int) {
        var size = 2
        while size < max(2, sampleRate / 8) { size *= 2 }
        // Pairs (x[t − lag], y[t]) over the overlap.
        let xStart = max(0, -lag), yStart = max(0, lag)
        let count = min(x.count - xStart, y.count - yStart)
        guard count >= size else {
            share = 0
            blocks = 0
            return
        }
        let fft = RealFFT(size: size)
        let window = WelchFrames.hannWindow(size: size)
        let bins = fft.binCount
        var xx = [Double](repeating: 0, count: bins), yy = xx, xyReal = xx, xyImaginary = xx
        var xr = [Float](repeating: 0, count: bins), xi = xr, yr = xr, yi = xr
        var start = 0, blocks = 0
        while start + size <= count {
            fft.forward(x, offset: xStart + start, window: window, real: &xr, imaginary: &xi)
            fft.forward(y, offset: yStart + start, window: window, real: &yr, imaginary: &yi)
            for k in 0..<bins {
                let (a, b, c, d) = (Double(xr[k]), Double(xi[k]), Double(yr[k]), Double(yi[k]))
                xx[k] += a * a + b * b
                yy[k] += c * c + d * d
                // conj(X)·Y
                xyReal[k] += a * c + b * d
                xyImaginary[k] += a * d - b * c
            }
            blocks += 1
            start += size / 2
        }
        var explained = 0.0, total = 0.0
        for k in 0..<bins {
            total += yy[k]
            if xx[k] > 0 { explained += (xyReal[k] * xyReal[k] + xyImaginary[k] * xyImaginary[k]) / xx[k] }
        }
        share = total > 0 ? explained / total : 0
        self.blocks = blocks
    }
}
