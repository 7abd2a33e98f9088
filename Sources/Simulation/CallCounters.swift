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

/// The pipeline's health for one call.
public struct PipelineCounters: Hashable, Sendable {
    /// Engine ticks (10 ms frames) processed.
    public var frames: Int64 = 0
    /// Custom mic uplink (app pushes → engine).
    public var uplink = BufferCounters()
    /// Custom speaker playout (engine → app pulls).
    public var playout = BufferCounters()
    /// User AEC reference (app puts → canceller).
    public var userReference = BufferCounters()
    /// App-driven loudspeaker (app plays → room).
    public var loudspeaker = BufferCounters()
    /// Audio the app pushed while its device was not selected (ignored by the SDK).
    public var ignoredFrames: Int64 = 0

    public init() {}

    public var underruns: Int { uplink.underruns + playout.underruns + userReference.underruns }
    public var overruns: Int { uplink.overruns + playout.overruns + userReference.overruns + loudspeaker.overruns }
}
