import AudioCore
import AudioInterop
import Foundation

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
    /// The canceller's output held a sample that is no audio (NaN, infinite, or ±2^20 and beyond:
    /// +120 dBFS) at `sample` of capture frame `frame` (from 0): it diverged, and such a frame must
    /// not reach the peer, a file or the metrics' sums. `input`: the recording it processed.
    case outputNotAudio(mode: String, value: Float, sample: Int, frame: Int, input: String? = nil)

    public var description: String {
        switch self {
        case .noCanceller(let backend, let intensity): "\(backend): no canceller for \(intensity)"
        case .unsupportedRate(let backend, let rate, let supported): "\(backend) runs at \(supported), not \(rate) Hz"
        case .frameNotTenMilliseconds(let backend, let frameSize, let rate): "\(backend): frames of \(frameSize) samples at \(rate) Hz are not 10 ms"
        case .unknownBackend(let name): "no backend called \(name)"
        case .pluginHostMissing(let path):
            "plugins run in a child process of the echolab binary (echolab plugin-host), and no file named echolab was found beside \(path): set ECHOLAB_PLUGIN_HOST to the echolab binary's path"
        case .pluginCannotStart(let name, let path, let reason): "plugin \(name) (\(path)): \(reason)"
        case .outputNotAudio(let mode, let value, let sample, let frame, let input):
            (input.map { "\($0): " } ?? "") + "\(mode) wrote \(value) at sample \(sample) of its 10 ms frame \(frame) (t = \(frame / 100).\(String(format: "%02d", frame % 100)) s)\(value.isFinite ? ", +120 dBFS or louder" : ""): the canceller diverged, and its output is not audio"
        }
    }
}

extension EchoControl {
    /// Throws `outputNotAudio` where frame number `frame` of this canceller's output (`frameSize`
    /// samples of `output`) holds a sample that is no audio — as a decoded input file's is refused
    /// (`SoundFileReader.firstInvalidSample`: one vectorised pass when all is well). WebRTC's AEC
    /// (0.3) writes NaN on some inputs (a 16 kHz sweep whose mic is its exact echo): that frame
    /// went on to the peer and to a file, and `process` exited 0. A plugin's output is checked
    /// as it arrives (`PluginProcess.capture`).
    public func checkOutput(_ output: [Float], frame: Int) throws {
        guard !(self is PluginEchoControl), let (index, _) = SoundFileReader.firstInvalidSample(output, in: 0..<frameSize) else { return }
        throw EchoControlError.outputNotAudio(mode: "\(backend):\(intensity)", value: output[index], sample: index, frame: frame)
    }
}
