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
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public let text: String
        public let problem: String
        public var description: String { "'\(text)': \(problem)" }
    }

    /// Reads `disabled` or `BACKEND:INTENSITY`.
    public init(parsing text: String) throws {
        if text == "disabled" {
            self = .disabled
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let backends = EchoCancellerBackend.allCases.map(\.rawValue).joined(separator: ", ")
        let intensities = EchoCancellerMode.allCases.filter { $0 != .disabled }.map(\.rawValue).joined(separator: ", ")
        guard parts.count == 2 else {
            throw ParseError(text: text, problem: "expected disabled or BACKEND:INTENSITY (backends: \(backends); intensities: \(intensities))")
        }
        guard let backend = EchoCancellerBackend(rawValue: parts[0]) else {
            throw ParseError(text: text, problem: "unknown backend '\(parts[0])' (one of \(backends))")
        }
        guard let intensity = EchoCancellerMode(rawValue: parts[1]), intensity != .disabled else {
            throw ParseError(text: text, problem: "unknown intensity '\(parts[1])' (one of \(intensities); or the whole mode 'disabled')")
        }
        self.init(backend: backend, intensity: intensity)
    }

    /// Every mode: disabled, then each backend × intensity.
    public static var all: [EchoControlMode] {
        [.disabled] + EchoCancellerBackend.allCases.flatMap { backend in
            EchoCancellerMode.allCases.filter { $0 != .disabled }.map { EchoControlMode(backend: backend, intensity: $0) }
        }
    }

    /// `disabled` or `BACKEND:INTENSITY`.
    public var description: String { intensity == .disabled ? "disabled" : "\(backend.rawValue):\(intensity.rawValue)" }

    /// `disabled` or `BACKEND-INTENSITY`: a folder name.
    public var folderName: String { intensity == .disabled ? "disabled" : "\(backend.rawValue)-\(intensity.rawValue)" }

    /// The order of `all`: disabled first, then backends and intensities in declaration order.
    public static func < (lhs: EchoControlMode, rhs: EchoControlMode) -> Bool {
        let backends = EchoCancellerBackend.allCases, intensities = EchoCancellerMode.allCases
        let left = (lhs.intensity == .disabled ? -1 : backends.firstIndex(of: lhs.backend)!, intensities.firstIndex(of: lhs.intensity)!)
        let right = (rhs.intensity == .disabled ? -1 : backends.firstIndex(of: rhs.backend)!, intensities.firstIndex(of: rhs.intensity)!)
        return left < right
    }
}

extension Scenario {
    /// The AEC mode the scenario starts in.
    public var echoControlMode: EchoControlMode {
        EchoControlMode(backend: voiceProcessing.backend, intensity: voiceProcessing.echoCancellerMode)
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
