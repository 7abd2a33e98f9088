/// Codable result types. Every dB value is optional: nil when there were no gated frames or a
/// power was zero; no number is ever made up. A value the signals can only bound is reported at
/// its bound and flagged (`…_is_lower_bound`); every figure carries the frames it stands on. `CodingKeys` are the snake_case names the report
/// uses; the reports encode with `JSONValueEncoder`, which writes nil as `null` with its key kept.

/// Echo metrics of a whole file.
public struct EchoMetrics: Codable, Equatable, Sendable {
    /// Echo return loss: 10·log10(P_reference / P_echo_at_mic) over the far-end single-talk frames,
    /// whole band (DC excluded). The reference is first shifted by the estimated bulk delay (whole
    /// samples) so a pure delay does not bias it. Echo at the mic is the `echo` track when given,
    /// otherwise the mic itself. Where there is no far-end single talk because the echo stayed
    /// under the mic's noise wherever the far end played alone (a wired headset, a quiet
    /// earpiece: 20 frames or more), ERL stands on those frames: the echo path's loss is the
    /// verdict there, not a gap. Over them what stands for the echo only
    /// bounds it from above (the mic without an echo track; a recorded track's dither or noise
    /// with one), and the value is a lower bound (`erlIsLowerBound`).
    public var erlDB: Double?
    /// The frames `erlDB` stands on: `gate.singleTalkFrames`, or the frames whose echo stayed
    /// under the noise where ERL stands on them; 0 where it is nil.
    public var erlFrames: Int
    public var erlIsLowerBound: Bool
    /// Echo return loss enhancement: 10·log10(P_mic / P_processed) over the far-end single-talk
    /// frames, whole band (mic and processed are time-aligned; no shift). Where the output falls
    /// under the input's noise floor or digital silence, the residual cannot be measured and this
    /// is a lower bound at the mic's power over that floor (`erleIsLowerBound`, `MeasurableFloor`).
    public var erleDB: Double?
    public var erleIsLowerBound: Bool
    /// ERLE over the last half (by count, in time order) of the far-end single-talk frames.
    public var erleSteadyDB: Double?
    public var erleSteadyIsLowerBound: Bool
    /// The frames `erleSteadyDB` is measured over (ERL and ERLE: `gate.singleTalkFrames`).
    public var erleSteadyFrames: Int
    /// Earliest series time t such that the series value at t is non-nil and every later non-nil
    /// value is within ±tolerance (3 dB) of the steady-state ERLE; nil if none or no steady state.
    public var convergenceSeconds: Double?
    /// The steady ERLE, or a window from `convergenceSeconds` on, is a bound at the mic's floor:
    /// the truth may stand over the band there, so it settled then or later (a lower bound).
    public var convergenceIsLowerBound = false
    /// Bulk delay reference→mic estimated by GCC-PHAT from the first ~32 far-end-active blocks of
    /// the call (within the first `delayWarmupSeconds`), in milliseconds — in a call that changed its echo
    /// path (a route change), the first of its searches that found one (`SegmentMetrics.delayMilliseconds`
    /// gives each segment's); nil without far-end activity, where no lag
    /// stands out, where the echo lies outside the search, or where the far end is tonal (`delayUnmeasured`,
    /// `RunEvaluator.delayUnmeasuredReason`).
    public var delayMilliseconds: Double?
    /// Why the search found no delay, where it can say more than that no lag stood out (nil then,
    /// and where the delay was measured). Not written to the metrics object (read back, it is
    /// nil); the reports' `delay_unmeasured` and `metrics`' warnings give it in words. Equality
    /// counts it: a metric read back from a report equals the one measured only where it is nil.
    public var delayUnmeasured: DelayUnmeasured?

    /// What the delay search could tell of an echo it found no delay for.
    public enum DelayUnmeasured: Equatable, Sendable {
        /// The echo lies outside the search's 0…`searchMilliseconds`: it leads the reference (a
        /// loopback recorded late), or lags it by more. The reference is then not aligned, and
        /// what is measured against it is in doubt.
        case echoOutsideSearch(searchMilliseconds: Double)
        /// The far end is tonal (a tone, a held chord: `DelayEstimator.isTonal`), so its
        /// correlation with the mic peaks at every period of its lines.
        case tonalFarEnd
        /// The gate found no echo above the mic's noise wherever the near end was silent
        /// (`minimumAnalysisFrames` or more such frames where the far end played, none of far-end
        /// single talk), so a lag that stood out in the search cannot be told from the signals'
        /// own likeness (two espeak-ng voices, unrelated, peaked at 14.7 σ), and a search that
        /// found none says no more than the gate: ERLE is null there too, and ERL at most a bound.
        /// Whichever gate judged the frames: a recording with a near-end track and no echo read a
        /// delay of 360.9 ms beside "no echo above the mic's noise".
        case noEchoAtMic
        /// No echo reached the mic in any far-end block of the delay estimate's warm-up (its
        /// first `warmupSeconds` of the call): a file or generator was the mic there, or the call
        /// was muted. The estimate reads those seconds only.
        case noEchoInWarmup(warmupSeconds: Double)
    }

    /// The search's range where it found the echo outside it, else nil.
    public var echoOutsideDelaySearchMilliseconds: Double? {
        if case .echoOutsideSearch(let range)? = delayUnmeasured { range } else { nil }
    }
    /// ERLE per non-overlapping window (0.5 s) from t = 0; a frame belongs to the window that
    /// contains its first sample. Windows without single-talk frames have a nil value.
    public var erleSeries: [ERLEPoint]
    /// ERLE per octave band [125, 250) … [8000, 16000) Hz over all single-talk frames; bands
    /// starting at or above Nyquist are left out.
    public var erleBands: [BandERLE]
    /// How frames were classified.
    public var gate: ActivityGateSummary
    /// How the near-end talker survives (attenuation, distortion in double talk and in near-end
    /// single talk); nil without a clean near-end track, when there is nothing to compare with.
    public var nearEnd: NearEndPreservation?
    /// From mic and loopback alone: the output against the tap-free gate's near talker (the near
    /// end's loss, where there is no near-end track); nil with tracks.
    public var nearEndEstimate: NearEndEstimate?
    /// TCLw and the double-talk figures in the telephony standards' terms.
    public var telephony: TelephonyMeasures?
    /// The output was digital silence in every far-end single-talk frame, the first ones
    /// included, where no canceller has converged yet, while the mic held 30 dB or more over
    /// digital silence there: it muted rather than cancelled, and its ERLE (a lower bound at the
    /// floor) cannot tell it from a perfect canceller. Not written to
    /// the metrics object (read back, it is false); the finding it raises is
    /// (`RequirementFindings.silentSendRule`). Equality counts it.
    public var isProcessedSilentInSingleTalk = false
    /// Where neither side talked, the output stood 30 dB or more under the room's own sound (the
    /// near-end track, or mic − echo) in 90 % or more of the last half of such frames: it cut that
    /// sound, which no echo is (`QuietRoomSend`), as a mute does; nil where it did not, or too few
    /// such frames tell. Not written to the metrics object (the finding it raises is:
    /// `RequirementFindings.mutedRoomRule`). Equality counts it.
    public var mutedQuietRoom: MutedQuietRoom?

    /// The frames of `mutedQuietRoom`: the last half of those where neither side talked and the
    /// room's own sound outweighed any echo, and how many of them were sent 30 dB or more under it.
    public struct MutedQuietRoom: Equatable, Sendable {
        public var frames: Int
        public var muted: Int

        public init(frames: Int, muted: Int) {
            self.frames = frames
            self.muted = muted
        }
    }

    public init(erlDB: Double?, erlFrames: Int? = nil, erlIsLowerBound: Bool = false,
                erleDB: Double?, erleIsLowerBound: Bool = false, erleSteadyDB: Double?,
                erleSteadyIsLowerBound: Bool = false, erleSteadyFrames: Int = 0, convergenceSeconds: Double?,
                delayMilliseconds: Double?, erleSeries: [ERLEPoint], erleBands: [BandERLE],
                gate: ActivityGateSummary, nearEnd: NearEndPreservation? = nil, nearEndEstimate: NearEndEstimate? = nil,
                telephony: TelephonyMeasures? = nil) {
        self.telephony = telephony
        self.nearEnd = nearEnd
        self.nearEndEstimate = nearEndEstimate
        self.erlDB = erlDB
        self.erlFrames = erlFrames ?? gate.singleTalkFrames
        self.erlIsLowerBound = erlIsLowerBound
        self.erleDB = erleDB
        self.erleIsLowerBound = erleIsLowerBound
        self.erleSteadyDB = erleSteadyDB
        self.erleSteadyIsLowerBound = erleSteadyIsLowerBound
        self.erleSteadyFrames = erleSteadyFrames
        self.convergenceSeconds = convergenceSeconds
        self.delayMilliseconds = delayMilliseconds
        self.erleSeries = erleSeries
        self.erleBands = erleBands
        self.gate = gate
    }

    enum CodingKeys: String, CodingKey {
        case erlDB = "erl_db", erlFrames = "erl_analysis_frames", erlIsLowerBound = "erl_is_lower_bound"
        case erleDB = "erle_db", erleIsLowerBound = "erle_is_lower_bound"
        case erleSteadyDB = "erle_steady_db", erleSteadyIsLowerBound = "erle_steady_is_lower_bound"
        case erleSteadyFrames = "erle_steady_analysis_frames"
        case convergenceSeconds = "convergence_s", convergenceIsLowerBound = "convergence_is_lower_bound", delayMilliseconds = "delay_ms"
        case erleSeries = "erle_series", erleBands = "erle_bands", gate, nearEnd = "near_end", nearEndEstimate = "near_end_estimate"
        case telephony
    }

    /// Reads a report's metrics; one written before ERL carried its own frames (an older
    /// baseline) stood on the single-talk frames alone, and was never a bound.
    public init(from decoder: any Decoder) throws {
        // In the order the properties are declared, so a report with two broken keys names the
        // same one as before.
        let container = try decoder.container(keyedBy: CodingKeys.self)
        erlDB = try container.decodeIfPresent(Double.self, forKey: .erlDB)
        let erlFrames = try container.decodeIfPresent(Int.self, forKey: .erlFrames)
        erlIsLowerBound = try container.decodeIfPresent(Bool.self, forKey: .erlIsLowerBound) ?? false
        erleDB = try container.decodeIfPresent(Double.self, forKey: .erleDB)
        erleIsLowerBound = try container.decode(Bool.self, forKey: .erleIsLowerBound)
        erleSteadyDB = try container.decodeIfPresent(Double.self, forKey: .erleSteadyDB)
        erleSteadyIsLowerBound = try container.decode(Bool.self, forKey: .erleSteadyIsLowerBound)
        erleSteadyFrames = try container.decode(Int.self, forKey: .erleSteadyFrames)
        convergenceSeconds = try container.decodeIfPresent(Double.self, forKey: .convergenceSeconds)
        // A report written before the key judged every convergence measured.
        convergenceIsLowerBound = try container.decodeIfPresent(Bool.self, forKey: .convergenceIsLowerBound) ?? false
        delayMilliseconds = try container.decodeIfPresent(Double.self, forKey: .delayMilliseconds)
        erleSeries = try container.decode([ERLEPoint].self, forKey: .erleSeries)
        erleBands = try container.decode([BandERLE].self, forKey: .erleBands)
        gate = try container.decode(ActivityGateSummary.self, forKey: .gate)
        self.erlFrames = erlFrames ?? gate.singleTalkFrames
        nearEnd = try container.decodeIfPresent(NearEndPreservation.self, forKey: .nearEnd)
        nearEndEstimate = try container.decodeIfPresent(NearEndEstimate.self, forKey: .nearEndEstimate)
        telephony = try container.decodeIfPresent(TelephonyMeasures.self, forKey: .telephony)
    }

    /// ERL and whole ERLE stand on too few frames to be trusted (`FigureConfidence`).
    public var isLowConfidence: Bool { FigureConfidence.isLow(frames: gate.singleTalkFrames) }
    /// ERL stands on too few frames to be trusted.
    public var isERLLowConfidence: Bool { FigureConfidence.isLow(frames: erlFrames) }
    /// The steady ERLE stands on too few frames to be trusted.
    public var isSteadyLowConfidence: Bool { FigureConfidence.isLow(frames: erleSteadyFrames) }
}

/// How many analysis frames a figure needs before it counts. A figure from fewer frames — a
/// clipped recording's handful of single-talk frames, a segment of a fifth of a second — is
/// reported with its count but marked low-confidence, and left out of means, wins and the gate:
/// 20 Welch frames are about 0.2 s of far-end single talk (a syllable or two of speech), and
/// over fewer the ratio swings by several dB with which sounds happen to fall in.
public enum FigureConfidence {
    public static let minimumAnalysisFrames = 20

    /// Whether a figure over `frames` analysis frames is too thin to count (a figure over none
    /// has no value at all).
    public static func isLow(frames: Int) -> Bool { frames > 0 && frames < minimumAnalysisFrames }

    /// "low confidence: 6 analysis frames": how the pages and the findings' consequences mark a
    /// figure that `isLow`, in one wording.
    public static func mark(frames: Int) -> String { "low confidence: \(frames) analysis frame\(frames == 1 ? "" : "s")" }
}

/// One point of the ERLE time series: the window starting at `timeSeconds`, over the single-talk
/// frames in it (a window holds ~47 at most: a plot, not a figure to judge by).
public struct ERLEPoint: Codable, Equatable, Sendable {
    /// The windows convergence is read from: measured ones holding at least a quarter of the
    /// fullest window's frames (a call's last window, on a few frames, is no settling).
    public static func convergenceWindows(_ series: [ERLEPoint]) -> [ERLEPoint] {
        let fullest = series.lazy.map(\.frames).max() ?? 0
        return series.filter { $0.erleDB != nil && 4 * $0.frames >= fullest }
    }

    public var timeSeconds: Double
    public var erleDB: Double?
    public var isLowerBound: Bool
    public var frames: Int

    public init(timeSeconds: Double, erleDB: Double?, isLowerBound: Bool = false, frames: Int = 0) {
        self.timeSeconds = timeSeconds
        self.erleDB = erleDB
        self.isLowerBound = isLowerBound
        self.frames = frames
    }

    enum CodingKeys: String, CodingKey {
        case timeSeconds = "t_s", erleDB = "erle_db", isLowerBound = "is_lower_bound", frames = "analysis_frames"
    }
}

extension EchoMetrics {
    /// Where there is no far-end single talk, the bands and TCLw that say only that say the
    /// reason the caller gives for it (`echo_unmeasured`: a file mic sent, the far end was silent
    /// throughout, a mute throughout): "no far-end single talk to measure" alone read as a call
    /// that never found its far end, beside the call's own reason. Bands with a reason of their
    /// own (the echo under the noise) keep it.
    public mutating func sayWhyNoSingleTalk(_ reason: String) {
        guard gate.singleTalkFrames == 0 else { return }
        for index in erleBands.indices where erleBands[index].unmeasuredReason == BandERLE.noSingleTalkReason {
            erleBands[index].unmeasuredReason = reason
        }
        if telephony?.echoLossUnmeasuredReason == TelephonyMeasures.noSingleTalkReason {
            telephony?.echoLossUnmeasuredReason = reason
        }
    }
}

/// ERLE in one octave band [lowHz, highHz): bins whose centre frequency lies in the band.
public struct BandERLE: Codable, Equatable, Sendable {
    public var lowHz: Double
    public var highHz: Double
    public var erleDB: Double?
    /// The band's output fell under digital silence: `erleDB` is a lower bound.
    public var isLowerBound: Bool
    /// Why `erleDB` is null (`noFarEndReason`, `noEchoReason`, `noSingleTalkReason`,
    /// `echoUnderFloorReason`, `echoUnderNoiseReason`); nil where it is measured.
    public var unmeasuredReason: String?

    /// The far end puts nothing above the band's floor (16 kHz speech's 8–16 kHz).
    public static let noFarEndReason = "no far-end content in this band (the reference stays under its floor): no echo to remove"
    /// The far end reaches the band, but its echo at the mic does not rise above the floor.
    public static let noEchoReason = "the mic stays under the band's floor: no echo to remove"
    /// No frame of far-end single talk: no band has one to measure.
    public static let noSingleTalkReason = "no far-end single talk to measure"
    /// Far-end single talk whose echo at the mic stays under its floor throughout (an ERL, no
    /// ERLE): what a band measured there was the canceller's treatment of the noise.
    public static let echoUnderFloorReason = "the echo at the mic stays under its floor in all far-end single talk: no echo to remove"
    /// No far-end single talk because the echo stayed under the mic's noise wherever the far end
    /// played alone (a wired headset).
    public static let echoUnderNoiseReason = "the echo stays under the mic's noise wherever the far end plays alone: no echo to remove"

    public init(lowHz: Double, highHz: Double, erleDB: Double?, isLowerBound: Bool = false, unmeasuredReason: String? = nil) {
        self.lowHz = lowHz
        self.highHz = highHz
        self.erleDB = erleDB
        self.isLowerBound = isLowerBound
        self.unmeasuredReason = unmeasuredReason
    }

    enum CodingKeys: String, CodingKey {
        case lowHz = "low_hz", highHz = "high_hz", erleDB = "erle_db", isLowerBound = "is_lower_bound"
        case unmeasuredReason = "unmeasured_reason"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        lowHz = try container.decode(Double.self, forKey: .lowHz)
        highHz = try container.decode(Double.self, forKey: .highHz)
        erleDB = try container.decodeIfPresent(Double.self, forKey: .erleDB)
        isLowerBound = try container.decodeIfPresent(Bool.self, forKey: .isLowerBound) ?? false
        unmeasuredReason = try container.decodeIfPresent(String.self, forKey: .unmeasuredReason)
    }

    /// The reason only where there is one: a measured band's JSON stays as it was.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(lowHz, forKey: .lowHz)
        try container.encode(highHz, forKey: .highHz)
        if let erleDB { try container.encode(erleDB, forKey: .erleDB) } else { try container.encodeNil(forKey: .erleDB) }
        try container.encode(isLowerBound, forKey: .isLowerBound)
        if let unmeasuredReason { try container.encode(unmeasuredReason, forKey: .unmeasuredReason) }
    }
}

/// Where the near-end-silence decision came from, so a reader knows how much to trust the gate.
public enum ActivityGateMethod: String, Codable, Sendable {
    /// The near-end track itself was measured.
    case nearEndTrack = "near_end_track"
    /// The near end was estimated as mic − echo, sample by sample.
    case micMinusEcho = "mic_minus_echo"
    /// No tracks: the echo path reference → mic was fitted offline over the whole call and the
    /// near end judged from the mic's residual after the predicted echo (`EchoPathGate`).
    case echoPathFit = "echo_path_fit"
    /// Nothing told near end from echo: every far-end-active frame counts as single talk.
    case farEndOnly = "far_end_only"
}

/// Frame counts per class. `singleTalkFrames + doubleTalkFrames == farEndActiveFrames`, unless a
/// `limitation` left the frames unjudged: then both are 0.
public struct ActivityGateSummary: Codable, Equatable, Sendable {
    public var method: ActivityGateMethod
    /// All Welch frames of the analysed length.
    public var frames: Int
    /// Frames whose delay-aligned reference is at or above the far-end threshold.
    public var farEndActiveFrames: Int
    /// Far-end active and near end silent: the frames ERL and ERLE are measured over.
    public var singleTalkFrames: Int
    /// Far-end active while the near end talks: excluded from ERL and ERLE.
    public var doubleTalkFrames: Int
    /// Why the gate could not tell the near end from the echo, when it could not (nil: it could).
    /// Then no frame is judged: none is single or double talk, and ERL and ERLE are null rather
    /// than a guess.
    public var limitation: ActivityGateLimitation?
    /// Frames whose reference played while the near end was silent but whose echo stayed under
    /// what else the mic held (not far-end active): says why a call has no single talk. Not
    /// written to the reports (read back, it is 0); the reason they give is. Equality counts it.
    public var echoUnderNoiseFrames = 0

    /// No far-end single talk, and enough frames to count where the far end played alone with
    /// its echo under the mic's noise: the echo never rose above the noise (a wired headset).
    public var echoStaysUnderNoise: Bool {
        singleTalkFrames == 0 && echoUnderNoiseFrames >= FigureConfidence.minimumAnalysisFrames
    }

    public init(method: ActivityGateMethod, frames: Int, farEndActiveFrames: Int,
                singleTalkFrames: Int, doubleTalkFrames: Int, limitation: ActivityGateLimitation? = nil,
                echoUnderNoiseFrames: Int = 0) {
        self.limitation = limitation
        self.echoUnderNoiseFrames = echoUnderNoiseFrames
        self.method = method
        self.frames = frames
        self.farEndActiveFrames = farEndActiveFrames
        self.singleTalkFrames = singleTalkFrames
        self.doubleTalkFrames = doubleTalkFrames
    }

    enum CodingKeys: String, CodingKey {
        // Welch analysis frames, named so: a "frame" in the reports is only ever a PCM frame.
        case method, frames = "analysis_frames"
        case farEndActiveFrames = "far_end_active_analysis_frames"
        case singleTalkFrames = "single_talk_analysis_frames"
        case doubleTalkFrames = "double_talk_analysis_frames"
        case limitation
    }
}

/// Why a gate could not decide who talked.
public enum ActivityGateLimitation: String, Codable, Sendable {
    /// `echo_path_fit` only: the echo path fitted from mic and loopback (linear, after the
    /// loudspeaker's clipping when it clips) leaves an error at or above the gate's echo cut in
    /// 95 % or more of the frames loud enough to judge — a non-linear loudspeaker or path no
    /// model here explains — so a talker cannot be told from that error.
    case echoNotExplained = "echo_not_explained"
    /// `echo_path_fit` only: the delay search found the echo outside its range (it leads the
    /// loopback, or lags it by more than the search reaches): the fit, causal and 341 ms long
    /// from the unshifted loopback, cannot model it.
    case echoOutsideDelaySearch = "echo_outside_delay_search"
    /// `echo_path_fit` only: the recording is shorter than one fitting block, and the samples
    /// left to fit, after the stretches the fit leaves out (a talker, or noise above the silence
    /// level), are no more than the path's taps (`EchoMetricsConfiguration.delayBlockSize`: a
    /// third to half a second, by rate): no path can be told from a fit of noise, and every
    /// frame would read as a talker.
    case tooShortToFit = "too_short_to_fit"
}

/// Metrics of one part of a file (a timeline segment), over the Welch frames lying wholly
/// inside `startSample..<endSample`. Times are relative to `startSample`.
public struct SegmentMetrics: Codable, Equatable, Sendable {
    public var startSample: Int
    public var endSample: Int
    public var erlDB: Double?
    /// The frames `erlDB` stands on (as `EchoMetrics.erlFrames`) and whether it is a bound.
    public var erlFrames: Int
    public var erlIsLowerBound: Bool
    public var erleDB: Double?
    public var erleIsLowerBound: Bool
    public var erleSteadyDB: Double?
    public var erleSteadyIsLowerBound: Bool
    /// Seconds after `startSample` at which ERLE settles within tolerance of the segment's steady state.
    public var convergenceSeconds: Double?
    /// A lower bound, a bound at the mic's floor from then on (`EchoMetrics.convergenceIsLowerBound`).
    public var convergenceIsLowerBound = false
    /// Far-end single-talk frames inside the segment (ERL and ERLE are measured over them).
    public var singleTalkFrames: Int
    /// The last half of them, which the steady ERLE is measured over.
    public var erleSteadyFrames: Int
    /// The segment's own bulk delay, where the call searched it again at an echo-path change (a
    /// route change): the search in force over the segment; nil where it found none. Written
    /// (`delay_ms`) only then (`hasOwnDelay`): otherwise the call's delay is every
    /// segment's.
    public var delayMilliseconds: Double? = nil
    public var hasOwnDelay = false

    public init(startSample: Int, endSample: Int, erlDB: Double?, erlFrames: Int? = nil, erlIsLowerBound: Bool = false,
                erleDB: Double?, erleIsLowerBound: Bool = false,
                erleSteadyDB: Double?, erleSteadyIsLowerBound: Bool = false, convergenceSeconds: Double?,
                singleTalkFrames: Int, erleSteadyFrames: Int = 0) {
        self.startSample = startSample
        self.endSample = endSample
        self.erlDB = erlDB
        self.erlFrames = erlFrames ?? singleTalkFrames
        self.erlIsLowerBound = erlIsLowerBound
        self.erleDB = erleDB
        self.erleIsLowerBound = erleIsLowerBound
        self.erleSteadyDB = erleSteadyDB
        self.erleSteadyIsLowerBound = erleSteadyIsLowerBound
        self.convergenceSeconds = convergenceSeconds
        self.singleTalkFrames = singleTalkFrames
        self.erleSteadyFrames = erleSteadyFrames
    }

    enum CodingKeys: String, CodingKey {
        case startSample = "start_sample", endSample = "end_sample"
        case erlDB = "erl_db", erlFrames = "erl_analysis_frames", erlIsLowerBound = "erl_is_lower_bound"
        case erleDB = "erle_db", erleIsLowerBound = "erle_is_lower_bound"
        case erleSteadyDB = "erle_steady_db", erleSteadyIsLowerBound = "erle_steady_is_lower_bound"
        case convergenceSeconds = "convergence_s", convergenceIsLowerBound = "convergence_is_lower_bound"
        case singleTalkFrames = "single_talk_analysis_frames"
        case erleSteadyFrames = "erle_steady_analysis_frames"
        case delayMilliseconds = "delay_ms"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(startSample, forKey: .startSample)
        try container.encode(endSample, forKey: .endSample)
        try container.encodeIfPresent(erlDB, forKey: .erlDB)
        try container.encode(erlFrames, forKey: .erlFrames)
        try container.encode(erlIsLowerBound, forKey: .erlIsLowerBound)
        try container.encodeIfPresent(erleDB, forKey: .erleDB)
        try container.encode(erleIsLowerBound, forKey: .erleIsLowerBound)
        try container.encodeIfPresent(erleSteadyDB, forKey: .erleSteadyDB)
        try container.encode(erleSteadyIsLowerBound, forKey: .erleSteadyIsLowerBound)
        try container.encodeIfPresent(convergenceSeconds, forKey: .convergenceSeconds)
        try container.encode(convergenceIsLowerBound, forKey: .convergenceIsLowerBound)
        try container.encode(singleTalkFrames, forKey: .singleTalkFrames)
        try container.encode(erleSteadyFrames, forKey: .erleSteadyFrames)
        if hasOwnDelay { try container.encode(delayMilliseconds, forKey: .delayMilliseconds) }
    }

    /// Reads a segment; one written before ERL carried its own frames stood on the single talk.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        startSample = try container.decode(Int.self, forKey: .startSample)
        endSample = try container.decode(Int.self, forKey: .endSample)
        erlDB = try container.decodeIfPresent(Double.self, forKey: .erlDB)
        let erlFrames = try container.decodeIfPresent(Int.self, forKey: .erlFrames)
        erlIsLowerBound = try container.decodeIfPresent(Bool.self, forKey: .erlIsLowerBound) ?? false
        erleDB = try container.decodeIfPresent(Double.self, forKey: .erleDB)
        erleIsLowerBound = try container.decode(Bool.self, forKey: .erleIsLowerBound)
        erleSteadyDB = try container.decodeIfPresent(Double.self, forKey: .erleSteadyDB)
        erleSteadyIsLowerBound = try container.decode(Bool.self, forKey: .erleSteadyIsLowerBound)
        convergenceSeconds = try container.decodeIfPresent(Double.self, forKey: .convergenceSeconds)
        convergenceIsLowerBound = try container.decodeIfPresent(Bool.self, forKey: .convergenceIsLowerBound) ?? false
        singleTalkFrames = try container.decode(Int.self, forKey: .singleTalkFrames)
        self.erlFrames = erlFrames ?? singleTalkFrames
        erleSteadyFrames = try container.decode(Int.self, forKey: .erleSteadyFrames)
        hasOwnDelay = container.contains(.delayMilliseconds)
        delayMilliseconds = try container.decodeIfPresent(Double.self, forKey: .delayMilliseconds)
    }

    /// ERL and ERLE stand on too few frames to be trusted (`FigureConfidence`).
    public var isLowConfidence: Bool { FigureConfidence.isLow(frames: singleTalkFrames) }
    public var isSteadyLowConfidence: Bool { FigureConfidence.isLow(frames: erleSteadyFrames) }
    /// ERL stands on too few frames to be trusted.
    public var isERLLowConfidence: Bool { FigureConfidence.isLow(frames: erlFrames) }
}
