import AudioCore
import Foundation

/// The scorers EchoLab ships (`--scorer aecmos`, no program given): its own scripts under
/// `scorers/`, run with the Python environment `make scorers` installs into `.build/scorers`.
public enum ReferenceScorers {
    public static let names = ["aecmos"]

    /// Why a reference scorer cannot run.
    public struct Unavailable: DescribedError {
        public let description: String
    }

    /// The command of reference scorer `name`. EchoLab's folder is `$ECHOLAB_SCORERS_DIR`, else
    /// the nearest folder above the running binary that holds `scorers/NAME.py` (a build's
    /// binary lives in `.build/…/release/`).
    public static func spec(named name: String) throws -> ScorerSpec {
        let script = "scorers/\(name).py"
        guard let root = Self.root(holding: script) else {
            if let given = ProcessInfo.processInfo.environment["ECHOLAB_SCORERS_DIR"], !given.isEmpty {
                throw Unavailable(description: "--scorer \(name): ECHOLAB_SCORERS_DIR=\(given) holds no \(script): it names EchoLab's folder, the one that holds scorers/")
            }
            throw Unavailable(description: "--scorer \(name): cannot find \(script) above the echolab binary: set ECHOLAB_SCORERS_DIR to EchoLab's folder, or give --scorer \(name)=PROGRAM")
        }
        let python = (root as NSString).appendingPathComponent(".build/scorers/bin/python3")
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Unavailable(description: "--scorer \(name): not installed: run `make scorers` in \(root) (it installs speechmos, onnxruntime and librosa into .build/scorers)")
        }
        return try ScorerSpec(name: name, command: "\(quoted(python)) \(quoted((root as NSString).appendingPathComponent(script)))")
    }

    private static func root(holding script: String) -> String? {
        if let given = ProcessInfo.processInfo.environment["ECHOLAB_SCORERS_DIR"], !given.isEmpty {
            return FileManager.default.fileExists(atPath: (given as NSString).appendingPathComponent(script)) ? given : nil
        }
        var folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(script).path) { return folder.path }
            folder.deleteLastPathComponent()
        }
        return nil
    }

    /// `text` as one word for /bin/sh.
    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
