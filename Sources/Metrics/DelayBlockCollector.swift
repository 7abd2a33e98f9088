import AudioInterop

/// Feeds GCC-PHAT blocks to the delay estimate while a stream warms up: finds the far-end-active
/// blocks as the reference arrives and adds each block's whitened cross-spectrum as soon as its
/// mic window is complete, so blocks enter the sum in time order whatever the append sizes.
/// Reads the stream's histories, which hold everything from `origin` during the warm-up.
struct DelayBlockCollector {
    let estimator: DelayEstimator
    /// The absolute sample the search starts at: 0, or where the echo path changed
    /// (`EchoStreamCore.searchDelayAgain`). Blocks start there or later.
    let origin: Int
    /// Sum of squares of the reference per hop (half a block), as far as it has arrived.
    private var hopEnergies: [Double] = []
    /// Starts of the far-end-active blocks, ascending, while fewer than `maxBlocks` are in the
    /// sums: every one, so that which are taken never depends on how far ahead the reference has
    /// arrived (at most the warm-up's hops).
    private var eligibleStarts: [Int] = []
    /// The next of `eligibleStarts` to take or leave out, and how many were taken (in the sums)
    /// and left out (a mic window where no echo reached the mic: a file or generator as the mic,
    /// a mute; `excluded`), and where the last one taken starts.
    private var next = 0, accumulated = 0, leftOut = 0, lastAccumulatedStart = 0
    private let fft: RealFFT
    private var referenceBlock: [Float]
    private var micWindow: [Float]
    private var referenceReal: [Float], referenceImaginary: [Float]
    private var micReal: [Float], micImaginary: [Float]
    private var sumReal: [Double], sumImaginary: [Double]
    /// The reference's power per bin, each block's normalised to sum 1, summed over the blocks in
    /// the estimate (`DelayEstimator.isTonal`).
    private var referencePower: [Double]
    private var referenceFilled = 0, micFilled = 0

    init(estimator: DelayEstimator, origin: Int = 0) {
        self.estimator = estimator
        self.origin = origin
        fft = RealFFT(size: estimator.fftSize)
        let bins = fft.binCount
        referenceBlock = [Float](repeating: 0, count: estimator.fftSize)
        micWindow = referenceBlock
        referenceReal = [Float](repeating: 0, count: bins)
        referenceImaginary = referenceReal
        micReal = referenceReal
        micImaginary = referenceReal
        sumReal = [Double](repeating: 0, count: bins)
        sumImaginary = sumReal
        referencePower = sumReal
        hopEnergies.reserveCapacity(64)
        eligibleStarts.reserveCapacity(64)
    }

    /// True once the first `maxBlocks` active blocks with echo at the mic are in the sums: more audio cannot
    /// change the estimate.
    var isComplete: Bool { accumulated == estimator.maxBlocks }

    /// Once complete: the sample where the last block's mic window ends, where the collection
    /// completed whatever sizes the audio arrived in (the stream's `received` then is wherever
    /// the append that completed it ended).
    var completionSample: Int? { isComplete ? lastAccumulatedStart + estimator.fftSize : nil }

    /// Takes in everything up to absolute sample `available` (histories hold it from `origin` on). A
    /// block whose mic window touches `excluded` (where no echo reached the mic: its audio is
    /// the app's file, not the room) is left out and the next active block counted instead: a
    /// call that started on a file mic read 66 ms, or no delay, for its 50 ms path.
    mutating func advance(reference: SampleHistory, mic: SampleHistory, available: Int, excluded: inout ExcludedRanges) {
        let hop = estimator.hop
        while origin + (hopEnergies.count + 1) * hop <= available {
            let first = origin + hopEnergies.count * hop
            hopEnergies.append(PowerSums.sumOfSquares(reference.samples, reference.local(first)..<reference.local(first + hop)))
            // A block is two consecutive hops; it is known once its second hop is.
            let block = hopEnergies.count - 2
            if block >= 0, accumulated < estimator.maxBlocks,
               (hopEnergies[block] + hopEnergies[block + 1]) / Double(estimator.blockSize) >= estimator.activeMeanSquare {
                eligibleStarts.append(origin + block * hop)
            }
        }
        while accumulated < estimator.maxBlocks, next < eligibleStarts.count, eligibleStarts[next] + estimator.fftSize <= available {
            let start = eligibleStarts[next]
            next += 1
            if excluded.touches(start, start + estimator.fftSize) {
                leftOut += 1
                continue
            }
            accumulate(reference: reference, mic: mic, start: start,
                       referenceCount: estimator.blockSize, micCount: estimator.fftSize)
            accumulated += 1
            lastAccumulatedStart = start
        }
    }

    /// The estimate from the audio before absolute sample `end` (the end of the stream or of the
    /// warm-up): blocks whose mic window runs past `end` enter with the window cut there, and a
    /// stretch shorter than a block counts as one zero-padded block at `origin` when it is active.
    mutating func finish(reference: SampleHistory, mic: SampleHistory, end: Int, excluded: inout ExcludedRanges) -> Double? {
        advance(reference: reference, mic: mic, available: end, excluded: &excluded)
        while accumulated < estimator.maxBlocks, next < eligibleStarts.count {
            let start = eligibleStarts[next]
            next += 1
            let micCount = min(estimator.fftSize, end - start)
            if excluded.touches(start, start + micCount) {
                leftOut += 1
                continue
            }
            accumulate(reference: reference, mic: mic, start: start, referenceCount: estimator.blockSize, micCount: micCount)
            accumulated += 1
        }
        let length = end - origin
        if length < estimator.blockSize && length > 0 && accumulated == 0 && !excluded.touches(origin, end) {
            let energy = PowerSums.sumOfSquares(reference.samples, reference.local(origin)..<reference.local(end))
            if energy / Double(length) >= estimator.activeMeanSquare {
                accumulate(reference: reference, mic: mic, start: origin, referenceCount: length,
                           micCount: min(estimator.fftSize, length))
                accumulated = 1
            }
        }
        guard accumulated > 0 else { return nil }
        var (peak, atBlockEdges) = estimator.judge(sumReal: sumReal, sumImaginary: sumImaginary, fft: fft,
                                                   referenceIsTonal: { estimator.isTonal(referencePower: referencePower) })
        // The blocks' edges leak at lags of their own (`DelayEstimator.isBlockEdgeLag`): a verdict
        // resting there holds only if the blocks tapered say it too.
        if atBlockEdges { peak = estimator.confirmed(peak, byTapered: taperedPeak(reference: reference, mic: mic)) }
        switch peak {
        case .lag(let lag): return Double(length) - lag >= Double(estimator.minimumOverlap) ? lag : nil
        case .none:
            // An echo that leads a block by more than the block holds nothing of it in the block's
            // mic window: a loopback recorded 0.35–0.5 s late peaks nowhere here. The whole
            // signals, correlated over both signs of lag, tell it (`DelayEstimator.echoLeads`).
            if leftOut == 0, origin == 0, reference.origin == 0, mic.origin == 0, end <= reference.end, end <= mic.end,
               estimator.echoLeads(reference: Array(reference.samples[0..<end]), mic: Array(mic.samples[0..<end])) {
                echoOutsideSearch = true
            }
            return nil
        case .ambiguousTonal:
            referenceIsTonal = true
            return nil
        case .outsideSearch:
            // A whitened peak is a shared phase: where the whole stretch's correlation peaks
            // outside the search too, it is an echo's only if the reference at that lag explains
            // more of the mic than chance does (`LinearShare`); two voices of one synthesiser over
            // a mic without echo peaked there. (The blocks' own peak lies in a circular
            // correlation, where a lag past the search and one ahead of it can share an index.)
            // Over the stretch's first minute at most, as `LeadingEcho` reads a recording.
            let last = min(end, origin + ProcessedLag.maximumSeconds * estimator.sampleRate)
            if reference.origin <= origin, mic.origin <= origin, last <= reference.end, last <= mic.end {
                let x = Array(reference.samples[reference.local(origin)..<reference.local(last)])
                let y = Array(mic.samples[mic.local(origin)..<mic.local(last)])
                if let lag = ProcessedLag.correlationPeaks(x, y, maximumLag: estimator.maxLag)?.overall.lag,
                   lag < 0 || lag > estimator.maxLag,
                   !LinearShare.isAnEcho(x: x, y: y, lag: lag, sampleRate: estimator.sampleRate) {
                    return nil
                }
            }
            echoOutsideSearch = true
            return nil
        }
    }

    /// Whether every far-end block was left out (no echo reached the mic in any): no delay.
    var leftOutEveryBlock: Bool { accumulated == 0 && leftOut > 0 }

    /// Set by `finish` when the echo lies outside the search's 0…maxLag (no delay is returned).
    private(set) var echoOutsideSearch = false
    /// Set by `finish` when the reference is tonal and its correlation ambiguous
    /// (`DelayEstimator.Peak.ambiguousTonal`): no delay is returned.
    private(set) var referenceIsTonal = false

    /// The blocks in the sums, as `accumulate` took them: where a tapered estimate takes them again.
    private var blocks: [(start: Int, referenceCount: Int, micCount: Int)] = []

    /// Adds the PHAT-weighted cross-spectrum X_mic·conj(X_ref)/|…| of the block at `start`.
    private mutating func accumulate(reference: SampleHistory, mic: SampleHistory, start: Int,
                                     referenceCount: Int, micCount: Int) {
        blocks.append((start, referenceCount, micCount))
        loadAndTransform(reference: reference, mic: mic, start: start, referenceCount: referenceCount, micCount: micCount)
        Self.addWhitened(referenceReal: referenceReal, referenceImaginary: referenceImaginary,
                         micReal: micReal, micImaginary: micImaginary, sumReal: &sumReal, sumImaginary: &sumImaginary,
                         referencePower: &referencePower)
    }

    /// Loads the reference block at `start` and its mic window, the block weighed by `taper` where
    /// one is given, and transforms both.
    private mutating func loadAndTransform(reference: SampleHistory, mic: SampleHistory, start: Int, referenceCount: Int,
                                           micCount: Int, taper: [Float]? = nil) {
        Self.load(reference.samples, from: reference.local(start), count: referenceCount, into: &referenceBlock,
                  filled: &referenceFilled)
        if let taper {
            for index in 0..<referenceCount { referenceBlock[index] *= taper[index] }
        }
        Self.load(mic.samples, from: mic.local(start), count: micCount, into: &micWindow, filled: &micFilled)
        fft.forward(referenceBlock, real: &referenceReal, imaginary: &referenceImaginary)
        fft.forward(micWindow, real: &micReal, imaginary: &micImaginary)
    }

    /// The verdict of the same blocks with each reference block tapered to zero at both ends
    /// (`DelayEstimator.edgeTaper`), so that no block edge leaks into it. Asked only where the
    /// verdict rests on a block-edge lag: once per estimate, and rarely (the histories still hold
    /// every block then: the warm-up keeps everything from sample 0 until the delay is fixed).
    private mutating func taperedPeak(reference: SampleHistory, mic: SampleHistory) -> DelayEstimator.Peak {
        var real = [Double](repeating: 0, count: sumReal.count), imaginary = real, power = real
        var tapers: [Int: [Float]] = [:]
        for block in blocks {
            let taper = tapers[block.referenceCount] ?? DelayEstimator.edgeTaper(count: block.referenceCount)
            tapers[block.referenceCount] = taper
            loadAndTransform(reference: reference, mic: mic, start: block.start, referenceCount: block.referenceCount,
                             micCount: block.micCount, taper: taper)
            Self.addWhitened(referenceReal: referenceReal, referenceImaginary: referenceImaginary,
                             micReal: micReal, micImaginary: micImaginary, sumReal: &real, sumImaginary: &imaginary,
                             referencePower: &power)
        }
        return estimator.peak(sumReal: real, sumImaginary: imaginary, fft: fft,
                              referenceIsTonal: { estimator.isTonal(referencePower: power) })
    }

    /// Bins more than this far below the block's strongest bin (in power) do not vote: PHAT gives
    /// every bin the same weight, so bins where a signal has no real content (a 16 kHz far end
    /// resampled to 48 kHz is at −157 dB above 8 kHz) would otherwise vote with the phase of
    /// rounding noise and resampler artefacts — measured to pull the estimate to lag 0.
    static let votingFloor = 1e-6   // −60 dB

    private static func addWhitened(referenceReal: [Float], referenceImaginary: [Float], micReal: [Float],
                                    micImaginary: [Float], sumReal: inout [Double], sumImaginary: inout [Double],
                                    referencePower: inout [Double]) {
        let bins = referenceReal.count
        // Spans of exactly `bins`: no bounds check left in the loops.
        let xr = referenceReal.span.extracting(0..<bins), xi = referenceImaginary.span.extracting(0..<bins)
        let yr = micReal.span.extracting(0..<bins), yi = micImaginary.span.extracting(0..<bins)
        var power = referencePower.mutableSpan
        precondition(power.count >= bins)
        var referencePeak = 0.0, micPeak = 0.0, referenceTotal = 0.0
        var bin = 1
        while bin < bins {
            let rr = Double(xr[bin]), ri = Double(xi[bin])
            let mr = Double(yr[bin]), mi = Double(yi[bin])
            referenceTotal += rr * rr + ri * ri
            referencePeak = max(referencePeak, rr * rr + ri * ri)
            micPeak = max(micPeak, mr * mr + mi * mi)
            bin &+= 1
        }
        // Each block's spectrum counts once, as PHAT counts it, whatever its level.
        if referenceTotal > 0 {
            bin = 1
            while bin < bins {
                let rr = Double(xr[bin]), ri = Double(xi[bin])
                power[bin] += (rr * rr + ri * ri) / referenceTotal
                bin &+= 1
            }
        }
        let referenceFloor = referencePeak * votingFloor, micFloor = micPeak * votingFloor
        var real = sumReal.mutableSpan, imaginary = sumImaginary.mutableSpan
        precondition(real.count >= bins && imaginary.count >= bins)
        // DC carries offsets, not delay: it stays out. Two bins at a time in SIMD2 lanes (IEEE
        // square roots and divisions per lane: the same bits as one at a time). A bin that does
        // not vote adds 0, which leaves its sum unchanged (the sums start at +0 and never become −0).
        let zero = SIMD2<Double>(repeating: 0)
        bin = 1
        while bin + 2 <= bins {
            let rr = SIMD2(Double(xr[bin]), Double(xr[bin &+ 1])), ri = SIMD2(Double(xi[bin]), Double(xi[bin &+ 1]))
            let mr = SIMD2(Double(yr[bin]), Double(yr[bin &+ 1])), mi = SIMD2(Double(yi[bin]), Double(yi[bin &+ 1]))
            let crossReal = mr * rr + mi * ri
            let crossImaginary = mi * rr - mr * ri
            let magnitude = (crossReal * crossReal + crossImaginary * crossImaginary).squareRoot()
            let votes = (rr * rr + ri * ri .> referenceFloor) .& (mr * mr + mi * mi .> micFloor) .& (magnitude .> 1e-30)
            let addReal = zero.replacing(with: crossReal / magnitude, where: votes)
            let addImaginary = zero.replacing(with: crossImaginary / magnitude, where: votes)
            real[bin] += addReal[0]; real[bin &+ 1] += addReal[1]
            imaginary[bin] += addImaginary[0]; imaginary[bin &+ 1] += addImaginary[1]
            bin &+= 2
        }
        while bin < bins {
            let rr = Double(xr[bin]), ri = Double(xi[bin])
            let mr = Double(yr[bin]), mi = Double(yi[bin])
            let crossReal = mr * rr + mi * ri
            let crossImaginary = mi * rr - mr * ri
            let magnitude = (crossReal * crossReal + crossImaginary * crossImaginary).squareRoot()
            if rr * rr + ri * ri > referenceFloor, mr * mr + mi * mi > micFloor, magnitude > 1e-30 {
                real[bin] += crossReal / magnitude
                imaginary[bin] += crossImaginary / magnitude
            }
            bin &+= 1
        }
    }

    /// Copies `count` samples from `source[from...]` to the front of `buffer` and zeroes what an
    /// earlier load left beyond them; `filled` tracks how far non-zero data may extend, so the
    /// zero padding is written once rather than per block.
    private static func load(_ source: [Float], from: Int, count: Int, into buffer: inout [Float], filled: inout Int) {
        buffer.replaceSubrange(0..<count, with: source[from..<(from + count)])
        if filled > count {
            buffer.replaceSubrange(count..<filled, with: repeatElement(0, count: filled - count))
        }
        filled = count
    }
}
