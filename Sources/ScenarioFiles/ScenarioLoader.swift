import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import Simulation
import VirtualTime

/// Reads a scenario file (JSON) strictly: unknown keys, wrong types, impossible values and
/// missing input files are errors naming the file and the key. Paths are relative to the file.
public enum ScenarioLoader {
    /// The longest recording-speaker file name, in bytes: a file name's. Its hidden companions
    /// fit whatever its length (`AtomicFile.hiddenName`).
    static let maximumRecordingNameBytes = InputFile.maximumNameBytes
    public static func load(path: String) throws -> Scenario {
        // A folder, a device or a pipe is refused before reading (/dev/zero never ends), and so is
        // a file too large to be a scenario.
        if let problem = InputFile.problem(at: path) { throw ScenarioError(file: path, key: nil, problem: problem) }
        if let size = InputFile.size(at: path), size > Int64(JSONValue.maximumBytes) {
            throw ScenarioError(file: path, key: nil, problem: "the file is \(size) bytes; a scenario is at most \(JSONValue.maximumBytes >> 20) MiB")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ScenarioError(file: path, key: nil, problem: "cannot read the file")
        }
        // A recording given as the scenario: said as such, not as JSON that fails at 'R'.
        if Self.audioMagic.contains(where: { data.starts(with: Array($0.utf8)) }) {
            throw ScenarioError(file: path, key: nil, problem: "an audio file, not a scenario; `echolab process --mic MIC --reference LOOPBACK` "
                                + "runs a recording, or a scenario plays it (`far_end`, `near_end`)")
        }
        do {
            return try parse(data: data, file: path)
        } catch {
            // A manifest or one of EchoLab's own outputs given as the scenario: said as what it
            // is, not as its first unknown key ("corpus: unknown key", "best_modes: unknown key").
            if CorpusManifest.isManifest(path, limit: JSONValue.maximumBytes) {
                throw ScenarioError(file: path, key: nil, problem: "a corpus manifest, not a scenario; `echolab eval \(path)` runs its items")
            }
            if let schema = ScenarioDiscovery.schema(of: path), schema.hasPrefix("echolab.") {
                throw ScenarioError(file: path, key: nil, problem: "an EchoLab output (\(schema)), not a scenario")
            }
            throw error
        }
    }

    /// How the audio formats a recording comes in begin (WAV, RF64, FLAC, Ogg, AIFF, Sun/NeXT).
    static let audioMagic = ["RIFF", "RIFX", "RF64", "fLaC", "OggS", "FORM", ".snd"]

    /// The keys a scenario's top level may have (the loader refuses others). A file with a
    /// `corpus` key and none of these but `name` is taken for a corpus manifest.
    public static let topLevelKeys: Set<String> = [
        "name", "far_end", "near_end", "noise", "echo_path", "aec", "noise_suppressor", "auto_gain_control",
        "duration_s", "mic", "speaker", "user_reference", "timeline", "audio_session", "route", "clock_drift_ppm",
    ]

    public static func parse(data: Data, file: String) throws -> Scenario {
        let root = try JSONObjectReader.parse(data: data, file: file)
        // Paths in the file are relative to the file's own folder, made absolute first: `..` in
        // them must be resolved by the kernel from there, whatever the current folder is.
        let context = Context(folder: InputFile.parent(of: InputFile.absolute(file)))
        let given = try root.string("name")
        let name = given ?? URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        if let problem = RunName.problem(name) {
            // Without the key the name is the file's: say so, or the message names a key the file lacks.
            throw root.fail("name", given == nil ? "\(problem) (no `name` key: the file's name is used; give one)" : problem)
        }
        do {
            return try parse(root, named: name, file: file, context: context)
        } catch var error as ScenarioError where given != nil {
            error.itemName = name
            throw error
        }
    }

    /// The scenario under `root`, its name read.
    private static func parse(_ root: JSONObjectReader, named name: String, file: String, context: Context) throws -> Scenario {
        var scenario = Scenario(name: name, file: file)
        scenario.farEnd = try context.signalSource(root, "far_end")
        scenario.nearEnd = try context.signalSource(root, "near_end")
        if let noise = try root.object("noise") {
            scenario.noise = NoiseSettings(levelDBFS: try noise.number("level_dbfs", in: -200...0) ?? -60,
                                           seed: try noise.seed("seed") ?? 0)
            try noise.finish()
        }
        if let path = try root.object("echo_path") {
            var echo = EchoPathSettings()
            echo.delayMilliseconds = try path.number("delay_ms", in: 0...2000) ?? 0
            echo.gainDB = try path.number("gain_db", in: -200...40) ?? 0
            echo.clipDBFS = try path.number("clip_dbfs", in: -60...0)
            if path.has("impulse_response") && path.has("synthetic_room") {
                throw path.fail("impulse_response", "give either impulse_response or synthetic_room, not both")
            }
            if let ir = try context.fileReference(path, "impulse_response", whenEmpty: "holds no samples (an empty room response)") {
                echo.impulseResponse = .file(path: ir.path, channel: ir.channel)
            }
            if let room = try path.object("synthetic_room") {
                echo.impulseResponse = .synthetic(rt60Milliseconds: try room.number("rt60_ms", in: 10...2000) ?? 300,
                                                  seed: try room.seed("seed") ?? 0)
                try room.finish()
            }
            try path.finish()
            scenario.echoPath = echo
        }
        var processing = VoiceProcessingSettings()
        if let aec = try root.object("aec") {
            if let mode = try aec.string("mode") { processing.echoCancellerMode = try choice(mode, aec, "mode") }
            if let backend = try aec.string("backend") {
                processing.backend = try context.backend(backend, aec)
            } else {
                // Read, or the plugin's keys would be reported as unknown ones.
                for key in ["plugin", "plugin_options", "plugin_rate"] where aec.has(key) {
                    throw aec.fail(key, "needs aec.backend (the name the plugin's modes use, e.g. \"backend\": \"mine\")")
                }
            }
            processing.filterMilliseconds = try aec.integer("filter_ms", in: 10...2000).map(Int.init)
            // Only speexdsp's filter length is EchoLab's to set: elsewhere the key would be read
            // and silently change nothing.
            if processing.filterMilliseconds != nil && processing.backend != .speex {
                let backend = processing.backend.name
                throw aec.fail("filter_ms", "sets speexdsp's filter length; " + (processing.backend.plugin != nil
                    ? "EchoLab sets none for plugin \(backend) (a plugin takes its settings in aec.plugin_options)"
                    : "backend \(backend) keeps a filter length of its own, which EchoLab does not set"))
            }
            // A misspelt plugin key is suggested as the others are (`plugin_optons`).
            aec.mayHold("plugin", "plugin_options", "plugin_rate")
            try aec.finish()
        }
        if let ns = try root.string("noise_suppressor") { processing.noiseSuppressor = try choice(ns, root, "noise_suppressor") }
        if let agc = try root.string("auto_gain_control") { processing.autoGainControl = try choice(agc, root, "auto_gain_control") }
        scenario.voiceProcessing = processing
        if let seconds = try root.number("duration_s", in: 0.01...Double(ScenarioRunner.longestCallSeconds)) {
            scenario.duration = .nanoseconds(Int64((seconds * 1e9).rounded()))
        }
        if let mic = try root.object("mic") { scenario.mic = try context.micDevice(mic) }
        if let speaker = try root.object("speaker") { scenario.speaker = try context.speakerDevice(speaker) }
        scenario.isUserReferenceStarted = try root.bool("user_reference") ?? false
        if let events = try root.objects("timeline") {
            scenario.timeline = try events.map { try context.timelineEvent($0) }
            if let duration = scenario.duration, let index = scenario.timeline.firstIndex(where: { $0.at >= duration }) {
                let late = scenario.timeline[index]
                throw root.fail("timeline[\(index)]", "event \(late.action) at \(late.at) is not before the end of the call (\(duration))")
            }
            try Self.checkInterruptionsPair(scenario.timeline, root)
        }
        scenario.hardware = try hardwareConfiguration(root, timelineNeedsIt: scenario.timeline.contains {
            if case .hardware = $0.action { return true } else { return false }
        })
        try root.finish()
        // Debug builds (the tests) check the list a manifest is told from against what is read.
        assert(root.askedKeys.isSubset(of: topLevelKeys), "ScenarioLoader.topLevelKeys lacks \(root.askedKeys.subtracting(topLevelKeys).sorted())")
        if scenario.duration == nil {
            if scenario.farEnd.isNotFile && scenario.nearEnd.isNotFile {
                throw root.fail("duration_s", "required when neither far_end nor near_end is a file")
            }
            // The call lasts as long as the longer file (none is empty: `fileReference`).
            let lengths = ["far_end", "near_end"].compactMap { key in context.inputs.items.first { $0.isFile(of: key) } }
            if let long = lengths.first(where: { $0.seconds > ScenarioRunner.longestCallSeconds }) {
                throw root.fail(long.keyPath, "\(long.path) lasts \(long.seconds) s; a call is at most 24 h: give duration_s")
            }
        }
        scenario.inputs = context.inputs.items
        return scenario
    }

    static func choice<T: RawRepresentable & CaseIterable>(_ raw: String, _ reader: JSONObjectReader, _ key: String) throws -> T where T.RawValue == String {
        guard let value = T(rawValue: raw) else {
            throw reader.fail(key, "'\(raw)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    /// The files a scenario reads, gathered while it loads (a class: `Context` is passed by value).
    final class InputList {
        var items: [ScenarioInput] = []
    }

    struct Context {
        /// The scenario file's folder, absolute.
        let folder: String
        let inputs = InputList()

        func resolve(_ path: String) -> String {
            path.hasPrefix("/") ? path : (folder.hasSuffix("/") ? folder : folder + "/") + path
        }

        /// `aec.backend`: a built-in backend's name, or any name with `aec.plugin` (the plugin's
        /// shared library; `plugin_options`, an object handed to it; `plugin_rate`, its rate).
        func backend(_ name: String, _ aec: JSONObjectReader) throws -> EchoCancellerBackend {
            guard let path = try aec.string("plugin") else {
                for key in ["plugin_options", "plugin_rate"] where aec.has(key) { throw aec.fail(key, "needs aec.plugin (the plugin's file)") }
                guard let builtIn = EchoCancellerBackend(builtIn: name) else {
                    let names = EchoCancellerBackend.builtIns.map(\.name).joined(separator: ", ")
                    throw aec.fail("backend", "'\(name)' is not one of \(names) (a plugin needs aec.plugin, its file)")
                }
                return builtIn
            }
            guard !path.isEmpty else { throw aec.fail("plugin", "empty file name") }
            let resolved = URL(fileURLWithPath: resolve(path)).standardizedFileURL.path
            if let problem = InputFile.sharedLibraryProblem(at: resolved) { throw aec.fail("plugin", "\(resolved): \(problem)") }
            var options: String?
            if aec.has("plugin_options") {
                guard case .object? = aec.any("plugin_options") else { throw aec.fail("plugin_options", "expected an object") }
                options = aec.any("plugin_options")!.lineText(numbers: .exact)
            }
            let rate = try aec.integer("plugin_rate").map(Int.init) ?? 48_000
            guard CancellerPlugin.sampleRates.contains(rate) else {
                throw aec.fail("plugin_rate", "\(rate) Hz is not one of \(CancellerPlugin.sampleRates.map(String.init).joined(separator: ", "))")
            }
            do {
                return EchoCancellerBackend(plugin: try CancellerPlugin(name: name, path: resolved, options: options, sampleRate: rate))
            } catch let error as CancellerPlugin.Invalid {
                throw aec.fail("backend", error.description)
            }
        }

        /// A file key — a path string, or {"file": path, "channel": N | "downmix"} — as its path and
        /// channel, the file opened and checked (`probe`). A file of 0 frames
        /// is an error (`whenEmpty` says why): a WAV of a header alone played as silence, and a
        /// gate took the broken input for an item without a far end.
        func fileReference(_ reader: JSONObjectReader, _ key: String,
                           whenEmpty: String = "holds no audio (0 frames)") throws -> (path: String, channel: ChannelSelection)? {
            guard reader.has(key) else { _ = reader.any(key); return nil }
            if case .string(let value)? = reader.any(key) {
                let path = try existing(value, reader, key)
                try probe(path, channel: .monoOnly, reader, key, whenEmpty: whenEmpty)
                return (path, .monoOnly)
            }
            if let value = reader.any(key), value.objectValue == nil {
                // Both forms are said: "expected an object" read as if a file name were wrong here.
                throw reader.fail(key, "expected a file name (a string) or an object, found \(value.typeName)")
            }
            guard let object = try reader.object(key) else { return nil }
            guard let file = try object.string("file") else { throw object.missing("file") }
            let channel = try channelSelection(object)
            try object.finish()
            let path = try existing(file, object, "file")
            try probe(path, channel: channel, object, "file", whenEmpty: whenEmpty)
            return (path, channel)
        }

        func existing(_ path: String, _ reader: JSONObjectReader, _ key: String) throws -> String {
            guard !path.isEmpty else { throw reader.fail(key, "empty file name") }
            let resolved = resolve(path)
            if let problem = InputFile.problem(at: resolved) { throw reader.fail(key, "\(resolved): \(problem)") }
            return resolved
        }

        /// Opens the file now, so a broken or odd one is reported with the scenario and the key,
        /// before anything runs.
        func probe(_ path: String, channel: ChannelSelection, _ reader: JSONObjectReader, _ key: String, whenEmpty: String) throws {
            let audio: SoundFileReader
            do {
                audio = try SoundFileReader(path: path)
            } catch {
                throw reader.fail(key, String(describing: error))
            }
            if audio.frameCount == 0 { throw reader.fail(key, "\(path) \(whenEmpty)") }
            inputs.items.append(ScenarioInput(keyPath: reader.keyPath(key), path: path, frameCount: audio.frameCount,
                                              sampleRate: audio.sampleRate))
            switch channel {
            case .monoOnly where audio.channelCount != 1:
                throw reader.fail(key, "\(path) has \(audio.channelCount) channels; add \"channel\": N (counted from 0) or \"downmix\"")
            case .channel(let index) where index >= audio.channelCount:
                throw reader.fail(key, "\(path) has no channel \(index) (it has \(audio.channelCount), counted from 0)")
            default: break
            }
        }

        func channelSelection(_ reader: JSONObjectReader) throws -> ChannelSelection {
            guard let value = reader.any("channel") else { return .monoOnly }
            if case .string(let text) = value {
                guard text == "downmix" else { throw reader.fail("channel", "expected a channel number from 0 or \"downmix\"") }
                return .downmix
            }
            guard let index = try reader.integer("channel", in: 0...Int64(ChannelSelection.highestChannel)) else { return .monoOnly }
            return .channel(Int(index))
        }

        /// A signal key: a file path, {"file": …, "channel": …}, or {"generator": kind, …}.
        func signalSource(_ reader: JSONObjectReader, _ key: String) throws -> SignalSource? {
            if case .object(let members)? = reader.any(key), members["generator"] != nil {
                return try generator(JSONObjectReader(members, file: reader.file, path: reader.keyPath(key)))
            }
            return try fileReference(reader, key).map { .file(path: $0.path, channel: $0.channel) }
        }

        func generator(_ reader: JSONObjectReader) throws -> SignalSource {
            let (kind, seed) = try signalKind(reader, key: "generator")
            try reader.finish()
            return .generator(kind, seed: seed)
        }

        func signalKind(_ reader: JSONObjectReader, key: String) throws -> (SignalKind, UInt64) {
            let name = try reader.string(key) ?? "white_noise"
            let level = try reader.number("level_dbfs", in: -120...0) ?? -20
            let seed = try reader.seed("seed") ?? 0
            if name != "tone", reader.has("frequency_hz") { throw reader.fail("frequency_hz", "applies to the tone generator only") }
            if name != "speech", reader.has("pitch_hz") { throw reader.fail("pitch_hz", "applies to the speech generator only") }
            let kind: SignalKind
            switch name {
            case "white_noise": kind = .whiteNoise(levelDBFS: level)
            case "tone": kind = .tone(frequency: try reader.number("frequency_hz", in: 1...24_000) ?? 1000, levelDBFS: level)
            case "speech": kind = .speechLike(levelDBFS: level, pitchHz: try reader.number("pitch_hz", in: 50...500) ?? 140)
            case "music": kind = .musicLike(levelDBFS: level)
            case "silence": kind = .silence
            default: throw reader.fail(key, "'\(name)' is not one of white_noise, tone, speech, music, silence")
            }
            return (kind, seed)
        }

        func appOptions(_ reader: JSONObjectReader) throws -> AppDeviceOptions {
            var options = AppDeviceOptions()
            // At most 990: the engine's input buffer holds a second, and reads a custom mic once it
            // holds a burst and a 10 ms tick (a 1000 ms mic never delivered).
            options.periodMilliseconds = Int(try reader.integer("period_ms", in: 1...990) ?? 20)
            options.leewayMilliseconds = Int(try reader.integer("leeway_ms", in: 0...100) ?? 2)
            options.jitterMilliseconds = try reader.number("jitter_ms", in: 0...100) ?? 0
            options.jitterSeed = try reader.seed("jitter_seed") ?? 0
            options.sampleRate = Int(try reader.integer("sample_rate", in: 8000...192_000) ?? 48_000)
            options.channelCount = Int(try reader.integer("channels", in: 1...8) ?? 1)
            if let type = try reader.string("sample_type") { options.sampleType = try ScenarioLoader.choice(type, reader, "sample_type") }
            if options.jitterMilliseconds * 2 >= Double(options.periodMilliseconds) {
                throw reader.fail("jitter_ms", "must be less than half of period_ms (\(options.periodMilliseconds))")
            }
            // A late burst lands beside the next: with jitter, the burst, its lateness and a tick
            // must fit the engine's 1 s input buffer (990 ms with 20 ms of jitter dropped ~1 s twice).
            let lateness = options.jitterMilliseconds > 0 ? options.jitterMilliseconds + Double(options.leewayMilliseconds) : 0
            if Double(options.periodMilliseconds) + lateness + 10 > 1000 {
                throw reader.fail("period_ms", "\(options.periodMilliseconds) with jitter_ms \(options.jitterMilliseconds) and leeway_ms \(options.leewayMilliseconds) leaves no room in the engine's 1 s input buffer: period_ms + jitter_ms + leeway_ms + 10 must be at most 1000")
            }
            return options
        }

        func micDevice(_ reader: JSONObjectReader) throws -> MicDevice {
            guard let name = try reader.string("device") else { throw reader.missing("device", "default, file, generator or passthrough") }
            let device: MicDevice
            switch name {
            case "default": device = .default
            case "file":
                guard let source = try signalSource(reader, "file") else { throw reader.missing("file") }
                device = .file(source, loops: try reader.bool("loop") ?? false, options: try appOptions(reader))
            case "generator":
                let (kind, seed) = try signalKind(reader, key: "signal")
                device = .generator(kind, seed: seed, options: try appOptions(reader))
            case "passthrough": device = .passThrough(options: try appOptions(reader))
            default: throw reader.fail("device", "'\(name)' is not one of default, file, generator, passthrough")
            }
            try reader.finish()
            return device
        }

        func speakerDevice(_ reader: JSONObjectReader) throws -> SpeakerDevice {
            guard let name = try reader.string("device") else { throw reader.missing("device", "default, recording, mixing or passthrough") }
            let device: SpeakerDevice
            switch name {
            case "default": device = .default
            case "recording":
                let file = try reader.string("file") ?? "recording.wav"
                guard !file.contains("/"), !file.hasPrefix("."), file.lowercased().hasSuffix(".wav") else {
                    throw reader.fail("file", "a .wav file name in the output folder, without a path")
                }
                let reserved = CallRecording.tapNames.map { "\($0).wav" } + ["report.wav"]
                guard !reserved.contains(file.lowercased()) else {
                    throw reader.fail("file", "'\(file)' is the name of a tap the run writes; choose another")
                }
                // Checked now, or the call would fail only once simulated.
                guard file.utf8.count <= ScenarioLoader.maximumRecordingNameBytes else {
                    throw reader.fail("file", "a file name of \(file.utf8.count) bytes; at most \(ScenarioLoader.maximumRecordingNameBytes)")
                }
                device = .recording(fileName: file, options: try appOptions(reader))
            case "mixing":
                guard let music = try signalSource(reader, "music") else { throw reader.missing("music") }
                device = .mixing(music: music, musicGainDB: try reader.number("music_gain_db", in: -120...20) ?? 0,
                                 putsReference: try reader.bool("aec_reference") ?? false, options: try appOptions(reader))
            case "passthrough":
                device = .passThrough(putsReference: try reader.bool("aec_reference") ?? false, options: try appOptions(reader))
            default: throw reader.fail("device", "'\(name)' is not one of default, recording, mixing, passthrough")
            }
            try reader.finish()
            return device
        }

        func timelineEvent(_ reader: JSONObjectReader) throws -> TimelineEvent {
            guard let at = try reader.number("at_ms", in: 0...86_400_000) else { throw reader.missing("at_ms") }
            guard let name = try reader.string("action") else { throw reader.missing("action") }
            func mode() throws -> String {
                guard let mode = try reader.string("mode") else { throw reader.missing("mode") }
                return mode
            }
            let action: TimelineAction
            switch name {
            case "set_custom_mic": action = .setCustomMic(try micDevice(reader))
            case "reset_custom_mic": action = .resetCustomMic
            case "set_custom_speaker": action = .setCustomSpeaker(try speakerDevice(reader))
            case "reset_custom_speaker": action = .resetCustomSpeaker
            case "set_aec": action = .setEchoCanceller(try ScenarioLoader.choice(try mode(), reader, "mode"))
            case "set_ns": action = .setNoiseSuppressor(try ScenarioLoader.choice(try mode(), reader, "mode"))
            case "set_agc": action = .setAutoGainControl(try ScenarioLoader.choice(try mode(), reader, "mode"))
            case "start_user_reference": action = .startUserReference
            case "stop_user_reference": action = .stopUserReference
            case "mute": action = .mute
            case "unmute": action = .unmute
            default:
                guard let hardware = try ScenarioLoader.hardwareAction(name, reader) else {
                    throw reader.fail("action", "'\(name)' is not one of set_custom_mic, reset_custom_mic, set_custom_speaker, reset_custom_speaker, set_aec, set_ns, set_agc, start_user_reference, stop_user_reference, mute, unmute, "
                                      + ScenarioLoader.hardwareActionNames.joined(separator: ", "))
                }
                action = .hardware(hardware)
            }
            try reader.finish()
            return TimelineEvent(at: .nanoseconds(Int64((at * 1e6).rounded())), action: action)
        }
    }
}

private extension Optional where Wrapped == SignalSource {
    var isNotFile: Bool {
        if case .file? = self { return false }
        return true
    }
}
