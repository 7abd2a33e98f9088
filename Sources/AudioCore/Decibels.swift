import Foundation

/// Level conversions used at the edges (scenario files, reports). dBFS is RMS relative to full
/// scale (mean square 1.0 is 0 dBFS), the usual convention for noise: −20 dBFS noise has RMS 0.1.
public enum Decibels {
    /// Amplitude factor for a gain in dB (−6 dB → 0.501).
    public static func amplitude(fromDB db: Double) -> Double { pow(10, db / 20) }
    /// Power ratio in dB; nil when either side is not positive (no number is made up).
    public static func powerRatio(_ numerator: Double, _ denominator: Double) -> Double? {
        guard numerator > 0, denominator > 0, numerator.isFinite, denominator.isFinite else { return nil }
        return 10 * log10(numerator / denominator)
    }
    /// Power in dB relative to full scale (mean square of 1.0 is 0 dBFS).
    public static func dbfs(meanSquare: Double) -> Double { meanSquare > 0 ? 10 * log10(meanSquare) : -.infinity }
}
