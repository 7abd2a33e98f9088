import AudioCore
import AudioInterop

/// Why files could not be scored. Descriptions are one line and name the file.
public enum MetricsError: DescribedError, Equatable {
    /// `path` is at `sampleRate` but the reference `referencePath` is at `referenceRate`;
    /// metrics never resample silently, since that would blur the delay and the spectra.
    case sampleRateMismatch(path: String, sampleRate: Int, referencePath: String, referenceRate: Int)
    /// Reading `path` failed (missing, unreadable, truncated, multichannel …).
    case unreadableFile(path: String, reason: String)
    /// `path` has `samples` samples, fewer than `longestPath`'s `longestSamples` by more than
    /// `toleranceSamples` (`EchoAnalyzer.lengthTolerance`): scoring only the overlap would drop
    /// too much of the call to be what the user meant.
    case lengthMismatch(path: String, samples: Int, longestPath: String, longestSamples: Int, toleranceSamples: Int)
    /// `path` has a valid header and no frames: every metric would be null, and a gate on it
    /// would pass on nothing.
    case empty(path: String)

    public var description: String {
        switch self {
        case .sampleRateMismatch(let path, let rate, let referencePath, let referenceRate):
            "\(path): sample rate \(rate) Hz differs from the reference \(referencePath) (\(referenceRate) Hz)"
        case .unreadableFile(let path, let reason):
            "\(path): \(reason)"
        case .lengthMismatch(let path, let samples, let longestPath, let longestSamples, let tolerance):
            "\(path): \(samples) samples, \(longestSamples - samples) fewer than \(longestPath) (\(longestSamples)); "
                + "more than the \(tolerance)-sample tolerance (1 s or 10 %, the smaller), so the files do not hold the same call"
        case .empty(let path):
            "\(path): holds no audio (0 frames): nothing to score"
        }
    }
}

/// `EchoAnalyzer.analyzeFiles` stopped because its `isCancelled` said so: nothing was measured.
public struct AnalysisCancelled: Error, Sendable {
    public init() {}
}
