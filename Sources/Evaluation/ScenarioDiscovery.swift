import AudioInterop
import EchoLabJSON
import Foundation
import Reporting

/// Finds scenario files: files as given, folders searched recursively for `*.json`, in sorted
/// order. Inside folders it passes over what EchoLab itself writes, so a corpus can be evaluated
/// again with its reports beside it: the output folder, hidden files (`.x.partial`), and JSON
/// files whose top-level `schema` is EchoLab's (`echolab.run/…`, `echolab.eval/…`,
/// `echolab.golden/…`), and corpus manifests (named explicitly, they are read as such). A file named explicitly is taken as a scenario whatever it holds.
public enum ScenarioDiscovery {
    public struct NotFound: Error, CustomStringConvertible {
        public let path: String
        public var problem = "no such file or folder"
        public var description: String { "\(path): \(problem)" }
    }

    /// Why nothing was found: a corpus that runs nothing must not pass a CI gate.
    public struct Empty: Error, CustomStringConvertible {
        public let paths: [String]
        /// Manifests found where scenarios were looked for (passed over: see `files`).
        public var manifests: [String] = []
        public init(paths: [String], manifests: [String] = []) {
            self.paths = paths
            self.manifests = manifests
        }
        /// What is wrong, without the paths.
        public var problem: String {
            let passedOver = manifests.isEmpty ? ""
                : " (passed over \(manifests.count == 1 ? "a manifest" : "\(manifests.count) manifests"): "
                  + manifests.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ") + "; give a manifest to eval to run it)"
            return "no scenario files (*.json) found" + passedOver
        }
        public var description: String { "\(paths.joined(separator: ", ")): \(problem)" }
    }

    public static func files(in paths: [String], excluding outputFolder: String? = nil) throws -> [String] {
        let excluded = outputFolder.map(InputFile.canonical)
        var found: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw NotFound(path: path, problem: InputFile.problem(at: path) ?? "no such file or folder")
            }
            if !isDirectory.boolValue {
                if let problem = InputFile.problem(at: path) { throw NotFound(path: path, problem: problem) }
                found.append(path)
                continue
            }
            var inFolder: [String] = [], manifests: [String] = []
            // Searched where the folder really is: given as a symbolic link, its own path listed
            // nothing. The files keep the path as given.
            let root = URL(fileURLWithPath: InputFile.canonical(path))
            let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
            while let url = enumerator?.nextObject() as? URL {
                let relative = String(url.path.dropFirst(root.path.count)).drop { $0 == "/" }
                let item = (path as NSString).appendingPathComponent(String(relative))
                if let excluded, InputFile.canonical(item) == excluded {
                    enumerator?.skipDescendants()
                    continue
                }
                if item.hasSuffix(".json"), InputFile.problem(at: item) == nil, !isEchoLabOutput(item) {
                    if CorpusManifest.isManifest(item) { manifests.append(item) } else { inFolder.append(item) }
                }
            }
            // A folder given that holds no scenario is a mistake, also beside other items: a gate
            // would pass on less than was asked for without a word.
            guard !inFolder.isEmpty else { throw Empty(paths: [path], manifests: manifests.sorted()) }
            found += inFolder.sorted()
        }
        return found
    }

    /// Whether `path` is a JSON file EchoLab wrote (its top-level `schema` names one of its formats).
    public static func isEchoLabOutput(_ path: String) -> Bool {
        guard let size = InputFile.size(at: path), size <= 64 << 20,
              let data = FileManager.default.contents(atPath: path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let schema = object["schema"] as? String else { return false }
        return schema.hasPrefix("echolab.")
    }
}
