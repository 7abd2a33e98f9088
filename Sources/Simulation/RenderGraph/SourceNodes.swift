import AudioCore

/// A file player (or any `SignalSource`: a generator plays forever). A file that does not loop
/// reports `insufficientData` once it has run out, and renders silence after.
public final class PlayerNode: RenderNode {
    let source: BlockSource
    public let maximumFrames: Int

    public init(source: SignalSource, sampleRate: Int, loops: Bool = false, maximumFrames: Int) throws {
        self.source = try BlockSource(source, sampleRate: sampleRate, loops: loops)
        self.maximumFrames = maximumFrames
    }

    init(blockSource: BlockSource, maximumFrames: Int) {
        source = blockSource
        self.maximumFrames = maximumFrames
    }

    public func render(into buffer: inout [Float], frames: Int) throws -> RenderStatus {
        let real = try source.read(into: &buffer, count: frames)
        return real == frames ? .complete : .insufficientData(rendered: real)
    }
}

/// A sine tone at a level (a test signal, a ring-back tone): never runs dry.
public final class ToneNode: RenderNode {
    private var generator: SignalGenerator
    public let maximumFrames: Int

    public init(frequency: Double, levelDBFS: Double, sampleRate: Int, maximumFrames: Int) {
        generator = SignalGenerator(kind: .tone(frequency: frequency, levelDBFS: levelDBFS), sampleRate: sampleRate, seed: 0)
        self.maximumFrames = maximumFrames
    }

    public func render(into buffer: inout [Float], frames: Int) throws -> RenderStatus {
        generator.fill(&buffer, count: frames)
        return .complete
    }
}

/// The call's playout as a source: pulls what the peer said from a custom speaker
/// (`playAudio(into:)`, at the speaker's rate, channel count and sample type) and renders it mono.
/// Fewer real frames than asked (the engine's playout ran dry) is `insufficientData`.
public final class PlayoutNode: RenderNode {
    unowned let speaker: CustomSpeaker
    private var frame: AppFrameBuffer
    public var maximumFrames: Int { frame.frameCount }

    /// `options` give the pull's format; one pull is `options.framesPerPeriod` frames.
    public init(speaker: CustomSpeaker, options: AppDeviceOptions) {
        self.speaker = speaker
        frame = AppFrameBuffer(options: options)
    }

    public func render(into buffer: inout [Float], frames: Int) throws -> RenderStatus {
        guard frames <= frame.frameCount else { throw RenderGraphError.tooManyFrames(requested: frames, maximum: frame.frameCount) }
        let bytes = frame.pull(from: speaker)
        VectorMath.copy(frame.mono, into: &buffer, count: frames)
        let bytesPerFrame = frame.options.channelCount * frame.options.sampleType.bytesPerSample
        let real = bytes / bytesPerFrame
        return real >= frames ? .complete : .insufficientData(rendered: real)
    }
}

/// A bus the engine feeds each tick (`set`): renders the frames last written to it. How a block
/// the engine computes anyway — the downlink after the receive path, what the app played on the
/// loudspeaker — enters a graph without a second source reading the same input.
public final class BusInputNode: RenderNode {
    private var block: [Float]
    private var available = 0
    public var maximumFrames: Int { block.count }

    public init(maximumFrames: Int) {
        block = [Float](repeating: 0, count: maximumFrames)
    }

    /// Makes `samples[0..<count]` the next pull's frames.
    public func set(_ samples: [Float], count: Int) {
        precondition(count <= block.count, "BusInputNode: more frames than the bus holds")
        VectorMath.copy(samples, into: &block, count: count)
        available = count
    }

    /// The frames set last (once); fewer than asked is `insufficientData` (the rest silent).
    public func render(into buffer: inout [Float], frames: Int) throws -> RenderStatus {
        guard frames <= block.count else { throw RenderGraphError.tooManyFrames(requested: frames, maximum: block.count) }
        let real = min(frames, available)
        VectorMath.copy(block, into: &buffer, count: real)
        if real < frames { for i in real..<frames { buffer[i] = 0 } }
        available = 0   // a bus plays each block once: a pull without a new block runs dry
        return real == frames ? .complete : .insufficientData(rendered: real)
    }
}
