import Foundation

/// A recording's DC offset, taken off before it is measured: the median of its blocks' means
/// over the analysed stretch, where it is `removedDBFS` or more and the blocks agree on it
/// (`removed`), is subtracted from every sample.
///
/// Why: the Welch frames' Hann window spreads a constant over bins 0 and 1, so "bins 1 … N/2"
/// still held an offset — a rig's mic offset of −34 dBFS was 99.5 % of a frame's power, read as a
/// near talker the output had removed, and an offset on the loopback kept its silences "far end
/// active". A rig's offset is in every block, its silences too; a signal's own mean is not: the
/// whole file's mean of loud gated speech (a near-end track 20 dB over the echo) is −50 dBFS, and
/// taking it off put that constant into each of its silences, which then read as a talker. The
/// median of the blocks' means is the offset every block shares (zero for a gated or DC-free
/// file, which is measured bit for bit as the same buffers are by `EchoAnalyzer.analyze`). Below
/// −60 dBFS an offset moves no measure (a frame's far-end activity floor is −50 dBFS). The
/// offset, not a DC notch: a notch's step response rings for tens of milliseconds after every
/// abrupt stop of a gated signal (a 5 Hz notch kept 80 more frames of a gated far end "active").
/// Simulated calls are measured as they run, without this step, and so are buffers
/// (`EchoAnalyzer.analyze`).
public struct DCOffset {
    private var blockMeans: [Double] = []

    public init() {}

    /// Adds one block of the file (`blockSize` samples; the last may be shorter).
    public mutating func add(_ block: [Float], count: Int) {
        guard count > 0 else { return }
        var total = 0.0
        for i in 0..<count { total += Double(block[i]) }
        blockMeans.append(total / Double(count))
    }

    /// The blocks the rule is made for: the analyzer's, so that `process` judges a mic's offset as
    /// `metrics` does.
    public static var blockSize: Int { EchoAnalyzer.blockSize }

    /// The offset taken off: at or above −60 dBFS.
    static let removedDBFS = -60.0

    /// What is taken off each sample: the blocks' median mean where it is an offset — at least
    /// `removedDBFS`, over three blocks or more whose means agree (their interquartile range no
    /// wider than the median itself: low-frequency sound, rumble or handling, moves block means
    /// every way, an offset shifts them all) — else 0.
    public var removed: Float {
        guard blockMeans.count >= 3 else { return 0 }
        let sorted = blockMeans.sorted()
        let middle = sorted.count / 2
        let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        let spread = sorted[(3 * sorted.count) / 4] - sorted[sorted.count / 4]
        return abs(median) >= pow(10, Self.removedDBFS / 20) && spread <= abs(median) ? Float(median) : 0
    }

    /// `block[0..<count]` less `offset`.
    static func remove(_ offset: Float, from block: inout [Float], count: Int) {
        guard offset != 0 else { return }
        for i in 0..<count { block[i] -= offset }
    }
}
