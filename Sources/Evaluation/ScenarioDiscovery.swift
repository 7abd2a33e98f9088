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
        public init(paths: [String]) { self.paths = paths }
        public var description: String {
            "\(paths.joined(separator: ", ")): no scenario files (*.json) found"
        }
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
            var inFolder: [String] = []
            let enumerator = FileManager.default.enumerator(at: URL(fileURLWithPath: path), includingPropertiesForKeys: nil,
                                                            options: [.skipsHiddenFiles])
            while let url = enumerator?.nextObject() as? URL {
                let relative = String(url.path.dropFirst(URL(fileURLWithPath: path).path.count)).drop { $0 == "/" }
                let item = (path as NSString).appendingPathComponent(String(relative))
                if let excluded, InputFile.canonical(item) == excluded {
                    enumerator?.skipDescendants()
                    continue
                }
                if item.hasSuffix(".json"), InputFile.problem(at: item) == nil, !isEchoLabOutput(item), !CorpusManifest.isManifest(item) {
                    inFolder.append(item)
                }
            }
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
