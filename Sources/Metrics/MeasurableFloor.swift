import AudioCore
import Foundation

/// The level below which an output's residual cannot be measured, and what a figure computed
/// against it is: a measured value, or a lower bound.
///
/// ERLE is mic power over output power. An output below the floor of its input — its noise (the
/// near-end track in single talk, mic − echo, or for a recording the mic's own noise between
/// talkers) or digital silence (16-bit quantisation noise, the floor of every WAV file a phone
/// writes) — holds a residual that cannot be told from nothing: a canceller that left the noise
/// as it was would sit at that floor, one that removed noise too sits below it, and one that
/// muted the output reads 103–156 dB. Such a figure is reported as a lower bound at the
/// measurable range: the mic's power over the floor ("≥ X dB").
enum MeasurableFloor {
    /// Variance of 16-bit quantisation noise (LSB 2⁻¹⁵, uniform): 2⁻³⁰/12, −101.2 dBFS.
    static let quantisationVariance = 1.0 / (Double(1 << 30) * 12)

    /// The whole-band power (bins 1…N/2 of the Hann-windowed frame, as `FrameBandMeter` measures
    /// it) of quantisation noise: white noise of variance σ² has E Σ_{k=0}^{N−1} |X_k|² = N·σ²·Σw²,
    /// half of it in bins 1…N/2.
    static func digitalFramePower(frameSize: Int) -> Double {
        framePower(meanSquare: quantisationVariance, frameSize: frameSize)
    }

    /// The whole-band frame power of white noise of mean square `meanSquare`.
    static func framePower(meanSquare: Double, frameSize: Int) -> Double {
        let window = WelchFrames.hannWindow(size: frameSize)
        let windowEnergy = window.reduce(0.0) { $0 + Double($1) * Double($1) }
        return Double(frameSize) * meanSquare * windowEnergy / 2
    }

    /// The share of `digitalFramePower` in `bins` (white noise spreads evenly over the N/2 bins).
    static func digitalBandPower(frameSize: Int, bins: Range<Int>) -> Double {
        digitalFramePower(frameSize: frameSize) * Double(bins.count) / Double(frameSize / 2)
    }

    /// How far over its floor an output must stand to read as residual echo: 1 dB.
    static let floorMarginDB = 1.0
    private static let floorMargin = pow(10, floorMarginDB / 10)

    /// ERLE over frames whose mic, output and floor powers sum to `mic`, `processed` and `floor`:
    /// measured while the output stands 1 dB or more over the floor, else a lower bound at the
    /// mic's power over the output (or the floor, under it). nil when nothing was measured, or the
    /// mic itself is not above the floor — whatever the output: an echo under digital silence is
    /// no echo to cancel, and a canceller's comfort noise over it read as ERLE (−24 dB for an echo
    /// at −105 dBFS).
    ///
    /// Why a margin: an output on its floor lands a few tenths of a dB either side of it by
    /// chance, so a canceller that removed the echo exactly read measured or bounded by that
    /// chance alone — 0.06 dB over the floor read a measured 28.8 dB, ranked under another's
    /// "≥ 28.9" and over a third's 28.1 (0.8 dB over) by how each treats the room's noise. Under
    /// 1 dB over the floor, at most 21 % of the output is residual: its ratio to the mic is still
    /// a lower bound of the ERLE, and said as one. The same holds in each band (`bandERLE`).
    static func erle(mic: Double, processed: Double, floor: Double) -> (value: Double?, isLowerBound: Bool) {
        guard mic > floor, let ratio = Decibels.powerRatio(mic, max(processed, floor)) else { return (nil, false) }
        return (ratio, processed < floor * floorMargin)
    }

    /// ERLE in one band, whose floor is the whole band's shared out as if white: as `erle`.
    static func bandERLE(mic: Double, processed: Double, floor: Double) -> (value: Double?, isLowerBound: Bool) {
        erle(mic: mic, processed: processed, floor: floor)
    }
}

/// A low quantile of frame powers, kept as a histogram of 0.25 dB bins, so a call of any length
/// needs the same 11 KB. Two uses:
/// - the noise floor of a mic without tracks: the 10th percentile of the whole-band powers of the
///   frames where neither the far end nor (by the gate) the near end is active. A low quantile,
///   not the median: such frames still hold the room's echo tail after the far end stops (in a
///   loud, reverberant room most of them — measured in a clipping room at −4 dB ERL: the median
///   put the floor so high that WebRTC's 32 dB of ERLE read as "≥ 18.9"), a breath, a door;
///   steady noise over a ~21 ms frame varies by tenths of a dB, so its 10th percentile is its level;
/// - the floor of a near-end track's (or mic − echo's) levels, as the activity gate reads them
///   (`ActivityGate`, `SteadyNoise`).
struct NoiseFloorEstimate: Sendable {
    private static let lowestDB = -250.0, binDB = 0.25, binCount = 1_400
    private var counts = [Int](repeating: 0, count: binCount)
    private(set) var frames = 0
    let quantile: Double
    /// Fewer frames than this say nothing about the noise (20: about a fifth of a second).
    let minimumFrames: Int
    /// The quantile's bin — the first whose running count reaches `quantile` of the frames — and
    /// the frames in the bins under it, kept as frames arrive: the gate reads the floor every
    /// frame, and a search from the bottom each time cost 1,400 steps a frame.
    private var quantileBin = 0
    private var framesBelow = 0

    init(quantile: Double = 0.1, minimumFrames: Int = 20) {
        self.quantile = quantile
        self.minimumFrames = minimumFrames
    }

    mutating func add(power: Double) {
        guard power.isFinite else { return }
        let level = power > 0 ? 10 * log10(power) : Self.lowestDB
        let bin = min(Self.binCount - 1, max(0, Int(((level - Self.lowestDB) / Self.binDB).rounded(.down))))
        counts[bin] += 1
        frames += 1
        if bin < quantileBin { framesBelow += 1 }
        let target = quantile * Double(frames)
        // Down while the bins under the quantile's already reach the target, up while its own
        // does not yet: the first bin that reaches it, as a search from the bottom finds it.
        while quantileBin > 0 && Double(framesBelow) >= target {
            quantileBin -= 1
            framesBelow -= counts[quantileBin]
        }
        while quantileBin < Self.binCount - 1 && Double(framesBelow + counts[quantileBin]) < target {
            framesBelow += counts[quantileBin]
            quantileBin += 1
        }
    }

    /// The quantile's power (the centre of its bin); nil with too few frames.
    var power: Double? {
        guard frames >= minimumFrames else { return nil }
        return pow(10, (Self.lowestDB + (Double(quantileBin) + 0.5) * Self.binDB) / 10)
    }
}

/// What a near-end level holds of a talker when the signal carries steady noise at or near the
/// silence level: noise alone would otherwise read as a talker in every frame. Where the floor
/// (a low quantile of the frames' levels) is within 3 dB of the silence level or above it, twice
/// the floor is taken off — steady noise's frames spread about a decibel either side of its
/// level, and power adds — and what is left is the talker's. Under that, the level as it is.
enum SteadyNoise {
    static func talkerMeanSquare(_ meanSquare: Double, floor: Double?, silentMeanSquare: Double) -> Double {
        guard let floor, floor >= silentMeanSquare / 2 else { return meanSquare }
        return max(0, meanSquare - 2 * floor)
    }
}
