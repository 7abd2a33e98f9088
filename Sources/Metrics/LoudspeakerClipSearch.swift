import Foundation

/// The tap-free gate's loudspeaker model: a memoryless clip before the linear echo path (a
/// Hammerstein model, mic ≈ h ∗ clip(x, c)), with the clip level c found from the recording.
///
/// Why: a loudspeaker driven into clipping puts out clip(x, c), not x; fitted on x, the linear
/// path leaves the clipped peaks' distortion in the residual, at a level tied to the echo, and
/// the gate reads it as a talker (measured: 2 % of the drive clipped, echo 4 dB above the
/// reference: 925 of 927 far-end frames called double talk, ERLE 30.8 dB from the 2 left where
/// the tracks give 8.3 dB). Fitted on clip(x, c) with the loudspeaker's c, the path is exact again.
///
/// How: one block rich in far end (the first whose reference is far-end active in at least half
/// its hops) is fitted on x, then on clip(x, c) for candidate levels c, each fit started from
/// the linear one's path (the room is the same; `iterations` steps, 8, and the linear fit as many
/// again, so both sides have had as many steps: measured on the room
/// above, 8 warm steps find the clip level within 0.03 dB, as 40 cold ones do, in a fifth of
/// the time). The candidates: the levels that a fraction f of the block's reference samples
/// exceed, f from 0.1 % to 12.8 % in steps of 2, then a golden-section search of log c between
/// the best one's neighbours. The level whose fit leaves the least residual over the block wins
/// if it beats the linear fit by `margin`: on a linear path no clipped reference fits better than
/// x itself, so a linear room keeps x and its numbers. Double talk adds about the same energy to
/// every candidate's residual (the near end is uncorrelated with the far end) and does not move
/// the choice.
///
/// Cost: 2 + 8 + 8 fits of one block, once per call (about 3 s for a 48 kHz call on one core).
enum LoudspeakerClipSearch {
    /// Exceedance fractions: 0.1 % · 2^(k/2), k = 0…14; the grid takes the even k.
    static let fractions = (0...14).map { 0.001 * pow(2, Double($0) / 2) }
    /// The residual a clip level must beat the linear fit's by: 0.5 dB.
    static let margin = 0.891
    /// Golden-section steps after the grid (the bracket shrinks to 0.618⁶ ≈ 5 % of 2 grid steps).
    static let refinements = 6
    /// Conjugate-gradient steps per candidate fit, warm-started from the linear fit.
    static let iterations = 8

    /// The clip level (reference units) for the block, or nil when the linear model fits best.
    /// `shifted`: the block's reference from L samples before it (`EchoPathFit.load`'s layout);
    /// `mic`: the block's mic, `valid` samples real; `weights`: 1 for the samples a fit may use,
    /// 0 for the others (a clipped mic's samples on its rails); `residual`: Σ(mic − ŷ)² over a
    /// range as the gate reads it (a clipped sample by how far ŷ falls short of its rail), so that
    /// a mic's clip is not taken for the loudspeaker's.
    static func level(fit: EchoPathFit, shifted: [Float], mic: [Float], valid: Int, weights: [Float], iterations: Int,
                      residual residualOver: ([Float], [Float], Range<Int>) -> Double) -> Float? {
        let length = fit.length
        var magnitudes = shifted[length..<(length + valid)].map { abs($0) }
        magnitudes.sort()
        guard let peak = magnitudes.last, peak > 0 else { return nil }
        func candidate(_ k: Int) -> Float {
            let above = Int((Double(valid) * fractions[k]).rounded())
            return magnitudes[max(0, valid - 1 - above)]
        }
        var clipped = shifted
        var prediction = [Float](repeating: 0, count: mic.count)
        var start = (real: [Float](repeating: 0, count: length + 1), imaginary: [Float](repeating: 0, count: length + 1))
        func residual(_ level: Float?) -> Double {
            if let level {
                for i in shifted.indices { clipped[i] = min(level, max(-level, shifted[i])) }
                fit.load(reference: clipped)
            } else {
                fit.load(reference: shifted)
            }
            var real = start.real, imaginary = start.imaginary
            fit.predict(pathReal: real, pathImaginary: imaginary, into: &prediction)
            fit.refine(pathReal: &real, pathImaginary: &imaginary, mic: mic, weights: weights,
                       prediction: &prediction, iterations: iterations)
            if level == nil { start = (real, imaginary) }
            return residualOver(mic, prediction, 0..<valid)
        }
        // The linear fit the candidates must beat gets as many steps as each of them (8 from
        // nothing, then 8 more): compared with an 8-step linear fit, a candidate's 16 steps won
        // on speech through a reverberant room that had not converged yet, and a linear room whose
        // far end grew louder later was clipped (63 frames called double talk, ERL 0.9 dB off).
        _ = residual(nil)
        let warm = start
        let linear = residual(nil)
        start = warm
        var best: (k: Int, residual: Double)?
        for k in stride(from: 0, through: fractions.count - 1, by: 2) {
            let r = residual(candidate(k))
            if r < best?.residual ?? .infinity { best = (k, r) }
        }
        guard let coarse = best else { return nil }
        // The valley is sharp (measured: 2 % clipped, residual −13 dB at 0.2 dB from the clip
        // level, −5 dB at 0.6 dB): a golden-section search of log c between the grid's
        // neighbours of the best finds its floor.
        var low = log(Double(candidate(min(coarse.k + 2, fractions.count - 1))))
        var high = log(Double(candidate(max(coarse.k - 2, 0))))
        var chosen = (level: candidate(coarse.k), residual: coarse.residual)
        let ratio = (sqrt(5.0) - 1) / 2
        var a = high - ratio * (high - low), b = low + ratio * (high - low)
        var ra = residual(Float(exp(a))), rb = residual(Float(exp(b)))
        for _ in 0..<refinements {
            if ra < rb {
                high = b; b = a; rb = ra
                a = high - ratio * (high - low); ra = residual(Float(exp(a)))
            } else {
                low = a; a = b; ra = rb
                b = low + ratio * (high - low); rb = residual(Float(exp(b)))
            }
        }
        for (x, r) in [(a, ra), (b, rb)] where r < chosen.residual { chosen = (Float(exp(x)), r) }
        return chosen.residual < margin * linear ? chosen.level : nil
    }
}
