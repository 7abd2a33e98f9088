/// A recording run's faults, as `eval.json` lists them in the run's `pipeline` (a simulated run's
/// holds the engine's counters, `PipelineReport`): the canceller's resets, and the samples of the
/// mic and the loopback at full scale. `compare` fails a run whose count rose, as it does a
/// simulated run's; the pages count the resets as pipeline issues.
public struct RecordingHealth: Codable, Sendable, Equatable {
    public struct Clipped: Codable, Sendable, Equatable {
        public var mic: Int
        /// nil (null) where the recording has no loopback.
        public var loopback: Int?
    }

    public var aecResets: Int
    public var clippedSamples: Clipped

    /// The mic or the loopback reached full scale somewhere.
    public var isClipped: Bool { clippedSamples.mic > 0 || (clippedSamples.loopback ?? 0) > 0 }

    public init(aecResets: Int, clippedMicSamples: Int, clippedLoopbackSamples: Int?) {
        self.aecResets = aecResets
        clippedSamples = Clipped(mic: clippedMicSamples, loopback: clippedLoopbackSamples)
    }

    enum CodingKeys: String, CodingKey {
        case aecResets = "aec_resets", clippedSamples = "clipped_samples"
    }
}
