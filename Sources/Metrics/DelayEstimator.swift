import AudioInterop
import Foundation

/// Bulk delay reference→mic by GCC-PHAT (generalised cross-correlation with phase transform):
/// the sizes of the method and its last step. The blocks are collected by `DelayBlockCollector`.
///
/// Blocks of `blockSize` samples (16384 at 48 kHz) start every `hop` = half a block; a block
/// enters the estimate when the reference is far-end active over it, and only the first
/// `maxBlocks` such blocks of the call do (a stream cannot wait for the end of the call to pick
/// blocks spread over it). For each, the reference block is zero-padded and the mic window
/// starting at the same sample is long enough to hold the block delayed by up to `maxLag`, so
/// every lag 0…maxLag is a linear (not circular) correlation with the whole block. The
/// cross-spectra X_mic·conj(X_ref) are whitened to unit magnitude (PHAT: every frequency votes
/// equally, which makes the peak sharp whatever the spectrum of the far-end signal), summed over
/// blocks and transformed back; the highest peak in lags 0…maxLag, refined by parabolic
/// interpolation, is the delay — unless a lag outside that range holds a higher one (the echo
/// leads its loopback, or lies past the search): then there is none.
struct DelayEstimator {
    let sampleRate: Int
    let blockSize: Int
    let hop: Int
    let maxLag: Int
    let maxBlocks: Int
    let activeMeanSquare: Double
    /// Transform length: at least blockSize + maxLag so no searched lag wraps around.
    let fftSize: Int
    /// Fewest samples the mic and the reference moved by a delay must share for that delay to be
    /// read (`minimumOverlapSeconds`).
    let minimumOverlap: Int
    /// How many of the strongest bins `isTonal` weighs: `tonalBandwidthHz` at this rate.
    let tonalBins: Int
    /// Lags this close to a peak or an edge are its own (about a millisecond, at least 2).
    var millisecondLags: Int { max(2, maxLag / 500) }

    init(sampleRate: Int, configuration: EchoMetricsConfiguration) {
        self.sampleRate = sampleRate
        blockSize = configuration.delayBlockSize(forSampleRate: sampleRate)
        hop = blockSize / 2
        maxLag = max(0, Int((configuration.maxDelayMilliseconds / 1000 * Double(sampleRate)).rounded()))
        maxBlocks = max(1, configuration.maxDelayBlocks)
        activeMeanSquare = pow(10, configuration.farEndActiveDBFS / 10)
        fftSize = Self.smoothSize(atLeast: blockSize + maxLag)
        tonalBins = max(1, Int((Self.tonalBandwidthHz * Double(fftSize) / Double(sampleRate)).rounded()))
        minimumOverlap = Int((Self.minimumOverlapSeconds * Double(sampleRate)).rounded())
    }

    /// A clip that shares less than this with the reference at the delay found tells no delay:
    /// the whitened correlation of a few milliseconds peaks somewhere whatever the signals (clips
    /// of 5–50 ms of a 60 ms echo read 0.05–8.2 ms, none of them holding the echo).
    static let minimumOverlapSeconds = 0.1

    /// Smallest size ≥ `value` of the form 64·2^a·3^b·5^c: FFTW is fast on 2-3-5 sizes, fastest
    /// with many factors of two (measured: 43200 = 64·675 in 97 µs, 40500 = 4·10125 in 163 µs),
    /// and still well below the next power of two (65536 for 16384 + 24000 at 48 kHz).
    static func smoothSize(atLeast value: Int) -> Int {
        var size = max(64, (value + 63) / 64 * 64)
        while true {
            var rest = size / 64
            for factor in [2, 3, 5] { while rest % factor == 0 { rest /= factor } }
            if rest == 1 { return size }
            size += 64
        }
    }

    /// How many standard deviations above the correlation's mean a peak must be to be a delay.
    static let significance = 8.0

    /// How much higher than the best lag inside the search a lag outside it must peak to say the
    /// echo lies outside: a far end that repeats exactly (a looped test signal) peaks as high at
    /// d + its period as at d, and float rounding would pick between them; a short recording's
    /// last mic windows are cut, which lowers large positive lags against negative ones.
    static let outsideMargin = 1.25

    /// A far end whose power sits in a few frequencies — a tone, a held chord, a whistle — has no
    /// delay GCC-PHAT can find: its correlation repeats at every period of its lines, and the bins
    /// between them vote with the phase of the block's leakage, which reads as lag 0 (a 1250 Hz
    /// tone and a synthetic chord, each 200 ms late, both read 0 ms). It is tonal where its
    /// strongest `tonalBandwidthHz` of bins hold `tonalPowerShare` of its power, each block's
    /// spectrum weighed equally (as PHAT weighs the blocks: a loud ringback tone before quieter
    /// speech does not outvote the speech). Measured at 48 kHz over the 32 blocks: the default
    /// corpus's synthetic voices and its speech file hold 0.69–0.77 there, white noise 0.02, a
    /// held chord and the corpus's music 0.98, a tone 0.998; at 16 and 8 kHz the same. A single
    /// voiced block of espeak-ng speech can reach 0.95, so the reference being tonal is not enough:
    /// the correlation must be ambiguous too (`ambiguityRatio`).
    static let tonalBandwidthHz = 240.0
    static let tonalPowerShare = 0.95

    /// A tonal reference's correlation is ambiguous where a peak more than a millisecond from the
    /// highest reaches this share of it: a tone or chord repeats (0.29–0.99 measured), a short
    /// clip of speech whose few blocks read as tonal peaks once (0.02–0.21).
    static let ambiguityRatio = 0.25

    /// Whether `referencePower` — per bin, DC first, each block's spectrum normalised to sum 1 and
    /// summed over the blocks used — is tonal. Sorts a copy: once per estimate, not per frame.
    func isTonal(referencePower: [Double]) -> Bool {
        let bins = referencePower.dropFirst()
        let total = bins.reduce(0, +)
        guard total > 0 else { return false }
        let held = bins.sorted(by: >).prefix(tonalBins).reduce(0, +)
        return held >= Self.tonalPowerShare * total
    }

    /// What the summed correlation says.
    enum Peak: Equatable {
        /// The delay, in (fractional) samples.
        case lag(Double)
        /// No peak stands `significance` σ out of the floor: nothing correlated.
        case none
        /// A lag outside 0…maxLag peaks `outsideMargin` times higher than any inside, and stands
        /// out: the echo leads the reference, or lags it by more than the search reaches.
        case outsideSearch
        /// The reference is tonal and its correlation peaks at more than one lag: no lag is the delay.
        case ambiguousTonal
    }

    /// The delay from the summed whitened cross-spectrum (see `Peak`). `referenceIsTonal` is asked
    /// only of an ambiguous correlation: it sorts the spectrum, and speech rarely needs it.
    func peak(sumReal: [Double], sumImaginary: [Double], fft: RealFFT, referenceIsTonal: () -> Bool) -> Peak {
        judge(sumReal: sumReal, sumImaginary: sumImaginary, fft: fft, referenceIsTonal: referenceIsTonal).peak
    }

    /// `peak`, and whether the lag it rests on (the delay, or the peak outside the search) lies
    /// where the blocks' own edges line up (`isBlockEdgeLag`): then it may be their leakage, and
    /// the blocks tapered must say it again (`DelayBlockCollector`).
    func judge(sumReal: [Double], sumImaginary: [Double], fft: RealFFT,
               referenceIsTonal: () -> Bool) -> (peak: Peak, atBlockEdges: Bool) {
        var correlation = [Float](repeating: 0, count: fftSize)
        fft.inverse(real: sumReal.map { Float($0) }, imaginary: sumImaginary.map { Float($0) }, output: &correlation)
        let upright = search(correlation, referenceIsTonal: referenceIsTonal)
        // An echo path that inverts (a loudspeaker or an amplifier wired the other way round)
        // peaks negative at its delay: an inverted echo read no delay, or the positive flank
        // beside its peak (3.5 samples late at 48 kHz). The negative side is searched only where
        // no upright peak stands out, or where the one that does has a deeper trough within a
        // millisecond: a negative lobe far from it can outweigh the true peak of an upright echo
        // (the 100 ppm drift vector's, 11 ms early).
        let edge = millisecondLags
        switch upright.peak {
        case .none:
            break
        case .lag(let lag):
            let at = min(Int(lag.rounded()), correlation.count - 1)
            let trough = correlation[max(0, at - edge)...min(correlation.count - 1, at + edge)].min() ?? 0
            guard -trough > correlation[at] else { return upright }
        case .outsideSearch, .ambiguousTonal:
            return upright
        }
        for lag in correlation.indices { correlation[lag] = -correlation[lag] }
        let inverted = search(correlation, referenceIsTonal: referenceIsTonal)
        guard case .lag(let invertedLag) = inverted.peak else { return upright }
        if case .lag(let lag) = upright.peak, abs(invertedLag - lag) > Double(edge) { return upright }
        return inverted
    }

    /// The search of `judge` on a correlation of one sign: its tallest positive peak.
    private func search(_ correlation: [Float], referenceIsTonal: () -> Bool) -> (peak: Peak, atBlockEdges: Bool) {
        if isAmbiguous(correlation) && referenceIsTonal() { return (.ambiguousTonal, false) }
        let searchEnd = min(maxLag, fftSize - 1)
        var peak = 0
        for lag in 1...max(1, searchEnd) where lag <= searchEnd && correlation[lag] > correlation[peak] {
            peak = lag
        }
        // A delay is only reported when the peak stands out of the correlation floor: for
        // unrelated signals (a file as the mic, a recorder as the speaker) the highest of
        // thousands of noise-like lags sits ~4–5 σ up; an echo stands far above that.
        var sum = 0.0, sumOfSquares = 0.0
        for lag in 0...searchEnd {
            let value = Double(correlation[lag])
            sum += value
            sumOfSquares += value * value
        }
        let count = Double(searchEnd + 1)
        let mean = sum / count
        let deviation = max(0, sumOfSquares / count - mean * mean).squareRoot()
        func standsOut(_ value: Float) -> Bool { value > 0 && Double(value) - mean >= Self.significance * deviation }
        // The echo may lie outside 0…maxLag: a loopback that lags the mic (the echo leads it),
        // or a delay past the search. Speech is self-similar at other lags (a synthetic voice's
        // at about 480 ms), so the search then found that lag, shifted by the true one, as a
        // delay: an echo 20 ms ahead of its loopback read 460 ms, one 520 ms late read 40 ms.
        // The transform holds the other lags too (past maxLag, and negative lags from the end);
        // where they hold a peak a quarter higher than the search's, standing out of the floor as
        // a delay must, the echo is not in 0…maxLag. A millisecond either side of the range is
        // left out, so that an echo on its edge (a digital loopback's lag 0, a peak just inside
        // maxLag) is not lost to its own flank.
        let edge = millisecondLags
        if searchEnd + edge < fftSize - edge {
            let outsideLags = (searchEnd + edge)..<(fftSize - edge)
            if let at = outsideLags.max(by: { correlation[$0] < correlation[$1] }),
               Double(correlation[at]) > Self.outsideMargin * Double(max(0, correlation[peak])) {
                return standsOut(correlation[at]) ? (.outsideSearch, isBlockEdgeLag(at)) : (.none, false)
            }
        }
        guard standsOut(correlation[peak]) else { return (.none, false) }

        // Parabola through the peak and its neighbours (lag −1 is the last element of the
        // circular result) for sub-sample precision.
        let before = Double(correlation[(peak - 1 + fftSize) % fftSize])
        let centre = Double(correlation[peak])
        let after = Double(correlation[(peak + 1) % fftSize])
        let curvature = before - 2 * centre + after
        var offset = 0.0
        if curvature < 0 {
            offset = min(0.5, max(-0.5, 0.5 * (before - after) / curvature))
        }
        return (.lag(max(0, Double(peak) + offset)), isBlockEdgeLag(peak))
    }

    /// Whether `lag` (an index of the circular correlation) lies within a millisecond of a lag where
    /// the blocks' edges line up. Each reference block is cut out of its signal and zero-padded,
    /// and its mic window is cut at the same sample: both start with a step (and the mic window's
    /// end wraps round to it), and the block ends with one. A step's leakage is broadband, with the
    /// phase of where it stands, and whitening gives it a full vote wherever a signal's own content
    /// is weaker, inside its band too: summed over the blocks it peaks at lag 0 (both starts) and
    /// at −blockSize (the block's end against the window's wrap), whatever the signals hold.
    /// Unrelated noise of 100–2000 or 300–3400 Hz read 0–9 samples at 18–79 σ, or an echo outside
    /// the search at −16377 samples; a file mic against a speech far end, lined up by AEC3's 428
    /// samples of latency, read 0.0004 ms at 8.7 σ.
    func isBlockEdgeLag(_ lag: Int) -> Bool {
        let margin = millisecondLags
        func near(_ edgeLag: Int) -> Bool {
            let distance = abs(lag - edgeLag) % fftSize
            return min(distance, fftSize - distance) <= margin
        }
        return near(0) || near(fftSize - blockSize)
    }

    /// The taper the reference blocks are weighed with where a peak lies at the block edges
    /// (`isBlockEdgeLag`): a Hann window of `count` samples, which brings the block to zero at both
    /// ends, so that it has no step to leak. Measured on the cases above: every edge peak falls to
    /// the floor (3–5 σ), while an echo at lag 0 or 100 ms still stands out at 50–140 σ.
    static func edgeTaper(count: Int) -> [Float] {
        guard count > 1 else { return [Float](repeating: 1, count: count) }
        return (0..<count).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(count - 1))) }
    }

    /// The verdict of the blocks as they are (`peak`, resting on the block edges) weighed against
    /// the same blocks tapered (`tapered`, which has no edges): the first stands where the tapered
    /// blocks say the same — a delay within the same millisecond of lag 0, or an echo outside the
    /// search — so that a real echo there reads as it did; else the edges made it, and the tapered
    /// verdict is the search's.
    func confirmed(_ peak: Peak, byTapered tapered: Peak) -> Peak {
        switch (peak, tapered) {
        case (.lag, .lag(let lag)) where isBlockEdgeLag(Int(lag.rounded())): return peak
        case (.outsideSearch, .outsideSearch): return peak
        default: return tapered
        }
    }

    /// Whether a lag more than a millisecond (circularly) from the highest peaks at
    /// `ambiguityRatio` of it or more, over every lag the transform holds.
    func isAmbiguous(_ correlation: [Float]) -> Bool {
        guard let highest = correlation.indices.max(by: { correlation[$0] < correlation[$1] }), correlation[highest] > 0 else { return true }
        let edge = millisecondLags
        var second: Float = 0
        for lag in correlation.indices {
            let distance = abs(lag - highest)
            if min(distance, correlation.count - distance) > edge { second = max(second, correlation[lag]) }
        }
        return Double(second) >= Self.ambiguityRatio * Double(correlation[highest])
    }
}
