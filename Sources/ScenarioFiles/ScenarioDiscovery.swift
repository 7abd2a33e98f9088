import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation

/// Finds scenario files: files as given, folders searched recursively for `*.json`, in sorted
/// order. Inside folders it passes over what EchoLab itself writes, so a corpus can be evaluated
/// again with its reports beside it: the output folder, hidden files (`.x.partial`), and JSON
/// files whose top-level `schema` is EchoLab's (`echolab.run/…`, `echolab.eval/…`,
/// `echolab.golden/…`), and corpus manifests (named explicitly, they are read as such). A file
/// named explicitly is taken as a scenario whatever it holds. A `*.json` in a folder that cannot
/// be read (a link to nothing, a pipe) is listed, so that it fails as an item; a folder that
/// cannot be read is an error (`NotFound`), as its scenarios would be left out.
public enum ScenarioDiscovery {
    public struct NotFound: DescribedError {
        public let path: String
        public var problem = "no such file or folder"
        public var description: String { "\(path): \(problem)" }
    }

    /// Why nothing was found: a corpus that runs nothing must not pass a CI gate.
    public struct Empty: DescribedError {
        public let paths: [String]
        /// Manifests found where scenarios were looked for (passed over: see `files`).
        public var manifests: [String] = []
        /// WAV files found there: recordings in a layout that is no recording item.
        public var wavFiles = 0
        public init(paths: [String], manifests: [String] = [], wavFiles: Int = 0) {
            self.paths = paths
            self.manifests = manifests
            self.wavFiles = wavFiles
        }
        /// What is wrong, without the paths.
        public var problem: String {
            let passedOver = manifests.isEmpty ? ""
                : " (passed over \(manifests.count == 1 ? "a manifest" : "\(manifests.count) manifests"): "
                  + manifests.map(shown).joined(separator: ", ") + "; give a manifest to eval to run it)"
            // Recordings there are read in the AEC Challenge's layouts or through a manifest only.
            let recordings = wavFiles == 0 ? ""
                : "; its \(wavFiles == 1 ? "WAV file is" : "\(wavFiles) WAV files are") in no recording layout EchoLab reads "
                  + "(the AEC Challenge's, or a manifest that names mic and loopback: docs/recordings.md)"
            return "no scenario files (*.json) found" + passedOver + recordings
        }
        public var description: String { "\(paths.joined(separator: ", ")): \(problem)" }

        /// A manifest by its path inside the folder searched (two in subfolders may share a name).
        private func shown(_ manifest: String) -> String {
            guard paths.count == 1 else { return manifest }
            let folder = paths[0].hasSuffix("/") ? paths[0] : paths[0] + "/"
            return manifest.hasPrefix(folder) ? String(manifest.dropFirst(folder.count)) : manifest
        }
    }

    public static func files(in paths: [String], excluding outputFolder: String? = nil) throws -> [String] {
        let excluded = outputFolder.map(InputFile.canonical)
        var found: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw NotFound(path: path, problem: InputFile.missingProblem(at: path) ?? InputFile.problem(at: path) ?? "no such file or folder")
            }
            if !isDirectory.boolValue {
                if let problem = InputFile.problem(at: path) { throw NotFound(path: path, problem: problem) }
                found.append(path)
                continue
            }
            var visited = Set<String>()
            var unreadable: [(folder: String, reason: String)] = []
            let (inFolder, manifests, wavFiles) = search(path, excluding: excluded, visited: &visited, unreadable: &unreadable)
            // A folder that cannot be read would leave its scenarios out without a word.
            if let first = unreadable.first {
                throw NotFound(path: first.folder, problem: "cannot be read (\(first.reason)): the scenarios in it would be left out")
            }
            // A folder given that holds no scenario is a mistake, also beside other items: a gate
            // would pass on less than was asked for without a word.
            guard !inFolder.isEmpty else { throw Empty(paths: [path], manifests: manifests.sorted(), wavFiles: wavFiles) }
            found += inFolder.sorted()
        }
        return found
    }

    /// The scenario files under `folder` (as given) and the manifests passed over there. The
    /// folder is searched where it really is (given as a symbolic link, its own path listed
    /// nothing), its files keep the path as given, and a linked folder inside is searched too —
    /// once: a link back up would loop.
    private static func search(_ folder: String, excluding excluded: String?, visited: inout Set<String>,
                               unreadable: inout [(folder: String, reason: String)]) -> (scenarios: [String], manifests: [String], wavFiles: Int) {
        let root = URL(fileURLWithPath: InputFile.canonical(folder))
        guard visited.insert(root.path).inserted else { return ([], [], 0) }
        var scenarios: [String] = [], manifests: [String] = [], wavFiles = 0
        // Folders the enumerator cannot open (no read permission): it passes over them otherwise.
        var failures: [(folder: String, reason: String)] = []
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles]) { url, error in
            let relative = String(url.path.dropFirst(root.path.count)).drop { $0 == "/" }
            let reason = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError).map { String(cString: strerror(Int32($0.code))) }
                ?? error.localizedDescription
            failures.append(((folder as NSString).appendingPathComponent(String(relative)), reason))
            return true
        }
        defer { unreadable += failures }
        while let url = enumerator?.nextObject() as? URL {
            let relative = String(url.path.dropFirst(root.path.count)).drop { $0 == "/" }
            let item = (folder as NSString).appendingPathComponent(String(relative))
            if let excluded, InputFile.canonical(item) == excluded {
                enumerator?.skipDescendants()
                continue
            }
            var status = stat(), isDirectory: ObjCBool = false
            if lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK,
               FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
                let inner = search(item, excluding: excluded, visited: &visited, unreadable: &unreadable)
                scenarios += inner.scenarios
                manifests += inner.manifests
                wavFiles += inner.wavFiles
                continue
            }
            if item.lowercased().hasSuffix(".wav") { wavFiles += 1 }
            guard item.hasSuffix(".json") else { continue }
            if InputFile.problem(at: item) != nil {
                // A link to nothing, a pipe, a file that cannot be read: passed over, the corpus
                // would run one item short without a word. The loader fails it as an item, by name.
                var isDirectory: ObjCBool = false
                if !(FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue) {
                    scenarios.append(item)
                }
            } else if !isEchoLabOutput(item) {
                if CorpusManifest.isManifest(item, limit: JSONValue.maximumBytes) { manifests.append(item) } else { scenarios.append(item) }
            }
        }
        return (scenarios, manifests, wavFiles)
    }

    /// Whether `path` is a JSON file EchoLab wrote (its top-level `schema` names one of its formats).
    /// Up to the largest eval.json EchoLab reads back (`EvalDocument`), and only `schema` built:
    /// an hour's report.json or a large corpus's eval.json as Foundation objects would set the
    /// peak memory, and one over a smaller limit would be taken for a scenario.
    public static func isEchoLabOutput(_ path: String) -> Bool {
        schema(of: path)?.hasPrefix("echolab.") ?? false
    }

    /// Whether `path` is an eval.json EchoLab wrote (its `schema` is `echolab.eval/…`), not
    /// another of its outputs saved under that name.
    public static func isEchoLabEval(_ path: String) -> Bool {
        schema(of: path)?.hasPrefix("echolab.eval/") ?? false
    }

    /// The top-level `schema` of a JSON file (nil: none, or no JSON object).
    static func schema(of path: String) -> String? {
        guard let size = InputFile.size(at: path), size <= 1 << 30,
              let data = FileManager.default.contents(atPath: path),
              let object = try? JSONValue.parseMembers(["schema"], ofObjectIn: [UInt8](data), maximumBytes: 1 << 30) else { return nil }
        return object["schema"]?.stringValue
    }
}
