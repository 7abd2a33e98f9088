import AudioCore

/// Why a backend cannot make the canceller asked for. One line, fit for a CLI error message.
public enum EchoControlError: DescribedError, Equatable {
    /// The mode has no canceller in this backend (`disabled`, or an intensity it does not map).
    case noCanceller(backend: String, intensity: EchoCancellerMode)
    /// The backend does not run at this rate; `supported` says what it runs at.
    case unsupportedRate(backend: String, sampleRate: Int, supported: String)
    /// The frames asked for are not 10 ms at the rate.
    case frameNotTenMilliseconds(backend: String, frameSize: Int, sampleRate: Int)
    case unknownBackend(name: String)
    /// The plugin host (the `echolab` binary) was not found where it is looked for.
    case pluginHostMissing(searchedBeside: String)
    /// The plugin's canceller cannot start: its host could not be found or run.
    case pluginCannotStart(name: String, path: String, reason: String)

    public var description: String {
        switch self {
        case .noCanceller(let backend, let intensity): "\(backend): no canceller for \(intensity)"
        case .unsupportedRate(let backend, let rate, let supported): "\(backend) runs at \(supported), not \(rate) Hz"
        case .frameNotTenMilliseconds(let backend, let frameSize, let rate): "\(backend): frames of \(frameSize) samples at \(rate) Hz are not 10 ms"
        case .unknownBackend(let name): "no backend called \(name)"
        case .pluginHostMissing(let path):
            "plugins run in a child process of the echolab binary, and none was found beside \(path): set ECHOLAB_PLUGIN_HOST to its path"
        case .pluginCannotStart(let name, let path, let reason): "plugin \(name) (\(path)): \(reason)"
        }
    }
}
