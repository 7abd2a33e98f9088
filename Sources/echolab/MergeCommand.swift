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
        given once, from one corpus, one --modes and one EchoLab build. OUT gets each run's folder (ITEM/MODE/, copied) \
        and eval.json and eval.md recomputed over all runs: byte-identical to an unsharded run's but for timing. An \
        interrupted shard makes the merge incomplete ("complete": false), which `compare` fails. Exit codes: 0 merged \
        (failed runs are entries of eval.json, as in eval); 1 a shard cannot be read, does not fit the others, or OUT \
        cannot be written; 64 usage error. See deploy/ for a CI matrix and a Kubernetes Indexed Job.
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
            try AtomicFile.prepareDirectory(out)
            for (folder, shard) in loaded {
                for run in EvalMerge.runFolders(of: shard.eval) {
                    try Self.copyRun(from: (folder as NSString).appendingPathComponent(run),
                                     to: (out as NSString).appendingPathComponent(run))
                }
            }
            try merged.write(to: out)
            let runs = merged.outcome.results.count
            let failed = merged.outcome.failedCount
            // An interrupted shard's runs are missing: said here as eval.json says it.
            let missing = merged.outcome.isComplete ? "" : " (incomplete: \(merged.outcome.plannedCount) planned)"
            print(printable("merged \(loaded.count) shard\(loaded.count == 1 ? "" : "s"): \(runs - failed) of \(runs) runs succeeded\(missing) → \(out)/eval.md"))
        } catch {
            throw CommandFailure.exit(error)
        }
    }

    /// Copies one run's folder; one already in OUT is replaced only if EchoLab wrote it.
    static func copyRun(from source: String, to destination: String) throws {
        var isDirectory: ObjCBool = false
        // A run that failed before writing anything has no folder.
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory), isDirectory.boolValue else { return }
        if FileManager.default.fileExists(atPath: destination) {
            guard ScenarioDiscovery.isEchoLabOutput((destination as NSString).appendingPathComponent("report.json")) else {
                throw NotOurs(path: destination)
            }
            try FileManager.default.removeItem(atPath: destination)
        }
        try AtomicFile.prepareDirectory(InputFile.parent(of: destination))
        try FileManager.default.copyItem(atPath: source, toPath: destination)
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
