import AudioCore

/// What went wrong reading, writing or converting audio, always naming the file when there is one.
/// The description is one line, fit for a CLI error message.
public enum AudioIOError: Error, CustomStringConvertible, Equatable {
    case cannotOpen(path: String, reason: String)
    case truncated(path: String, detail: String)
    case unsupportedChannels(path: String, channelCount: Int, selection: ChannelSelection)
    case invalidSamples(path: String, frame: Int64)
    case cannotWrite(path: String, reason: String)
    case resampler(reason: String)
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "\(path): cannot open audio file: \(reason)"
        case .truncated(let path, let detail): "\(path): truncated audio file: \(detail)"
        case .unsupportedChannels(let path, let count, .channel(let index)):
            "\(path): has no channel \(index) (it has \(count), counted from 0)"
        case .unsupportedChannels(let path, let count, _):
            "\(path): has \(count) channels; choose one (channel N, counted from 0) or downmix"
        case .invalidSamples(let path, let frame): "\(path): NaN or infinite sample at frame \(frame)"
        case .cannotWrite(let path, let reason): "\(path): cannot write: \(reason)"
        case .resampler(let reason): "resampler: \(reason)"
        case .invalidArgument(let message): message
        }
    }
}
