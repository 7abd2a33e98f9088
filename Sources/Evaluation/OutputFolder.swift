import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import Simulation

/// The rules for a run's output folder, so that no run can overwrite or delete its own inputs:
/// - a folder that is, or contains, a file the scenario reads (its inputs, the scenario file
///   itself) is refused before anything is written;
/// - a file left by an earlier run is deleted only when that run's `report.json` lists it as one
///   of its own outputs (and this run did not write it again).
public enum OutputFolder {
    /// Why a folder cannot take a run's outputs.
    public struct Conflict: DescribedError, Equatable {
        public let folder: String
        public let input: String
        /// The scenario key that names the input (nil: the scenario file itself).
        public let key: String?
        public let scenarioFile: String
        /// The canceller plugin whose library `input` is (nil: a file the scenario names).
        public var plugin: String?

        /// The folder is the input itself, not a folder that holds it.
        public var isTheInput: Bool { InputFile.canonical(folder) == InputFile.canonical(input) }

        public var description: String {
            let what = plugin.map { "the plugin \($0)'s library \(input)" }
                ?? key.map { "the input \(input) (\(scenarioFile): \($0))" } ?? "the scenario file \(input)"
            if isTheInput { return "\(folder): the output folder is \(what), not a folder; choose a folder that holds no input" }
            return "\(folder): output folder holds \(what); choose a folder that holds no input"
        }
    }

    /// Throws `Conflict` when `folder` (existing or not) is, or contains, one of `scenario`'s files
    /// or the library of the plugin it runs.
    public static func check(_ folder: String, for scenario: Scenario) throws {
        var files = scenario.inputs.map { (path: $0.path, key: Optional($0.keyPath)) }
        if !scenario.file.isEmpty { files.insert((scenario.file, nil), at: 0) }
        try check(folder, holdsNone: files, of: scenario.file)
        if let plugin = scenario.voiceProcessing.backend.plugin { try check(folder, holdsNoneOf: [plugin]) }
    }

    /// Throws `Conflict` when `folder` (existing or not) is, or contains, one of `plugins`' library
    /// files: a run's report written over one would replace the canceller that ran
    /// (`run --out o --plugin acme=o/report.json`).
    public static func check(_ folder: String, holdsNoneOf plugins: [CancellerPlugin]) throws {
        for plugin in plugins {
            do {
                try check(folder, holdsNone: [(plugin.path, nil)], of: "")
            } catch var conflict as Conflict {
                conflict.plugin = plugin.name
                throw conflict
            }
        }
    }

    /// Throws `Conflict` when `folder` (existing or not) is, or contains, one of `files` (each
    /// with the key that names it; nil for the owner's own file), which belong to `owner`.
    static func check(_ folder: String, holdsNone files: [(path: String, key: String?)], of owner: String) throws {
        let base = InputFile.canonical(folder)
        let prefix = base == "/" ? "/" : base + "/"
        for file in files {
            let canonical = InputFile.canonical(file.path)
            if canonical == base || canonical.hasPrefix(prefix) {
                throw Conflict(folder: folder, input: file.path, key: file.key, scenarioFile: owner)
            }
        }
    }

    /// Throws when a file the run will write into `folder` cannot be replaced: a folder, a device,
    /// a pipe or a socket under its name, or a link to one (`AtomicFile.replacementProblem`).
    static func checkReplaceable(_ names: [String], in folder: String) throws {
        for name in names {
            let path = (folder as NSString).appendingPathComponent(name)
            if let problem = AtomicFile.replacementProblem(at: path) {
                throw AtomicFile.WriteError(path: path, reason: "cannot write: \(problem)")
            }
        }
    }

    /// Runs `body`, which writes into `folder` (created with its missing parents first). If it
    /// fails, a folder this call created holds nothing worth keeping: it goes, and so do parents
    /// it created, if nothing else was put in them (parallel runs share an item's folder).
    /// With `lockingFor`, `body` runs holding the folder's `OutputLock` for that command; a folder
    /// another process holds is refused (`OutputLock.Held`) and nothing in it is touched, even if
    /// this call saw no folder at first (the holder made it meanwhile); so is one inside a folder
    /// another process holds, unless `insideOwnFolder` (an eval's run, in the folder it holds).
    static func writing<T>(into folder: String, lockingFor command: String? = nil, insideOwnFolder: Bool = false,
                           _ body: () throws -> T) throws -> T {
        var created: [String] = []
        var lock: OutputLock?
        // Held until the folder is removed after a failure too: no other run takes it meanwhile.
        defer { withExtendedLifetime(lock) {} }
        do {
            created = try AtomicFile.prepareDirectory(folder)
            if let command {
                do {
                    lock = try OutputLock(folder: folder, command: command, insideOwnFolder: insideOwnFolder)
                } catch {
                    AtomicFile.removeEmptyFolders(created)
                    throw LockRefused(error: error)
                }
            }
            return try body()
        } catch let refused as LockRefused {
            throw refused.error
        } catch {
            // Only a folder this call made: one that appeared meanwhile (another run's, finished
            // and unlocked between the check and the lock) is not this call's to remove.
            if created.contains(folder) {
                try? FileManager.default.removeItem(atPath: folder)
                AtomicFile.removeEmptyFolders(created)
            }
            throw error
        }
    }

    /// The lock's error, passed by the clean-up that would remove the folder of a failed run.
    private struct LockRefused: Error { let error: any Error }

    /// The files the `report.json` in `folder` lists as its run's own (a call's taps and device
    /// recordings, a recording's `sent.wav`), if that file is an EchoLab run report; empty otherwise.
    static func filesOfPreviousRun(in folder: String) -> [String] { previousRun(in: folder) ?? [] }

    /// The files the `report.json` in `folder` lists as its run's own; nil where there is no
    /// EchoLab run report there.
    private static func previousRun(in folder: String) -> [String]? {
        let reportPath = (folder as NSString).appendingPathComponent("report.json")
        // EchoLab's own reader, not JSONSerialization: an hour-long call's report.json (1.5 MB,
        // series of 7200 points) as Foundation objects would set a re-run's peak memory. Only the
        // members read are built; the series are checked and skipped (docs/performance.md).
        guard InputFile.problem(at: reportPath) == nil,
              let data = FileManager.default.contents(atPath: reportPath),
              let object = try? JSONValue.parseMembers(["schema", "taps", "files"], ofObjectIn: [UInt8](data), maximumBytes: 64 << 20),
              let schema = object["schema"]?.stringValue else { return nil }
        let names: [String]
        if schema.hasPrefix("echolab.run/"), let taps = object["taps"]?.objectValue {
            names = taps.values.compactMap { $0.stringValue }
        } else if schema.hasPrefix("echolab.recording/"), let files = object["files"]?.objectValue {
            // A recording run's own file is its output; the others are the corpus's inputs.
            names = [files["sent"]?.stringValue].compactMap { $0 }
        } else {
            return nil
        }
        // Only plain WAV names in the folder itself: a report is data, not an instruction to
        // delete anything elsewhere (or a report of this run).
        return names.filter { name in
            name.lowercased().hasSuffix(".wav") && !name.contains("/") && !name.hasPrefix(".")
        }
    }

    /// Deletes what an earlier run wrote in `folder` — its report and the files it listed as its
    /// own — where this eval's run of that folder failed: eval.json names the folder, and it must
    /// not hold another run's figures (a plugin that passed last time, say). Nothing else in the
    /// folder is touched, nor anything where no EchoLab run report is. The folder, and those
    /// above it up to `root` (not included), go too where that left them empty: a re-eval left an
    /// empty folder for each run of a plugin that crashed this time.
    static func removePreviousRun(in folder: String, under root: String) {
        guard let files = previousRun(in: folder) else { return }
        removeStaleOutputs(in: folder, previous: files + RunOutput.reportFiles, written: [])
        var emptied: [String] = [], path = URL(fileURLWithPath: folder).standardized.path
        let top = URL(fileURLWithPath: root).standardized.path
        while path.hasPrefix(top + "/") {
            emptied.insert(path, at: 0)
            path = (path as NSString).deletingLastPathComponent
        }
        // rmdir removes a folder only where it is empty: anything else there stays, and so does the folder.
        AtomicFile.removeEmptyFolders(emptied)
    }

    /// Deletes the files the previous run in `folder` listed as its own that this run did not
    /// write again (they would contradict the new report).
    static func removeStaleOutputs(in folder: String, previous: [String], written: Set<String>) {
        for name in previous where !written.contains(name) {
            let path = (folder as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
    }
}
