import AudioCore
import EchoLabJSON
import Simulation

/// Writes a `Scenario` as the JSON `ScenarioLoader` reads: the one typed scenario has one file
/// format, read by the loader and written here (the vector generator builds typed scenarios and
/// encodes them). Keys at their default value are left out; file paths are written relative to
/// the folder the scenario file will live in. `ScenarioLoader.parse(encode(s))` gives `s` back.
public enum ScenarioEncoder {
    /// The scenario as a JSON value, file paths relative to `folder` (absolute).
    public static func encode(_ scenario: Scenario, relativeTo folder: String) -> JSONValue {
        let paths = RelativePaths(folder: folder)
        var root: [String: JSONValue] = ["name": .string(scenario.name)]
        root["far_end"] = scenario.farEnd.map { signal($0, paths) }
        root["near_end"] = scenario.nearEnd.map { signal($0, paths) }
        if let noise = scenario.noise {
            root["noise"] = .object(["level_dbfs": .number(noise.levelDBFS), "seed": seedJSON(noise.seed)])
        }
        if scenario.echoPath != EchoPathSettings() { root["echo_path"] = echoPath(scenario.echoPath, paths) }
        let processing = scenario.voiceProcessing
        var aec: [String: JSONValue] = ["mode": .string(processing.echoCancellerMode.rawValue), "backend": .string(processing.backend.name)]
        aec["filter_ms"] = processing.filterMilliseconds.map { .number(Double($0)) }
        if let plugin = processing.backend.plugin {
            aec["plugin"] = .string(plugin.path)
            aec["plugin_options"] = plugin.options.flatMap { try? JSONValue.parse(Array($0.utf8)) }
            if plugin.sampleRate != 48_000 { aec["plugin_rate"] = .number(Double(plugin.sampleRate)) }
        }
        root["aec"] = .object(aec)
        if processing.noiseSuppressor != .disabled { root["noise_suppressor"] = .string(processing.noiseSuppressor.rawValue) }
        if processing.autoGainControl != .disabled { root["auto_gain_control"] = .string(processing.autoGainControl.rawValue) }
        root["duration_s"] = scenario.duration.map { .number(Double($0.nanoseconds) / 1e9) }
        if scenario.mic != .default { root["mic"] = .object(mic(scenario.mic, paths)) }
        if scenario.speaker != .default { root["speaker"] = .object(speaker(scenario.speaker, paths)) }
        if scenario.isUserReferenceStarted { root["user_reference"] = .bool(true) }
        encodeHardware(scenario.hardware, into: &root)
        if !scenario.timeline.isEmpty { root["timeline"] = .array(scenario.timeline.map { event($0, paths) }) }
        return .object(root)
    }

    /// An echo path as a scenario's `echo_path` holds it (a run's report.json gives the one its
    /// room applied so), a response file's path relative to `folder` (absolute).
    public static func encode(_ echoPath: EchoPathSettings, relativeTo folder: String) -> JSONValue {
        self.echoPath(echoPath, RelativePaths(folder: folder))
    }

    /// A file's path as a scenario in `folder` (absolute) names it: relative where it lies inside.
    public static func path(_ path: String, relativeTo folder: String) -> String { RelativePaths(folder: folder)(path) }

    /// The file's text: canonical (sorted keys, two-space indent), numbers exact.
    public static func text(_ scenario: Scenario, relativeTo folder: String) -> String {
        encode(scenario, relativeTo: folder).canonicalText(numbers: .exact)
    }

    struct RelativePaths {
        let folder: String
        func callAsFunction(_ path: String) -> String {
            let prefix = folder.hasSuffix("/") ? folder : folder + "/"
            return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
        }
    }

    static func file(_ path: String, _ channel: ChannelSelection, _ paths: RelativePaths) -> JSONValue {
        switch channel {
        case .monoOnly: .string(paths(path))
        case .downmix, .channel: .object(["file": .string(paths(path)), "channel": channel.json])
        }
    }

    static func signal(_ source: SignalSource, _ paths: RelativePaths) -> JSONValue {
        switch source {
        case .file(let path, let channel): file(path, channel, paths)
        case .generator(let kind, let seed): .object(signalFields(kind, seed: seed, key: "generator"))
        }
    }

    /// A seed as `JSONObjectReader.seed` reads it back: a number where a double holds it exactly,
    /// else its digits as a string.
    static func seedJSON(_ seed: UInt64) -> JSONValue {
        Double(seed) < JSONObjectReader.exactWholeNumbers ? .number(Double(seed)) : .string(String(seed))
    }

    /// A generator's fields, its kind under `key` ("generator" for a signal, "signal" for a mic).
    static func signalFields(_ kind: SignalKind, seed: UInt64, key: String) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        switch kind {
        case .whiteNoise(let level): fields = [key: .string("white_noise"), "level_dbfs": .number(level)]
        case .tone(let frequency, let level): fields = [key: .string("tone"), "level_dbfs": .number(level), "frequency_hz": .number(frequency)]
        case .speechLike(let level, let pitch): fields = [key: .string("speech"), "level_dbfs": .number(level), "pitch_hz": .number(pitch)]
        case .musicLike(let level): fields = [key: .string("music"), "level_dbfs": .number(level)]
        case .silence: fields = [key: .string("silence")]
        }
        if seed != 0 { fields["seed"] = seedJSON(seed) }
        return fields
    }

    static func echoPath(_ path: EchoPathSettings, _ paths: RelativePaths) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        if path.delayMilliseconds != 0 { fields["delay_ms"] = .number(path.delayMilliseconds) }
        if path.gainDB != 0 { fields["gain_db"] = .number(path.gainDB) }
        fields["clip_dbfs"] = path.clipDBFS.map(JSONValue.number)
        switch path.impulseResponse {
        case .file(let file, let channel)?: fields["impulse_response"] = self.file(file, channel, paths)
        case .synthetic(let rt60, let seed)?:
            fields["synthetic_room"] = .object(["rt60_ms": .number(rt60), "seed": seedJSON(seed)])
        case nil: break
        }
        return .object(fields)
    }

    static func options(_ options: AppDeviceOptions) -> [String: JSONValue] {
        let defaults = AppDeviceOptions()
        var fields: [String: JSONValue] = [:]
        if options.periodMilliseconds != defaults.periodMilliseconds { fields["period_ms"] = .number(Double(options.periodMilliseconds)) }
        if options.leewayMilliseconds != defaults.leewayMilliseconds { fields["leeway_ms"] = .number(Double(options.leewayMilliseconds)) }
        if options.jitterMilliseconds != defaults.jitterMilliseconds { fields["jitter_ms"] = .number(options.jitterMilliseconds) }
        if options.jitterSeed != defaults.jitterSeed { fields["jitter_seed"] = seedJSON(options.jitterSeed) }
        if options.sampleRate != defaults.sampleRate { fields["sample_rate"] = .number(Double(options.sampleRate)) }
        if options.channelCount != defaults.channelCount { fields["channels"] = .number(Double(options.channelCount)) }
        if options.sampleType != defaults.sampleType { fields["sample_type"] = .string(options.sampleType.rawValue) }
        return fields
    }

    static func mic(_ device: MicDevice, _ paths: RelativePaths) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["device": .string(device.name)]
        switch device {
        case .default: break
        case .file(let source, let loops, let options):
            fields.merge(self.options(options)) { $1 }
            fields["file"] = signal(source, paths)
            if loops { fields["loop"] = .bool(true) }
        case .generator(let kind, let seed, let options):
            fields.merge(self.options(options)) { $1 }
            fields.merge(signalFields(kind, seed: seed, key: "signal")) { $1 }
        case .passThrough(let options):
            fields.merge(self.options(options)) { $1 }
        }
        return fields
    }

    static func speaker(_ device: SpeakerDevice, _ paths: RelativePaths) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["device": .string(device.name)]
        switch device {
        case .default: break
        case .recording(let fileName, let options):
            fields.merge(self.options(options)) { $1 }
            fields["file"] = .string(fileName)
        case .mixing(let music, let gain, let putsReference, let options):
            fields.merge(self.options(options)) { $1 }
            fields["music"] = signal(music, paths)
            if gain != 0 { fields["music_gain_db"] = .number(gain) }
            fields["aec_reference"] = .bool(putsReference)
        case .passThrough(let putsReference, let options):
            fields.merge(self.options(options)) { $1 }
            fields["aec_reference"] = .bool(putsReference)
        }
        return fields
    }

    static func event(_ event: TimelineEvent, _ paths: RelativePaths) -> JSONValue {
        var fields: [String: JSONValue] = ["at_ms": .number(Double(event.at.nanoseconds) / 1e6)]
        switch event.action {
        case .setCustomMic(let device):
            fields.merge(mic(device, paths)) { $1 }
            fields["action"] = .string("set_custom_mic")
        case .setCustomSpeaker(let device):
            fields.merge(speaker(device, paths)) { $1 }
            fields["action"] = .string("set_custom_speaker")
        case .resetCustomMic: fields["action"] = .string("reset_custom_mic")
        case .resetCustomSpeaker: fields["action"] = .string("reset_custom_speaker")
        case .setEchoCanceller(let mode): fields["action"] = .string("set_aec"); fields["mode"] = .string(mode.rawValue)
        case .setNoiseSuppressor(let mode): fields["action"] = .string("set_ns"); fields["mode"] = .string(mode.rawValue)
        case .setAutoGainControl(let mode): fields["action"] = .string("set_agc"); fields["mode"] = .string(mode.rawValue)
        case .startUserReference: fields["action"] = .string("start_user_reference")
        case .stopUserReference: fields["action"] = .string("stop_user_reference")
        case .mute: fields["action"] = .string("mute")
        case .unmute: fields["action"] = .string("unmute")
        case .hardware(let action): fields.merge(hardwareEventFields(action)) { $1 }
        }
        return .object(fields)
    }
}
