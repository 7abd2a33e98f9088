import AudioCore
import Foundation

/// The AEC modes of PlanetKit's `setAcousticEchoCanceller(mode:)`.
public enum EchoCancellerMode: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case disabled
    case intensityMin
    case intensityRecommended
    case intensityMax
    case intensityAdaptive

    public var description: String { rawValue }
}

/// An echo canceller behind the `EchoControl` protocol: one of EchoLab's built-in backends, or a
/// plugin (a shared library with the C interface of `echolab_canceller.h`) registered under a name.
public struct EchoCancellerBackend: Hashable, Sendable, CustomStringConvertible {
    /// The name modes use (`speex:intensityMax`, `mine:intensityMin`).
    public let name: String
    /// The plugin behind the name; nil for a built-in backend.
    public let plugin: CancellerPlugin?

    private init(name: String, plugin: CancellerPlugin?) {
        self.name = name
        self.plugin = plugin
    }

    /// speexdsp's MDF canceller with the preprocessor's residual echo suppression.
    public static let speex = EchoCancellerBackend(name: "speex", plugin: nil)
    /// webrtc-audio-processing 0.3's AEC (the legacy desktop canceller, with its non-linear processor).
    public static let webrtc = EchoCancellerBackend(name: "webrtc", plugin: nil)
    /// webrtc-audio-processing 0.3's AECM, the mobile canceller (runs at 16 kHz, resampled around).
    public static let webrtcMobile = EchoCancellerBackend(name: "webrtc-mobile", plugin: nil)
    /// WebRTC's AEC3 (tg_owt, a 2023 WebRTC), the canceller of current WebRTC calls.
    public static let aec3 = EchoCancellerBackend(name: "aec3", plugin: nil)
    /// EchoLab's own canceller (`EchoLabCanceller`, module `EchoCancellation`).
    public static let echolab = EchoCancellerBackend(name: "echolab", plugin: nil)

    /// The rate the canceller itself runs at where it is not the call's (AECM's 16 kHz, a
    /// plugin's `--plugin-rate`), resampled around it; nil where it runs at the call's rate.
    public var cancellerRate: Int? {
        if self == .webrtcMobile { return WebRTCMobileEchoControl.innerRate }
        guard let rate = plugin?.sampleRate, rate < 48_000 else { return nil }
        return rate
    }

    /// The built-in backends, in the order reports list them.
    public static let builtIns: [EchoCancellerBackend] = [.speex, .webrtc, .webrtcMobile, .aec3, .echolab]

    /// The built-in backend called `name`, if there is one.
    public init?(builtIn name: String) {
        guard let backend = Self.builtIns.first(where: { $0.name == name }) else { return nil }
        self = backend
    }

    /// The backend a plugin adds, under the plugin's registered name.
    public init(plugin: CancellerPlugin) {
        self.init(name: plugin.name, plugin: plugin)
    }

    public var description: String { name }

    /// A backend is its name: modes, folders and reports know it by name, and a plugin name
    /// stands for one file (registering one name twice is refused).
    public static func == (lhs: EchoCancellerBackend, rhs: EchoCancellerBackend) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// A canceller plugin: a shared library exporting `echolab_canceller_entry` (ABI version 1, see
/// `echolab_canceller.h`), registered under `name` (`--plugin NAME=PATH`, or a scenario's
/// `aec.plugin`). EchoLab runs it in a child process, one per run, at `sampleRate` (48 kHz unless
/// told otherwise), resampling around it.
public struct CancellerPlugin: Hashable, Sendable {
    /// The backend name modes use; never a built-in backend's.
    public let name: String
    /// The shared library, as an absolute path.
    public let path: String
    /// The text of a JSON object handed to the plugin's `create`, or nil. EchoLab's CLI and
    /// scenario loader give the object on one line, keys sorted, numbers as written
    /// (`JSONValue.lineText`): what reports show as `plugin_options`.
    public let options: String?
    /// The rate it runs at: 8000, 16000, 32000 or 48000.
    public let sampleRate: Int

    public static let sampleRates = [8000, 16_000, 32_000, 48_000]
    /// The rate a plugin runs at unless told another.
    public static let defaultSampleRate = 48_000

    /// Why a plugin cannot be registered.
    public struct Invalid: DescribedError, Equatable {
        public let description: String
    }

    public init(name: String, path: String, options: String? = nil, sampleRate: Int = CancellerPlugin.defaultSampleRate) throws {
        // Case aside too: a run's folder is named after its mode, and `Speex-intensityMax` and
        // `speex-intensityMax` are one folder on a case-insensitive file system (macOS's default).
        let folded = name.lowercased()
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }), folded != "disabled", folded != "all" else {
            throw Invalid(description: "plugin name '\(name)': use letters, digits, - and _ (not 'disabled' or 'all')")
        }
        guard EchoCancellerBackend(builtIn: folded) == nil else {
            throw Invalid(description: "plugin name '\(name)' is a built-in backend's\(folded == name ? "" : " but for case"); choose another")
        }
        guard Self.sampleRates.contains(sampleRate) else {
            throw Invalid(description: "plugin \(name): sample rate \(sampleRate) Hz is not 8000, 16000, 32000 or 48000")
        }
        self.name = name
        self.path = Self.absolute(path)
        self.options = options
        self.sampleRate = sampleRate
    }

    /// `path` against the current folder, where it is relative. As given, a name without a slash
    /// reached `dlopen`, which then searches the system's library path: app code registering
    /// "nlms.so" from the plugin's own folder was told it could not be opened (or could have
    /// loaded another library of that name), where `--plugin mine=nlms.so` ran it.
    private static func absolute(_ path: String) -> String {
        guard !path.isEmpty, !path.hasPrefix("/") else { return path }
        let folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        return URL(fileURLWithPath: path, relativeTo: folder).standardizedFileURL.path
    }
}

/// `setNoiseSuppressor(mode:)`.
public enum NoiseSuppressorMode: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case disabled, enabled
    public var description: String { rawValue }
}

/// `setAutoGainControl(mode:)`.
public enum AutoGainControlMode: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case disabled, software
    public var description: String { rawValue }
}
