import AudioCore
import Foundation

/// The state and work of an `EchoAnalysisStream`, as a struct: the class holds one of these and
/// calls its mutating methods, so all buffers are reached through one `inout` access per call
/// instead of a dynamic exclusivity check per element.
///
/// Two phases:
/// - Warm-up: the delay is not known, so nothing can be gated yet. Every signal is kept from
///   sample 0 while `DelayBlockCollector` gathers the first active GCC-PHAT blocks. The phase
///   ends when those blocks are complete, when `delayWarmupSamples` are held (the estimate then
///   uses the audio so far), or when the stream finishes.
/// - Streaming: with the shift fixed, the held audio is scored, then each hop (half a frame) is
///   scored as it completes, and the histories keep only what the next frame needs (a frame, plus
///   the longest shift a search can fix for the reference).
/// Where the owner reports an echo-path change (`searchDelayAgain(from:)`), the frames that start
/// before it are scored with the shift in force, and a new warm-up starts there: the route a call changed to
/// brings its own delay, and a call that started on a route without echo above the noise (a wired
/// headset) had none to fix at all.
struct EchoStreamCore {
    let sampleRate: Int
    let configuration: EchoMetricsConfiguration
    let frameSize: Int
    let hop: Int
    let hasEcho: Bool
    let hasNearEnd: Bool
    private let warmupSamples: Int
    /// Appends are taken in pieces of at most this many samples once streaming.
    private let chunk: Int

    private var reference: SampleHistory
    private var mic: SampleHistory
    private var processed: SampleHistory
    private var echo: SampleHistory
    private var nearEnd: SampleHistory
    private(set) var received = 0

    private var collector: DelayBlockCollector?
    /// The first search's estimated delay in samples (fractional), once fixed; nil also when it
    /// could not be estimated.
    var delaySamples: Double? { delaySearches.first?.delaySamples }
    /// The first search found the echo outside its range (`DelayBlockCollector.echoOutsideSearch`).
    var echoOutsideDelaySearch: Bool { delaySearches.first?.echoOutsideSearch ?? false }
    /// The reference is tonal: no delay (`DelayBlockCollector.referenceIsTonal`).
    var referenceIsTonal: Bool { delaySearches.first?.referenceIsTonal ?? false }
    /// No echo reached the mic in any far-end block of the first warm-up (`DelayBlockCollector.leftOutEveryBlock`).
    var noEchoInDelayWarmup: Bool { delaySearches.first?.noEchoInWarmup ?? false }
    /// Whole-sample reference shift; nil during a warm-up.
    private(set) var shift: Int?
    /// Every search's outcome in time order: the first (the four above read it), then one from
    /// each echo-path change reached.
    private(set) var delaySearches: [DelaySearch] = []
    /// Echo-path changes not reached yet (absolute samples, ascending): a search starts at each.
    private var pendingSearches: [Int] = []
    /// Where the running (or last) search started.
    private var searchOrigin = 0
    /// The longest shift a search can fix: the steady state keeps the reference back this far, so
    /// that a search after an echo-path change finds what its shift reads.
    private let longestShift: Int

    /// Next hop (half-frame block) to measure; frame f is scored once hop f + 1 is measured.
    private var nextHop = 0
    private var previousHop = HopMeasures()
    private var gate: ActivityGate
    private var meter: FrameBandMeter
    /// The mic's band powers of the frame being scored, and its and the reference's 1/3-octave ones.
    private var micBands: [Double]
    /// The delay-aligned reference's octave band powers of the frame being scored.
    private var referenceBands: [Double]
    private var micThirdOctaves: [Double]
    /// The frame's noise per band, where the tracks give it (`FrameLedger.measuresBandNoise`).
    private var noiseBands: [Double]
    private var noiseThirdOctaves: [Double]
    private var referenceThirdOctaves: [Double]
    /// Double talk as the telephony standards report it (with a near-end track only).
    private(set) var doubleTalkMeter: DoubleTalkMeter
    /// The gate's decision per frame, run-length encoded (what scorers cut stretches from).
    private(set) var talk: TalkRunRecorder
    /// The same decisions per half second, for the reports' activity lanes.
    private(set) var activity: TalkActivity
    private(set) var ledger: FrameLedger
    /// Near-end preservation sums (with a near-end track only), over double-talk and near-end
    /// single-talk frames.
    private(set) var doubleTalkSums = NearEndPreservation.Sums()
    private(set) var nearEndSingleTalkSums = NearEndPreservation.Sums()
    /// The mic's and the output's whole-band power summed over the frames whose echo stayed under
    /// the mic's noise while the far end played alone: with no single talk, the only frames where
    /// an output louder than its mic shows files given in the wrong roles.
    private(set) var underNoiseMicPower = 0.0
    private(set) var underNoiseProcessedPower = 0.0
    /// Where the near-end track does not line up with what was processed: near-end preservation
    /// skips the frames touching them.
    private var nearEndExcluded = ExcludedRanges()
    /// Where nothing of the room was sent (`markNotSent`), and the frames wholly inside it where
    /// the near-end track talked.
    private var notSent = ExcludedRanges()
    private var nearEndTalkNotSentFrames = 0
    /// Where the echo at the mic did not reach what was processed (a file sent instead of the
    /// mic): the frames touching them have no far end at the mic, so no ERL or ERLE.
    private var echoExcluded = ExcludedRanges()
    /// The same ranges as the delay estimate's warm-up asks after them (it reads ahead of the
    /// frames scored, and `ExcludedRanges` forgets what its reader has passed).
    private var delayExcluded = ExcludedRanges()
    /// Without tracks: the tap-free gate's near talker per frame, and the output against it in
    /// double talk and while the talker is alone.
    private let talkerLevels: EchoPathGate.TalkerLevels?
    private var nearEndEstimateSums = NearEndEstimate.Sums()
    private var nearEndAloneEstimateSums = NearEndEstimate.Sums()
    /// Without tracks: the mic's power in the frames where nobody talks, for its noise floor —
    /// but for frames of digital zeros, counted apart: they hold no noise, only a recording that
    /// had not started or a muted mic, and 2 s of zeros before a call put the floor at digital
    /// silence, so that an output at the room's −70 dBFS noise read 57 dB of measured ERLE where
    /// 38 dB is measurable.
    private var quietFrames = NoiseFloorEstimate()
    private var quietZeroFrames = 0
    /// What the send path did with the room's sound where neither side talked: a mute cuts it.
    private(set) var quietRoomSend = QuietRoomSend()
    /// The least power of the room's own sound that a mute can be told by (`FrameLedger.mutedMicOverSilence` over digital silence).
    private let roomSoundFloor: Double
    /// mic − echo of the frame being scored (with an echo track and no near-end track): its noise.
    private var micLessEcho: [Float]

    /// A frame's Σ mic² under which the mic is silent (`nearEndSilentDBFS`): no talker there.
    private let micSilence: Double

    /// What a hop contributes to the frames containing it.
    private struct HopMeasures {
        var farEndEnergy = 0.0
        var nearEndEnergy = 0.0
        /// processed is mic, bit for bit, over the hop (no canceller ran).
        var processedIsMic = false
        /// Σ processed·nearEnd, Σ nearEnd², Σ processed² (with a near-end track).
        var sentNear = 0.0
        var sentSent = 0.0
        /// Σ echo² (with an echo track).
        var echoEnergy = 0.0
        /// What else the mic holds, which an audible echo must stand above (with an echo track):
        /// the near-end estimate's energy, or, with a near-end track that may lack the mic's noise
        /// (a recording's clean speech), Σ (mic − echo)² where that is more.
        var besideEchoEnergy = 0.0
        /// Σ (mic − near end)² (with a near-end track and no echo track).
        var micLessNearEndEnergy = 0.0
    }

    /// `nearEndActivity`: the offline gate's per-frame near-end decisions, used when there is
    /// neither an echo nor a near-end track.
    init(sampleRate: Int, configuration: EchoMetricsConfiguration, hasEcho: Bool, hasNearEnd: Bool,
         nearEndActivity: FrameBits? = nil, gateLimitation: ActivityGateLimitation? = nil,
         talkerLevels: EchoPathGate.TalkerLevels? = nil, ledgerResidentRows: Int = 16_384) {
        self.talkerLevels = talkerLevels
        self.sampleRate = max(1, sampleRate)
        self.configuration = configuration
        talk = TalkRunRecorder(isEnabled: configuration.recordsTalkRuns)
        frameSize = configuration.frameSize(forSampleRate: self.sampleRate)
        micSilence = pow(10, configuration.nearEndSilentDBFS / 10) * Double(frameSize)
        roomSoundFloor = FrameLedger.mutedMicOverSilence * MeasurableFloor.digitalFramePower(frameSize: frameSize)
        hop = frameSize / 2
        activity = TalkActivity(hop: hop, windowSamples: self.sampleRate / 2)
        self.hasEcho = hasEcho
        self.hasNearEnd = hasNearEnd
        warmupSamples = configuration.delayWarmupSamples(forSampleRate: self.sampleRate)
        chunk = max(4096, 4 * frameSize)
        reference = SampleHistory(limit: warmupSamples)
        mic = SampleHistory(limit: warmupSamples)
        processed = SampleHistory(limit: warmupSamples)
        echo = SampleHistory(limit: hasEcho ? warmupSamples : 0)
        nearEnd = SampleHistory(limit: hasNearEnd ? warmupSamples : 0)
        let estimator = DelayEstimator(sampleRate: self.sampleRate, configuration: configuration)
        collector = DelayBlockCollector(estimator: estimator)
        longestShift = Int((configuration.maxDelayMilliseconds * Double(self.sampleRate) / 1000).rounded(.up)) + 1
        gate = ActivityGate(hasEcho: hasEcho, hasNearEnd: hasNearEnd, nearEndActivity: nearEndActivity, limitation: gateLimitation,
                            fittedEcho: talkerLevels?.levels, frameSize: frameSize, configuration: configuration)
        meter = FrameBandMeter(frameSize: frameSize, sampleRate: self.sampleRate)
        micBands = [Double](repeating: 0, count: meter.bands.count)
        referenceBands = [Double](repeating: 0, count: meter.bands.count)
        micThirdOctaves = [Double](repeating: 0, count: meter.thirdOctaves.count)
        referenceThirdOctaves = [Double](repeating: 0, count: meter.thirdOctaves.count)
        doubleTalkMeter = DoubleTalkMeter(sampleRate: self.sampleRate, hop: frameSize / 2)
        // Read for mic − echo's floor: without a near-end track, or beside one that may lack the noise.
        micLessEcho = [Float](repeating: 0, count: hasEcho && !(hasNearEnd && configuration.nearEndTrackHoldsTheNoise) ? frameSize : 0)
        let measuresBandNoise = hasEcho || hasNearEnd
        noiseBands = [Double](repeating: 0, count: measuresBandNoise ? meter.bands.count : 0)
        noiseThirdOctaves = [Double](repeating: 0, count: measuresBandNoise ? meter.thirdOctaves.count : 0)
        ledger = FrameLedger(sampleRate: self.sampleRate, frameSize: frameSize, bands: meter.bands, thirdOctaves: meter.thirdOctaves,
                             maximumSeriesPoints: configuration.maximumSeriesPoints, measuresBandNoise: measuresBandNoise,
                             residentRows: ledgerResidentRows)
        if warmupSamples == 0 { fixDelay(end: 0) }
    }

    /// Samples currently allocated across all histories (the warm-up's, or the steady state's).
    var retainedSampleCapacity: Int {
        reference.capacity + mic.capacity + processed.capacity + echo.capacity + nearEnd.capacity
    }

    /// Takes `count` samples from `from` on in each array, in pieces that fit the histories.
    mutating func append(reference referenceSource: [Float], mic micSource: [Float], processed processedSource: [Float],
                         echo echoSource: [Float]?, nearEnd nearEndSource: [Float]?, from: Int, count: Int) {
        var done = 0
        while done < count {
            while let next = pendingSearches.first, scoringStart(ofSearchFrom: next) <= received { startSearch(from: next) }
            let piece = min(count - done, room(), pendingSearches.first.map { scoringStart(ofSearchFrom: $0) - received } ?? .max)
            let offset = from + done
            reference.append(referenceSource, from: offset, count: piece)
            mic.append(micSource, from: offset, count: piece)
            processed.append(processedSource, from: offset, count: piece)
            if let echoSource { echo.append(echoSource, from: offset, count: piece) }
            if let nearEndSource { nearEnd.append(nearEndSource, from: offset, count: piece) }
            received += piece
            done += piece
            advance()
        }
    }

    /// Leaves `range` out of near-end preservation. Ranges must come in ascending order.
    mutating func excludeFromNearEndPreservation(_ range: Range<Int>) { nearEndExcluded.add(range) }

    /// Nothing of the room was sent in `range` (the send path silenced, or a mic that hears no
    /// room): a near talker there reached no one. Ranges must come in ascending order.
    mutating func markNotSent(_ range: Range<Int>) { notSent.add(range) }

    /// Leaves `range` out of the echo metrics: no echo reached the processed signal there.
    /// Ranges must come in ascending order.
    mutating func excludeFromEcho(_ range: Range<Int>) {
        echoExcluded.add(range)
        if shift == nil || !pendingSearches.isEmpty { delayExcluded.add(range) }
    }

    /// The echo path changes at absolute sample `sample`: the frames that start before it keep the
    /// shift in force, and the delay is searched again from there. A change given before one
    /// already pending, or before what was received, is taken at the later point.
    mutating func searchDelayAgain(from sample: Int) {
        let sample = max(sample, received, pendingSearches.last ?? 0)
        guard pendingSearches.last != sample else { return }
        // Exclusions given while no search ran, before this change was known, that reach past it:
        // the new search leaves their blocks out too, whatever the order the two were given in.
        if shift != nil, pendingSearches.isEmpty {
            for range in echoExcluded.ranges(reachingPast: sample) { delayExcluded.add(max(range.lowerBound, sample)..<range.upperBound) }
        }
        pendingSearches.append(sample)
    }

    /// Where a search from `sample` takes over: once every frame that starts before `sample` can be
    /// scored, with the shift in force. Those frames hold the old path's echo, all or in part; a
    /// frame across the change scored with the new route's shift (a wired headset's, none) read
    /// the speaker's echo in it as that segment's one single-talk frame, at 17.7 dB.
    private func scoringStart(ofSearchFrom sample: Int) -> Int {
        ((sample + hop - 1) / hop + 1) * hop
    }

    /// Starts a search from `sample` (an echo-path change), at `scoringStart(ofSearchFrom:)`: ends
    /// the running warm-up at `sample`, scores the frames that start before it with the shift in
    /// force, then warms up again, holding everything from `sample` or the next frame to be scored,
    /// whichever is first (and the reference the longest shift before it).
    private mutating func startSearch(from sample: Int) {
        if shift == nil { fixDelay(end: sample) }
        scoreCompleteHops()
        pendingSearches.removeFirst()
        searchOrigin = sample
        collector = DelayBlockCollector(estimator: DelayEstimator(sampleRate: sampleRate, configuration: configuration), origin: sample)
        shift = nil
        let keep = min(sample, max(0, nextHop - 1) * hop)
        // What came in since the change is held too (a warm-up shorter than it ends at once).
        let limit = max(sample + warmupSamples, received) - keep
        reference.shrink(keepingFrom: max(0, keep - longestShift), limit: limit + longestShift)
        mic.shrink(keepingFrom: keep, limit: limit)
        processed.shrink(keepingFrom: keep, limit: limit)
        echo.shrink(keepingFrom: keep, limit: hasEcho ? limit : 0)
        nearEnd.shrink(keepingFrom: keep, limit: hasNearEnd ? limit : 0)
        if received >= sample + warmupSamples { fixDelay(end: received) }
    }

    /// Ends the warm-up if it is still running and scores what is left.
    mutating func finish() {
        if shift == nil { fixDelay(end: received) }
    }

    /// Samples that may be appended now without overflowing a history.
    private mutating func room() -> Int {
        guard let shift else { return searchOrigin + warmupSamples - received }
        // A search waiting to start reads from its change on.
        let keep = min(max(0, nextHop - 1) * hop, pendingSearches.first ?? .max)
        var room = reference.room(keepingFrom: max(0, keep - max(shift, longestShift)), minimum: chunk)
        room = min(room, mic.room(keepingFrom: keep, minimum: chunk))
        room = min(room, processed.room(keepingFrom: keep, minimum: chunk))
        if hasEcho { room = min(room, echo.room(keepingFrom: keep, minimum: chunk)) }
        if hasNearEnd { room = min(room, nearEnd.room(keepingFrom: keep, minimum: chunk)) }
        return room
    }

    private mutating func advance() {
        if shift != nil {
            scoreCompleteHops()
        } else if var collector {
            self.collector = nil    // keep the collector's buffers uniquely referenced while it works
            // A search reads nothing past an echo-path change to come: its blocks are the old path's.
            collector.advance(reference: reference, mic: mic, available: min(received, pendingSearches.first ?? .max), excluded: &delayExcluded)
            let completion = collector.completionSample
            self.collector = collector
            if completion != nil || received >= searchOrigin + warmupSamples {
                let end = min(received, pendingSearches.first ?? .max)
                fixDelay(end: end, seedEnd: min(end, completion ?? end))
            }
        }
    }

    /// The echo track's lag behind the reference over the warm-up, where the mic's search found
    /// none (an echo under the mic's noise: a wired headset's): it lines up the frames the path's
    /// loss stands on (`FrameLedger.appendEchoUnderNoise`), and the delay stays unmeasured, as
    /// the mic holds no echo to measure it on. Unaligned, a talk spurt's first frames hold its
    /// reference but not yet its echo, and a −60 dB path read "≥ 60.24 dB": a bound over the loss.
    private func echoTrackLag(end: Int) -> Double? {
        guard hasEcho else { return nil }
        // The echo track holds the room's echo whatever was sent: nothing of it is left out.
        var excluded = ExcludedRanges()
        var collector = DelayBlockCollector(estimator: DelayEstimator(sampleRate: sampleRate, configuration: configuration), origin: searchOrigin)
        return collector.finish(reference: reference, mic: echo, end: end, excluded: &excluded)
    }

    /// Ends the warm-up: fixes the shift from the blocks before `end`, scores the held audio, and
    /// trades the warm-up's histories for small steady-state ones. The activity gate's near-end
    /// floor is seeded with the frames before `seedEnd`, a point that does not depend on how the
    /// audio was cut into appends (the frames after it join the floor as they are scored).
    private mutating func fixDelay(end: Int, seedEnd: Int? = nil) {
        var search = DelaySearch(startSample: searchOrigin)
        if var collector {
            self.collector = nil
            search.delaySamples = collector.finish(reference: reference, mic: mic, end: end, excluded: &delayExcluded)
            search.echoOutsideSearch = collector.echoOutsideSearch
            search.referenceIsTonal = collector.referenceIsTonal
            search.noEchoInWarmup = collector.leftOutEveryBlock
        }
        delaySearches.append(search)
        let isFirst = delaySearches.count == 1
        // The reference is shifted by whole samples; the fraction only matters for reporting.
        // The echo track's lag only where the mic's search found no echo at all: not where it
        // left every block out (a file mic, a mute), found the far end tonal, or the echo outside
        // its range.
        let unfound = search.delaySamples == nil && !search.noEchoInWarmup && !search.referenceIsTonal && !search.echoOutsideSearch
        let shift = min(end, Int((search.delaySamples ?? (unfound ? echoTrackLag(end: end) : nil) ?? 0).rounded()))
        self.shift = shift
        if isFirst, hasNearEnd || hasEcho { seedNearEndFloor(end: seedEnd ?? end) }
        // After an echo-path change the next frame's first hop, measured with the old shift, is
        // measured again with the new one.
        if !isFirst, nextHop >= 1 { previousHop = measureHop(start: (nextHop - 1) * hop) }
        scoreCompleteHops()
        // Steady state: the next frame (less than two hops) plus free space for a chunk; the
        // reference also keeps the longest shift a later search may fix. A search waiting to
        // start keeps its change on.
        let keep = min(max(0, nextHop - 1) * hop, pendingSearches.first ?? .max)
        let limit = frameSize + 2 * chunk
        let back = max(shift, longestShift)
        reference.shrink(keepingFrom: max(0, keep - back), limit: limit + back)
        mic.shrink(keepingFrom: keep, limit: limit)
        processed.shrink(keepingFrom: keep, limit: limit)
        echo.shrink(keepingFrom: keep, limit: hasEcho ? limit : 0)
        nearEnd.shrink(keepingFrom: keep, limit: hasNearEnd ? limit : 0)
    }

    /// Gives the activity gate the near-end estimate's level in each frame before `end` (frames
    /// `scoreCompleteHops` is about to score), so its floor does not start from the first frame
    /// alone: a talker there would otherwise be taken for the floor.
    private mutating func seedNearEndFloor(end: Int) {
        let hops = end / hop
        guard hops >= 2 else { return }
        var energies: [Double] = []
        energies.reserveCapacity(hops - 1)
        var previous = nearEndEnergy(hopAt: 0)
        for index in 1..<hops {
            let energy = nearEndEnergy(hopAt: index * hop)
            energies.append(previous + energy)
            previous = energy
        }
        // mic − track's floor (a near-end track without an echo track) from the same frames,
        // with each frame's aligned reference: it takes the far end's silent frames only.
        var micLessNearEnd: [(farEnd: Double, micLessNearEnd: Double)] = []
        if let first = micLessNearEndEnergy(hopAt: 0) {
            micLessNearEnd.reserveCapacity(hops - 1)
            var previous = (farEnd: farEndEnergy(hopAt: 0), micLessNearEnd: first)
            for index in 1..<hops {
                let current = (farEnd: farEndEnergy(hopAt: index * hop), micLessNearEnd: micLessNearEndEnergy(hopAt: index * hop) ?? 0)
                micLessNearEnd.append((previous.farEnd + current.farEnd, previous.micLessNearEnd + current.micLessNearEnd))
                previous = current
            }
        }
        gate.seedNearEndFloor(frameEnergies: energies, micLessNearEnd: micLessNearEnd)
    }

    /// The delay-aligned reference's energy over the hop at absolute sample `start` (reference
    /// samples before 0 are the silence before the far end started).
    private func farEndEnergy(hopAt start: Int) -> Double {
        guard let shift else { return 0 }
        let first = max(0, start - shift), end = start + hop - shift
        guard first < end else { return 0 }
        return PowerSums.sumOfSquares(reference.samples, reference.local(first)..<reference.local(end))
    }

    /// mic − near-end track's energy over the hop at absolute sample `start`, with a near-end track
    /// and no echo track (nil otherwise): the echo, and the noise a clean track lacks.
    private func micLessNearEndEnergy(hopAt start: Int) -> Double? {
        guard hasNearEnd, !hasEcho else { return nil }
        precondition(nearEnd.origin == mic.origin)
        return PowerSums.sumOfSquaredDifferences(mic.samples, nearEnd.samples, mic.local(start)..<mic.local(start + hop))
    }

    /// The near-end estimate's energy over the hop at absolute sample `start`: its track's, else
    /// mic − echo's.
    private func nearEndEnergy(hopAt start: Int) -> Double {
        if hasNearEnd { return PowerSums.sumOfSquares(nearEnd.samples, nearEnd.local(start)..<nearEnd.local(start + hop)) }
        precondition(echo.origin == mic.origin)
        return PowerSums.sumOfSquaredDifferences(mic.samples, echo.samples, mic.local(start)..<mic.local(start + hop))
    }

    /// Measures every hop that has fully arrived and scores each frame it completes.
    private mutating func scoreCompleteHops() {
        guard let shift else { return }
        while (nextHop + 1) * hop <= received {
            let start = nextHop * hop
            let measures = measureHop(start: start)
            if nextHop >= 1 {
                scoreFrame(nextHop - 1, shift: shift, first: previousHop, second: measures)
            }
            previousHop = measures
            nextHop += 1
        }
    }

    private func measureHop(start: Int) -> HopMeasures {
        var measures = HopMeasures()
        measures.farEndEnergy = farEndEnergy(hopAt: start)
        let range = mic.local(start)..<mic.local(start + hop)
        precondition(processed.origin == mic.origin)
        if hasNearEnd {
            let nearRange = nearEnd.local(start)..<nearEnd.local(start + hop)
            measures.nearEndEnergy = nearEndEnergy(hopAt: start)
            precondition(nearEnd.origin == processed.origin)
            measures.sentNear = PowerSums.dot(processed.samples, nearEnd.samples, nearRange)
            measures.sentSent = PowerSums.sumOfSquares(processed.samples, nearRange)
            measures.micLessNearEndEnergy = micLessNearEndEnergy(hopAt: start) ?? 0
        } else if hasEcho {
            measures.nearEndEnergy = nearEndEnergy(hopAt: start)
        }
        if hasEcho {
            precondition(echo.origin == mic.origin)
            measures.echoEnergy = PowerSums.sumOfSquares(echo.samples, range)
            measures.besideEchoEnergy = hasNearEnd && !configuration.nearEndTrackHoldsTheNoise
                ? max(measures.nearEndEnergy, PowerSums.sumOfSquaredDifferences(mic.samples, echo.samples, range)) : measures.nearEndEnergy
        }
        // Same samples, same spectrum: the mic's is reused.
        measures.processedIsMic = VectorMath.bitwiseEqual(mic.samples, from: range.lowerBound, processed.samples, from: range.lowerBound,
                                                          count: range.count)
        return measures
    }

    /// Gates frame `frame` and, for far-end single talk, measures it into the ledger. Echo needs
    /// only its whole-band power (Parseval, no FFT); the reference's whole-band power is Parseval's
    /// too, and its spectrum is taken for the 1/3-octave bands of TCLw only; mic and processed get a
    /// spectrum each, except that processed reuses the mic's when the two are the same samples.
    private mutating func scoreFrame(_ frame: Int, shift: Int, first: HopMeasures, second: HopMeasures) {
        // Where no echo reached the processed signal the far end is not at the mic at all.
        let echoReached = !echoExcluded.touches(frame * hop, frame * hop + frameSize)
        let echoUnderNoiseBefore = gate.echoUnderNoiseFrames
        let singleTalk = gate.classify(farEndEnergy: echoReached ? first.farEndEnergy + second.farEndEnergy : 0,
                                       nearEndEnergy: first.nearEndEnergy + second.nearEndEnergy,
                                       echo: hasEcho ? (first.echoEnergy + second.echoEnergy, first.besideEchoEnergy + second.besideEchoEnergy) : nil,
                                       micLessNearEndEnergy: hasNearEnd && !hasEcho
                                           ? first.micLessNearEndEnergy + second.micLessNearEndEnergy : nil)
        let start = frame * hop
        talk.record(frame: frame, talk: gate.lastTalk.run)
        activity.record(frame: frame, talk: gate.lastTalk.run)
        // Nothing of the room was sent over this whole frame (muted, a file mic…): a talker there
        // reached no one.
        if hasNearEnd, notSent.covers(start, start + frameSize), gate.lastTalk == .doubleTalk || gate.lastTalk == .nearEndSingleTalk {
            nearEndTalkNotSentFrames += 1
        }
        if hasNearEnd, !nearEndExcluded.touches(start, start + frameSize) {
            switch gate.lastTalk {
            case .doubleTalk: Self.add(first, second, samples: frameSize, to: &doubleTalkSums)
            case .nearEndSingleTalk: Self.add(first, second, samples: frameSize, to: &nearEndSingleTalkSums)
            case .silence, .farEndSingleTalk, .unjudged: break
            }
            doubleTalkMeter.add(frame: frame, talk: gate.lastTalk, near: first.nearEndEnergy + second.nearEndEnergy,
                                sent: first.sentSent + second.sentSent, sentNear: first.sentNear + second.sentNear, samples: frameSize)
        }
        // A frame whose mic is under the silence level holds no talker to lose, whatever the fit
        // left: without echo to fit, the fit's own prediction is the residual there, at or above
        // the echo it predicts, and an output equal to the mic read "near end lost" on every frame
        // of a talker's digital pauses (317 of 633).
        if gate.lastTalk == .doubleTalk || gate.lastTalk == .nearEndSingleTalk, let estimate = talkerLevels?.meanSquare(frame),
           PowerSums.sumOfSquares(mic.samples, mic.local(start)..<(mic.local(start) + frameSize)) >= micSilence {
            let at = processed.local(start)
            let output = PowerSums.sumOfSquares(processed.samples, at..<(at + frameSize)) / Double(frameSize)
            if gate.lastTalk == .doubleTalk {
                nearEndEstimateSums.add(estimate: estimate, output: output)
            } else {
                nearEndAloneEstimateSums.add(estimate: estimate, output: output)
            }
        }
        if !hasEcho, !(hasNearEnd && configuration.nearEndTrackHoldsTheNoise), gate.lastTalk == .silence {
            let power = meter.wholeBandPower(mic.samples, offset: mic.local(start))
            if power > 0 { quietFrames.add(power: power) } else { quietZeroFrames += 1 }
        }
        // Neither side talked, and no echo outweighs the room's own sound: that sound, which a
        // canceller sends on and a mute does not (`QuietRoomSend`). Not where the far end played
        // under the noise (a canceller may suppress there), nor in an echo's tail (the gate calls it
        // silence; a canceller takes it down, and in a room without noise nothing else is there),
        // nor where no echo reached what was processed (a file as the mic) or nothing of the room
        // was sent (a mute the app made).
        if gate.lastTalk == .silence, gate.echoUnderNoiseFrames == echoUnderNoiseBefore, echoReached,
           !notSent.touches(start, start + frameSize), let room = roomSoundPower(start: start),
           !hasEcho || meter.wholeBandPower(echo.samples, offset: echo.local(start)) <= room {
            quietRoomSend.add(roomPower: room, sentPower: meter.wholeBandPower(processed.samples, offset: processed.local(start)),
                              floor: roomSoundFloor)
        }
        if gate.echoUnderNoiseFrames > echoUnderNoiseBefore {
            // The echo path's loss stands on these frames where there is no single talk.
            let micPower = meter.wholeBandPower(mic.samples, offset: mic.local(start))
            ledger.appendEchoUnderNoise(frame: frame, reference: meter.wholeBandPower(reference.samples, offset: reference.local(start - shift)),
                                        echo: hasEcho ? meter.wholeBandPower(echo.samples, offset: echo.local(start)) : micPower)
            underNoiseMicPower += micPower
            underNoiseProcessedPower += meter.wholeBandPower(processed.samples, offset: processed.local(start))
        }
        guard singleTalk else { return }
        let referencePower = meter.wholeBandPower(reference.samples, offset: reference.local(start - shift))
        meter.measureThirdOctaves(reference.samples, offset: reference.local(start - shift))
        for band in referenceThirdOctaves.indices { referenceThirdOctaves[band] = meter.thirdOctavePowers[band] }
        meter.reduceToBands(into: &referenceBands)
        let micPower = meter.measureBands(mic.samples, offset: mic.local(start))
        // Copied element by element into a preallocated row: assigning the array would share its
        // buffer, and the next measurement would then copy it (an allocation per frame).
        for band in micBands.indices { micBands[band] = meter.bandPowers[band] }
        meter.reduceToThirdOctaves()
        for band in micThirdOctaves.indices { micThirdOctaves[band] = meter.thirdOctavePowers[band] }
        // Without an echo track the echo at the mic is the mic.
        let echoPower = hasEcho ? meter.wholeBandPower(echo.samples, offset: echo.local(start)) : micPower
        // The input's noise in this frame, the floor its output is measured against: the
        // near-end track while it is silent, else mic − echo; without tracks the shared estimate.
        // With both tracks and a near-end track that may lack the mic's noise
        // (`nearEndTrackHoldsTheNoise`), mic − echo where it holds clearly more (3 dB): a
        // recording's clean near-end speech (the AEC Challenge's) leaves the noise out, and a
        // canceller that removed the noise read that as ERLE, never as a bound.
        var noise = 0.0
        var noiseIsMicLessEcho = false
        if hasNearEnd {
            noise = meter.wholeBandPower(nearEnd.samples, offset: nearEnd.local(start))
            // The track's energy over the frame is its two hops' (measured already).
            if hasEcho, !configuration.nearEndTrackHoldsTheNoise,
               PowerSums.sumOfSquaredDifferences(mic.samples, echo.samples, mic.local(start)..<mic.local(start + frameSize))
                > 2 * (first.nearEndEnergy + second.nearEndEnergy) {
                noise = micLessEchoPower(start: start)
                noiseIsMicLessEcho = true
            }
        } else if hasEcho {
            noise = micLessEchoPower(start: start)
            noiseIsMicLessEcho = true
        }
        if !noiseBands.isEmpty {
            // The same signal per band: room noise is not white (see `FrameLedger.measuresBandNoise`).
            if noiseIsMicLessEcho {
                _ = meter.measureBands(micLessEcho, offset: 0)
            } else {
                _ = meter.measureBands(nearEnd.samples, offset: nearEnd.local(start))
            }
            for band in noiseBands.indices { noiseBands[band] = meter.bandPowers[band] }
            meter.reduceToThirdOctaves()
            for band in noiseThirdOctaves.indices { noiseThirdOctaves[band] = meter.thirdOctavePowers[band] }
        }
        if first.processedIsMic && second.processedIsMic {
            ledger.append(frame: frame, reference: referencePower, echo: echoPower, mic: micPower,
                          processed: micPower, noise: noise, referenceBands: referenceBands, micBands: micBands, processedBands: micBands,
                          referenceThirdOctaves: referenceThirdOctaves, processedThirdOctaves: micThirdOctaves, micThirdOctaves: micThirdOctaves,
                          noiseBands: noiseBands, noiseThirdOctaves: noiseThirdOctaves)
        } else {
            let processedPower = meter.measureBands(processed.samples, offset: processed.local(start))
            meter.reduceToThirdOctaves()
            ledger.append(frame: frame, reference: referencePower, echo: echoPower, mic: micPower,
                          processed: processedPower, noise: noise, referenceBands: referenceBands, micBands: micBands, processedBands: meter.bandPowers,
                          referenceThirdOctaves: referenceThirdOctaves, processedThirdOctaves: meter.thirdOctavePowers, micThirdOctaves: micThirdOctaves,
                          noiseBands: noiseBands, noiseThirdOctaves: noiseThirdOctaves)
        }
    }

    /// The room's own sound at the mic over the frame at absolute sample `start`, without the echo:
    /// the near-end track where it holds the room's noise, else mic − echo; nil without tracks
    /// (a recording's mic and loopback alone do not tell the room's sound from an echo's tail).
    private mutating func roomSoundPower(start: Int) -> Double? {
        if hasNearEnd && configuration.nearEndTrackHoldsTheNoise { return meter.wholeBandPower(nearEnd.samples, offset: nearEnd.local(start)) }
        guard hasEcho, micLessEcho.count == frameSize else { return nil }
        return micLessEchoPower(start: start)
    }

    /// The whole-band power of mic − echo over the frame at absolute sample `start`.
    private mutating func micLessEchoPower(start: Int) -> Double {
        precondition(echo.origin == mic.origin)
        let at = mic.local(start)
        for index in 0..<frameSize { micLessEcho[index] = mic.samples[at + index] - echo.samples[at + index] }
        return meter.wholeBandPower(micLessEcho, offset: 0)
    }

    private static func add(_ first: HopMeasures, _ second: HopMeasures, samples: Int, to sums: inout NearEndPreservation.Sums) {
        sums.sentNear += first.sentNear + second.sentNear
        sums.nearNear += first.nearEndEnergy + second.nearEndEnergy
        sums.sentSent += first.sentSent + second.sentSent
        sums.frames += 1
        sums.samples += samples
    }

    /// The noise power standing in for the rows that have none of their own (no tracks), and the
    /// least a near-end track's rows are measured against (a clean near-end track, no echo track:
    /// the mic's noise is in neither): the mic's between talkers; with too few quiet frames (a far end that never pauses) the floor of
    /// the tap-free gate's residual after the fitted echo, taken as white noise — without it such
    /// a recording's output at −90 dBFS read 63.7 dB of ERLE where 24 dB is measurable; 0
    /// (digital silence only) without either, or where under 20 quiet frames hold more than digital zeros.
    var sharedNoisePower: Double {
        guard !hasEcho, !(hasNearEnd && configuration.nearEndTrackHoldsTheNoise) else { return 0 }
        if let quiet = quietFrames.power { return quiet }
        if quietFrames.frames + quietZeroFrames >= quietFrames.minimumFrames { return 0 }
        return talkerLevels?.floor.map { MeasurableFloor.framePower(meanSquare: $0, frameSize: frameSize) } ?? 0
    }

    /// The output against the tap-free gate's near talker; nil with tracks (or no gate).
    var nearEndEstimate: NearEndEstimate? {
        talkerLevels == nil ? nil : NearEndEstimate(doubleTalk: nearEndEstimateSums, singleTalk: nearEndAloneEstimateSums)
    }

    /// Near-end preservation so far; nil without a near-end track.
    var nearEndPreservation: NearEndPreservation? {
        guard hasNearEnd else { return nil }
        var preservation = NearEndPreservation(doubleTalk: doubleTalkSums, singleTalk: nearEndSingleTalkSums)
        preservation.talkNotSentFrames = nearEndTalkNotSentFrames
        return preservation
    }

    /// The frame layout of everything received, for the final aggregation.
    var frames: WelchFrames { WelchFrames(length: received, frameSize: frameSize) }
    var gateSummary: ActivityGateSummary { gate.summary() }
    /// Frames the gate's near-end floor was seeded with at the warm-up's end.
    var nearEndFloorSeededFrames: Int { gate.seededFrames }
}
