import ArgumentParser
import AudioInterop
import Foundation
import Evaluation
import Reporting

/// Joins the outputs of `eval --shard 1/N … N/N` (CI-matrix jobs, Kubernetes Indexed Job pods).
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Join the output folders of eval --shard 1/N … N/N into what one unsharded eval writes.",
        discussion: """
        Each SHARD is a folder written by `echolab eval --shard K/N` (or its eval.json). Every shard of the plan must be \
        given once, from one `eval --shard` command: one corpus given by the same paths, one --modes and one EchoLab \
        build (each shard's eval.json names its whole plan; shards of another plan are refused). OUT gets each run's \
        folder (ITEM/MODE/, copied) and eval.json, eval.md and eval.html recomputed over all runs: byte-identical to an \
        unsharded run's but for timing. The runs are copied into a hidden folder in OUT first: a merge that fails or is \
        interrupted leaves OUT as it was. An interrupted shard makes the merge incomplete ("complete": false), which \
        `compare` fails. Exit codes: 0 merged (failed runs are entries of eval.json, as in eval); 1 a shard cannot be \
        read, does not fit the others, or OUT cannot be written; 64 usage error; 130/143 interrupted by SIGINT/SIGTERM \
        (nothing merged). See deploy/ for a CI matrix and a Kubernetes Indexed Job.
        """
    )

    @Argument(help: "The shards' output folders (or their eval.json files).")
    var shards: [String]

    @Option(name: .shortAndLong, help: "Output folder (created if needed; not one of the shards).")
    var out: String

    func validate() throws {
        guard !shards.isEmpty else { throw ValidationError("give the output folders of shards 1/N … N/N") }
        guard !out.isEmpty else { throw ValidationError("--out must name a folder (got an empty string)") }
    }

    func run() throws {
        Interrupts.install()
        do {
            var loaded: [(folder: String, shard: EvalMerge.Shard)] = []
            for path in shards {
                var isDirectory: ObjCBool = false
                let isFolder = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
                let file = isFolder ? (path as NSString).appendingPathComponent("eval.json") : path
                let folder = isFolder ? path : InputFile.parent(of: path)
                guard InputFile.canonical(folder) != InputFile.canonical(out) else { throw OutIsShard(out: out) }
                loaded.append((folder, EvalMerge.Shard(path: file, folder: folder, eval: try EvalDocument.read(file))))
            }
            let merged = try EvalMerge.merge(loaded.map(\.shard))
            let runs = loaded.flatMap { folder, shard in
                EvalMerge.runFolders(of: shard.eval).map { (source: (folder as NSString).appendingPathComponent($0), run: $0) }
            }
            // Everything is checked before OUT is touched: the runs' files (a FIFO would block the
            // copy, a device be read), and that a run folder already in OUT is one EchoLab wrote.
            for (source, run) in runs {
                try Self.checkRunFolder(source)
                let destination = (out as NSString).appendingPathComponent(run)
                if FileManager.default.fileExists(atPath: destination),
                   !ScenarioDiscovery.isEchoLabOutput((destination as NSString).appendingPathComponent("report.json")) {
                    throw NotOurs(path: destination)
                }
            }
            try Self.write(merged, runs: runs, to: out)
            let count = merged.outcome.results.count
            let failed = merged.outcome.failedCount
            // An interrupted shard's runs are missing: said here as eval.json says it.
            let missing = merged.outcome.isComplete ? "" : " (incomplete: \(merged.outcome.plannedCount) planned)"
            print(printable("merged \(loaded.count) shard\(loaded.count == 1 ? "" : "s"): \(count - failed) of \(count) runs succeeded\(missing) → \(out)/eval.md"))
        } catch let code as ExitCode {
            throw code
        } catch {
            throw CommandFailure.exit(error)
        }
    }

    /// Copies the runs into a hidden folder in OUT first, then moves each into place and writes
    /// the reports: a merge that fails or is interrupted (SIGINT/SIGTERM, exit 130/143) while
    /// copying leaves OUT as it was — an earlier merge there intact, a folder it created removed.
    static func write(_ merged: EvalReport, runs: [(source: String, run: String)], to out: String) throws {
        let created = try AtomicFile.prepareDirectory(out)
        let staging = (out as NSString).appendingPathComponent(".echolab-merge.partial")
        func removeStaging() {
            try? FileManager.default.removeItem(atPath: staging)
            for folder in created.reversed() { rmdir(folder) }
        }
        do {
            try? FileManager.default.removeItem(atPath: staging)   // an earlier merge killed by SIGKILL
            try AtomicFile.prepareDirectory(staging)
            for (source, run) in runs {
                if let code = Interrupts.exitCode {
                    removeStaging()
                    standardError("echolab: interrupted: nothing merged into \(out)")
                    throw ExitCode(code)
                }
                try copyRun(from: source, to: (staging as NSString).appendingPathComponent(run))
            }
            // From here on only renames and the reports: the merge completes.
            for (source, run) in runs where FileManager.default.fileExists(atPath: source) {
                let destination = (out as NSString).appendingPathComponent(run)
                if FileManager.default.fileExists(atPath: destination) { try FileManager.default.removeItem(atPath: destination) }
                try AtomicFile.prepareDirectory(InputFile.parent(of: destination))
                try FileManager.default.moveItem(atPath: (staging as NSString).appendingPathComponent(run), toPath: destination)
            }
            try merged.write(to: out)
            try? FileManager.default.removeItem(atPath: staging)
        } catch let code as ExitCode {
            throw code
        } catch {
            removeStaging()
            throw error
        }
    }

    /// A run folder EchoLab wrote holds folders and regular files (links are copied as links);
    /// anything else is refused by name.
    static func checkRunFolder(_ folder: String) throws {
        var status = stat()
        guard lstat(folder, &status) == 0 else { return }   // a run that failed before writing has none
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
                try checkRunFolder((folder as NSString).appendingPathComponent(name))
            }
        case S_IFREG, S_IFLNK:
            return
        default:
            throw NotARunFile(path: folder)
        }
    }

    /// Copies one run's folder (checked by `checkRunFolder`).
    static func copyRun(from source: String, to destination: String) throws {
        var isDirectory: ObjCBool = false
        // A run that failed before writing anything has no folder.
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory), isDirectory.boolValue else { return }
        try AtomicFile.prepareDirectory(InputFile.parent(of: destination))
        try FileManager.default.copyItem(atPath: source, toPath: destination)
    }

    struct NotARunFile: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path): not a file EchoLab writes (a pipe, socket or device in a shard's run folder); not merged" }
    }

    struct OutIsShard: Error, CustomStringConvertible {
        let out: String
        var description: String { "\(out): the output folder is one of the shards; choose another (e.g. merged/)" }
    }

    struct NotOurs: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path): exists and is not a run EchoLab wrote; not replaced (choose an empty --out)" }
    }
}
