/// The shape of a PCM stream: rate, channel count and how each sample is stored.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    /// The engine's internal format: 48 kHz mono Float32, the rate PlanetKit recommends.
    public static let engine = AudioFormat(sampleRate: 48_000, channelCount: 1, sampleType: .float32)

    public var sampleRate: Int
    public var channelCount: Int
    public var sampleType: SampleType

    public init(sampleRate: Int, channelCount: Int = 1, sampleType: SampleType = .float32) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.sampleType = sampleType
    }

    /// Bytes one frame (all channels) occupies.
    public var bytesPerFrame: Int { channelCount * sampleType.bytesPerSample }

    /// Frames in `milliseconds` of audio; exact for the rates a call uses (8, 16, 32, 44.1, 48 kHz × 10 ms).
    public func frames(milliseconds: Int) -> Int { sampleRate * milliseconds / 1000 }

    public var description: String { "\(sampleRate) Hz, \(channelCount) ch, \(sampleType)" }
}

/// How one sample is stored in a buffer handed to or from the app.
public enum SampleType: String, Hashable, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// 32-bit float in [-1, 1] (PlanetKit's `signedFloat32`).
    case float32
    /// 16-bit signed integer (PlanetKit's `signedShort16`, Agora's raw frames).
    case int16

    public var bytesPerSample: Int { self == .float32 ? 4 : 2 }
    public var description: String { rawValue }
}
