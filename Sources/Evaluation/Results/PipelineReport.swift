import Simulation

/// A run's pipeline health as `report.json`'s `pipeline` object gives it (and `eval.json` per
/// run): the engine's counters, the sent audio's clicks and gaps, and each buffer's conservation.
/// Counts of samples and PCM frames; `ticks` are the engine's 10 ms ticks.
public struct PipelineReport: Codable, Sendable, Equatable {
    public struct Buffer: Codable, Sendable, Equatable {
        public var written: Int64
        public var read: Int64
        public var dropped: Int64
        public var buffered: Int64
        public var underruns: Int
        public var overruns: Int
        public var primingSamples: Int64
        public var rejectedFrames: Int64
        /// written = read + dropped + buffered.
        public var isConserved: Bool

        enum CodingKeys: String, CodingKey {
            case written, read, dropped, buffered, underruns, overruns
            case isConserved = "conserved"
            case primingSamples = "priming_samples", rejectedFrames = "rejected_frames"
        }

        public init(_ counters: BufferCounters) {
            written = counters.written
            read = counters.read
            dropped = counters.dropped
            buffered = counters.buffered
            underruns = counters.underruns
            overruns = counters.overruns
            primingSamples = counters.primingSamples
            rejectedFrames = counters.rejectedFrames
            isConserved = counters.isConserved
        }
    }

    public struct Clipped: Codable, Sendable, Equatable {
        public var playout: Int64
        public var loudspeaker: Int64
        public var mic: Int64
        public var capture: Int64
        public var reference: Int64
    }

    public var ticks: Int64
    public var underruns: Int
    public var overruns: Int
    /// PCM frames the app pushed while its device was not selected.
    public var ignoredFrames: Int64
    public var uplink: Buffer
    public var playout: Buffer
    public var userReference: Buffer
    public var loudspeaker: Buffer
    public var sentClicks: Int
    public var sentGaps: Int
    public var clippedSamples: Clipped
    public var aecResets: Int
    /// The mean time the peer's audio spent in the app's custom speaker between the engine's
    /// reference and the room (`CustomSpeakerDelay`), in ms; nil where no custom speaker drove
    /// the loudspeaker with the engine's reference (and in a report written before it was kept).
    public var customSpeakerDelayMilliseconds: Double?

    enum CodingKeys: String, CodingKey {
        case ticks, underruns, overruns, uplink, playout, loudspeaker
        case ignoredFrames = "ignored_frames", userReference = "user_reference", sentClicks = "sent_clicks"
        case sentGaps = "sent_gaps", clippedSamples = "clipped_samples", aecResets = "aec_resets"
        case customSpeakerDelayMilliseconds = "custom_speaker_delay_ms"
    }

    public init(_ counters: PipelineCounters, sentClicks: Int, sentGaps: Int) {
        ticks = counters.ticks
        underruns = counters.underruns
        overruns = counters.overruns
        ignoredFrames = counters.ignoredFrames
        uplink = Buffer(counters.uplink)
        playout = Buffer(counters.playout)
        userReference = Buffer(counters.userReference)
        loudspeaker = Buffer(counters.loudspeaker)
        self.sentClicks = sentClicks
        self.sentGaps = sentGaps
        let clipped = counters.clippedSamples
        clippedSamples = Clipped(playout: clipped.playout, loudspeaker: clipped.loudspeaker, mic: clipped.mic,
                                 capture: clipped.capture, reference: clipped.reference)
        aecResets = counters.cancellerResets
        customSpeakerDelayMilliseconds = counters.customSpeakerDelay.meanMilliseconds
    }

    /// The buffers by their report names, in the report's order.
    public var buffers: [(name: String, counters: Buffer)] {
        [("uplink", uplink), ("playout", playout), ("user_reference", userReference), ("loudspeaker", loudspeaker)]
    }
}
