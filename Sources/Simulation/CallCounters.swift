import AudioCore

/// Where every sample went: per-buffer counters of the pipeline, as reported in `pipeline`.
public struct BufferCounters: Hashable, Sendable {
    public var written: Int64 = 0
    public var read: Int64 = 0
    public var dropped: Int64 = 0
    public var buffered: Int64 = 0
    public var underruns = 0
    public var overruns = 0
    public var primingSamples: Int64 = 0
    /// Frames (at the app's rate) the resampler between the app and this buffer refused: they
    /// never reached it (pushes) or were replaced by silence (pulls). Counted drops.
    public var rejectedFrames: Int64 = 0

    public init() {}

    /// written = read + dropped + buffered: nothing that reached the buffer vanished without a
    /// counter (what never reached it is in `rejectedFrames`).
    public var isConserved: Bool { written == read + dropped + buffered }
}

/// Samples beyond full scale (±1), saturated, per stage: the engine models the device's DAC and
/// ADC, which cannot go past full scale, so a too-loud signal is clipped where a real one is —
/// and counted — instead of passing linearly and saturating later inside the canceller.
public struct ClippedSamples: Hashable, Sendable {
    /// The far end as the engine plays it out (downlink above full scale).
    public var playout: Int64 = 0
    /// The loudspeaker drive: the playout plus what the app plays.
    public var loudspeaker: Int64 = 0
    /// The microphone's ADC: echo + near end + noise.
    public var mic: Int64 = 0
    /// The send path's input (a custom mic pushing audio above full scale, or NaN: taken as 0).
    public var capture: Int64 = 0
    /// The canceller's reference (a user reference above full scale).
    public var reference: Int64 = 0
    /// From the first to the end of the last tick in which the playout or the loudspeaker drive
    /// clipped (engine samples).
    public var loudspeakerStretch: Range<Int64>?
    /// The same for the microphone.
    public var micStretch: Range<Int64>?

    public init() {}

    public var total: Int64 { playout + loudspeaker + mic + capture + reference }
}

/// How long the peer's audio waited in the app's hands between the engine's reference and the
/// room, while a custom speaker drove the loudspeaker and the engine fed the canceller's
/// reference itself (no user reference: the reference is what the engine hands the app): the
/// engine's playout buffer the app pulls from, then the loudspeaker's buffer it plays into.
/// Little's law over whole ticks: a sample counted in the two buffers' level (after the engine's
/// write, before the loudspeaker's read) at each tick from its write to its read waits one tick
/// less than it is counted, so the mean wait is the mean level less a tick. The law needs the
/// audio that enters to leave by being played: counted from the loudspeaker's first played tick,
/// and again after the last drop or underrun. A timer that pulls and plays a period at a time
/// holds the audio about two periods, whatever its phase, and no canceller's filter reaches past
/// what it adds.
public struct CustomSpeakerDelay: Hashable, Sendable {
    /// Σ over the ticks of the two buffers' level, in samples.
    public var queuedSamples: Int64 = 0
    public var ticks: Int64 = 0
    /// Samples in a tick (the engine's 10 ms).
    public var tickFrames = 0

    public init() {}

    /// The mean wait in samples; nil without such a tick.
    public var meanFrames: Double? {
        ticks > 0 ? max(0, Double(queuedSamples) / Double(ticks) - Double(tickFrames)) : nil
    }

    /// The mean wait in milliseconds (engine samples); nil without such a tick.
    public var meanMilliseconds: Double? { meanFrames.map { $0 * 1000 / Double(AudioFormat.engine.sampleRate) } }
}

/// The pipeline's health for one call.
public struct PipelineCounters: Hashable, Sendable {
    /// Engine ticks (10 ms blocks) processed: `pipeline.ticks` in the reports.
    public var ticks: Int64 = 0
    /// Custom mic uplink (app pushes → engine).
    public var uplink = BufferCounters()
    /// Custom speaker playout (engine → app pulls).
    public var playout = BufferCounters()
    /// Each custom speaker's playout, in the order the call first attached them
    /// (`DeviceState.customSpeakerIndex`): `playout` is their sum.
    public var speakerPlayouts: [BufferCounters] = []
    /// User AEC reference (app puts → canceller).
    public var userReference = BufferCounters()
    /// App-driven loudspeaker (app plays → room).
    public var loudspeaker = BufferCounters()
    /// Audio the app pushed while its device was not selected (ignored by the SDK).
    public var ignoredFrames: Int64 = 0
    /// Samples saturated at full scale, per stage.
    public var clippedSamples = ClippedSamples()
    /// Times the canceller reset its diverged filter (speexdsp's "got slapped").
    public var cancellerResets = 0
    /// The app's custom speaker's buffering after the engine's reference (`CustomSpeakerDelay`).
    public var customSpeakerDelay = CustomSpeakerDelay()
    /// Each custom mic's own uplink buffer (and the frames its converter refused), in the order
    /// the call first attached them (`DeviceState.customMicIndex`): `uplink` is their sum.
    public var micUplinks: [BufferCounters] = []
    /// The app-driven loudspeaker's faults while each custom speaker was set (overruns, what they
    /// dropped, frames refused), in `speakerPlayouts`' order: a fault is its own speaker's, not
    /// every speaker's the call had.
    public var speakerLoudspeakers: [BufferCounters] = []

    public init() {}

    /// Every buffer's, the loudspeaker's too, as `overruns` counts them: the headline a report
    /// prints above its buffers' table is their sum.
    public var underruns: Int { uplink.underruns + playout.underruns + userReference.underruns + loudspeaker.underruns }
    public var overruns: Int { uplink.overruns + playout.overruns + userReference.overruns + loudspeaker.overruns }
}
