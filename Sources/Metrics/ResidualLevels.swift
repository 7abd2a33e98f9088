import Foundation

/// The tap-free gate's per-frame measurements, kept until the whole call has been fitted: the
/// decision by the plain rule, whether the residual passes the echo cut, and the residual's
/// level. At the end, a recording whose residual floor (a low quantile of its frames' levels)
/// is within 3 dB of the silence level or above it — steady noise no fit removes, which the
/// plain rule reads as a talker in every frame — is decided again on the residual less twice
/// that floor. A quantile over the whole call, not the quietest frame so far: a talker before
/// the first quiet frame, or one frame of near silence, would otherwise set the floor.
///
/// Memory: two bytes and two bits per frame (about 18 MB for a day at 48 kHz, 94 frames a second).
struct ResidualLevels {
    private var plain = FrameBits()
    private var passesEchoCut = FrameBits()
    /// 10·log10 of each frame's mean square, in steps of `step` dB from `lowest` dB.
    private var codes: [UInt16] = []

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

    mutating func append(meanSquare: Double, passesEchoCut: Bool, isActiveByPlainRule: Bool) {
        plain.append(isActiveByPlainRule)
        self.passesEchoCut.append(passesEchoCut)
        let decibels = meanSquare > 0 ? 10 * log10(meanSquare) : Self.lowest
        codes.append(UInt16(clamping: Int(((decibels - Self.lowest) / Self.step).rounded())))
    }

    private static func meanSquare(_ code: UInt16) -> Double { pow(10, (Self.lowest + Double(code) * Self.step) / 10) }

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

    /// The frames' decisions: the plain rule's, unless the floor is within 3 dB of
    /// `silentMeanSquare` or above it.
    func decisions(silentMeanSquare: Double) -> FrameBits {
        guard let floor = floor(), floor >= silentMeanSquare / 2 else { return plain }
        // Steady noise's frames spread about a decibel either side of its level: twice the floor
        // (+3 dB) is taken off, and what is left is the talker's (power adds).
        var bits = FrameBits()
        for frame in 0..<codes.count {
            bits.append(passesEchoCut[frame] && Self.meanSquare(codes[frame]) - 2 * floor >= silentMeanSquare)
        }
        return bits
    }
}
