import ArgumentParser
import AudioCore
import AudioInterop
import Evaluation
import Foundation
import Simulation
import EchoLabJSON
import Reporting

// The option values and option groups the commands share.

/// An option value that argument-parser reads as it was typed and EchoLab checks. A value that
/// `init?(argument:)` refused would be reported in argument-parser's words ("The value '-1' is
/// invalid for '--channel <N|downmix>'"); EchoLab's messages say what the option takes
/// ("--channel takes a channel number from 0 or downmix (got -1)"), and scripts match their
/// start. So `init?(argument:)` keeps the text, and `value` parses it: each command's
/// `validate()` asks for it, and a bad value is a `ValidationError` (exit 64) naming the option.
/// Help lists `allValueStrings` and shows a default as its text.
protocol CheckedArgument: ExpressibleByArgument {
    associatedtype Value
    /// The value as typed.
    var text: String { get }
    init(text: String)
    /// Reads `text`, or throws a `ValidationError` that names the option.
    static func parse(_ text: String) throws -> Value
}

extension CheckedArgument {
    init?(argument: String) { self.init(text: argument) }

    /// The parsed value; throws the option's `ValidationError` for a bad one.
    var value: Value { get throws { try Self.parse(text) } }

    var defaultValueDescription: String { text }

    static var defaultCompletionKind: CompletionKind { allValueStrings.isEmpty ? .default : .list(allValueStrings) }
}

/// `--aec`: one AEC mode, `disabled` or `BACKEND:INTENSITY`.
struct AECModeArgument: CheckedArgument {
    let text: String

    init(text: String) { self.text = text }
    init(_ mode: EchoControlMode) { text = mode.description }

    static func parse(_ text: String) throws -> EchoControlMode { try parse(text, plugins: []) }

    static func parse(_ text: String, plugins: [CancellerPlugin]) throws -> EchoControlMode {
        do { return try EchoControlMode(parsing: text, plugins: plugins) } catch { throw ValidationError("--aec \(error)") }
    }

    /// The mode, with the backends `--plugin` registered.
    func value(plugins: [CancellerPlugin]) throws -> EchoControlMode { try Self.parse(text, plugins: plugins) }

    /// Every mode: disabled, then each backend × intensity.
    static var allValueStrings: [String] { EchoControlMode.all.map(\.description) }
}

/// `--modes`: `all`, or AEC modes separated by commas, each once.
struct AECModeListArgument: CheckedArgument {
    let text: String

    init(text: String) { self.text = text }

    static func parse(_ text: String) throws -> [EchoControlMode] { try parse(text, plugins: []) }

    /// The modes, with the backends `--plugin` registered (`all` includes theirs).
    func value(plugins: [CancellerPlugin]) throws -> [EchoControlMode] { try Self.parse(text, plugins: plugins) }

    static func parse(_ text: String, plugins: [CancellerPlugin]) throws -> [EchoControlMode] {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        if items == ["all"] { return EchoControlMode.all(plugins: plugins) }
        if items.contains("") { throw ValidationError("--modes '\(text)': an empty mode (a comma too many, or none given)") }
        // `all` beside other modes read as an unknown mode, as if `all` itself were wrong.
        if items.contains("all") {
            throw ValidationError("--modes: 'all' is every mode, and stands alone: give all, or a list of modes")
        }
        var parsed: [EchoControlMode] = []
        for item in items {
            do {
                let mode = try EchoControlMode(parsing: item, plugins: plugins)
                guard !parsed.contains(mode) else { throw ValidationError("--modes: \(mode) is given twice") }
                parsed.append(mode)
            } catch let error as EchoControlMode.ParseError {
                throw ValidationError("--modes: \(error)")
            }
        }
        return parsed
    }

    /// `all`, then each mode (a list joins several with commas).
    static var allValueStrings: [String] { ["all"] + AECModeArgument.allValueStrings }
}

/// `--shard K/N`: the K-th of N slices of a corpus's plan.
struct ShardArgument: CheckedArgument {
    let text: String

    init(text: String) { self.text = text }

    static func parse(_ text: String) throws -> CorpusRun.Shard {
        do { return try CorpusRun.Shard(parsing: text) } catch { throw ValidationError("--shard \(error)") }
    }
}

/// `--channel N|downmix`: which channel of a multichannel recording to take.
struct ChannelArgument: CheckedArgument {
    let text: String

    init(text: String) { self.text = text }

    static func parse(_ text: String) throws -> ChannelSelection {
        if text == "downmix" { return .downmix }
        guard let index = Int(text), index >= 0 else {
            throw ValidationError("--channel takes a channel number from 0 or downmix (got \(text))")
        }
        return .channel(index)
    }
}

/// `--channel` of `process` and `metrics`. Parsed `.unconditional`: `--channel -1` is a bad value
/// to report, not a missing one.
struct ChannelOptions: ParsableArguments {
    @Option(parsing: .unconditional,
            help: ArgumentHelp("For multichannel recordings: the channel to take, counted from 0, or downmix (the mean of all channels). Without it a multichannel file is an error; mono files ignore it.",
                               valueName: "N|downmix"))
    var channel: ChannelArgument?

    /// The channel to take: mono input only when `--channel` is not given.
    var selection: ChannelSelection { get throws { try channel?.value ?? .monoOnly } }

    func validate() throws { _ = try selection }
}

/// `--vectors` of `vectors generate`, `bless` and `verify`.
struct VectorsOptions: ParsableArguments {
    @Option(help: "The vectors folder: inputs/, scenarios/ and golden.json.")
    var vectors: String = "vectors"

    func validate() throws {
        guard !vectors.isEmpty else { throw ValidationError("--vectors must name a folder (got an empty string)") }
    }
}

/// `run`'s choice of WAV taps: `--no-taps`, `--all-taps`, or neither (the standard four). Given
/// both, argument-parser refuses them (a usage error, exit 64).
enum TapChoice: EnumerableFlag {
    case noTaps
    case allTaps

    static func help(for value: TapChoice) -> ArgumentHelp? {
        switch value {
        case .noTaps: "Write no WAV taps, only the reports. (Without --no-taps or --all-taps: mic.wav, reference.wav, echo.wav and sent.wav.)"
        case .allTaps: "Also write near.wav (near end + noise at the mic) and played.wav (the loudspeaker)."
        }
    }

    /// The taps `choice` writes; `nil` (no flag given) the standard four.
    static func selection(_ choice: TapChoice?) -> TapSelection {
        switch choice {
        case nil: .standard
        case .noTaps: .none
        case .allTaps: .all
        }
    }
}

/// `--plugin NAME=PATH`, `--plugin-options NAME=JSON`, `--plugin-rate NAME=RATE`: canceller plugins
/// for `--modes` and `--aec` (eval, run, process).
struct PluginOptions: ParsableArguments {
    @Option(name: .customLong("plugin"),
            help: ArgumentHelp("Register a canceller plugin (repeatable): a shared library exporting echolab_canceller_entry (Sources/CEchoLabPluginHost/include/echolab_canceller.h in the repository, docs/plugins.md), run in a child process of its own; its modes are NAME:INTENSITY.",
                               discussion: "A plugin that crashes, hangs, returns an error or writes NaN, Inf or a sample of ±2^20 (+120 dBFS) or more fails the runs it is in with a one-line error (an eval's other runs complete). PATH is relative to the current folder; one that is missing or a folder is a usage error.",
                               valueName: "name=path"))
    var plugins: [String] = []

    @Option(name: .customLong("plugin-options"),
            help: ArgumentHelp("A JSON object handed to plugin NAME's create (repeatable, one per plugin; without it, NULL).", valueName: "name=json"))
    var options: [String] = []

    @Option(name: .customLong("plugin-rate"),
            help: ArgumentHelp("The rate plugin NAME runs at: 8000, 16000, 32000 or 48000 (repeatable; without it, 48000), resampled around it.",
                               valueName: "name=hz"))
    var rates: [String] = []

    /// A warning for each registered plugin that none of `modes` runs: `process --plugin` without
    /// `--aec NAME:…` would run speex without a word. `option` is where the command names modes.
    func unusedWarnings(modes: [EchoControlMode], command: String, option: String) throws -> [String] {
        try unusedWarnings(backends: modes.map(\.backend.name), command: command, option: option)
    }

    /// The same for the backends a run uses, by name; `orIn`: another place a mode is named (an
    /// eval without --modes runs each scenario's own).
    func unusedWarnings(backends: [String], command: String, option: String, orIn other: String? = nil) throws -> [String] {
        try resolved.filter { !backends.contains($0.name) }.map { plugin in
            "echolab \(command): warning: --plugin \(plugin.name) is registered but no mode runs it (name it in \(option) \(plugin.name):INTENSITY"
                + (other.map { ", or in \($0)" } ?? "") + ")"
        }
    }

    /// Every command checks its plugins as it parses, whether or not it names one of their modes
    /// (a bad --plugin-options was otherwise ignored by a run in the scenario's own mode).
    func validate() throws { _ = try resolved }

    /// The registered plugins, paths made absolute; a `ValidationError` naming the option for a
    /// bad one.
    var resolved: [CancellerPlugin] {
        get throws {
            func split(_ text: String, _ option: String, _ form: String) throws -> (String, String) {
                guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                    throw ValidationError("--\(option) takes \(form) (got '\(text)')")
                }
                return (String(text[..<equals]), String(text[text.index(after: equals)...]))
            }
            var paths: [(name: String, path: String)] = []
            for text in plugins {
                let (name, path) = try split(text, "plugin", "NAME=PATH")
                guard !paths.contains(where: { $0.name == name }) else { throw ValidationError("--plugin: \(name) is registered twice") }
                if let other = paths.first(where: { $0.name.lowercased() == name.lowercased() }) {
                    throw ValidationError("--plugin: \(other.name) and \(name) differ only in case (their runs' folders would be one on a case-insensitive file system)")
                }
                guard !path.isEmpty else { throw ValidationError("--plugin \(name): the path is empty") }
                let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
                if let problem = InputFile.sharedLibraryProblem(at: absolute) { throw ValidationError("--plugin \(name): \(absolute): \(problem)") }
                paths.append((name, absolute))
            }
            var optionTexts: [String: String] = [:], sampleRates: [String: Int] = [:]
            for text in options {
                let (name, json) = try split(text, "plugin-options", "NAME=JSON")
                guard paths.contains(where: { $0.name == name }) else { throw ValidationError("--plugin-options \(name): no --plugin \(name)=PATH") }
                guard optionTexts[name] == nil else { throw ValidationError("--plugin-options: \(name) is given twice") }
                let object: JSONValue
                switch Result(catching: { () throws(JSONSyntaxError) -> JSONValue in try JSONValue.parse(Array(json.utf8), exactIntegers: true) }) {
                case .success(let value): object = value
                case .failure(let error):
                    // A duplicate key or a number out of range is named, as in a scenario file;
                    // the parser's words are a file's, and this is an argument's text.
                    let problem = error.problem.replacingOccurrences(of: "the file ends", with: "the text ends")
                    throw ValidationError("--plugin-options \(name): \(json): column \(error.column): \(problem)")
                }
                guard case .object = object else { throw ValidationError("--plugin-options \(name): not a JSON object: \(json)") }
                // The plugin gets the object on one line, as from a scenario's aec.plugin_options.
                optionTexts[name] = object.lineText(numbers: .exact)
            }
            for text in rates {
                let (name, rate) = try split(text, "plugin-rate", "NAME=HZ")
                guard paths.contains(where: { $0.name == name }) else { throw ValidationError("--plugin-rate \(name): no --plugin \(name)=PATH") }
                guard sampleRates[name] == nil else { throw ValidationError("--plugin-rate: \(name) is given twice") }
                guard let hz = Int(rate) else { throw ValidationError("--plugin-rate \(name): '\(rate)' is not a whole number of Hz") }
                guard CancellerPlugin.sampleRates.contains(hz) else {
                    throw ValidationError("--plugin-rate \(name): \(hz) Hz is not one of \(CancellerPlugin.sampleRates.map(String.init).joined(separator: ", "))")
                }
                sampleRates[name] = hz
            }
            return try paths.map { entry in
                do {
                    return try CancellerPlugin(name: entry.name, path: entry.path, options: optionTexts[entry.name],
                                               sampleRate: sampleRates[entry.name] ?? 48_000)
                } catch let error as CancellerPlugin.Invalid {
                    throw ValidationError("--plugin: \(error.description)")
                }
            }
        }
    }
}

/// `--scorer` and `--scorer-timeout`: programs that score runs (docs/scorers.md).
struct ScorerOptions: ParsableArguments {
    @Option(name: .customLong("scorer"),
            help: ArgumentHelp("Score each run with a program (repeatable): PROGRAM, run by /bin/sh -c, reads one JSON request per line and answers one per line (docs/scorers.md); its scores are reported under NAME. 'aecmos' alone is the reference scorer, the AEC Challenge's AECMOS (after `make scorers`).",
                               discussion: "A scorer that exits, hangs or answers something else leaves its scores null with the reason; the run stands.",
                               valueName: "name=program"))
    var scorers: [String] = []

    // `.unconditional`: `--scorer-timeout -1` is a bad value to report, not a missing one.
    @Option(name: .customLong("scorer-timeout"), parsing: .unconditional,
            help: ArgumentHelp("Seconds a scorer may take to answer one request (its first answer includes its start).", valueName: "seconds"))
    var timeout: Double = ScorerProcess.defaultTimeout

    /// The scorers, checked; a `ValidationError` naming the option for a bad one.
    var resolved: [ScorerSpec] {
        get throws {
            guard timeout.isFinite, timeout > 0 else { throw ValidationError("--scorer-timeout must be a number of seconds above 0 (got \(timeout))") }
            var specs: [ScorerSpec] = []
            for text in scorers {
                let spec: ScorerSpec
                do {
                    spec = ReferenceScorers.names.contains(text) ? try ReferenceScorers.spec(named: text) : try ScorerSpec(parsing: text)
                } catch {
                    throw ValidationError("\(error)")
                }
                guard !specs.contains(where: { $0.name == spec.name }) else { throw ValidationError("--scorer: \(spec.name) is given twice") }
                specs.append(spec)
            }
            return specs
        }
    }

    /// One running program per scorer (started on its first request); the caller stops them.
    func processes() throws -> [ScorerProcess] {
        try resolved.map { ScorerProcess(spec: $0, timeout: timeout) }
    }

    /// One line per scorer and talk type: its scores, for a person, printed as report.md prints
    /// them (from report.json's value: rounded from the raw one, 3.11496 read 3.11 beside 3.12).
    static func lines(_ results: [ScorerResult]) -> [String] {
        results.flatMap { result in
            (result.talkTypes ?? []).map { talk in
                let scores = talk.scores.keys.sorted().map { "\($0) \(ReportFormatting.number(talk.scores[$0]!.value))" }
                return "\(result.name) \(talk.talkType) (\(talk.stretches) stretch\(talk.stretches == 1 ? "" : "es"), "
                    + "\(ReportFormatting.number(talk.seconds, digits: 1)) s): " + scores.joined(separator: ", ")
            }
        }
    }

    /// Warns on stderr, for `command`, about each scorer that left its scores null, with why.
    static func warnUnscored(_ results: [ScorerResult]?, command: String) {
        for result in results ?? [] {
            if let reason = result.unscoredReason { standardError("echolab \(command): warning: scorer \(result.name): \(reason)") }
        }
    }
}
