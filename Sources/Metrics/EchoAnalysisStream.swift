import AudioCore
import AudioInterop

/// Incremental echo analysis: append blocks of equal length of all signals (e.g. each 10 ms
/// engine tick), then finish. The result is the same, bit for bit, whatever the block sizes, and
/// the same as `EchoAnalyzer.analyze` (which is built on this stream).
///
/// Memory: after the warm-up the stream holds about a frame of each signal (plus the longest
/// delay the search considers, 500 ms, of the reference) and the newest rows per far-end single-talk frame — ~3 minutes of the
/// 24-byte power rows, ~40 s of the 112-byte 1/3-octave rows (older rows spill to a temporary
/// file, `SpillingRows`) — however long the call.
///
/// Delay warm-up: the ERL and the far-end gate read the reference shifted by the bulk delay,
/// which is not known when the call starts. The stream therefore buffers the signals from the
/// start until the GCC-PHAT estimate has its blocks: the delay is estimated from the first
/// `configuration.maxDelayBlocks` (32) far-end-active blocks of the call (~6 s of continuous
/// far-end audio at any rate). Buffering is capped at `configuration.delayWarmupSeconds`
/// (12 s); if the cap or `finish` comes first, the delay is estimated from the blocks collected
/// so far (none: no delay is reported and the reference is not shifted). Then the buffered
/// frames are scored and the stream continues with small histories. An echo-path change its owner
/// reports (`searchDelayAgain(from:)`) starts a warm-up of its own there.
///
/// Single-threaded; one stream is used by one thread at a time.
public final class EchoAnalysisStream {
    private var core: EchoStreamCore
    /// Frames the activity gate's near-end floor was seeded with (the same whatever the appends' sizes).
    var nearEndFloorSeededFrames: Int { core.nearEndFloorSeededFrames }
    private var finished = false

    /// - Parameters:
    ///   - includesEcho: whether `append` will be given the echo track (echo alone at the mic).
    ///   - includesNearEnd: whether `append` will be given the near-end track.
    ///   - nearEndActivity: without either track, the near-end decision per Welch frame from an
    ///     offline pre-pass (`EchoAnalyzer` makes it with the echo-path fit); nil: far end only.
    ///   - gateLimitation: why that pre-pass could not decide (`gate.limitation`); no frame is then scored.
    ///   Decisions alone carry neither the fitted echo nor the residual, so two things need
    ///   `EchoAnalyzer`, which passes them: the rule that the far end is at the mic only where the
    ///   fitted echo stands above the residual, and `nearEndEstimate`.
    public convenience init(sampleRate: Int, configuration: EchoMetricsConfiguration = .default,
                            includesEcho: Bool, includesNearEnd: Bool, nearEndActivity: FrameBits? = nil,
                            gateLimitation: ActivityGateLimitation? = nil) {
        self.init(sampleRate: sampleRate, configuration: configuration, includesEcho: includesEcho, includesNearEnd: includesNearEnd,
                  nearEndActivity: nearEndActivity, gateLimitation: gateLimitation, talkerLevels: nil)
    }

    /// `talkerLevels`: the tap-free gate's estimate of the near talker per frame, for the output's
    /// drop under it (`NearEndEstimate`).
    init(sampleRate: Int, configuration: EchoMetricsConfiguration, includesEcho: Bool, includesNearEnd: Bool,
         nearEndActivity: FrameBits?, gateLimitation: ActivityGateLimitation?, talkerLevels: EchoPathGate.TalkerLevels?) {
        core = EchoStreamCore(sampleRate: sampleRate, configuration: configuration,
                              hasEcho: includesEcho, hasNearEnd: includesNearEnd, nearEndActivity: nearEndActivity,
                              gateLimitation: gateLimitation, talkerLevels: gateLimitation == nil ? talkerLevels : nil)
    }

    /// A stream whose ledger keeps only `ledgerResidentRows` rows in memory (tests: spilling).
    init(sampleRate: Int, configuration: EchoMetricsConfiguration = .default, includesEcho: Bool,
         includesNearEnd: Bool, ledgerResidentRows: Int) {
        core = EchoStreamCore(sampleRate: sampleRate, configuration: configuration, hasEcho: includesEcho,
                              hasNearEnd: includesNearEnd, ledgerResidentRows: ledgerResidentRows)
    }

    /// Appends `count` samples from index 0 of each array (arrays may be longer). echo/nearEnd must be
    /// non-nil iff declared at init. Any block size, including sizes that do not divide the Welch hop.
    public func append(reference: [Float], mic: [Float], processed: [Float], echo: [Float]?, nearEnd: [Float]?,
                       count: Int) {
        append(reference: reference, mic: mic, processed: processed, echo: echo, nearEnd: nearEnd,
               from: 0, count: count)
    }

    /// `append` from `offset` on, so batch callers can feed slices of whole buffers without copying.
    func append(reference: [Float], mic: [Float], processed: [Float], echo: [Float]?, nearEnd: [Float]?,
                from offset: Int, count: Int) {
        precondition(!finished, "EchoAnalysisStream: append after finish")
        precondition((echo != nil) == core.hasEcho, "EchoAnalysisStream: echo given iff declared at init")
        precondition((nearEnd != nil) == core.hasNearEnd, "EchoAnalysisStream: nearEnd given iff declared at init")
        precondition(count >= 0 && offset >= 0, "EchoAnalysisStream: negative count")
        let end = offset + count
        precondition(reference.count >= end && mic.count >= end && processed.count >= end
                     && (echo?.count ?? end) >= end && (nearEnd?.count ?? end) >= end,
                     "EchoAnalysisStream: an array is shorter than count")
        guard count > 0 else { return }
        core.append(reference: reference, mic: mic, processed: processed, echo: echo, nearEnd: nearEnd,
                    from: offset, count: count)
    }

    /// Leaves samples `range` out of near-end preservation (the frames that touch it): where the
    /// near-end track given to `append` is not what reached the processed signal there — a
    /// custom mic sending its own audio, or the device mic after the app's own buffering. Ranges
    /// come in ascending order, before or after the samples they cover are appended, but before
    /// the frames touching them are scored (give a range no later than with its samples).
    public func excludeFromNearEndPreservation(_ range: Range<Int>) {
        precondition(!finished, "EchoAnalysisStream: exclude after finish")
        core.excludeFromNearEndPreservation(range)
    }

    /// Leaves samples `range` out of ERL and ERLE (the frames that touch it count as frames
    /// without a far end) and out of the delay estimate (its blocks whose mic window touches it):
    /// where the echo at the mic given to `append` did not reach the processed signal — a custom
    /// mic sending a file or a generator. Ranges as for `excludeFromNearEndPreservation`, but
    /// given no later than with the samples they cover: the delay estimate may take a block as
    /// soon as its samples are in.
    public func excludeFromEcho(_ range: Range<Int>) {
        precondition(!finished, "EchoAnalysisStream: exclude after finish")
        core.excludeFromEcho(range)
    }

    /// Nothing of the room was sent in samples `range` (the send path silenced: a mute, the audio
    /// unit stopped; or a mic that hears no room): the near end's talk wholly inside it is counted
    /// as not sent (`NearEndPreservation.talkNotSentFrames`). Ranges as for `excludeFromEcho`.
    public func markNotSent(_ range: Range<Int>) {
        precondition(!finished, "EchoAnalysisStream: mark after finish")
        core.markNotSent(range)
    }

    /// The echo path changes at `sample` (a route change: the new route brings its own path and
    /// delay). The frames that start before it are scored against the delay in force; from it on
    /// the delay is searched again, as at the start of the call, and the frames that start there
    /// or later are scored against what that search finds (`EchoAnalysis.delaySearches`). Given no
    /// later than with the samples it falls in (one given later, or before one already given, is
    /// taken at the later point); a change at the stream's end starts nothing.
    public func searchDelayAgain(from sample: Int) {
        precondition(!finished, "EchoAnalysisStream: searchDelayAgain after finish")
        core.searchDelayAgain(from: sample)
    }

    /// Samples appended so far.
    public var sampleCount: Int { core.received }

    /// Set when the ledger of a long call could not be spilled to the temporary folder; the
    /// stream keeps working in memory, the owner should stop and report it.
    public var spillError: SpillError? { core.ledger.spillError }

    /// Samples the stream's signal buffers have allocated (not the ledger); for memory tests.
    var retainedSampleCapacity: Int { core.retainedSampleCapacity }

    /// Ends the stream; `segments` as in the batch API: sample ranges that get their own
    /// ERL/ERLE/steady/convergence, relative to each segment's start. No append may follow;
    /// finishing again gives the same analysis (with other segments if asked).
    public func finish(segments: [Range<Int>] = []) -> EchoAnalysis {
        if !finished {
            core.finish()
            finished = true
        }
        let configuration = core.configuration
        let sampleRate = core.sampleRate
        var ledger = core.ledger
        ledger.frames = core.frames
        ledger.sharedNoisePower = core.sharedNoisePower
        let length = core.received
        let summary = ledger.summary(in: 0..<length,
                                     stepSamples: configuration.seriesStepSamples(forSampleRate: sampleRate),
                                     toleranceDB: configuration.convergenceToleranceDB)
        var whole = EchoMetrics(erlDB: summary.erlDB, erlFrames: summary.erlFrames, erlIsLowerBound: summary.erlIsLowerBound,
                                erleDB: summary.erleDB, erleIsLowerBound: summary.erleIsLowerBound,
                                erleSteadyDB: summary.erleSteadyDB, erleSteadyIsLowerBound: summary.erleSteadyIsLowerBound,
                                erleSteadyFrames: summary.steadyFrames, convergenceSeconds: summary.convergenceSeconds,
                                delayMilliseconds: Self.callDelaySamples(core.delaySearches, ledger: ledger, length: length, configuration: configuration)
                                    .map { $0 * 1000 / Double(sampleRate) },
                                erleSeries: summary.series, erleBands: ledger.bandERLE(),
                                gate: core.gateSummary, nearEnd: core.nearEndPreservation,
                                nearEndEstimate: core.nearEndEstimate,
                                telephony: Self.telephony(ledger: ledger, core: core, length: length, echoIsBounded: summary.erlDB != nil))
        whole.isProcessedSilentInSingleTalk = summary.processedIsSilent
        whole.mutedQuietRoom = core.quietRoomSend.mutedRoom(minimumFrames: FigureConfidence.minimumAnalysisFrames)
        whole.convergenceIsLowerBound = summary.convergenceIsLowerBound
        Self.markBandsAndEchoLossWithoutEcho(&whole)
        // No echo above the mic's noise wherever the far end played alone: a lag the search found
        // is the signals' likeness, not an echo's. With an echo track that decides before what the
        // search says — a lag outside its range, a tonal far end — as the track shows the echo
        // itself (a track of dither read as an echo leading its loopback).
        let noEchoAtMic = whole.gate.echoStaysUnderNoise
        // Without an echo track, a search that found no lag says the same of the gate's finding as
        // one that found a lag of the signals' likeness: the tap-free gate read "no lag stands
        // out" where the tracks read "no echo above the mic's noise", of the same recording.
        if noEchoAtMic, core.hasEcho
            || (!core.echoOutsideDelaySearch && !core.referenceIsTonal && (whole.delayMilliseconds != nil || !core.noEchoInDelayWarmup)) {
            whole.delayMilliseconds = nil
            whole.delayUnmeasured = .noEchoAtMic
        } else if whole.delayMilliseconds != nil {
            // A search after an echo-path change found one where the first did not.
        } else if core.echoOutsideDelaySearch {
            whole.delayUnmeasured = .echoOutsideSearch(searchMilliseconds: configuration.maxDelayMilliseconds)
        } else if core.referenceIsTonal {
            whole.delayUnmeasured = .tonalFarEnd
        } else if core.noEchoInDelayWarmup {
            whole.delayUnmeasured = .noEchoInWarmup(warmupSeconds: configuration.delayWarmupSeconds)
        }
        return EchoAnalysis(whole: whole, segmentRanges: segments, sampleCount: length, ledger: ledger,
                            configuration: configuration, talkRuns: core.talk.runs,
                            talkActivity: core.activity, delaySearches: core.delaySearches,
                            outputOverMicWhereEchoUnderNoiseDB: whole.gate.echoStaysUnderNoise
                                ? Decibels.powerRatio(core.underNoiseProcessedPower, core.underNoiseMicPower) : nil)
    }

    /// The call's delay: its one search's; where it searched again after echo-path changes, the
    /// first search that found one over a stretch whose echo stands above the mic's noise (a wired
    /// headset's first seconds read 41 ms of the signals' likeness where the call went on to the
    /// speaker), else the first that found one.
    static func callDelaySamples(_ searches: [DelaySearch], ledger: FrameLedger, length: Int,
                                 configuration: EchoMetricsConfiguration) -> Double? {
        guard searches.count > 1 else { return searches.first?.delaySamples }
        for (index, search) in searches.enumerated() where search.delaySamples != nil {
            let end = index + 1 < searches.count ? searches[index + 1].startSample : length
            let summary = ledger.summary(in: search.startSample..<max(search.startSample, end),
                                         stepSamples: configuration.seriesStepSamples(forSampleRate: ledger.sampleRate),
                                         toleranceDB: configuration.convergenceToleranceDB)
            if summary.erlDB != nil, !summary.erlIsLowerBound { return search.delaySamples }
        }
        return searches.lazy.compactMap(\.delaySamples).first
    }

    /// What has no meaning without echo at the mic says why it is missing. Without far-end single
    /// talk no band has a value to give. Where the echo at the mic stays under its floor in every
    /// far-end single-talk frame (an ERL, no ERLE: an echo track of digital silence, say) there is
    /// no echo to cancel: a band where the mic stood over its floor measured what the canceller did
    /// to the noise, and TCLw what the terminal sends of its noise — each read as echo, such as a
    /// band's "ERLE" of −16 dB and a "TCLw" under TS 26.131's 46 dB in every mode, `disabled`'s too.
    static func markBandsAndEchoLossWithoutEcho(_ metrics: inout EchoMetrics) {
        let noSingleTalk = metrics.gate.singleTalkFrames == 0
        let noEcho = !noSingleTalk && metrics.erlDB != nil && metrics.erleDB == nil
        guard noSingleTalk || noEcho else { return }
        let reason = !noSingleTalk ? BandERLE.echoUnderFloorReason
            : metrics.gate.echoStaysUnderNoise && metrics.erlDB != nil ? BandERLE.echoUnderNoiseReason : BandERLE.noSingleTalkReason
        // A band already saying why it has no value keeps its reason.
        for index in metrics.erleBands.indices
        where metrics.erleBands[index].erleDB != nil ? noEcho : metrics.erleBands[index].unmeasuredReason == nil {
            metrics.erleBands[index].erleDB = nil
            metrics.erleBands[index].isLowerBound = false
            metrics.erleBands[index].unmeasuredReason = reason
        }
        if noEcho, metrics.telephony?.echoLoss != nil {
            metrics.telephony?.echoLoss = nil
            metrics.telephony?.echoLossUnmeasuredReason = TelephonyMeasures.echoUnderFloorReason
        }
    }

    /// TCLw and the double-talk report, or why each is missing.
    /// `echoIsBounded`: ERL stands on frames whose echo stayed under the noise (there was echo,
    /// under it); without it — an echo of digital silence, nothing played into the room — the
    /// reason is that there is no far-end single talk.
    private static func telephony(ledger: FrameLedger, core: EchoStreamCore, length: Int, echoIsBounded: Bool) -> TelephonyMeasures {
        let gate = core.gateSummary
        let echoLoss = ledger.weightedEchoLoss(in: 0..<length)
        var echoLossReason: String?
        if echoLoss == nil {
            if gate.echoStaysUnderNoise && echoIsBounded {
                echoLossReason = TelephonyMeasures.echoUnderNoiseReason
            } else if gate.singleTalkFrames == 0 {
                echoLossReason = TelephonyMeasures.noSingleTalkReason
            } else if ledger.thirdOctaves.isEmpty {
                echoLossReason = "at \(core.sampleRate) Hz no 1/3-octave band of the weighting (315–6300 Hz) lies below Nyquist"
            } else {
                echoLossReason = "the echo at the mic stands less than \(Int(FrameLedger.echoOverFloorForLossDB)) dB over its floor in every band of the weighting (315–6300 Hz)"
            }
        }
        let doubleTalk = core.nearEndPreservation.flatMap { core.doubleTalkMeter.report(polarityIsInverted: $0.polarityIsInverted) }
        // The gate hears double talk from the tracks; the meter measures it only where the
        // near-end track is what reached the output, sample for sample.
        let doubleTalkReason: String? = doubleTalk != nil ? nil
            : !core.hasNearEnd ? "needs the clean near-end track (a simulation's, or a recording's --near-end)"
            : gate.doubleTalkFrames > 0
            ? "the near-end track does not line up with the output in double talk (a custom mic sent its own audio, or the mic after its own buffering; or the send was silenced)"
            : TelephonyMeasures.noDoubleTalkReason
        return TelephonyMeasures(echoLoss: echoLoss, echoLossUnmeasuredReason: echoLossReason,
                                 doubleTalk: doubleTalk, doubleTalkUnmeasuredReason: doubleTalkReason)
    }
}
