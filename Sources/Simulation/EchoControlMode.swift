import AudioCore

/// One AEC configuration to evaluate: `disabled`, or a backend and a PlanetKit intensity,
/// written `BACKEND:INTENSITY` on the command line (`speex:intensityMax`) and
/// `BACKEND-INTENSITY` as a folder name (`speex-intensityMax`).
public struct EchoControlMode: Hashable, Sendable, CustomStringConvertible, Comparable {
    public var backend: EchoCancellerBackend
    public var intensity: EchoCancellerMode

    public static let disabled = EchoControlMode(backend: .speex, intensity: .disabled)

    public init(backend: EchoCancellerBackend, intensity: EchoCancellerMode) {
        self.backend = backend
        self.intensity = intensity
    }

    /// Why a mode text cannot be read.
    public struct ParseError: DescribedError, Equatable {
        public let text: String
        public let problem: String
        public var description: String { "'\(text)': \(problem)" }
    }

    /// Reads `disabled` or `BACKEND:INTENSITY`; BACKEND is a built-in backend or one of `plugins`.
    public init(parsing text: String, plugins: [CancellerPlugin] = []) throws {
        if text == "disabled" {
            self = .disabled
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let backends = (EchoCancellerBackend.builtIns.map(\.name) + plugins.map(\.name)).joined(separator: ", ")
        let intensities = EchoCancellerMode.allCases.filter { $0 != .disabled }.map(\.rawValue).joined(separator: ", ")
        guard parts.count == 2 else {
            throw ParseError(text: text, problem: "expected disabled or BACKEND:INTENSITY (backends: \(backends); intensities: \(intensities))")
        }
        guard !parts[0].isEmpty else {
            throw ParseError(text: text, problem: "no backend before ':' (one of \(backends))")
        }
        guard let backend = EchoCancellerBackend(builtIn: parts[0]) ?? plugins.first(where: { $0.name == parts[0] }).map(EchoCancellerBackend.init(plugin:)) else {
            throw ParseError(text: text, problem: "unknown backend '\(parts[0])' (one of \(backends); a canceller plugin is "
                             + "registered with --plugin \(parts[0])=PATH: a scenario's own aec.plugin goes with the aec that --aec or --modes replaces)")
        }
        guard let intensity = EchoCancellerMode(rawValue: parts[1]), intensity != .disabled else {
            throw ParseError(text: text, problem: "unknown intensity '\(parts[1])' (one of \(intensities); or the whole mode 'disabled')")
        }
        self.init(backend: backend, intensity: intensity)
    }

    /// Every built-in mode: disabled, then each built-in backend × intensity.
    public static var all: [EchoControlMode] { all(plugins: []) }

    /// Every mode: disabled, then each built-in backend × intensity, then each plugin's.
    public static func all(plugins: [CancellerPlugin]) -> [EchoControlMode] {
        [.disabled] + (EchoCancellerBackend.builtIns + plugins.map(EchoCancellerBackend.init(plugin:))).flatMap { backend in
            EchoCancellerMode.allCases.filter { $0 != .disabled }.map { EchoControlMode(backend: backend, intensity: $0) }
        }
    }

    /// `disabled` or `BACKEND:INTENSITY`.
    public var description: String { intensity == .disabled ? "disabled" : "\(backend.name):\(intensity.rawValue)" }

    /// `disabled` or `BACKEND-INTENSITY`: a folder name.
    public var folderName: String { intensity == .disabled ? "disabled" : "\(backend.name)-\(intensity.rawValue)" }

    /// The order of `all`: disabled first, then the built-in backends in declaration order, then
    /// plugins by name; intensities in declaration order within each.
    public static func < (lhs: EchoControlMode, rhs: EchoControlMode) -> Bool {
        let intensities = EchoCancellerMode.allCases
        func key(_ mode: EchoControlMode) -> (Int, String, Int) {
            let builtIn = EchoCancellerBackend.builtIns.firstIndex(of: mode.backend) ?? EchoCancellerBackend.builtIns.count
            return (mode.intensity == .disabled ? -1 : builtIn, mode.intensity == .disabled ? "" : mode.backend.name,
                    intensities.firstIndex(of: mode.intensity)!)
        }
        return key(lhs) < key(rhs)
    }
}

extension Scenario {
    /// The AEC mode the scenario starts in.
    public var echoControlMode: EchoControlMode {
        EchoControlMode(backend: voiceProcessing.backend, intensity: voiceProcessing.echoCancellerMode)
    }

    /// The scenario's own `filter_ms` where running in `mode` replaces it with another: the mode's
    /// canceller takes a filter length (speex does; the others have their own) and its own
    /// differs. nil where the scenario sets none, or it would change nothing in `mode`.
    public func filterMillisecondsReplaced(by mode: EchoControlMode) -> Int? {
        guard let own = voiceProcessing.filterMilliseconds else { return nil }
        let kept = EchoControlFactory.settings(for: mode, filterOverride: own)["filter_ms"]
        return kept == EchoControlFactory.settings(for: mode)["filter_ms"] ? nil : own
    }

    /// How many of the timeline's `set_aec` events running in `mode` changes (`running(_:)`):
    /// the app's own mid-call choices of intensity, which the mode's replaces.
    public func echoCancellerChangesReplaced(by mode: EchoControlMode) -> Int {
        zip(timeline, running(mode).timeline).filter { $0.action != $1.action }.count
    }

    /// The scenario with `mode` in place of its own `aec` (its `filter_ms` too): the starting mode, and every timeline
    /// `set_aec` that turns the canceller on (the app's own mode choice) becomes `mode`'s
    /// intensity; a `set_aec disabled` stays (the app turned it off); with `mode` disabled, every
    /// `set_aec` disables.
    public func running(_ mode: EchoControlMode) -> Scenario {
        var scenario = self
        scenario.voiceProcessing.backend = mode.backend
        scenario.voiceProcessing.echoCancellerMode = mode.intensity
        // The filter length is part of the scenario's own AEC setting, not of the mode under test.
        scenario.voiceProcessing.filterMilliseconds = nil
        scenario.timeline = timeline.map { event in
            guard case .setEchoCanceller(let intensity) = event.action, intensity != .disabled else { return event }
            return TimelineEvent(at: event.at, action: .setEchoCanceller(mode.intensity))
        }
        return scenario
    }
}
