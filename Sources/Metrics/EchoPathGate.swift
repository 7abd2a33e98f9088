import Foundation

/// The double-talk gate for recordings (mic + loopback, no echo or near-end track): an offline
/// pre-pass over the whole call that decides, per Welch frame, whether the near end is active.
///
/// Method:
/// 1. Bulk delay reference → mic by the same GCC-PHAT estimate the analysis uses
///    (`DelayBlockCollector`, first 32 far-end-active blocks); the reference is shifted by it less
///    a margin of L/16 (21 ms at 48 kHz), so early reflections and an estimate a little late stay
///    inside the fitted response.
/// 2. The call is cut into blocks of `blockSegments` × L samples (L = `EchoPathFit` length,
///    ~341 ms; a block ~2.7 s). Each block gets its own least-squares FIR fit of the echo path
///    (`EchoPathFit`, conjugate gradients run until a step removes < 0.1 % of the error, at most
///    40 steps), started from the previous block's path: frequencies this block's far end leaves
///    unexcited keep what earlier blocks learned (on speech through a room: the residual of
///    single talk falls to the mic's noise, from 1–7 dB above it when each block starts cold).
///    Hops the previous path misses by more than the echo itself are left out of a first refit;
///    hops the refitted path misses by more than −10 dB of the echo are left out of the final
///    one, so double talk does not bend the path towards the near end (a stricter cut also drops
///    the hops the path needs to correct itself, and it stays wrong); in a full block, so are the
///    40 ms beside those of them that stand 12 dB over the recording's residual floor (a
///    talker's quiet edges, under the cut).
/// 3. A block whose audible echo the previous path mostly misses is fitted from nothing, over
///    every sample. Where that fit explains what the previous path missed, the echo path
///    changed: once its successor is fitted (from it), the block is refitted from the
///    successor's path, which has seen two blocks of the new path (a cold fit leaves the
///    frequencies its own far end barely excites wrong, and took single talk after a path change
///    for a talker). Where it does not, a talker louder than the echo talks over most of the
///    block: the block keeps the previous path, and is judged only by paths fitted elsewhere.
/// 4. Each block's echo is predicted with its neighbours' fits (the blocks before and after),
///    and with its own (a cold block: its first fit and its refit; a block of double talk: none,
///    but no echo at all); per hop the prediction with the smallest residual is kept. Where the
///    neighbours explain the block's single talk about as well as its own fits, they alone judge
///    it: a block's own fit takes in part of a talker well under the echo, under its cut
///    (`classify`). An echo path that changes inside a block is predicted by the block on the
///    side of the change where the hop lies, instead of being taken for a talker.
/// 5. A frame (two hops) is near-end-active when the residual mic − ŷ, scaled by B/(B − L) (the
///    fit's degrees of freedom), is both
///    - at or above the near-end silence level (`nearEndSilentDBFS`, −55 dBFS mean square: the
///      level the near-end-track gate uses, so noise alone is silence) — in a recording whose
///      residual floor (the 2nd percentile of its frames' levels) is within
///      3 dB of that level or above it, once twice the floor is taken off (steady noise no fit
///      removes would otherwise read as a talker in every frame; `ResidualLevels`), and
///    - at or above the predicted echo less `echoPathResidualDB` (default 30 dB: on the linear
///      paths of the tests the fit leaves the mic's noise and nothing else, and a talker 20–30 dB
///      under the echo still weighs on a cancelled output; 20 dB let such frames into ERLE and
///      moved WebRTC's ERLE on a double-talk call by 2.3 dB).
///
/// Memory: two blocks of the two signals and their segment spectra (a few MB), and two bytes
/// and two bits per frame (`ResidualLevels`: about 18 MB for a day at 48 kHz).
struct EchoPathGate {
    let sampleRate: Int
    let frameSize: Int
    let hop: Int
    let length: Int
    let blockSegments: Int
    var blockLength: Int { blockSegments * length }
    private let silentMeanSquare: Double
    private let residualRatio: Double
    private let warmupSamples: Int
    /// Hops each side of a hop a full block's final fit leaves out that it leaves out too: 40 ms,
    /// in whole hops (`exclude`). Not in a short block, whose few samples beyond its taps it
    /// would leave fewer than it has taps (a 0.6 s call at 16 kHz read as too short to fit), nor
    /// in a cold block's refit from its successor.
    private let talkerMarginHops: Int
    /// Most conjugate-gradient steps per refit (they stop earlier once converged).
    private let maximumIterations = 40

    /// The fit's exclusion cut: a residual at or above −10 dB relative to the predicted echo.
    static let fitExclusionRatio = 0.1
    /// How much more residual (1.5 dB, at the median hop the block's fit explains) the
    /// neighbouring blocks' paths may leave than its own fits for them to judge it alone
    /// (`classify`).
    static let neighbourResidualRatio = 1.4

    private static func silentPath(_ length: Int) -> Path {
        Path(real: [Float](repeating: 0, count: length + 1), imaginary: [Float](repeating: 0, count: length + 1))
    }

    // Warm-up (delay estimate), as in EchoStreamCore.
    private var warmReference: SampleHistory
    /// A recording's mic is the room all through: its delay blocks leave nothing out.
    private var nothingExcluded = ExcludedRanges()
    private var warmMic: SampleHistory
    private var collector: DelayBlockCollector?
    private(set) var shift: Int?

    /// Signals from absolute sample `origin` (reference: unshifted indices) on.
    private var reference: [Float] = []
    private var referenceOrigin = 0
    private var mic: [Float] = []
    private var micOrigin = 0
    private(set) var received = 0
    private var nextBlock = 0

    /// The block waiting for its successor's fit before it is classified.
    private var pending: Block?
    private var spare: EchoPathFit?
    /// The fit of the block before `pending`.
    private var older: Path?
    /// The loudspeaker's clip level in reference units (`LoudspeakerClipSearch`); nil: linear.
    private(set) var clipLevel: Float?
    private var clipSearched = false
    private let activeMeanSquare: Double
    /// The DC offset taken off the mic before the gate reads it: a sample whose recorded value
    /// (sample + offset) lies on a rail is clipped (`isClipped`).
    let micOffset: Float
    /// Whether any mic sample so far was clipped: only then are residuals read sample by sample.
    private var micClipped = false
    /// The last hop's residual and predicted-echo energy, awaiting its frame's second hop.
    private var lastHop: (residual: Double, prediction: Double, mic: Double)?

    private struct Path {
        var real: [Float]
        var imaginary: [Float]
    }

    private struct Block {
        var index: Int
        var fit: EchoPathFit
        var path: Path
        var mic: [Float]
        /// Valid samples of the block (the last block may be short).
        var valid: Int
        /// Fitted from nothing (first block, or after a path change).
        var cold: Bool
        /// Double talk throughout: its path is the previous block's, fitted on none of its hops.
        var isDoubleTalk: Bool
    }

    /// `micOffset`: the DC offset taken off the mic before it is appended (`DCOffset.removed`),
    /// so that the gate knows the samples the converter recorded on its rails.
    init(sampleRate: Int, configuration: EchoMetricsConfiguration, micOffset: Float = 0) {
        self.sampleRate = max(1, sampleRate)
        self.micOffset = micOffset
        frameSize = configuration.frameSize(forSampleRate: self.sampleRate)
        hop = frameSize / 2
        length = max(frameSize, configuration.delayBlockSize(forSampleRate: self.sampleRate))
        blockSegments = 8
        silentMeanSquare = pow(10, configuration.nearEndSilentDBFS / 10)
        activeMeanSquare = pow(10, configuration.farEndActiveDBFS / 10)
        residualRatio = pow(10, -configuration.echoPathResidualDB / 10)
        warmupSamples = configuration.delayWarmupSamples(forSampleRate: self.sampleRate)
        talkerMarginHops = Int((0.04 * Double(self.sampleRate) / Double(hop)).rounded(.up))
        warmReference = SampleHistory(limit: warmupSamples)
        warmMic = SampleHistory(limit: warmupSamples)
        collector = DelayBlockCollector(estimator: DelayEstimator(sampleRate: self.sampleRate, configuration: configuration))
        if warmupSamples == 0 { fixDelay() }
    }

    mutating func append(reference referenceSource: [Float], mic micSource: [Float], from: Int, count: Int) {
        append(reference: referenceSource, from: from, mic: micSource, from: from, count: count)
    }

    /// The next `count` samples of both signals, each from its own offset.
    mutating func append(reference referenceSource: [Float], from referenceFrom: Int, mic micSource: [Float], from micFrom: Int, count: Int) {
        reference.append(contentsOf: referenceSource[referenceFrom..<(referenceFrom + count)])
        mic.append(contentsOf: micSource[micFrom..<(micFrom + count)])
        if !micClipped { micClipped = micSource[micFrom..<(micFrom + count)].contains(where: { isClipped($0) }) }
        if shift == nil {
            let piece = min(count, warmupSamples - received)
            if piece > 0 {
                warmReference.append(referenceSource, from: referenceFrom, count: piece)
                warmMic.append(micSource, from: micFrom, count: piece)
            }
        }
        received += count
        if shift == nil, var collector {
            self.collector = nil
            let available = min(received, warmupSamples)
            collector.advance(reference: warmReference, mic: warmMic, available: available, excluded: &nothingExcluded)
            let complete = collector.isComplete
            self.collector = collector
            if complete || received >= warmupSamples { fixDelay() }
        }
        guard shift != nil else { return }
        while (nextBlock + 1) * blockLength <= received { processBlock(valid: blockLength) }
    }

    /// The delay search found the echo outside its range: a causal fit from the unshifted
    /// reference cannot model an echo that leads it (or lies past the fit's length), and took
    /// the echo for a talker — or, in its pauses, its silence for single talk (ERL 48.8 dB, ERLE
    /// 0.2 dB on an echo 520 ms late).
    private var echoOutsideDelaySearch = false
    /// The call is one block whose samples left to fit (after the hops the fit leaves out) are no
    /// more than the path's taps: no path can be told from a fit of noise (`tooShortToFit`).
    private var tooShortToFit = false

    /// Set by `finish()` when the echo lies outside the delay search, or when the fitted echo path
    /// leaves too much of the echo unexplained to tell a talker from its error
    /// (`ResidualLevels.explainsEcho`): the bits then decide nothing.
    private(set) var limitation: ActivityGateLimitation?

    /// Decides the remaining frames; the bits cover every Welch frame of the received length.
    mutating func finish() -> FrameBits {
        if shift == nil { fixDelay() }
        while (nextBlock + 1) * blockLength <= received { processBlock(valid: blockLength) }
        let rest = received - nextBlock * blockLength
        if rest > 0 { processBlock(valid: rest) }
        if let block = pending {
            // The last block has no successor, and the one before it alone judged its single talk
            // worse than its own fit did (a talker at SER +20: tap-free ERLE 0.1 dB further off).
            classify(block, candidates: block.isDoubleTalk ? [block.path, Self.silentPath(length)] : [older, block.path].compactMap { $0 })
            pending = nil
        }
        if echoOutsideDelaySearch {
            limitation = .echoOutsideDelaySearch
        } else if tooShortToFit {
            limitation = .tooShortToFit
        } else if !levels.explainsEcho(silentMeanSquare: silentMeanSquare, residualRatio: residualRatio) {
            limitation = .echoNotExplained
        }
        return levels.decisions(silentMeanSquare: silentMeanSquare)
    }

    private mutating func fixDelay() {
        var delay: Double?
        if var collector {
            self.collector = nil
            delay = collector.finish(reference: warmReference, mic: warmMic, end: min(received, warmupSamples), excluded: &nothingExcluded)
            echoOutsideDelaySearch = collector.echoOutsideSearch
        }
        let whole = Int((delay ?? 0).rounded())
        shift = max(0, whole - length / 16)
        warmReference = SampleHistory(limit: 0)
        warmMic = SampleHistory(limit: 0)
    }

    /// Fits block `nextBlock` (its first `valid` samples are real audio), then classifies the
    /// block before it, whose neighbours' fits are now both known.
    private mutating func processBlock(valid: Int) {
        guard let shift else { return }
        let index = nextBlock
        let start = index * blockLength
        let fit = spare ?? EchoPathFit(length: length, segments: blockSegments)
        spare = nil
        // Shifted reference from L samples before the block: x'[n] = reference[n − shift].
        var shifted = [Float](repeating: 0, count: blockLength + length)
        for i in shifted.indices {
            let source = start - length + i - shift
            if source >= referenceOrigin && source < received && source - referenceOrigin < reference.count {
                shifted[i] = reference[source - referenceOrigin]
            }
        }
        var blockMic = [Float](repeating: 0, count: blockLength)
        for i in 0..<valid { blockMic[i] = mic[start + i - micOrigin] }
        if !clipSearched && valid == blockLength && isFarEndRich(shifted) {
            // The loudspeaker's clip level, from the first block with far end enough to show it.
            clipSearched = true
            var usable = [Float](repeating: 0, count: blockLength)
            for i in 0..<valid { usable[i] = isClipped(blockMic[i]) ? 0 : 1 }
            clipLevel = LoudspeakerClipSearch.level(fit: fit, shifted: shifted, mic: blockMic, valid: valid, weights: usable,
                                                    iterations: LoudspeakerClipSearch.iterations) { residualEnergies($0, $1, $2).0 }
        }
        if let clipLevel {
            for i in shifted.indices { shifted[i] = min(clipLevel, max(-clipLevel, shifted[i])) }
        }
        fit.load(reference: shifted)
        var weights = [Float](repeating: 0, count: blockLength)
        for i in 0..<valid { weights[i] = isClipped(blockMic[i]) ? 0 : 1 }
        // Warm start from the previous block's path: frequencies this block's far end leaves
        // unexcited (a voiced talker excites its harmonics only) keep what earlier blocks
        // learned instead of fitting noise — measured on a speech far end through a room, the
        // residual drops from 1–7 dB above the mic's noise to the noise itself.
        var path = pending?.path ?? Self.silentPath(length)
        var prediction = [Float](repeating: 0, count: blockLength)
        var cold = pending == nil
        /// The block is double talk throughout: the previous path stands, unrefitted.
        var isDoubleTalk = false
        /// The fit from nothing of a block of double talk: its peak still follows the echo's
        /// delay (a talker is uncorrelated with the far end), and two clocks move it.
        var doubleTalkFit: Path?
        if cold {
            // The first block starts from nothing: a first fit over every sample.
            fit.refine(pathReal: &path.real, pathImaginary: &path.imaginary, mic: blockMic, weights: weights,
                       prediction: &prediction, iterations: maximumIterations)
        } else {
            fit.predict(pathReal: path.real, pathImaginary: path.imaginary, into: &prediction)
            // Warm: hops the previous path misses by more than the echo (clear double talk) are
            // left out of a first refit; a stricter cut would also drop the hops the path needs
            // to correct itself, and it would stay wrong.
            let missed = exclude(hopsOf: blockMic, prediction: prediction, valid: valid, ratio: 1, weights: &weights)
            if missed.isMost {
                // The previous path misses most of this block's audible echo: the echo path
                // changed (or the far end was silent before), or a talker louder than the echo
                // talks over most of it. A fit from nothing, over every sample, as the first
                // block's, tells them apart: it explains a changed path's echo, and cannot
                // explain a talker (it takes in L/B of him, −9 dB).
                let previousPath = path, previousPrediction = prediction
                path = Self.silentPath(length)
                for i in 0..<valid { weights[i] = isClipped(blockMic[i]) ? 0 : 1; prediction[i] = 0 }
                fit.refine(pathReal: &path.real, pathImaginary: &path.imaginary, mic: blockMic, weights: weights,
                           prediction: &prediction, iterations: maximumIterations)
                if 2 * stillMissed(missed.hops, mic: blockMic, prediction: prediction) > missed.missed {
                    // Double talk: the fit from nothing took in the talker as echo, and judged by
                    // it his quieter hops read as single talk (two espeak-ng voices at 16 kHz, the
                    // near end 4 dB over the echo for 7 s: a 60 dB canceller's ERLE read 48.5).
                    // Nothing in the block is learnt; paths fitted elsewhere judge it.
                    doubleTalkFit = path
                    path = previousPath
                    prediction = previousPrediction
                    isDoubleTalk = true
                } else {
                    // The path changed; the hops before the change are explained by the
                    // previous block's fit.
                    cold = true
                }
            } else {
                fit.refine(pathReal: &path.real, pathImaginary: &path.imaginary, mic: blockMic, weights: weights,
                           prediction: &prediction, iterations: maximumIterations)
            }
        }
        if !isDoubleTalk {
            // Hops the fit misses by more than a tenth of the echo (a talker, a changed path),
            // and those within `talkerMarginHops` of them, are left out of the final refit, so
            // double talk does not bend the path towards the near end. The gate's own, stricter
            // cut would also leave out the hops the path needs to correct itself (measured:
            // single-talk frames flagged grew from 2 % to 60 % on a double-talk call). A talker
            // below this cut adds to the fit's noise only (it is uncorrelated with the far end).
            exclude(hopsOf: blockMic, prediction: prediction, valid: valid, ratio: Self.fitExclusionRatio,
                    margin: valid == blockLength ? talkerMarginHops : 0, weights: &weights)
            fit.refine(pathReal: &path.real, pathImaginary: &path.imaginary, mic: blockMic, weights: weights,
                       prediction: &prediction, iterations: maximumIterations)
        }
        // Whether this block's path is a fit of its own samples, and so a neighbour to judge the
        // block before it by: a path kept from the warm start (a short block that explains no
        // more than noise, a block whose far end barely plays, a block of double talk) is mostly
        // an earlier block's fit, with what it took in of a talker.
        var isOwnFit = 8 * farEndActiveHops(shifted) >= valid / hop && !isDoubleTalk
        if valid < blockLength, !Self.explainsMoreThanNoise(mic: blockMic, prediction: prediction, weights: weights, valid: valid, taps: length) {
            // A short block (the call's last, or a call shorter than one block): L taps fitted to
            // a few L samples take much of any noise for echo. A fit that explains no more than
            // a fit of noise would is no echo path: the previous block's path predicts the block
            // instead, or none before the first. (A short block of clean echo keeps its own fit.)
            // A call of one such block with no more samples left to fit than taps (after the hops
            // the fit leaves out: a talker, or noise above the silence level) has no path at all,
            // and would read every frame as a talker: a pure echo of 0.5 s at 16 kHz read 25 of
            // 25 frames as double talk and its near end "lost".
            if pending == nil, Self.fittedSamples(weights, valid: valid) <= length { tooShortToFit = true }
            path = pending?.path ?? Self.silentPath(length)
            isOwnFit = false
        }
        if var previous = pending {
            // A cold block's own fit stays a candidate beside its refit: when its successor is
            // all double talk, the successor's path is no echo path, and a refit started from it
            // (over the hops it explains) loses the good fit (measured: a 48 kHz call with a
            // near end from 2 s on kept 24 of 186 single-talk frames; a 16 kHz one from 4 s on,
            // 10 of 249).
            let ownFit = previous.cold ? previous.path : nil
            if previous.cold {
                // A block fitted from nothing is refitted from its successor's path, which has
                // seen two blocks of the new path (unless the successor is double talk, which
                // kept this block's fit): a cold fit leaves the frequencies its own far end
                // barely excites wrong (measured after a path change: residual 7 dB above the
                // noise at far-end onsets). Its refit leaves out no margin beside the hops it
                // misses: those are the hops before the change as much as a talker's, and the
                // tap-free table's path change read 0.4 dB further off with it.
                var refit = [Float](repeating: 0, count: blockLength)
                var refitPath = path
                previous.fit.predict(pathReal: refitPath.real, pathImaginary: refitPath.imaginary, into: &refit)
                var refitWeights = [Float](repeating: 0, count: blockLength)
                exclude(hopsOf: previous.mic, prediction: refit, valid: previous.valid, ratio: Self.fitExclusionRatio,
                        weights: &refitWeights)
                previous.fit.refine(pathReal: &refitPath.real, pathImaginary: &refitPath.imaginary, mic: previous.mic,
                                    weights: refitWeights, prediction: &refit, iterations: maximumIterations)
                previous.path = refitPath
            }
            // A block of double talk kept the path its predecessor had when it was fitted; where
            // that block was refitted since (after a path change), its refit (`older`) too.
            let candidates = previous.isDoubleTalk ? [older, previous.path, path, Self.silentPath(length)].compactMap { $0 }
                : [older, ownFit, previous.path, path].compactMap { $0 }
            // The neighbours are the first and, where it is a fit of its own, the last candidate.
            let neighbours = older == nil ? [] : isOwnFit ? [0, candidates.count - 1] : [0]
            classify(previous, candidates: candidates, neighbours: neighbours)
            older = previous.path
            spare = previous.fit
        }
        // Every full block's path peak: blocks of silence, double talk or no echo put theirs
        // anywhere, and the moves then disagree (`clockDriftPPM`). (Keeping only blocks whose fit
        // explains clearly more than noise dropped the very blocks a drift smears.)
        if valid == blockLength { notePeak(of: doubleTalkFit ?? path, fit: fit, block: index) }
        noteResiduals(blockMic, prediction, valid: valid)
        pending = Block(index: index, fit: fit, path: path, mic: blockMic, valid: valid, cold: cold, isDoubleTalk: isDoubleTalk)
        nextBlock += 1
        // Forget what no later block reads.
        let keepReference = nextBlock * blockLength - length - shift
        if keepReference - referenceOrigin > blockLength {
            let drop = min(keepReference - referenceOrigin, reference.count)
            reference.removeFirst(drop)
            referenceOrigin += drop
        }
        let keepMic = nextBlock * blockLength
        if keepMic - micOrigin > blockLength {
            let drop = min(keepMic - micOrigin, mic.count)
            mic.removeFirst(drop)
            micOrigin += drop
        }
    }

    /// The strongest tap of each full block's fitted path, to a fraction
    /// of a sample (parabolic interpolation of the taps' magnitudes around it): where the loopback
    /// and the mic run on two clocks, it moves by the same amount from block to block. One number
    /// per block (a day's recording: 32 k).
    private var peaks: [(block: Int, position: Double)] = []

    private mutating func notePeak(of path: Path, fit: EchoPathFit, block: Int) {
        let taps = fit.taps(pathReal: path.real, pathImaginary: path.imaginary)
        guard let index = taps.indices.max(by: { abs(taps[$0]) < abs(taps[$1]) }), index > 0, index < taps.count - 1 else { return }
        let left = Double(abs(taps[index - 1])), centre = Double(abs(taps[index])), right = Double(abs(taps[index + 1]))
        let curvature = left - 2 * centre + right
        let offset = curvature < 0 ? 0.5 * (left - right) / curvature : 0
        peaks.append((block, Double(index) + offset))
    }

    /// Fewest moves of the peak between successive full blocks the drift is read from.
    static let driftMoves = 3
    /// How far (samples) at most half the moves may stray from their median, besides half the
    /// median itself: a drift moves the peak alike every block, though a path fitted over a block
    /// it slides through puts the peak only roughly (20 ppm, 2.6 samples a block, read moves of
    /// 2.1, 3.1 and 3.5; the passes over the resampled loopback refine it); one path's peak
    /// stays put, and peaks of no path wander every way.
    static let driftMoveSpread = 0.25

    /// How fast the echo's delay in the mic moves against the loopback, in parts per million of
    /// the elapsed time (positive: the echo comes later and later — the mic's clock runs fast):
    /// the median of the peak's moves between successive full blocks (a route change,
    /// one jump, spoils one move of many), where those moves agree (half of them within `driftMoveSpread`
    /// of it). nil with fewer than `driftMoves` moves (about 11 s of far end at least) or moves
    /// that do not agree. A loopback and a mic on two clocks drift by 10–100 ppm; on one clock
    /// the estimate stays within a thousandth of a sample a block. Past a few hundred ppm the
    /// echo smears within a block (at 1000 ppm, 130 samples) and the peak no longer says how far
    /// it moved.
    var clockDriftPPM: Double? { Self.driftPPM(peaks: peaks, blockLength: blockLength) }

    /// The drift `peaks` (blocks of `blockLength` samples) show, in ppm (`clockDriftPPM`).
    static func driftPPM(peaks: [(block: Int, position: Double)], blockLength: Int) -> Double? {
        if let move = agreedMove(peaks) { return move / Double(blockLength) * 1e6 }
        // Blocks a talker or a pause covers put their peaks anywhere, and each spoils the moves
        // on both sides: an espeak-ng recording of 40 s, a talker in 9 s and the far end silent
        // in 3, agreed on too few moves, no drift was read, and 97 % of the single talk was gated
        // as double talk (a perfect canceller's ERLE 13 dB low). The peaks on one line are the
        // echo's; the moves between them, the drift.
        guard let line = peaksOnOneLine(peaks) else { return nil }
        return agreedMove(line).map { $0 / Double(blockLength) * 1e6 }
    }

    /// The median move of the peak per block between successive `peaks`, where half the moves or
    /// more lie within `driftMoveSpread` (and half the median) of it; nil with fewer than
    /// `driftMoves` moves or moves that do not agree.
    static func agreedMove(_ peaks: [(block: Int, position: Double)]) -> Double? {
        var moves: [Double] = []
        for i in peaks.indices.dropFirst() {
            moves.append((peaks[i].position - peaks[i - 1].position) / Double(peaks[i].block - peaks[i - 1].block))
        }
        guard moves.count >= driftMoves else { return nil }
        let median = median(moves)
        guard Self.median(moves.map { abs($0 - median) }) <= driftMoveSpread + abs(median) / 2 else { return nil }
        return median
    }

    /// Most peaks a recording's line is looked for among (at 48 kHz some 11 minutes of blocks):
    /// every pair of peaks is a candidate line, checked against every peak.
    static let driftLinePeaks = 256

    /// The largest set of `peaks` that lie on one line (each within `driftMoveSpread` and half the
    /// line's move per block of it, as a peak placed roughly in a block the echo slides through
    /// lies), where that is more than `driftMoves` peaks and half of them or more; nil otherwise,
    /// and past `driftLinePeaks`. Ties go to the first line found.
    static func peaksOnOneLine(_ peaks: [(block: Int, position: Double)]) -> [(block: Int, position: Double)]? {
        guard peaks.count > driftMoves, peaks.count <= driftLinePeaks else { return nil }
        /// Whether `peak` lies on the line through `origin` moving `slope` samples a block.
        func lies(_ peak: (block: Int, position: Double), on origin: (block: Int, position: Double), slope: Double) -> Bool {
            abs(peak.position - origin.position - slope * Double(peak.block - origin.block)) <= 2 * driftMoveSpread + abs(slope) / 2
        }
        var best: (count: Int, from: Int, slope: Double)?
        for i in peaks.indices {
            for j in peaks.indices where j > i {
                let slope = (peaks[j].position - peaks[i].position) / Double(peaks[j].block - peaks[i].block)
                let count = peaks.reduce(0) { $0 + (lies($1, on: peaks[i], slope: slope) ? 1 : 0) }
                if count > best?.count ?? 0 { best = (count, i, slope) }
            }
        }
        guard let best, best.count > driftMoves, 2 * best.count >= peaks.count else { return nil }
        return peaks.filter { lies($0, on: peaks[best.from], slope: best.slope) }
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted(), middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Whether a fit of `taps` taps explains more of the mic than it would of noise alone, over
    /// the samples it was fitted to (weight 1 among the first `valid`): fitting n samples of
    /// noise, the prediction takes taps/n of their energy and leaves the rest, so its share over
    /// the residual's is taps/(n − taps); an echo path explains clearly more (here: four times).
    private static func explainsMoreThanNoise(mic: [Float], prediction: [Float], weights: [Float], valid: Int, taps: Int) -> Bool {
        var fitted = 0, residual = 0.0, predicted = 0.0
        for i in 0..<valid where weights[i] > 0 {
            fitted += 1
            let y = Double(prediction[i]), error = Double(mic[i]) - y
            residual += error * error
            predicted += y * y
        }
        guard fitted > taps else { return false }
        return predicted > 4 * Double(taps) / Double(fitted - taps) * residual
    }

    /// The samples among the first `valid` that a fit with `weights` is fitted to.
    private static func fittedSamples(_ weights: [Float], valid: Int) -> Int {
        var fitted = 0
        for i in 0..<valid where weights[i] > 0 { fitted += 1 }
        return fitted
    }

    /// Whether at least half the hops of a block's shifted reference (past its first L samples)
    /// are far-end active: a block that can show the loudspeaker's clipping.
    private func isFarEndRich(_ shifted: [Float]) -> Bool { 2 * farEndActiveHops(shifted) >= blockLength / hop }

    /// The block's hops whose shifted reference is active.
    private func farEndActiveHops(_ shifted: [Float]) -> Int {
        var active = 0, start = length
        while start + hop <= shifted.count {
            if PowerSums.sumOfSquares(shifted, start..<(start + hop)) / Double(hop) >= activeMeanSquare { active += 1 }
            start += hop
        }
        return active
    }

    /// Per hop of `block`, the residual and predicted energy of the candidate path that explains
    /// the mic best; frames are decided as their second hop arrives.
    ///
    /// `neighbours`: which candidates are the paths fitted on the blocks before and after it
    /// (none for the first).
    /// A block's own fit takes in part of a talker it did not leave out of the fit — one 16 dB
    /// under the echo is under its cut — and the residual then read 11 dB under the talker:
    /// double talk taken for single talk, and an excellent canceller's ERLE 10 dB low (on one
    /// recording AEC3 reads 44.3 dB where the near-end track gives 54.7). Where the
    /// neighbours' paths explain the hops the block's fit explains about as well as its fits do
    /// (the median hop's residual within 1.5 dB), they judge it alone; where they do not (a
    /// neighbour fitted over double talk, a path that changed), its own fits count too. The next
    /// block's path starts from this block's, so a little of a talker can still be taken in.
    private mutating func classify(_ block: Block, candidates: [Path], neighbours: [Int] = []) {
        let hops = block.valid / hop
        // Each candidate's prediction once; the best of all of them, and of the neighbours alone.
        var prediction = [Float](repeating: 0, count: blockLength)
        let energies = candidates.map { path in
            block.fit.predict(pathReal: path.real, pathImaginary: path.imaginary, into: &prediction)
            return (0..<hops).map { h -> (residual: Double, predicted: Double) in
                let (residual, predicted) = residualEnergies(block.mic, prediction, (h * hop)..<((h + 1) * hop))
                return (residual, predicted)
            }
        }
        var (bestResidual, bestPrediction) = Self.best(of: energies, at: Array(energies.indices), hops: hops)
        // A block of double talk kept an earlier path; its successor's is fitted on other hops,
        // and the mic itself (no echo: the silent path) is a candidate where a path fitted
        // elsewhere predicts only what it took in of other blocks' talkers (a talker and no echo
        // read 0.8–1.3 dB louder than the mic): every candidate is fitted elsewhere.
        let fittedElsewhere = block.isDoubleTalk ? Array(candidates.indices) : neighbours
        if !fittedElsewhere.isEmpty {
            let (neighbourResidual, neighbourPrediction) = Self.best(of: energies, at: fittedElsewhere, hops: hops)
            // Over the hops the block's fit explains (its residual a tenth of the echo or less,
            // the fit's own cut): the single talk the neighbours must explain too. Over every
            // audible hop, a block mostly of double talk counted its talker's hops, which any
            // path leaves alike, and poor neighbours judged the single talk between its words.
            var ratios: [Double] = []
            for h in 0..<hops where bestResidual[h] < Self.fitExclusionRatio * bestPrediction[h]
                && PowerSums.sumOfSquares(block.mic, (h * hop)..<((h + 1) * hop)) / Double(hop) >= silentMeanSquare {
                ratios.append(neighbourResidual[h] / max(bestResidual[h], .leastNormalMagnitude))
            }
            if block.isDoubleTalk || (!ratios.isEmpty && Self.median(ratios) <= Self.neighbourResidualRatio) {
                // `measure` scales each residual up by what a block's own fit absorbs; a path
                // fitted elsewhere absorbed none of it (noise at −40 dBFS read 0.58 dB louder,
                // and five single-talk frames as a talker). So each hop carries the correction
                // of the path that judged it, and a frame across two blocks may carry it on one
                // hop. A hop with nothing predicted is the mic whatever the path, and keeps the
                // scaling `TalkerLevels` takes off again.
                for h in 0..<hops {
                    bestResidual[h] = neighbourPrediction[h] > 0 ? neighbourResidual[h] / freedomCorrection : neighbourResidual[h]
                    bestPrediction[h] = neighbourPrediction[h]
                }
            }
        }
        for h in 0..<hops {
            let current = (residual: bestResidual[h], prediction: bestPrediction[h],
                           mic: PowerSums.sumOfSquares(block.mic, (h * hop)..<((h + 1) * hop)))
            if let last = lastHop {
                measure(residual: last.residual + current.residual, prediction: last.prediction + current.prediction,
                        mic: last.mic + current.mic)
            }
            lastHop = current
        }
    }

    /// Per hop, the residual and predicted energy of whichever of the paths at `indices` (in that
    /// order: the first of equal residuals) leaves the least residual (infinity and 0 with none).
    private static func best(of energies: [[(residual: Double, predicted: Double)]], at indices: [Int], hops: Int)
        -> (residual: [Double], prediction: [Double]) {
        var bestResidual = [Double](repeating: .infinity, count: hops)
        var bestPrediction = [Double](repeating: 0, count: hops)
        for index in indices {
            for h in 0..<hops where energies[index][h].residual < bestResidual[h] {
                bestResidual[h] = energies[index][h].residual
                bestPrediction[h] = energies[index][h].predicted
            }
        }
        return (bestResidual, bestPrediction)
    }

    /// The audible hops of a block a prediction misses (`exclude`), and how many are audible,
    /// among those where it predicts an audible echo when there are any: only there can a missed
    /// hop tell a changed path (a block whose far end stops and whose near end then talks alone
    /// is no path change).
    private struct MissedHops {
        /// The hops missed, by index.
        var hops: [Int] = []
        var audible = 0
        var missed: Int { hops.count }
        /// Whether the prediction misses most of them.
        var isMost: Bool { 2 * missed > audible }
    }

    /// How many of `hops` a prediction misses by more than the echo it predicts (as `exclude`
    /// with ratio 1): the same hops a previous prediction missed, so that a path change whose
    /// new echo is louder than its old one is not judged on other hops.
    private func stillMissed(_ hops: [Int], mic: [Float], prediction: [Float]) -> Int {
        hops.count(where: { index in
            let (residual, predicted) = residualEnergies(mic, prediction, (index * hop)..<((index + 1) * hop))
            return misses(residual: residual, predicted: predicted, ratio: 1)
        })
    }

    /// Whether a hop's residual energy is audible and at or above `ratio` × its predicted echo.
    private func misses(residual: Double, predicted: Double, ratio: Double) -> Bool {
        residual / Double(hop) >= silentMeanSquare && residual >= ratio * predicted
    }

    /// Weight 0 for the hops whose residual is at or above `ratio` × the predicted echo (and above
    /// the silence level), and for the `margin` hops each side of those among them that stand
    /// `talkerOverFloor` above the recording's residual floor; 1 for the others. A
    /// talker's quiet edges, around the hops he is loud in, stand under the cut: a fit over them
    /// takes them in and, judged by it, they read as single talk (a 60 dB canceller's ERLE read
    /// 40.0 dB at 22.05 kHz where blocks of double talk were already kept from their own fits,
    /// 60.0 with the margin). Returns the hops the prediction missed (`MissedHops`).
    @discardableResult
    private func exclude(hopsOf mic: [Float], prediction: [Float], valid: Int, ratio: Double, margin: Int = 0,
                         weights: inout [Float]) -> MissedHops {
        let residuals = hopResiduals(mic, prediction, valid: valid)
        // Only a hop well above the recording's floor widens the cut: noise 10 dB under the echo
        // leaves hops at the cut wherever the echo is quiet, and the margin around each of them
        // left a noisy recording's fits too few samples (single talk read as double talk in 1608
        // of 1738 frames).
        let floor = margin > 0 ? residualFloor(adding: residuals) : 0
        var lastExcluded = Int.min / 2
        var all = MissedHops(), echo = MissedHops()
        var widening: [Int] = []
        for index in residuals.indices {
            let start = index * hop
            let (residual, predicted) = residuals[index]
            let active = misses(residual: residual, predicted: predicted, ratio: ratio)
            let widens = active && residual >= Self.talkerOverFloor * floor * Double(hop)
            let audible = PowerSums.sumOfSquares(mic, start..<(start + hop)) / Double(hop) >= silentMeanSquare
            if widens { lastExcluded = index; widening.append(index) }
            // Left out: this hop, and the `margin` hops after a hop that widens the cut.
            for i in start..<(start + hop) { weights[i] = active || index - lastExcluded <= margin || isClipped(mic[i]) ? 0 : 1 }
            if active { all.hops.append(index) }
            if audible { all.audible += 1 }
            if audible && predicted / Double(hop) >= silentMeanSquare {
                echo.audible += 1
                if active { echo.hops.append(index) }
            }
        }
        // And the `margin` hops before each.
        for index in widening {
            for neighbour in max(0, index - margin)..<index { for i in (neighbour * hop)..<((neighbour + 1) * hop) { weights[i] = 0 } }
        }
        return echo.audible > 0 ? echo : all
    }

    /// How far (12 dB) above the recording's residual floor a hop the fit leaves out must stand
    /// for the hops beside it to be left out too (`exclude`).
    static let talkerOverFloor = 16.0

    /// Each whole hop's residual and predicted energy.
    private func hopResiduals(_ mic: [Float], _ prediction: [Float], valid: Int) -> [(residual: Double, predicted: Double)] {
        (0..<(valid / hop)).map { index in residualEnergies(mic, prediction, (index * hop)..<((index + 1) * hop)) }
    }

    /// The residual hop levels of the blocks fitted so far, in 0.5 dB steps from −200 dB: their
    /// 2nd percentile is the recording's floor, noise that no path explains.
    private var residualHistogram = [Int](repeating: 0, count: 401)

    private static func histogramBin(_ meanSquare: Double) -> Int {
        let decibels = meanSquare > 0 ? 10 * log10(meanSquare) : -200
        return min(400, max(0, Int(((decibels + 200) * 2).rounded())))
    }

    /// The floor's mean square over the blocks fitted so far and `residuals` (a block's hops
    /// under the prediction judged now).
    private func residualFloor(adding residuals: [(residual: Double, predicted: Double)]) -> Double {
        var histogram = residualHistogram
        for (residual, _) in residuals { histogram[Self.histogramBin(residual / Double(hop))] += 1 }
        let total = histogram.reduce(0, +)
        guard total > 0 else { return 0 }
        let rank = Int((Double(total - 1) * ResidualLevels.floorQuantile).rounded(.down))
        var seen = 0
        for (bin, count) in histogram.enumerated() {
            seen += count
            if seen > rank { return bin == 0 ? 0 : pow(10, (Double(bin) / 2 - 200) / 10) }
        }
        return 0
    }

    /// Adds a block's hops under its final prediction to the floor's histogram.
    private mutating func noteResiduals(_ mic: [Float], _ prediction: [Float], valid: Int) {
        for (residual, _) in hopResiduals(mic, prediction, valid: valid) { residualHistogram[Self.histogramBin(residual / Double(hop))] += 1 }
    }

    /// Measures a frame for its decision at `finish()`. The residual is first scaled by
    /// B/(B − L) (+0.58 dB): a least-squares fit of L taps on B samples absorbs that share of
    /// whatever it cannot model (the near end, noise), the usual degrees-of-freedom correction —
    /// without it a talker just above the silence level read just below it (measured: −54.5 dBFS
    /// near end, −55.5 dBFS residual). The plain rule (above the silence level and the echo cut)
    /// decides, unless the recording's residual floor is steady noise (`ResidualLevels`): a floor
    /// below the silence level is the fit's own error as much as noise (a room's tail), and taking
    /// it off moved ERLE by 2 dB on a double-talk call.
    /// B/(B − L): the share of what it cannot model that a fit of L taps on B samples leaves.
    private var freedomCorrection: Double { Double(blockLength) / Double(blockLength - length) }

    private mutating func measure(residual: Double, prediction: Double, mic: Double) {
        let corrected = residual * freedomCorrection
        if prediction > corrected { explainedFrames += 1 }
        let meanSquare = corrected / Double(frameSize)
        // A mic under the silence level holds no talker to hear, whatever the residual: there
        // the residual is the fit's own prediction (a fit over a block with a talker in it
        // predicts an echo where the mic is digital silence), and a talker with no echo read
        // 234 frames of double talk where the mic held sound in 125.
        let passesEchoCut = corrected >= residualRatio * prediction && mic / Double(frameSize) >= silentMeanSquare
        levels.append(meanSquare: meanSquare, echoMeanSquare: prediction / Double(frameSize), passesEchoCut: passesEchoCut,
                      isActiveByPlainRule: meanSquare >= silentMeanSquare && passesEchoCut)
    }

    /// Frames whose predicted echo stands above the residual the fit leaves: how much of the
    /// echo the fitted paths explain (`ClockDriftFeed.compensate` keeps the pass that explains
    /// the most).
    private(set) var explainedFrames = 0

    /// Each frame's residual and predicted echo: the decisions, and the near talker's estimate.
    private var levels = ResidualLevels()

    /// The near talker's level per frame as the decisions read it (after `finish`).
    var talkerLevels: TalkerLevels {
        TalkerLevels(levels: levels, silentMeanSquare: silentMeanSquare, floor: levels.floor(),
                     freedomCorrection: freedomCorrection)
    }

    /// The tap-free gate's estimate of the near talker: the mic's residual after the fitted echo.
    struct TalkerLevels: Sendable {
        let levels: ResidualLevels
        let silentMeanSquare: Double
        let floor: Double?
        /// The degrees-of-freedom correction `measure` put on each residual (B/(B − L), +0.58 dB),
        /// taken off again for the level of a frame whose reference is digital silence under
        /// the whole path (nothing predicted): a fit takes in L/B of a talker's power through the
        /// reference's samples, at any level of it, and there are none there — the residual is
        /// the mic itself. Left on, a talker in a digital loopback's pause that the output kept
        /// whole read 0.58 dB lost, and one 19.6 dB down read lost.
        let freedomCorrection: Double

        /// The talker's mean square in `frame` where it stands at or above the predicted echo; nil
        /// where it does not — there the residual may be the fit's own error (a canceller that
        /// removes the echo removes that too: measured on a call without a talker, a perfect
        /// canceller read "near end lost", 33 of 63 frames), so such frames judge no loss.
        func meanSquare(_ frame: Int) -> Double? {
            guard frame < levels.count else { return nil }
            let talker = levels.talkerMeanSquare(frame, silentMeanSquare: silentMeanSquare, floor: floor)
            guard talker > 0 && talker >= levels.echoMeanSquare(frame) else { return nil }
            return levels.predictsNothing(frame) ? talker / freedomCorrection : talker
        }
    }

    /// Σ(mic − ŷ)² and Σŷ² over `range`. On a clipped sample the mic says only that the echo
    /// reached the rail: the residual there is what the prediction falls short of the rail by,
    /// and nothing where it reaches it — the converter would have recorded the predicted echo so.
    private func residualEnergies(_ mic: [Float], _ prediction: [Float], _ range: Range<Int>) -> (Double, Double) {
        let predicted = PowerSums.sumOfSquares(prediction, range)
        guard micClipped, range.contains(where: { isClipped(mic[$0]) }) else {
            return (PowerSums.sumOfSquaredDifferences(mic, prediction, range), predicted)
        }
        var residual = 0.0
        for i in range {
            var error = mic[i] - prediction[i]
            if isClipped(mic[i]) { error = mic[i] + micOffset > 0 ? max(0, error) : min(0, error) }
            residual += Double(error) * Double(error)
        }
        return (residual, predicted)
    }

    /// The level from which a recorded sample lies on a converter's rail: a 16-bit file's
    /// largest value, 32767/32768, less a millionth for the offset taken off and added back.
    static let railLevel = InputCensus.fullScale * (1 - 1e-6)

    /// Whether a mic sample (its DC offset taken off) was recorded on a rail, up to 1.0: a linear
    /// fit can neither fit nor judge a clipped sample, and a far-end single-talk recording whose
    /// mic clipped 1 % of its samples read 877 of 932 frames as double talk. A float file's
    /// samples past 1.0 were scaled after capture, not clipped, and stay in.
    private func isClipped(_ sample: Float) -> Bool {
        let recorded = abs(sample + micOffset)
        return recorded >= Self.railLevel && recorded <= 1 + 1e-6
    }
}
