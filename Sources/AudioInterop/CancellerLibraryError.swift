import AudioCore

/// What a canceller library (speexdsp, webrtc-audio-processing, tg_owt's AEC3) refused, naming
/// the library and the call. One line, fit for a CLI error message.
public enum CancellerLibraryError: DescribedError, Equatable {
    /// Settings the library cannot start with (a frame, filter or rate it does not take).
    case invalidSettings(library: String, detail: String)
    /// The library did not start: it could not allocate its state, or refused the rate.
    case cannotStart(library: String, reason: String)
    /// A frame the running library refused, with its error code.
    case frameRefused(library: String, direction: Direction, code: Int32)
    /// New settings the running library refused.
    case settingsRefused(library: String, code: Int32)

    public enum Direction: String, Sendable { case render, capture }

    public var description: String {
        switch self {
        case .invalidSettings(let library, let detail): "\(library): \(detail) are not valid"
        case .cannotStart(let library, let reason): "\(library): \(reason)"
        case .frameRefused(let library, let direction, let code): "\(library): \(direction.rawValue) frame refused (WebRTC error \(code))"
        case .settingsRefused(let library, let code): "\(library): cannot change settings (WebRTC error \(code))"
        }
    }
}
