import Foundation

/// The tap-free gate's per-frame measurements, kept until the whole call has been fitted: the
/// decision by the plain rule, whether the residual passes the echo cut, and the residual's
/// level. At the end, a recording whose residual floor (a low quantile of its frames' levels)
/// is within 3 dB of the silence level or above it — steady noise no fit removes, which the
/// plain rule reads as a talker in every frame — is decided again on the residual less twice
/// that floor. A quantile over the whole call, not the quietest frame so far: a talker before
/// the first quiet frame, or one frame of near silence, would otherwise set the floor.
///
/// It also judges whether the fit explained the echo at all (`explainsEcho`), from each frame's
/// residual and predicted echo.
///
/// Memory: four bytes and two bits per frame (about 34 MB for a day at 48 kHz, 94 frames a second).
struct ResidualLevels {
    private var plain = FrameBits()
    private var passesEchoCut = FrameBits()
    /// 10·log10 of each frame's mean square, in steps of `step` dB from `lowest` dB.
    private var codes: [UInt16] = []
    /// The predicted echo's level per frame, coded as `codes`.
    private var echoCodes: [UInt16] = []

    static let step = 0.05
    static let lowest = -200.0
    /// Which quantile of the frames' levels is the floor: 2 % of the call may be quieter (a
    /// fade, a dropout, padding) without pulling it down. A call with more quiet frames than
    /// that — single talk the fit explains to its last bit, or a padded start — has no steady
    /// noise above the silence level, and keeps the plain rule: a near end that talks through
    /// the other 90 % of a call at a steady level was taken for noise when the floor was a 10 %
    /// quantile over the frames above −100 dBFS (measured).
    static let floorQuantile = 0.02

    var count: Int { plain.count }

    mutating func append(meanSquare: Double, echoMeanSquare: Double, passesEchoCut: Bool, isActiveByPlainRule: Bool) {
        plain.append(isActiveByPlainRule)
        self.passesEchoCut.append(passesEchoCut)
        codes.append(Self.code(meanSquare))
        echoCodes.append(Self.code(echoMeanSquare))
    }

    private static func code(_ meanSquare: Double) -> UInt16 {
        let decibels = meanSquare > 0 ? 10 * log10(meanSquare) : Self.lowest
        return UInt16(clamping: Int(((decibels - Self.lowest) / Self.step).rounded()))
    }

    private static func meanSquare(_ code: UInt16) -> Double { pow(10, (Self.lowest + Double(code) * Self.step) / 10) }

    /// Which quantile of residual-to-echo says whether the fit explains the echo: the
    /// `explainedQuantile` of the frames whose echo is loud enough for the echo cut to decide them.
    static let explainedQuantile = 0.05
    /// Fewest such frames the verdict needs (a quarter-second's worth at 16 kHz and up).
    static let minimumJudgedFrames = 20

    /// Whether the fitted echo explains the echo well enough to tell a talker from its error:
    /// false when, in at least 1 − `explainedQuantile` (95 %) of the frames whose predicted echo
    /// less `residualRatio` lies above the silence level (the frames the echo cut decides), the
    /// residual — as `decisions` reads it, steady noise taken off — is at or above that cut.
    /// Single talk the fit explains sits far under the cut (measured on the clipping room of
    /// `LoudspeakerClipSearch`, clip modelled: 5 % quantile −45.9 dB, median −39.6 dB); a fit that
    /// cannot model the echo leaves an error tied to the echo's level in every frame (same room,
    /// linear model: −29.8 dB and −24.3 dB, and 26 of 348 single-talk frames left, ERL 4.9 dB
    /// off). A talker over 95 % of the far end's loud frames, without a pause, is not speech.
    /// No verdict (true) unless those frames are at least half the frames with an audible echo:
    /// an echo that stays near the cut's edge (white noise 26 dB under full scale) is judged on
    /// its few loudest frames only, and in double talk the best of the gate's candidate paths
    /// over-predicts the echo a little, so those are the double-talk ones (measured: 235 of
    /// 1249 frames judged, none of the 124 single-talk frames among them).
    func explainsEcho(silentMeanSquare: Double, residualRatio: Double) -> Bool {
        let noiseFloor = floor()
        let cutCode = Int((10 * log10(residualRatio) / Self.step).rounded())
        var judged = 0, underCut = 0, audible = 0
        for frame in 0..<codes.count {
            let echo = Self.meanSquare(echoCodes[frame])
            if echo >= silentMeanSquare { audible += 1 }
            guard residualRatio * echo >= silentMeanSquare else { continue }
            judged += 1
            let residual = SteadyNoise.talkerMeanSquare(Self.meanSquare(codes[frame]), floor: noiseFloor, silentMeanSquare: silentMeanSquare)
            let ratioCode = residual > 0 ? Int((10 * log10(residual / echo) / Self.step).rounded()) : Int.min
            if ratioCode < cutCode { underCut += 1 }
        }
        guard judged >= Self.minimumJudgedFrames, 2 * judged >= audible else { return true }
        return Double(underCut) > Self.explainedQuantile * Double(judged)
    }

    /// The `floorQuantile` of the frames' levels (nil without a frame).
    func floor() -> Double? {
        guard !codes.isEmpty else { return nil }
        var histogram = [Int](repeating: 0, count: Int(UInt16.max) + 1)
        for code in codes { histogram[Int(code)] += 1 }
        let rank = Int((Double(codes.count - 1) * Self.floorQuantile).rounded(.down))
        var seen = 0
        for (code, frames) in histogram.enumerated() where frames > 0 {
            seen += frames
            if seen > rank { return Self.meanSquare(UInt16(code)) }
        }
        return nil
    }

    /// Whether the predicted echo in `frame` stands above the residual (what the fit leaves: the
    /// noise, a talker, its own error): the rule an echo track gets. True past the last frame
    /// measured. Strict: the fit explains some of a mic's noise, and with 6 dB of margin a mic of
    /// noise alone kept 37 of its far-end frames as single talk. The price is paid where the echo
    /// stands near the noise: there the residual also holds the fit's error, and a noisy
    /// recording keeps 125 single-talk frames where its echo track keeps 188.
    func echoStandsAboveResidual(_ frame: Int) -> Bool { frame < count ? echoCodes[frame] > codes[frame] : true }

    /// Whether the frames where the predicted echo stands above the residual are too few to be an
    /// echo's: fewer than a figure's `FigureConfidence.minimumAnalysisFrames` and under
    /// `chanceShare` of the frames where anything was predicted. A fit explains a little of any
    /// mic's noise: in mics of white noise alone (−50 to −70 dBFS) beside espeak-ng far ends its
    /// prediction stood above the residual in up to 18 of 817 frames, and those read as far-end
    /// single talk — an ERL of 29–54 dB and an ERLE of 0 dB on 3 to 10 frames of noise, where
    /// there was no echo. An echo above the mic's noise stands above it wherever the far end is
    /// loud (179 of 580 frames for one 10 dB over the noise); one that does so in under 5 % of
    /// them, and in fewer frames than any figure needs, is under the noise: unmeasurable.
    func echoStandsAboveOnlyByChance() -> Bool {
        var above = 0, predicted = 0
        for frame in 0..<count where echoCodes[frame] != 0 {
            predicted += 1
            if echoCodes[frame] > codes[frame] { above += 1 }
        }
        return above < FigureConfidence.minimumAnalysisFrames && Double(above) < Self.chanceShare * Double(predicted)
    }

    /// The share of predicted frames under which a few frames of echo above the residual are
    /// chance (`echoStandsAboveOnlyByChance`).
    static let chanceShare = 0.05

    /// The predicted echo's mean square in `frame`.
    func echoMeanSquare(_ frame: Int) -> Double { Self.meanSquare(echoCodes[frame]) }

    /// Whether nothing was predicted in `frame`: the reference under the fitted path is digital
    /// silence there.
    func predictsNothing(_ frame: Int) -> Bool { echoCodes[frame] == 0 }

    /// The talker's mean square in `frame` as `decisions` reads it: the residual, less twice the
    /// floor where the floor is steady noise (0 where nothing is left).
    func talkerMeanSquare(_ frame: Int, silentMeanSquare: Double, floor: Double?) -> Double {
        SteadyNoise.talkerMeanSquare(Self.meanSquare(codes[frame]), floor: floor, silentMeanSquare: silentMeanSquare)
    }

    /// The frames' decisions: the plain rule's, unless the floor is within 3 dB of
    /// `silentMeanSquare` or above it.
    func decisions(silentMeanSquare: Double) -> FrameBits {
        guard let floor = floor(), floor >= silentMeanSquare / 2 else { return plain }
        var bits = FrameBits()
        for frame in 0..<codes.count {
            bits.append(passesEchoCut[frame]
                        && SteadyNoise.talkerMeanSquare(Self.meanSquare(codes[frame]), floor: floor, silentMeanSquare: silentMeanSquare) >= silentMeanSquare)
        }
        return bits
    }
}
