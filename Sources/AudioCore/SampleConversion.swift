/// Conversions between the sample types and channel layouts an app may hand over.
/// All functions write into caller-owned storage so per-frame code allocates nothing.
public enum SampleConversion {
    /// Int16 full scale as a float: −32768 maps to −1.0.
    public static let int16Scale: Float = 32_768

    @inlinable
    public static func float(fromInt16 sample: Int16) -> Float { Float(sample) / int16Scale }

    /// Rounds to nearest and saturates; NaN becomes 0.
    @inlinable
    public static func int16(fromFloat sample: Float) -> Int16 {
        guard sample == sample else { return 0 }
        let scaled = (sample * int16Scale).rounded()
        if scaled >= 32_767 { return .max }
        if scaled <= -32_768 { return .min }
        return Int16(scaled)
    }

    /// Averages `channelCount` interleaved channels into `output[outputOffset...]`, `frameCount` frames.
    @inlinable
    public static func downmix(interleaved input: [Float], channelCount: Int, frameCount: Int,
                               into output: inout [Float], at outputOffset: Int = 0) {
        if channelCount == 1 {
            for i in 0..<frameCount { output[outputOffset + i] = input[i] }
            return
        }
        let gain = 1 / Float(channelCount)
        for frame in 0..<frameCount {
            var sum: Float = 0
            let base = frame * channelCount
            for channel in 0..<channelCount { sum += input[base + channel] }
            output[outputOffset + frame] = sum * gain
        }
    }

    /// Picks one channel out of interleaved frames.
    @inlinable
    public static func extract(channel: Int, interleaved input: [Float], channelCount: Int, frameCount: Int,
                               into output: inout [Float], at outputOffset: Int = 0) {
        for frame in 0..<frameCount { output[outputOffset + frame] = input[frame * channelCount + channel] }
    }
}

/// How a multichannel input becomes the mono stream the engine runs on. Never implicit: a
/// stereo file without a choice is an error, because silently averaging can cancel out-of-phase
/// content and silently taking the left channel can drop the talker.
public enum ChannelSelection: Hashable, Sendable, CustomStringConvertible {
    /// Accept mono input only.
    case monoOnly
    /// Average all channels.
    case downmix
    /// Take one channel, counted from 0.
    case channel(Int)

    /// Whether a file of `channelCount` channels can be read this way.
    public func fits(channelCount: Int) -> Bool {
        switch self {
        case .monoOnly: channelCount == 1
        case .downmix: true
        case .channel(let index): index >= 0 && index < channelCount
        }
    }

    public var description: String {
        switch self {
        case .monoOnly: "mono only"
        case .downmix: "downmix"
        case .channel(let index): "channel \(index)"
        }
    }
}
