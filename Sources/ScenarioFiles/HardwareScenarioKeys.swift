import EchoLabJSON
import Simulation
import VirtualTime

/// The scenario keys of the hardware model (README "Audio hardware, session and routes"): read
/// here for `ScenarioLoader`, written here for `ScenarioEncoder`.
extension ScenarioLoader {
    /// `audio_session`, `route`, `clock_drift_ppm`; nil when the scenario has none of them and no
    /// session action on its timeline (the engine then meets the room directly).
    static func hardwareConfiguration(_ root: JSONObjectReader, timelineNeedsIt: Bool) throws -> HardwareConfiguration? {
        guard root.has("audio_session") || root.has("route") || root.has("clock_drift_ppm") || timelineNeedsIt else {
            root.mayHold("audio_session", "route", "clock_drift_ppm")
            return nil
        }
        var configuration = HardwareConfiguration()
        if let session = try root.object("audio_session") {
            configuration.preferences.sampleRate = try session.integer("preferred_sample_rate", in: 8000...192_000).map(Int.init)
            configuration.preferences.ioBufferDurationSeconds = try session.number("preferred_io_buffer_duration_s", in: 0.0005...1)
            configuration.usesManualAudio = try session.bool("manual_audio") ?? false
            configuration.activeAtStart = try session.bool("active_at_start") ?? true
            if let source = try session.string("input_data_source") {
                configuration.inputDataSource = try choice(source, session, "input_data_source")
            }
            try session.finish()
        }
        if let route = try root.string("route") {
            if root.has("echo_path") {
                throw root.fail("route", "a route brings its own echo path: give either route or echo_path, not both")
            }
            configuration.route = try choice(route, root, "route")
        }
        configuration.clockDriftPPM = try root.number("clock_drift_ppm", in: -1000...1000) ?? 0
        return configuration
    }

    static let hardwareActionNames = ["route_change", "set_input_data_source", "activate_session", "deactivate_session",
                                      "set_audio_enabled", "interruption_begin", "interruption_end", "set_preferred"]

    /// A session or route timeline action, or nil when `name` is not one.
    static func hardwareAction(_ name: String, _ reader: JSONObjectReader) throws -> HardwareAction? {
        switch name {
        case "route_change":
            guard let route = try reader.string("route") else { throw reader.missing("route", AudioRoute.allCases.map(\.rawValue).joined(separator: ", ")) }
            return .routeChange(try choice(route, reader, "route"))
        case "set_input_data_source":
            guard let source = try reader.string("source") else { throw reader.missing("source", "bottom, front or back") }
            return .setInputDataSource(try choice(source, reader, "source"))
        case "activate_session": return .activateSession
        case "deactivate_session": return .deactivateSession
        case "set_audio_enabled":
            guard let enabled = try reader.bool("enabled") else { throw reader.missing("enabled", "true or false") }
            return .setAudioEnabled(enabled)
        case "interruption_begin": return .interruptionBegin
        case "interruption_end": return .interruptionEnd
        case "set_preferred":
            let preferences = AudioPreferences(sampleRate: try reader.integer("sample_rate", in: 8000...192_000).map(Int.init),
                                               ioBufferDurationSeconds: try reader.number("io_buffer_duration_s", in: 0.0005...1))
            guard preferences != AudioPreferences() else { throw reader.fail("sample_rate", "give sample_rate, io_buffer_duration_s or both") }
            return .setPreferred(preferences)
        default: return nil
        }
    }
}

extension ScenarioEncoder {
    /// The hardware keys of `configuration` into `root` (defaults left out).
    static func encodeHardware(_ configuration: HardwareConfiguration?, into root: inout [String: JSONValue]) {
        guard let configuration else { return }
        var session: [String: JSONValue] = [:]
        session["preferred_sample_rate"] = configuration.preferences.sampleRate.map { .number(Double($0)) }
        session["preferred_io_buffer_duration_s"] = configuration.preferences.ioBufferDurationSeconds.map(JSONValue.number)
        if configuration.usesManualAudio { session["manual_audio"] = .bool(true) }
        if !configuration.activeAtStart { session["active_at_start"] = .bool(false) }
        if configuration.inputDataSource != .bottom { session["input_data_source"] = .string(configuration.inputDataSource.rawValue) }
        // An empty object still says "this scenario models the hardware".
        root["audio_session"] = .object(session)
        root["route"] = configuration.route.map { .string($0.rawValue) }
        if configuration.clockDriftPPM != 0 { root["clock_drift_ppm"] = .number(configuration.clockDriftPPM) }
    }

    static func hardwareEventFields(_ action: HardwareAction) -> [String: JSONValue] {
        switch action {
        case .routeChange(let route): ["action": .string("route_change"), "route": .string(route.rawValue)]
        case .setInputDataSource(let source): ["action": .string("set_input_data_source"), "source": .string(source.rawValue)]
        case .activateSession: ["action": .string("activate_session")]
        case .deactivateSession: ["action": .string("deactivate_session")]
        case .setAudioEnabled(let enabled): ["action": .string("set_audio_enabled"), "enabled": .bool(enabled)]
        case .interruptionBegin: ["action": .string("interruption_begin")]
        case .interruptionEnd: ["action": .string("interruption_end")]
        case .setPreferred(let preferences):
            ["action": .string("set_preferred")].merging([
                "sample_rate": preferences.sampleRate.map { .number(Double($0)) },
                "io_buffer_duration_s": preferences.ioBufferDurationSeconds.map(JSONValue.number),
            ].compactMapValues { $0 }) { $1 }
        }
    }
}

extension ScenarioLoader {
    /// Interruptions nest nowhere: in time order (events at one instant in file order, as they
    /// run) an `interruption_end` must close an `interruption_begin`, and a begin must not come
    /// while one is open. The OS never sends an end without its begin, so either is a scenario
    /// mistake that would otherwise run as a silent no-op. A begin left open lasts to the end.
    static func checkInterruptionsPair(_ timeline: [TimelineEvent], _ root: JSONObjectReader) throws {
        var open: (index: Int, at: VirtualDuration)?
        for index in timeline.indices.sorted(by: { (timeline[$0].at, $0) < (timeline[$1].at, $1) }) {
            guard case .hardware(let action) = timeline[index].action else { continue }
            let at = timeline[index].at
            switch action {
            case .interruptionBegin:
                if let open {
                    throw root.fail("timeline[\(index)].action", "interruption_begin at \(at) while the interruption begun by "
                                    + "timeline[\(open.index)] at \(open.at) has not ended (add an interruption_end before it)")
                }
                open = (index, at)
            case .interruptionEnd:
                guard open != nil else {
                    throw root.fail("timeline[\(index)].action", "interruption_end at \(at) has no interruption_begin before it")
                }
                open = nil
            default: continue
            }
        }
    }
}
