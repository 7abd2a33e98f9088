import AudioCore
import Foundation

/// What is kept of the far-end single-talk frames, in time order, one compact row per frame:
/// its index and the whole-band powers of the delay-aligned reference, the echo at the mic, the
/// mic, the processed signal and the input's noise (the floor under which the output's residual
/// cannot be measured, `MeasurableFloor`; Float32: the values are only ever summed, in Double). Everything
/// the metrics report for a sample range is a sum over some of these rows, so segments, series
/// and re-convergence are aggregated from this ledger instead of re-running FFTs. Octave bands
/// are only reported over the whole call, so they are summed as frames arrive, not kept per row.
///
/// The rows (24 bytes a frame, ~0.13 MB a minute at 48 kHz, and 112 bytes of 1/3-octave powers
/// for TCLw, 168 with the noise's) are the only part of a stream that grows with the call's length; they live in
/// `SpillingRows`, which keeps the newest ~390 KB of each table in memory (~3 minutes of the
/// first, ~40 s of the second) and spills older blocks to an unlinked temporary file, so memory
/// stays flat for a call of any length and every sum is the same, bit for bit, as over one
/// in-memory array.
struct FrameLedger: Sendable {
    let sampleRate: Int
    let bands: [OctaveBand]
    /// Frame layout of the analysed length; set when the stream finishes.
    var frames: WelchFrames
    /// Columns: frame index (Int32 bits), reference, echo, mic, processed, noise (Float bits).
    private let rows: SpillingRows<UInt32>
    /// Noise power of a frame for the rows that have none of their own (no tracks: the mic's
    /// noise between talkers, `NoiseFloorEstimate`), and the least any row's floor is (a near-end
    /// track without the mic's noise); set when the stream finishes.
    var sharedNoisePower = 0.0
    /// Quantisation noise of one frame, whole band and per band: the floor of every row.
    private let digitalFramePower: Double
    private let digitalBandPowers: [Double]
    /// Set when older rows could not be spilled to disk (see `SpillingRows`).
    var spillError: SpillError? { .first(.first(rows.spillError, thirdOctaveRows.spillError), underNoiseRows.spillError) }
    /// Σ over rows of the mic's and the processed signal's power in each octave band.
    private(set) var micBandSums: [Double]
    private(set) var processedBandSums: [Double]
    /// Σ over rows of the delay-aligned reference's power in each octave band: where the far end
    /// puts nothing above a band's floor there is no echo to remove in it.
    private(set) var referenceBandSums: [Double]
    /// A series longer than this many windows gets wider windows (see `seriesStep`).
    let maximumSeriesPoints: Int
    /// The weighted echo loss's bands, and per row the reference's, the processed signal's and
    /// the mic's power in each (kept per row: the loss is measured over the steady state, the
    /// last half of the rows, which is known only at the end). Wider rows, so fewer stay resident.
    let thirdOctaves: [ThirdOctaveBand]
    private let thirdOctaveRows: SpillingRows<Float>
    private var thirdOctaveRow: [Float]
    private let digitalThirdOctavePowers: [Double]
    /// Whether each row carries its noise per band (the tracks' noise, measured in each octave and
    /// third octave: `noiseBandSums`, and a fourth block in the third-octave rows). Without it a
    /// band's floor is the whole-band noise shared out as if white; with it, never under the
    /// band's own: room noise is not white, and a Bluetooth route's −65 dBFS noise over its echo,
    /// under a white share in its upper bands, read as residual echo there (TCLw 24.8 dB beside
    /// an ERL of 40.8, with AEC disabled).
    let measuresBandNoise: Bool
    private(set) var noiseBandSums: [Double]
    /// The frames where the far end played and the near end was silent but the echo stayed under
    /// what else the mic held (`ActivityGate.echoUnderNoiseFrames`: a wired headset's, a quiet
    /// earpiece's): frame index, the delay-aligned reference's and the echo's whole-band power.
    /// ERLE has no meaning there (no echo to cancel), but the echo path's loss has: where far-end
    /// single talk is missing, ERL stands on these frames
    /// (`RangeSummary.erlFrames`), not left null — a headset's 60 dB of loss is its verdict.
    private let underNoiseRows: SpillingRows<UInt32>
    private var underNoiseRow: [UInt32] = [0, 0, 0]

    /// - Parameter residentRows: rows kept in memory before a block spills (tests make it small).
    init(sampleRate: Int, frameSize: Int, bands: [OctaveBand], thirdOctaves: [ThirdOctaveBand], maximumSeriesPoints: Int,
         measuresBandNoise: Bool = false, residentRows: Int = 16_384) {
        rows = SpillingRows(width: 6, residentRows: residentRows)
        underNoiseRows = SpillingRows(width: 3, residentRows: residentRows)
        self.thirdOctaves = thirdOctaves
        self.measuresBandNoise = measuresBandNoise
        noiseBandSums = [Double](repeating: 0, count: bands.count)
        let width = max(1, (measuresBandNoise ? 4 : 3) * thirdOctaves.count)
        thirdOctaveRows = SpillingRows(width: width, residentRows: max(1, residentRows * 6 / width))
        thirdOctaveRow = [Float](repeating: 0, count: width)
        digitalThirdOctavePowers = thirdOctaves.map { MeasurableFloor.digitalBandPower(frameSize: frameSize, bins: $0.bins) }
        digitalFramePower = MeasurableFloor.digitalFramePower(frameSize: frameSize)
        digitalBandPowers = bands.map { MeasurableFloor.digitalBandPower(frameSize: frameSize, bins: $0.bins) }
        self.sampleRate = sampleRate
        self.bands = bands
        self.maximumSeriesPoints = max(1, maximumSeriesPoints)
        frames = WelchFrames(length: 0, frameSize: frameSize)
        micBandSums = [Double](repeating: 0, count: bands.count)
        processedBandSums = [Double](repeating: 0, count: bands.count)
        referenceBandSums = [Double](repeating: 0, count: bands.count)
    }

    var rowCount: Int { rows.count }

    /// Adds one single-talk frame (frames arrive in ascending order). `noise`: the frame's own
    /// noise power from the tracks, or 0 where `sharedNoisePower` stands for it.
    /// `noiseBands`, `noiseThirdOctaves`: the frame's noise per band, where the ledger
    /// `measuresBandNoise` (ignored otherwise).
    mutating func append(frame: Int, reference: Double, echo: Double, mic: Double, processed: Double, noise: Double,
                         referenceBands: [Double], micBands: [Double], processedBands: [Double],
                         referenceThirdOctaves: [Double], processedThirdOctaves: [Double], micThirdOctaves: [Double],
                         noiseBands: [Double] = [], noiseThirdOctaves: [Double] = []) {
        let count = thirdOctaves.count
        for band in 0..<count {
            thirdOctaveRow[band] = Float(referenceThirdOctaves[band])
            thirdOctaveRow[count + band] = Float(processedThirdOctaves[band])
            thirdOctaveRow[2 * count + band] = Float(micThirdOctaves[band])
        }
        if measuresBandNoise {
            for band in 0..<count { thirdOctaveRow[3 * count + band] = Float(noiseThirdOctaves[band]) }
            for band in noiseBandSums.indices { noiseBandSums[band] += noiseBands[band] }
        }
        thirdOctaveRows.append(row: thirdOctaveRow)
        rows.append(UInt32(bitPattern: Int32(truncatingIfNeeded: frame)), Float(reference).bitPattern,
                    Float(echo).bitPattern, Float(mic).bitPattern, Float(processed).bitPattern, Float(noise).bitPattern)
        for band in micBandSums.indices {
            micBandSums[band] += micBands[band]
            processedBandSums[band] += processedBands[band]
            referenceBandSums[band] += referenceBands[band]
        }
    }

    /// Adds one frame whose echo stayed under the mic's noise while the far end played alone
    /// (frames arrive in ascending order): `reference` delay-aligned, `echo` the echo track's
    /// power, or the mic's without one.
    mutating func appendEchoUnderNoise(frame: Int, reference: Double, echo: Double) {
        underNoiseRow[0] = UInt32(bitPattern: Int32(truncatingIfNeeded: frame))
        underNoiseRow[1] = Float(reference).bitPattern
        underNoiseRow[2] = Float(echo).bitPattern
        underNoiseRows.append(row: underNoiseRow)
    }

    /// The series window for a range of `length` samples: `stepSamples` (0.5 s), widened by a
    /// whole factor when the range would otherwise have more than `maximumSeriesPoints`
    /// windows (7200: one hour), so a day-long call reports a bounded series.
    func seriesStep(forLength length: Int, stepSamples: Int) -> Int {
        let windows = (max(0, length) + stepSamples - 1) / stepSamples
        let factor = max(1, (windows + maximumSeriesPoints - 1) / maximumSeriesPoints)
        return stepSamples * factor
    }

    /// What the metrics of one sample range are.
    struct RangeSummary {
        var erlDB: Double?
        /// The frames ERL stands on: the single-talk frames, and where there are none, the frames
        /// whose echo stayed under the noise (20 or more, with some echo to bound).
        var erlFrames: Int
        /// ERL stands on frames whose echo is under the noise: there the echo column bounds the
        /// echo from above — the mic without an echo track, and a recorded track's own dither or
        /// noise with one (a track of dither alone read 76 dB where no echo reached the mic).
        var erlIsLowerBound: Bool
        var erleDB: Double?
        var erleIsLowerBound: Bool
        var erleSteadyDB: Double?
        var erleSteadyIsLowerBound: Bool
        var convergenceSeconds: Double?
        var convergenceIsLowerBound: Bool
        var series: [ERLEPoint]
        var singleTalkFrames: Int
        /// Frames of the steady state (the last half).
        var steadyFrames: Int
        /// The output was digital silence in every single-talk frame (and there were some).
        var processedIsSilent: Bool
    }

    /// The floor a row's output is measured against: its noise (its own, or the shared estimate
    /// where that is more) and never less than digital silence.
    private func floor(noise: Double) -> Double {
        max(noise, sharedNoisePower, digitalFramePower)
    }

    /// Metrics over the frames wholly inside `range`, with series windows of `stepSamples`
    /// (widened by `seriesStep` for very long ranges) starting at `range.lowerBound` and times
    /// relative to it. Each sum adds its rows in time order from 0, as one loop over an array would.
    /// ERLE is a lower bound where the output's sum falls under the floor's (`MeasurableFloor`).
    func summary(in range: Range<Int>, stepSamples requestedStep: Int, toleranceDB: Double) -> RangeSummary {
        let inside = frames.frames(inside: range)
        let selected = rowRange(frameIndices: inside)
        let stepSamples = seriesStep(forLength: range.count, stepSamples: requestedStep)
        let windowCount = inside.isEmpty ? 0 : (frames.start(of: inside.upperBound - 1) - range.lowerBound) / stepSamples + 1
        var micSum = [Double](repeating: 0, count: windowCount)
        var processedSum = micSum, floorSum = micSum
        var windowFrames = [Int](repeating: 0, count: windowCount)
        var referenceTotal = 0.0, echoTotal = 0.0, micTotal = 0.0, processedTotal = 0.0, floorTotal = 0.0
        let frames = self.frames
        rows.forEachRow(in: selected) { row, at in
            let reference = Double(Float(bitPattern: row[at + 1])), echo = Double(Float(bitPattern: row[at + 2]))
            let mic = Double(Float(bitPattern: row[at + 3])), processed = Double(Float(bitPattern: row[at + 4]))
            let floor = floor(noise: Double(Float(bitPattern: row[at + 5])))
            referenceTotal += reference
            echoTotal += echo
            micTotal += mic
            processedTotal += processed
            floorTotal += floor
            let window = (frames.start(of: Int(Int32(bitPattern: row[at]))) - range.lowerBound) / stepSamples
            micSum[window] += mic
            processedSum[window] += processed
            floorSum[window] += floor
            windowFrames[window] += 1
        }
        var erl = Decibels.powerRatio(referenceTotal, echoTotal)
        var erlFrames = selected.count, erlIsLowerBound = false
        // Only without single talk: a range with some measures ERL there, so
        // one item's modes (a frame or two of single talk apart) never read one a bound and the
        // other a figure.
        let underNoise = selected.isEmpty ? rowRange(frameIndices: inside, in: underNoiseRows) : 0..<0
        if underNoise.count >= FigureConfidence.minimumAnalysisFrames {
            var reference = 0.0, echo = 0.0
            underNoiseRows.forEachRow(in: underNoise) { row, at in
                reference += Double(Float(bitPattern: row[at + 1]))
                echo += Double(Float(bitPattern: row[at + 2]))
            }
            // An echo of digital silence (nothing played into the room) has no loss to bound.
            if let bound = Decibels.powerRatio(reference, echo) {
                erl = bound
                erlFrames = underNoise.count
                erlIsLowerBound = true
            }
        }
        let erle = MeasurableFloor.erle(mic: micTotal, processed: processedTotal, floor: floorTotal)
        // Last half by count; with an odd count the middle frame belongs to the last half.
        var steadyMic = 0.0, steadyProcessed = 0.0, steadyFloor = 0.0
        let steadyRows = (selected.lowerBound + selected.count / 2)..<selected.upperBound
        rows.forEachRow(in: steadyRows) { row, at in
            steadyMic += Double(Float(bitPattern: row[at + 3]))
            steadyProcessed += Double(Float(bitPattern: row[at + 4]))
            steadyFloor += floor(noise: Double(Float(bitPattern: row[at + 5])))
        }
        // No ERLE over the range (its echo under the floor) leaves a steady state that is only a
        // bound with nothing to bound: a last half a hair over the floor read "≥ 0.0 dB" beside
        // "no echo to cancel, so no ERLE". A last half measured (its output over the floor) is a
        // figure, the echo there the range's average hid, and stays.
        var steady = MeasurableFloor.erle(mic: steadyMic, processed: steadyProcessed, floor: steadyFloor)
        if erle.value == nil, steady.isLowerBound { steady = (nil, false) }
        let series = (0..<windowCount).map { window in
            let value = MeasurableFloor.erle(mic: micSum[window], processed: processedSum[window], floor: floorSum[window])
            return ERLEPoint(timeSeconds: Double(window * stepSamples) / Double(sampleRate), erleDB: value.value,
                             isLowerBound: value.isLowerBound, frames: windowFrames[window])
        }
        let convergence = Self.convergence(series, steady: steady.value, steadyIsLowerBound: steady.isLowerBound, toleranceDB: toleranceDB)
        return RangeSummary(erlDB: erl, erlFrames: erlFrames, erlIsLowerBound: erlIsLowerBound,
                            erleDB: erle.value, erleIsLowerBound: erle.isLowerBound,
                            erleSteadyDB: steady.value, erleSteadyIsLowerBound: steady.isLowerBound,
                            convergenceSeconds: convergence.seconds, convergenceIsLowerBound: convergence.isLowerBound,
                            series: series, singleTalkFrames: selected.count, steadyFrames: steadyRows.count,
                            processedIsSilent: !selected.isEmpty && processedTotal == 0
                                && micTotal >= Self.mutedMicOverSilence * digitalFramePower * Double(selected.count))
    }

    /// How far over digital silence the mic must stand for an output of digital silence to have
    /// muted something (30 dB: −71 dBFS). A wired headset's echo at −80 dBFS in a room without
    /// noise is next to nothing, and a canceller that sends zeros for it mutes nothing.
    static let mutedMicOverSilence = 1e3

    /// ERLE per octave band over every single-talk frame, a lower bound where the output's band
    /// power falls under (or within 1 dB over) the band's floor: the frames' noise spread evenly
    /// over the bins (white), as TCLw's bands have it, never under the band's own noise where the
    /// tracks give it (`measuresBandNoise`), nor under digital silence. A band the far end reaches nothing of — its reference not above that
    /// floor, as TCLw leaves such a band out — has no echo to remove: null, with why. Its mic
    /// alone cannot tell: it holds the room's noise, which is not white, and a band of 16 kHz
    /// speech's 8–16 kHz, noise only, rose 0.02 dB over its floor in one room and read
    /// "≥ 0.0 dB" while another room's stayed under it and read null.
    func bandERLE() -> [BandERLE] {
        var noiseFloor = 0.0
        rows.forEachRow(in: 0..<rowCount) { row, at in noiseFloor += floor(noise: Double(Float(bitPattern: row[at + 5]))) }
        let bins = Double(frames.frameSize / 2)
        return bands.indices.map { index in
            let floor = max(digitalBandPowers[index] * Double(rowCount), noiseFloor * Double(bands[index].bins.count) / bins,
                            measuresBandNoise ? noiseBandSums[index] : 0)
            guard rowCount > 0 else { return BandERLE(lowHz: bands[index].lowHz, highHz: bands[index].highHz, erleDB: nil) }
            guard referenceBandSums[index] > floor else {
                return BandERLE(lowHz: bands[index].lowHz, highHz: bands[index].highHz, erleDB: nil,
                                unmeasuredReason: BandERLE.noFarEndReason)
            }
            let value = MeasurableFloor.bandERLE(mic: micBandSums[index], processed: processedBandSums[index], floor: floor)
            return BandERLE(lowHz: bands[index].lowHz, highHz: bands[index].highHz, erleDB: value.value,
                            isLowerBound: value.isLowerBound, unmeasuredReason: value.value == nil ? BandERLE.noEchoReason : nil)
        }
    }

    /// How far the echo at the mic must stand over the floor for a third octave to count in TCLw
    /// (`weightedEchoLoss`), and that as a power ratio.
    static let echoOverFloorForLossDB = 10.0
    static let echoOverFloorForLoss = pow(10, echoOverFloorForLossDB / 10)

    /// TCLw over the steady state of the frames wholly inside `range` (the last half of its
    /// single-talk rows, as the steady ERLE): per band Σ reference over Σ processed. The floor
    /// under which the output's residual cannot be measured is the rows' own (their noise, as for
    /// ERLE, spread evenly over the bins — white —, never under the band's own noise where the
    /// rows carry it, nor under digital silence): a band whose output falls under it (or within
    /// 1 dB over it) is a lower bound. A band whose echo at the mic (in single talk, the mic over
    /// its floor) stands less than 10 dB over the floor (`echoOverFloorForLoss`) is left out: a
    /// narrowband far end's upper bands, a tone's neighbours, the bands music barely reaches. There
    /// the loss is the reference over the noise, or over a canceller's comfort noise: no echo at
    /// all, and the weighting, led by the band that leaks most, made it the figure (a 1 kHz tone
    /// through a 10 dB path read ≥ 7.2 dB with nothing cancelled, and −13.1 dB with AEC3
    /// removing echo). At 10 dB the noise lowers a pass-through's loss by 0.4 dB at most.
    /// nil without rows or such bands.
    func weightedEchoLoss(in range: Range<Int>) -> WeightedEchoLoss? {
        let count = thirdOctaves.count
        let selected = rowRange(frameIndices: frames.frames(inside: range))
        let steadyRows = (selected.lowerBound + selected.count / 2)..<selected.upperBound
        guard count > 0, !steadyRows.isEmpty else { return nil }
        var reference = [Double](repeating: 0, count: count), processed = reference, mic = reference, noise = reference
        let withNoise = measuresBandNoise
        thirdOctaveRows.forEachRow(in: steadyRows) { row, at in
            for band in 0..<count {
                reference[band] += Double(row[at + band])
                processed[band] += Double(row[at + count + band])
                mic[band] += Double(row[at + 2 * count + band])
                if withNoise { noise[band] += Double(row[at + 3 * count + band]) }
            }
        }
        var noiseFloor = 0.0
        rows.forEachRow(in: steadyRows) { row, at in noiseFloor += floor(noise: Double(Float(bitPattern: row[at + 5]))) }
        let bins = Double(frames.frameSize / 2)
        var bands: [WeightedEchoLoss.BandLoss] = []
        var leftOut: [Double] = []
        for band in 0..<count {
            let floor = max(digitalThirdOctavePowers[band] * Double(steadyRows.count),
                            noiseFloor * Double(thirdOctaves[band].bins.count) / bins, noise[band])
            guard reference[band] > floor else { continue }
            let value = MeasurableFloor.bandERLE(mic: reference[band], processed: processed[band], floor: floor)
            guard mic[band] >= (1 + Self.echoOverFloorForLoss) * floor, let loss = value.value else {
                leftOut.append(thirdOctaves[band].centreHz)
                continue
            }
            bands.append(.init(centreHz: thirdOctaves[band].centreHz, lossDB: loss, isLowerBound: value.isLowerBound))
        }
        guard let weighted = EchoLossWeighting.weightedLossDB(lossesDB: bands.map(\.lossDB), frequenciesHz: bands.map(\.centreHz))
        else { return nil }
        return WeightedEchoLoss(tclwDB: weighted, isLowerBound: bands.contains(where: \.isLowerBound), bands: bands,
                                analysisFrames: steadyRows.count, leftOutHz: leftOut)
    }

    /// Where the frames `weightedEchoLoss(in:)` measures over start (the steady half of the
    /// far-end single-talk frames in `range`): the first's start through the last's; nil where
    /// there are none. A call that changed route says by it which route its TCLw stands on.
    func echoLossFrameStarts(in range: Range<Int>) -> ClosedRange<Int>? {
        let selected = rowRange(frameIndices: frames.frames(inside: range))
        let steadyRows = (selected.lowerBound + selected.count / 2)..<selected.upperBound
        guard !steadyRows.isEmpty else { return nil }
        func start(_ row: Int) -> Int { frames.start(of: Int(Int32(bitPattern: rows.element(row: row, column: 0)))) }
        return start(steadyRows.lowerBound)...start(steadyRows.upperBound - 1)
    }

    /// Earliest point that is non-nil and after which every non-nil point (itself included)
    /// stays within ±tolerance of the steady state. None where the steady state is within twice
    /// the tolerance of 0 dB: the band round it then reaches down to "nothing removed" (no
    /// canceller, or one that failed: speex on Bluetooth HFP, steady at 4.2 dB, read "converged
    /// at 0.00 s"), and a series that never left it read as the fastest convergence of all. A point on
    /// under a quarter of the fullest window's frames is passed over: one frame at a talker's
    /// onset, 9 dB off, made a canceller that never changed converge at 14 s. (The fullest
    /// window, not `FigureConfidence`'s 20 frames: at 8 and 16 kHz a 0.5 s window holds 31
    /// frames, and a narrowband call's far-end speech filled none of them to 20.)
    /// None, too, where only the last counted window is within the tolerance: one window shows no
    /// settling, and a call whose ERLE swung 5–18 dB to its end "converged at 11.5 s" of 12.
    /// A window that is a bound at the mic's floor under the band is passed over, neither settled
    /// nor a departure: its ERLE is at least that, so it does not show the ERLE left the band
    /// (one such window at a quiet stretch, "≥ 28 dB" beside a steady "≥ 38 dB", made a canceller
    /// settled from 0.5 s converge at 9.5 s, and at 113.5 s of a two-minute call). A bound over
    /// the band has left it, as a measurement has.
    /// Where the steady state is a bound at the mic's floor, or a window from the one it is read at
    /// on is, the time is a lower bound (`isLowerBound`): the truth may stand over the band there
    /// (the steady state higher, the ERLE still rising under the floor), so it settled then or
    /// later. Read as a time, a canceller whose every window was "≥" converged "at 0.00 s", the
    /// fastest of all, and one whose first window after a route change's double talk was at the
    /// floor "at 7.5 s"; one read at a measured 25.5 dB beside a steady "≥ 28.0 dB", "at 7.5 s",
    /// where its segment from 4 s settled after 8 s.
    static func convergence(_ series: [ERLEPoint], steady: Double?, steadyIsLowerBound: Bool = false,
                            toleranceDB: Double) -> (seconds: Double?, isLowerBound: Bool) {
        guard let steady, steady > 2 * toleranceDB else { return (nil, false) }
        var earliest: ERLEPoint?
        var settled = 0
        var bounded = steadyIsLowerBound, boundSince = steadyIsLowerBound
        for point in ERLEPoint.convergenceWindows(series).reversed() {
            guard let value = point.erleDB else { continue }
            bounded = bounded || point.isLowerBound
            if point.isLowerBound && value < steady - toleranceDB { continue }
            guard abs(value - steady) <= toleranceDB else { break }
            earliest = point
            settled += 1
            boundSince = bounded
        }
        guard settled >= 2, let earliest else { return (nil, false) }
        return (earliest.timeSeconds, boundSince)
    }

    /// Rows of `table` (the single-talk rows unless told) whose frame index, in its first
    /// column, lies in `wanted` (both ascending, so two binary searches).
    private func rowRange(frameIndices wanted: Range<Int>, in table: SpillingRows<UInt32>? = nil) -> Range<Int> {
        let table = table ?? rows
        let first = Self.lowerBound(of: wanted.lowerBound, in: table)
        let end = Self.lowerBound(of: wanted.upperBound, in: table)
        return first..<max(first, end)
    }

    private static func lowerBound(of frame: Int, in table: SpillingRows<UInt32>) -> Int {
        var low = 0, high = table.count
        while low < high {
            let middle = (low + high) / 2
            if Int(Int32(bitPattern: table.element(row: middle, column: 0))) < frame { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
