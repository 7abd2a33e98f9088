/// The result of one analysis: whole-file metrics, per-segment metrics, and the per-frame ledger
/// they were aggregated from, so further questions (another range, re-convergence after an
/// instant) are answered without touching the audio again.
public struct EchoAnalysis: Sendable {
    /// Metrics of the whole analysed length.
    public let whole: EchoMetrics
    /// One entry per requested segment, in the order given (clipped to the analysed length).
    public let segments: [SegmentMetrics]
    public let sampleRate: Int
    /// Samples analysed: the shortest common length of the inputs.
    public let sampleCount: Int
    /// Set by `EchoAnalyzer.analyzeFiles` when the files differ in length (within the
    /// tolerance): only the overlap, `sampleCount` samples, was scored.
    public internal(set) var lengthMismatch: LengthMismatch?
    /// Set by `EchoAnalyzer.analyzeFiles`: the mic's and the reference's full-scale samples, and
    /// whether either is digital silence (nil for signals analysed in memory).
    public internal(set) var inputs: InputCensus?
    /// The activity gate's decision per analysis frame, run-length encoded, in time order.
    public let talkRuns: [TalkRun]
    /// The activity gate's decisions per window of about half a second (every call has them).
    public let talkActivity: TalkActivity
    /// The analysis frame's length in samples (frames are half of it apart).
    public var frameSize: Int { ledger.frames.frameSize }
    /// Why the call's metric rows could not be spilled to disk or read back, if they could not: a
    /// figure read after a failed read back is not the call's (`SpillingRows`).
    public var spillError: SpillError? { ledger.spillError }
    let ledger: FrameLedger
    let configuration: EchoMetricsConfiguration

    /// The stream's delay searches: the first from sample 0, one more from each echo-path change
    /// its owner reported (`EchoAnalysisStream.searchDelayAgain(from:)`).
    public let delaySearches: [DelaySearch]

    /// How much louder the output is than the mic (dB) where the far end played alone and its echo
    /// stayed under the mic's noise, in a call with no far-end single talk and 20 or more such
    /// frames (nil otherwise). There ERLE has no meaning, but an output 10 dB over its mic still says
    /// what a negative ERLE says elsewhere: the mic and the output swapped (a canceller's output,
    /// its echo removed, given as the mic reads "no echo to cancel"), or a gain after the mic.
    public let outputOverMicWhereEchoUnderNoiseDB: Double?

    init(whole: EchoMetrics, segmentRanges: [Range<Int>], sampleCount: Int, ledger: FrameLedger,
         configuration: EchoMetricsConfiguration, talkRuns: [TalkRun] = [], talkActivity: TalkActivity,
         delaySearches: [DelaySearch] = [], outputOverMicWhereEchoUnderNoiseDB: Double? = nil) {
        self.outputOverMicWhereEchoUnderNoiseDB = outputOverMicWhereEchoUnderNoiseDB
        self.delaySearches = delaySearches
        self.talkRuns = talkRuns
        self.talkActivity = talkActivity
        self.whole = whole
        self.sampleRate = ledger.sampleRate
        self.sampleCount = sampleCount
        self.ledger = ledger
        self.configuration = configuration
        segments = segmentRanges.map {
            var metrics = Self.metrics(in: $0, ledger: ledger, sampleCount: sampleCount, configuration: configuration,
                                       from: Self.pathStart(of: $0, searches: delaySearches, sampleRate: ledger.sampleRate))
            // Searched again at an echo-path change, the delay is the segment's own: the search in
            // force at its middle (a change lands in the stream the send latency after its event).
            // Where the segment's echo stays under the mic's noise, a lag is the signals' likeness,
            // not an echo's: none, as for a whole call on such a route.
            if delaySearches.count > 1 {
                let middle = $0.lowerBound + $0.count / 2
                metrics.delayMilliseconds = metrics.erlIsLowerBound ? nil
                    : (delaySearches.last { $0.startSample <= middle } ?? delaySearches[0]).delaySamples.map { $0 * 1000 / Double(ledger.sampleRate) }
                metrics.hasOwnDelay = true
            }
            return metrics
        }
    }

    /// ERL/ERLE/steady/convergence over the Welch frames wholly inside `range` (clipped to the
    /// analysed length), with the ERLE series restarted at `range.lowerBound`: convergence is
    /// relative to the start of the range.
    public func metrics(in range: Range<Int>) -> SegmentMetrics {
        Self.metrics(in: range, ledger: ledger, sampleCount: sampleCount, configuration: configuration,
                     from: Self.pathStart(of: range, searches: delaySearches, sampleRate: sampleRate))
    }

    /// Where the figures of `range` start: where an echo-path change that opens it reaches the
    /// stream (its search's start, within the range's first 100 ms: the change's event is at the
    /// range's start, what it does to the mic reaches what was sent the send latency later, 7 to
    /// 30 ms), else the range's start. The frames before it hold the old path's echo: a wired headset's segment
    /// after the speaker read the speaker's echo in its one single-talk frame (ERL 17.1 dB, ERLE
    /// −10.9 dB), and a receiver's read 29.1 dB where the receiver all call reads 31.2.
    static func pathStart(of range: Range<Int>, searches: [DelaySearch], sampleRate: Int) -> Int {
        searches.dropFirst().first { $0.startSample > range.lowerBound && $0.startSample - range.lowerBound <= sampleRate / 10
                                     && $0.startSample < range.upperBound }?.startSample ?? range.lowerBound
    }

    /// The figures over the frames wholly inside `range` from `start` on; the convergence still
    /// counts from `range`'s start.
    private static func metrics(in range: Range<Int>, ledger: FrameLedger, sampleCount: Int,
                                configuration: EchoMetricsConfiguration, from start: Int) -> SegmentMetrics {
        let sampleRate = ledger.sampleRate
        let clipped = range.clamped(to: 0..<sampleCount)
        let measured = min(max(start, clipped.lowerBound), clipped.upperBound)..<clipped.upperBound
        let summary = ledger.summary(in: measured,
                                     stepSamples: configuration.seriesStepSamples(forSampleRate: sampleRate),
                                     toleranceDB: configuration.convergenceToleranceDB)
        let lead = Double(measured.lowerBound - clipped.lowerBound) / Double(sampleRate)
        var segment = SegmentMetrics(startSample: clipped.lowerBound, endSample: clipped.upperBound,
                                  erlDB: summary.erlDB, erlFrames: summary.erlFrames, erlIsLowerBound: summary.erlIsLowerBound,
                                  erleDB: summary.erleDB, erleIsLowerBound: summary.erleIsLowerBound,
                                  erleSteadyDB: summary.erleSteadyDB, erleSteadyIsLowerBound: summary.erleSteadyIsLowerBound,
                                  convergenceSeconds: summary.convergenceSeconds.map { $0 + lead },
                                  singleTalkFrames: summary.singleTalkFrames, erleSteadyFrames: summary.steadyFrames)
        segment.convergenceIsLowerBound = summary.convergenceIsLowerBound
        return segment
    }

    /// Where the frames the whole call's TCLw (`whole.telephony.echoLoss`) stands on start, the
    /// first's through the last's; nil where it stands on none.
    public var echoLossFrameStarts: ClosedRange<Int>? { ledger.echoLossFrameStarts(in: 0..<sampleCount) }

    /// Re-convergence after an instant (an echo-path change, a route switch): seconds from
    /// `sample` until the ERLE series restarted at `sample` (0.5 s windows) stays within the
    /// tolerance of the steady-state ERLE of the stretch after `sample`. That stretch ends at the
    /// end of the requested segment containing `sample`, or at the end of the file when no
    /// segment contains it. nil when the stretch has no far-end single talk or never settles.
    public func reconvergenceSeconds(after sample: Int) -> Double? {
        guard sample >= 0, sample < sampleCount else { return nil }
        let end = segments.first { ($0.startSample..<$0.endSample).contains(sample) }?.endSample ?? sampleCount
        return metrics(in: sample..<end).convergenceSeconds
    }
}

/// Files of different lengths scored on their overlap: what was analysed and each file's length.
public struct LengthMismatch: Codable, Equatable, Sendable {
    public struct File: Codable, Equatable, Sendable {
        public var file: String
        public var samples: Int

        public init(file: String, samples: Int) {
            self.file = file
            self.samples = samples
        }
    }
    /// Samples scored: the shortest file's length.
    public var analysedSamples: Int
    /// Every input in command-line order (reference, mic, processed, echo, near end).
    public var files: [File]

    public init(analysedSamples: Int, files: [File]) {
        self.analysedSamples = analysedSamples
        self.files = files
    }

    enum CodingKeys: String, CodingKey {
        case analysedSamples = "analysed_samples", files
    }
}
