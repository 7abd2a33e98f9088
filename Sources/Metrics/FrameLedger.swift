import AudioCore

/// Band powers of the far-end single-talk frames, in time order, in flat tables (row = frame,
/// column 0 = whole band, 1… = octave bands). Everything the metrics report is a sum over some
/// of these rows, so segments, series and re-convergence are aggregated from this once-computed
/// ledger instead of re-running FFTs; full spectra are never kept.
struct FrameLedger: Sendable {
    let sampleRate: Int
    let frames: WelchFrames
    let bands: [OctaveBand]
    var columns: Int { 1 + bands.count }
    /// Welch frame index of each row, ascending.
    var frameIndices: [Int] = []
    /// Delay-aligned reference, echo at the mic, mic and processed band powers.
    var reference: [Double] = []
    var echo: [Double] = []
    var mic: [Double] = []
    var processed: [Double] = []

    init(sampleRate: Int, frames: WelchFrames, bands: [OctaveBand]) {
        self.sampleRate = sampleRate
        self.frames = frames
        self.bands = bands
    }

    var rowCount: Int { frameIndices.count }

    /// What the metrics of one sample range are.
    struct RangeSummary {
        var erlDB: Double?
        var erleDB: Double?
        var erleSteadyDB: Double?
        var convergenceSeconds: Double?
        var series: [ERLEPoint]
        var singleTalkFrames: Int
    }

    /// Metrics over the frames wholly inside `range`, with series windows of `stepSamples`
    /// starting at `range.lowerBound` and times relative to it.
    func summary(in range: Range<Int>, stepSamples: Int, toleranceDB: Double) -> RangeSummary {
        let inside = frames.frames(inside: range)
        let rows = rowRange(frameIndices: inside)
        let columns = self.columns
        func total(_ table: [Double], _ rows: Range<Int>) -> Double {
            var sum = 0.0
            for row in rows { sum += table[row * columns] }
            return sum
        }
        let erl = Decibels.powerRatio(total(reference, rows), total(echo, rows))
        let erle = Decibels.powerRatio(total(mic, rows), total(processed, rows))
        // Last half by count; with an odd count the middle frame belongs to the last half.
        let steadyRows = (rows.lowerBound + rows.count / 2)..<rows.upperBound
        let steady = Decibels.powerRatio(total(mic, steadyRows), total(processed, steadyRows))

        var series: [ERLEPoint] = []
        if !inside.isEmpty {
            let windowCount = (frames.start(of: inside.upperBound - 1) - range.lowerBound) / stepSamples + 1
            var micSum = [Double](repeating: 0, count: windowCount)
            var processedSum = micSum
            for row in rows {
                let window = (frames.start(of: frameIndices[row]) - range.lowerBound) / stepSamples
                micSum[window] += mic[row * columns]
                processedSum[window] += processed[row * columns]
            }
            series = (0..<windowCount).map { window in
                ERLEPoint(timeSeconds: Double(window * stepSamples) / Double(sampleRate),
                          erleDB: Decibels.powerRatio(micSum[window], processedSum[window]))
            }
        }
        return RangeSummary(erlDB: erl, erleDB: erle, erleSteadyDB: steady,
                            convergenceSeconds: Self.convergence(series, steady: steady, toleranceDB: toleranceDB),
                            series: series, singleTalkFrames: rows.count)
    }

    /// ERLE per octave band over every single-talk frame.
    func bandERLE() -> [BandERLE] {
        bands.enumerated().map { index, band in
            var micSum = 0.0, processedSum = 0.0
            for row in 0..<rowCount {
                micSum += mic[row * columns + 1 + index]
                processedSum += processed[row * columns + 1 + index]
            }
            return BandERLE(lowHz: band.lowHz, highHz: band.highHz,
                            erleDB: Decibels.powerRatio(micSum, processedSum))
        }
    }

    /// Earliest point that is non-nil and after which every non-nil point (itself included)
    /// stays within ±tolerance of the steady state.
    static func convergence(_ series: [ERLEPoint], steady: Double?, toleranceDB: Double) -> Double? {
        guard let steady else { return nil }
        var earliest: Double?
        for point in series.reversed() {
            guard let value = point.erleDB else { continue }
            guard abs(value - steady) <= toleranceDB else { break }
            earliest = point.timeSeconds
        }
        return earliest
    }

    /// Rows whose frame index lies in `frameIndices` (both ascending, so two binary searches).
    private func rowRange(frameIndices wanted: Range<Int>) -> Range<Int> {
        let first = lowerBound(of: wanted.lowerBound)
        let end = lowerBound(of: wanted.upperBound)
        return first..<max(first, end)
    }

    private func lowerBound(of frame: Int) -> Int {
        var low = 0, high = frameIndices.count
        while low < high {
            let middle = (low + high) / 2
            if frameIndices[middle] < frame { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
