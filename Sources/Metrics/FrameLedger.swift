import AudioCore

/// What is kept of the far-end single-talk frames, in time order, one compact row per frame:
/// its index and the whole-band powers of the delay-aligned reference, the echo at the mic, the
/// mic and the processed signal (Float32: the values are only ever summed, in Double). Everything
/// the metrics report for a sample range is a sum over some of these rows, so segments, series
/// and re-convergence are aggregated from this ledger instead of re-running FFTs. Octave bands
/// are only reported over the whole call, so they are summed as frames arrive, not kept per row.
/// The ledger is the only part of a stream that grows with the call's length (20 bytes a frame,
/// ~0.1 MB a minute at 48 kHz).
struct FrameLedger: Sendable {
    let sampleRate: Int
    let bands: [OctaveBand]
    /// Frame layout of the analysed length; set when the stream finishes.
    var frames: WelchFrames
    /// Welch frame index of each row, ascending.
    private(set) var frameIndices: [Int32] = []
    private(set) var reference: [Float] = []
    private(set) var echo: [Float] = []
    private(set) var mic: [Float] = []
    private(set) var processed: [Float] = []
    /// Σ over rows of the mic's and the processed signal's power in each octave band.
    private(set) var micBandSums: [Double]
    private(set) var processedBandSums: [Double]

    init(sampleRate: Int, frameSize: Int, bands: [OctaveBand]) {
        self.sampleRate = sampleRate
        self.bands = bands
        frames = WelchFrames(length: 0, frameSize: frameSize)
        micBandSums = [Double](repeating: 0, count: bands.count)
        processedBandSums = micBandSums
    }

    var rowCount: Int { frameIndices.count }

    /// Adds one single-talk frame (frames arrive in ascending order).
    mutating func append(frame: Int, reference: Double, echo: Double, mic: Double, processed: Double,
                         micBands: [Double], processedBands: [Double]) {
        frameIndices.append(Int32(truncatingIfNeeded: frame))
        self.reference.append(Float(reference))
        self.echo.append(Float(echo))
        self.mic.append(Float(mic))
        self.processed.append(Float(processed))
        for band in micBandSums.indices {
            micBandSums[band] += micBands[band]
            processedBandSums[band] += processedBands[band]
        }
    }

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
        func total(_ column: [Float], _ rows: Range<Int>) -> Double {
            var sum = 0.0
            for row in rows { sum += Double(column[row]) }
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
                let window = (frames.start(of: Int(frameIndices[row])) - range.lowerBound) / stepSamples
                micSum[window] += Double(mic[row])
                processedSum[window] += Double(processed[row])
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
        bands.indices.map { index in
            BandERLE(lowHz: bands[index].lowHz, highHz: bands[index].highHz,
                     erleDB: Decibels.powerRatio(micBandSums[index], processedBandSums[index]))
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

    /// Rows whose frame index lies in `wanted` (both ascending, so two binary searches).
    private func rowRange(frameIndices wanted: Range<Int>) -> Range<Int> {
        let first = lowerBound(of: wanted.lowerBound)
        let end = lowerBound(of: wanted.upperBound)
        return first..<max(first, end)
    }

    private func lowerBound(of frame: Int) -> Int {
        var low = 0, high = frameIndices.count
        while low < high {
            let middle = (low + high) / 2
            if Int(frameIndices[middle]) < frame { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
