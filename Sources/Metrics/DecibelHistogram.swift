/// Counts of decibel values in 0.1 dB bins from −60 to +200 dB (values outside land in the end
/// bins), with each bin's least and greatest value, so a percentile over a call of any length
/// needs the same 62 KB and no per-frame allocation. A percentile is read at its bin's centre
/// held within the values the bin saw: within 0.05 dB of the value, and exact where the bin
/// holds one value (a terminal that cuts the near end by a constant 3.0 dB read 3.05, P.340's
/// category 2a instead of 1). A bin holds its upper edge, (x, x + 0.1]: P.340's limits (3, 6,
/// 9, 12 dB) close a category at the top, so no bin straddles one, and a percentile of exactly
/// 6.00 beside values of 6.03–6.09 reads 6.00 or less, not 6.05.
struct DecibelHistogram: Sendable {
    private static let lowestDB = -60.0, binDB = 0.1, binCount = 2_600
    private var counts = [Int](repeating: 0, count: binCount)
    private var least = [Double](repeating: .infinity, count: binCount)
    private var greatest = [Double](repeating: -.infinity, count: binCount)
    private(set) var count = 0

    mutating func add(_ valueDB: Double) {
        guard !valueDB.isNaN else { return }
        let bin = Self.bin(of: valueDB)
        counts[bin] += 1
        least[bin] = min(least[bin], valueDB)
        greatest[bin] = max(greatest[bin], valueDB)
        count += 1
    }

    /// The bin of the value below which (inclusive) `fraction` of the values lie; nil when empty.
    private func percentileBin(_ fraction: Double) -> Int? {
        guard count > 0 else { return nil }
        let wanted = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for (bin, binCount) in counts.enumerated() {
            seen += binCount
            if seen >= wanted { return bin }
        }
        return counts.count - 1
    }

    /// The value at `fraction` (0.5: the median): its bin's centre, held within the least and
    /// greatest value in that bin; nil when empty.
    func percentile(_ fraction: Double) -> Double? {
        percentileBin(fraction).map { bin in min(greatest[bin], max(least[bin], Self.centre(bin))) }
    }

    static func bin(of valueDB: Double) -> Int {
        min(binCount - 1, max(0, Int(((valueDB - lowestDB) / binDB).rounded(.up)) - 1))
    }

    static func centre(_ bin: Int) -> Double { lowestDB + (Double(bin) + 0.5) * binDB }
}
