import AudioCore

/// A sample type an app may hand to or take from the engine: Float32 in [-1, 1] or Int16.
public protocol PCMSample: Sendable, Equatable {
    static var sampleType: SampleType { get }
    static var zero: Self { get }
    /// As the engine's Float32.
    var engineValue: Float { get }
    /// From the engine's Float32 (Int16 rounds and saturates).
    init(engineValue: Float)
}

extension Float: PCMSample {
    public static var sampleType: SampleType { .float32 }
    @inlinable public var engineValue: Float { self }
    @inlinable public init(engineValue: Float) { self = engineValue }
}

extension Int16: PCMSample {
    public static var sampleType: SampleType { .int16 }
    @inlinable public var engineValue: Float { SampleConversion.float(fromInt16: self) }
    @inlinable public init(engineValue: Float) { self = SampleConversion.int16(fromFloat: engineValue) }
}

/// The frames an app exchanges with the engine (PlanetKit's `PlanetKitAudioBuffer`, Agora's raw
/// frames): interleaved samples of one type, with their rate and channel count. Apps allocate it
/// once and reuse it, as the reference code's timers should.
public struct PCMBuffer<Sample: PCMSample>: Sendable {
    /// Interleaved samples; `frameCount × channelCount` of them are meaningful.
    public var samples: [Sample]
    public var frameCount: Int
    public var sampleRate: Int
    public var channelCount: Int

    /// A zeroed buffer of `frameCount` frames.
    public init(frameCount: Int, sampleRate: Int = 48_000, channelCount: Int = 1) {
        precondition(frameCount >= 0 && sampleRate > 0 && (1...8).contains(channelCount))
        samples = [Sample](repeating: .zero, count: frameCount * channelCount)
        self.frameCount = frameCount
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// Wraps existing interleaved samples.
    public init(samples: [Sample], sampleRate: Int = 48_000, channelCount: Int = 1) {
        precondition((1...8).contains(channelCount) && sampleRate > 0, "1 to 8 channels and a positive rate")
        precondition(samples.count % channelCount == 0, "interleaved samples must fill whole frames")
        self.samples = samples
        self.frameCount = samples.count / channelCount
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// Bytes the meaningful frames occupy (what PlanetKit's `bufferSize` counts).
    public var byteCount: Int { frameCount * channelCount * Sample.sampleType.bytesPerSample }

    public var format: AudioFormat { AudioFormat(sampleRate: sampleRate, channelCount: channelCount, sampleType: Sample.sampleType) }
}
