import AudioInterop

/// Why files could not be scored. Descriptions are one line and name the file.
public enum MetricsError: Error, CustomStringConvertible, Equatable {
    /// `path` is at `sampleRate` but the reference `referencePath` is at `referenceRate`;
    /// metrics never resample silently, since that would blur the delay and the spectra.
    case sampleRateMismatch(path: String, sampleRate: Int, referencePath: String, referenceRate: Int)
    /// Reading `path` failed (missing, unreadable, truncated, multichannel …).
    case unreadableFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .sampleRateMismatch(let path, let rate, let referencePath, let referenceRate):
            "\(path): sample rate \(rate) Hz differs from the reference \(referencePath) (\(referenceRate) Hz)"
        case .unreadableFile(let path, let reason):
            "\(path): \(reason)"
        }
    }
}
