import AudioCore

/// What went wrong reading, writing or converting audio, always naming the file when there is one.
/// The description is one line, fit for a CLI error message.
public enum AudioIOError: DescribedError, Equatable {
    case cannotOpen(path: String, reason: String)
    case truncated(path: String, detail: String)
    case unsupportedChannels(path: String, channelCount: Int, selection: ChannelSelection)
    case invalidSample(path: String, frame: Int64, fault: SampleFault)
    case cannotWrite(path: String, reason: String)
    case resampler(reason: String)
    /// A file of 0 frames where audio is needed; `consequence` says what it leaves undone.
    case holdsNoAudio(path: String, consequence: String)

    /// The file the error is about; nil for the resampler's, which has none.
    public var path: String? {
        switch self {
        case .cannotOpen(let path, _), .truncated(let path, _), .unsupportedChannels(let path, _, _), .invalidSample(let path, _, _),
             .cannotWrite(let path, _), .holdsNoAudio(let path, _): path
        case .resampler: nil
        }
    }

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "\(path): cannot open audio file: \(reason)"
        case .truncated(let path, let detail): "\(path): truncated audio file: \(detail)"
        case .unsupportedChannels(let path, let count, .channel(let index)):
            "\(path): has no channel \(index) (it has \(count), counted from 0)"
        case .unsupportedChannels(let path, let count, _):
            "\(path): has \(count) channels; choose one, counted from 0, or downmix (--channel N|downmix for metrics and process, a \"channel\" key in a scenario or manifest)"
        case .invalidSample(let path, let frame, .tooLoud):
            "\(path): sample at frame \(frame) is ±2^20 (+120 dBFS) or louder, not audio"
        case .invalidSample(let path, let frame, let fault): "\(path): \(fault) sample at frame \(frame)"
        case .cannotWrite(let path, let reason): "\(path): cannot write: \(reason)"
        case .resampler(let reason): "resampler: \(reason)"
        case .holdsNoAudio(let path, let consequence): "\(path): holds no audio (0 frames): \(consequence)"
        }
    }
}

/// Why a decoded sample is refused. Float formats can hold anything; audio never comes near the
/// limit, and past it the engine's arithmetic (downmix sums, the resampler's filter, power
/// spectra in `Float`) would overflow into infinities and NaNs that no metric could explain.
public enum SampleFault: Equatable, Sendable, CustomStringConvertible {
    case notANumber
    case infinite
    /// Finite, but at or beyond `SoundFileReader.sampleMagnitudeLimit`.
    case tooLoud

    public var description: String {
        switch self {
        case .notANumber: "NaN"
        case .infinite: "infinite"
        case .tooLoud: "too loud"
        }
    }
}
