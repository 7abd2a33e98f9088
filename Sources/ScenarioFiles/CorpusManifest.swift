import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import Simulation

/// A corpus written down: a JSON file whose `corpus` array lists what to run, for corpora that
/// are not one folder (scenarios from several places, recordings named any way).
///
///     {"corpus": [
///       "scenarios/speech-room.json",                  a scenario file
///       "more-scenarios",                              a folder of scenarios, or an AEC-Challenge folder
///       "other-manifest.json",                         another manifest
///       {"name": "office-1", "mic": "rec/office1_mic.wav", "loopback": "rec/office1_lpb.wav",
///        "echo": "rec/office1_echo.wav", "near_end": "rec/office1_near.wav", "talk_type": "doubletalk"}
///     ]}
///
/// An object is one recording: `name` and `mic` required; `loopback` (absent only for near-end
/// single talk), `echo` and `near_end` (the ground truth, when known), `talk_type` (an
/// AEC-Challenge talk type) and `channel` (of multichannel files: a number from 0, or
/// "downmix") optional. Relative paths are read from the manifest's folder, so the corpus runs
/// from anywhere. Read strictly: unknown keys, wrong types, missing files and a manifest that
/// includes itself are errors naming the manifest and the entry — a broken recording object
/// fails as its own item (the others still run), a broken manifest or path the whole eval.
public enum CorpusManifest {
    public struct ManifestError: DescribedError {
        public let path: String
        public let problem: String
        /// Whether the problem is the output folder's place (inside a folder the manifest names),
        /// not the corpus: eval then leaves the folder's earlier reports alone.
        public var isAboutOutputFolder = false
        public var description: String { "\(path): \(problem)" }
    }

    /// Whether `path` is a manifest rather than a scenario: a JSON object with a `corpus` key
    /// and no key only a scenario has (`name` may be either's mistake: a manifest given one is a
    /// manifest with an unknown key). A scenario that also has `corpus` runs, and fails on that
    /// unknown key, instead of being passed over in its folder. Also when the file breaks after
    /// the keys (a repeated key, a truncated text), so that it is reported as a broken manifest,
    /// which stops the eval, not run as a failing scenario.
    /// `limit`: the largest file looked at — a manifest's own for a path given as one; a folder's
    /// scan passes a scenario's 4 MiB, so that no JSON in a corpus is read whole at up to 256 MiB
    /// only to be found no manifest.
    public static func isManifest(_ path: String, limit: Int = maximumBytes) -> Bool {
        guard path.hasSuffix(".json"), let size = InputFile.size(at: path), size <= limit,
              let data = FileManager.default.contents(atPath: path) else { return false }
        let keys = JSONValue.objectKeys(in: Array(data), maximumBytes: limit)
        return keys.contains("corpus") && !keys.contains { $0 != "name" && ScenarioLoader.topLevelKeys.contains($0) }
    }

    /// The largest manifest read: a recording set's list runs to tens of thousands of entries
    /// (30,000 AEC-Challenge-style entries are 4.7 MB), past a scenario's 4 MiB.
    public static let maximumBytes = 256 << 20

    /// The items a manifest lists, in its order.
    public static func items(in path: String, excluding out: String?, visiting: Set<String> = []) throws -> [CorpusItem] {
        let canonical = InputFile.canonical(path)
        if let problem = InputFile.problem(at: path) { throw ManifestError(path: path, problem: problem) }
        let value: JSONValue
        do {
            value = try JSONValue.parse(Array(FileManager.default.contents(atPath: path) ?? Data()), maximumBytes: maximumBytes,
                                        exactIntegers: true)
        } catch {
            throw ManifestError(path: path, problem: "not valid JSON: \(error)")
        }
        guard let object = value.objectValue else { throw ManifestError(path: path, problem: "expected an object, found \(value.typeName)") }
        if let unknown = object.keys.sorted().first(where: { !["corpus", "description"].contains($0) }) {
            throw ManifestError(path: path, problem: unknownKey(unknown, known: ["corpus", "description"], listing: "a manifest has corpus and description"))
        }
        if let description = object["description"], description.stringValue == nil {
            throw ManifestError(path: path, problem: "description: expected a string, found \(description.typeName)")
        }
        guard let entries = object["corpus"]?.arrayValue else {
            throw ManifestError(path: path, problem: "corpus: expected an array, found \(object["corpus"]?.typeName ?? "nothing")")
        }
        // Said as what it is: finding nothing to run, eval would say "no scenario files (*.json) found".
        guard !entries.isEmpty else {
            throw ManifestError(path: path, problem: "corpus: lists no items; list scenarios, folders, manifests or recordings")
        }
        // Entries are relative to the manifest's folder as the manifest's path was given (relative
        // where it was): eval.json names the same files the same way from the same command line in
        // any checkout, and shards run there merge. Without `.` components, which name nothing
        // (`./manifest.json` listing `./rec/mic.wav` named it `././rec/mic.wav`).
        let folder = InputFile.parent(of: path)
        func resolve(_ file: String) -> String {
            InputFile.droppingDotComponents(file.hasPrefix("/") || folder.isEmpty ? file : (folder as NSString).appendingPathComponent(file))
        }
        var items: [CorpusItem] = []
        for (index, entry) in entries.enumerated() {
            let key = "corpus[\(index)]"
            switch entry {
            case .string(let relative):
                // "" would resolve to the manifest's own folder: say what was meant instead.
                guard !relative.isEmpty else {
                    throw ManifestError(path: path, problem: "\(key): an empty path; name a scenario, folder or manifest (\".\" for this folder)")
                }
                let target = resolve(relative)
                guard FileManager.default.fileExists(atPath: target) else {
                    throw ManifestError(path: path, problem: "\(key): \(relative): \(InputFile.problem(at: target) ?? "no such file or folder")")
                }
                let including = visiting.union([canonical])
                if including.contains(InputFile.canonical(target)) {
                    throw ManifestError(path: path, problem: "\(key): \(relative): a cycle of manifests (it is being read already)")
                }
                do {
                    items += try Corpus.items(in: [target], excluding: out, visiting: including)
                } catch let empty as ScenarioDiscovery.Empty {
                    // Named by the manifest and the entry, like its other mistakes.
                    throw ManifestError(path: path, problem: "\(key): \(relative): \(empty.problem)")
                } catch let nested as ManifestError {
                    throw nested   // a nested manifest's own mistake names that manifest and entry
                } catch let inside as Corpus.OutputInsideCorpus {
                    var error = ManifestError(path: path, problem: "\(key): \(inside)")
                    error.isAboutOutputFolder = true
                    throw error
                } catch {
                    // Whatever the entry is (an audio file, a file that is no JSON), say which entry.
                    throw ManifestError(path: path, problem: "\(key): \(error)")
                }
            case .object(let fields):
                // A recording that cannot run (a missing file, a wrong key) is its own failed
                // item, named by the manifest and its place in it; the others still run.
                do {
                    items.append(.recording(try recording(fields, key: key, manifest: path, resolve: resolve)))
                } catch let error as ManifestError {
                    items.append(.broken(name: brokenName(fields["name"]?.stringValue, key: key, manifest: path), file: path,
                                         problem: error.description))
                }
            default:
                throw ManifestError(path: path, problem: "\(key): expected a path or a recording object, found \(entry.typeName)")
            }
        }
        return items
    }

    /// What a broken entry is listed as: its name when that could name a folder, else its
    /// manifest and place (`corpus-corpus[3]`), so that no result points outside the output
    /// folder and two nested manifests' entries are told apart.
    static func brokenName(_ name: String?, key: String, manifest: String) -> String {
        guard let name, RunName.problem(name) == nil else {
            return "\(URL(fileURLWithPath: manifest).deletingPathExtension().lastPathComponent)-\(key)"
        }
        return name
    }

    static func recording(_ fields: [String: JSONValue], key: String, manifest: String, resolve: (String) -> String) throws -> RecordingItem {
        // A field as errors name it: "corpus[5].mic", and once the entry's name is read, as a run's
        // error names the entry: "corpus[5] (office-1): mic".
        var named: String?
        func place(_ field: String) -> String { named.map { "\(key) (\($0)): \(field)" } ?? "\(key).\(field)" }
        func text(_ name: String, required: Bool) throws -> String? {
            switch fields[name] {
            case nil, .null?:
                if required { throw ManifestError(path: manifest, problem: "\(place(name)): missing") }
                return nil
            case .string(let value)?: return value
            case let other?: throw ManifestError(path: manifest, problem: "\(place(name)): expected a string, found \(other.typeName)")
            }
        }
        func file(_ name: String, required: Bool = false) throws -> String? {
            guard let relative = try text(name, required: required) else { return nil }
            let path = resolve(relative)
            if let problem = InputFile.problem(at: path) {
                throw ManifestError(path: manifest, problem: "\(place(name)): \(relative): \(problem)")
            }
            return path
        }
        let name = try text("name", required: true)!
        // The same rule as a scenario's name: it names the item's folder.
        if let problem = RunName.problem(name) { throw ManifestError(path: manifest, problem: "\(key).name: \(problem)") }
        named = name
        let known = ["name", "mic", "loopback", "echo", "near_end", "talk_type", "channel"]
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw ManifestError(path: manifest, problem: "\(key) (\(name)): "
                                + unknownKey(unknown, known: known, listing: "a recording has \(known.joined(separator: ", "))"))
        }
        var talkType: TalkType?
        if let type = try text("talk_type", required: false) {
            // Either spelling, as in the AEC-Challenge's file names (farend-singletalk too).
            guard let parsed = TalkType(spelling: type) else {
                throw ManifestError(path: manifest, problem: "\(place("talk_type")): '\(type)' is not one of \(TalkType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            talkType = parsed
        }
        let mic = try file("mic", required: true)!
        let loopback = try file("loopback")
        if loopback == nil, talkType != .nearEndSingleTalk {
            throw ManifestError(path: manifest, problem: "\(place("loopback")): missing (only near-end single talk has none)")
        }
        guard let channel = ChannelSelection(json: fields["channel"]) else {
            let other = fields["channel"] ?? .null
            let found = if case .number(let number) = other { "\(number)" } else if case .string(let text) = other { "'\(text)'" } else { other.typeName }
            throw ManifestError(path: manifest, problem: "\(place("channel")): expected a channel number 0…\(ChannelSelection.highestChannel) (counted from 0) or \"downmix\", found \(found)")
        }
        return RecordingItem(name: name, mic: mic, loopback: loopback, echo: try file("echo"), nearEnd: try file("near_end"),
                             talkType: talkType, channel: channel, origin: "\(manifest): \(key)")
    }
}

/// What `eval PATH…` runs: each path a scenario file, a manifest, a folder of scenarios, or a
/// folder in an AEC-Challenge layout (its recordings, then any scenario files in it), in the
/// order given.
public enum Corpus {
    public static func items(in paths: [String], excluding out: String?, visiting: Set<String> = []) throws -> [CorpusItem] {
        var items: [CorpusItem] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            // Also a folder a manifest names: the runs' files would join the corpus they measure.
            // As written too: through a link inside the corpus the outputs land elsewhere, but the
            // corpus's discovery follows the link and reads them.
            if exists, isDirectory.boolValue, let out, InputFile.isSameOrInside(out, path) || Self.isInsideAsWritten(out, path) {
                throw OutputInsideCorpus(out: out, corpus: path)
            }
            if exists, isDirectory.boolValue, RecordingCorpus.layout(of: path) != nil {
                items += try RecordingCorpus.items(in: path)
                // Scenario files beside (or under) the recordings run too: passed over, a gate
                // would pass on fewer items than the folder holds. None found is not an error
                // here; a sub-folder that cannot be read is, as in a folder of scenarios.
                do {
                    items += try ScenarioDiscovery.files(in: [path], excluding: out).map(CorpusItem.scenario)
                } catch is ScenarioDiscovery.Empty {}
            } else if exists, !isDirectory.boolValue, CorpusManifest.isManifest(path) {
                items += try CorpusManifest.items(in: path, excluding: out, visiting: visiting)
            } else if exists, !isDirectory.boolValue, isAudioFileName(path) {
                // Read as a scenario it failed with "not valid JSON … found 'R'".
                throw AudioFileGiven(path: path)
            } else {
                items += try ScenarioDiscovery.files(in: [path], excluding: out).map(CorpusItem.scenario)
            }
        }
        return items
    }

    /// An output folder inside a corpus folder: its runs' files (WAV outputs, reports) would land
    /// among the inputs, and another eval of the folder with another `--out` would read them.
    public struct OutputInsideCorpus: DescribedError {
        public let out: String
        public let corpus: String
        public var description: String {
            "\(out): output folder is inside the corpus folder \(corpus); the runs' files would join the corpus: choose a folder outside it (e.g. --out \(Self.suggestion(for: corpus)))"
        }

        /// A folder beside the corpus folder, named after it.
        static func suggestion(for corpus: String) -> String {
            let folder = InputFile.canonical(corpus)
            return folder == "/" ? "a folder outside /" : folder + "-reports"
        }
    }

    /// `path` inside `folder` by their absolute paths as written (`..` resolved, links not).
    static func isInsideAsWritten(_ path: String, _ folder: String) -> Bool {
        let inner = InputFile.lexicalComponents(path), outer = InputFile.lexicalComponents(folder)
        return inner.count >= outer.count && Array(inner.prefix(outer.count)) == outer
    }

    static func isAudioFileName(_ path: String) -> Bool {
        let suffix = (path as NSString).pathExtension.lowercased()
        return ["wav", "wave", "flac", "ogg", "oga", "opus", "mp3", "aif", "aiff", "aifc", "caf", "w64", "rf64", "au", "snd"].contains(suffix)
    }

    /// A recording's file given where a corpus is expected.
    public struct AudioFileGiven: DescribedError {
        public let path: String
        public var description: String {
            "\(path): an audio file, not a corpus; give its AEC-Challenge folder, or list it in a manifest as a recording "
                + "({\"name\", \"mic\", \"loopback\"}), or a scenario that plays it"
        }
    }
}

extension CorpusManifest {
    /// "unknown key 'loopbak' (did you mean 'loopback'? a recording has …)": the known key two
    /// edits or fewer away, as a scenario's reader suggests one (`JSONObjectReader.edits`).
    static func unknownKey(_ key: String, known: [String], listing: String) -> String {
        let meant = known.filter { JSONObjectReader.edits(from: key, to: $0) <= 2 }
            .min { (JSONObjectReader.edits(from: key, to: $0), $0) < (JSONObjectReader.edits(from: key, to: $1), $1) }
        return "unknown key '\(key)' (" + (meant.map { "did you mean '\($0)'? " } ?? "") + listing + ")"
    }
}
