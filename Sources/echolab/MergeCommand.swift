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
                // Read first: a mistyped shard is "no such file", not about OUT.
                let eval = try EvalDocument.read(file)
                // OUT may be neither a shard nor inside one (its runs would be copied into themselves).
                guard !Self.isSameOrInside(out, folder) else { throw OutIsShard(out: out) }
                loaded.append((folder, EvalMerge.Shard(path: file, folder: folder, eval: eval)))
            }
            let merged = try EvalMerge.merge(loaded.map(\.shard))
            let runs = loaded.flatMap { folder, shard in
                EvalMerge.runFolders(of: shard.eval).map { (shard: folder, run: $0) }
            }.map { (shard: $0.shard, source: ($0.shard as NSString).appendingPathComponent($0.run), run: $0.run) }
            // Everything is checked before OUT is touched: the runs' files (a FIFO would block the
            // copy, a device be read; a linked item folder would copy what is outside the shard),
            // that no run lands in or over a shard, and that a run folder already in OUT is one
            // EchoLab wrote.
            for (shard, source, run) in runs {
                try Self.checkRunPath(run, in: shard)
                try Self.checkRunFolder(source)
                let destination = (out as NSString).appendingPathComponent(run)
                for (folder, _) in loaded where Self.isSameOrInside(folder, destination) || Self.isSameOrInside(destination, folder) {
                    throw RunOverShard(destination: destination, shard: folder)
                }
                if FileManager.default.fileExists(atPath: destination),
                   !ScenarioDiscovery.isEchoLabOutput((destination as NSString).appendingPathComponent("report.json")) {
                    throw NotOurs(path: destination)
                }
            }
            try Self.write(merged, runs: runs.map { ($0.source, $0.run) }, to: out)
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

    /// Copies the runs into a hidden folder in OUT first, then moves each into place (an earlier
    /// run there moved aside, not deleted) and writes the reports: a merge that fails, or is
    /// interrupted (SIGINT/SIGTERM, exit 130/143) before the moves, leaves OUT as it was — an
    /// earlier merge there intact (its runs moved back), a folder it created removed.
    static func write(_ merged: EvalReport, runs: [(source: String, run: String)], to out: String) throws {
        let created = try AtomicFile.prepareDirectory(out)
        let staging = (out as NSString).appendingPathComponent(".echolab-merge.partial")
        let aside = (staging as NSString).appendingPathComponent(".replaced")
        func inside(_ folder: String, _ run: String) -> String { (folder as NSString).appendingPathComponent(run) }
        /// Runs moved into OUT, and whether an earlier run was moved aside for each.
        var placed: [(run: String, replaced: Bool)] = []
        func undo() {
            for (run, replaced) in placed.reversed() {
                try? FileManager.default.removeItem(atPath: inside(out, run))
                if replaced { try? FileManager.default.moveItem(atPath: inside(aside, run), toPath: inside(out, run)) }
            }
            try? FileManager.default.removeItem(atPath: staging)
            for folder in created.reversed() { rmdir(folder) }
        }
        func stopIfInterrupted() throws {
            guard let code = Interrupts.exitCode else { return }
            undo()
            standardError("echolab: interrupted: nothing merged into \(out)")
            throw ExitCode(code)
        }
        do {
            try? FileManager.default.removeItem(atPath: staging)   // an earlier merge killed by SIGKILL
            try AtomicFile.prepareDirectory(staging)
            for (source, run) in runs {
                try stopIfInterrupted()
                try AtomicFile.prepareDirectory(InputFile.parent(of: inside(staging, run)))
                try fileOperation("copy \(source) here", inside(out, run)) {
                    try FileManager.default.copyItem(atPath: source, toPath: inside(staging, run))
                }
            }
            try stopIfInterrupted()
            for name in CorpusRun.reportFileNames { try AtomicFile.checkWritable(inside(out, name), inputs: []) }
            // From here on renames and the reports: a failure puts OUT back as it was.
            for (_, run) in runs {
                let replaced = FileManager.default.fileExists(atPath: inside(out, run))
                if replaced {
                    try AtomicFile.prepareDirectory(InputFile.parent(of: inside(aside, run)))
                    try fileOperation("move it aside", inside(out, run)) {
                        try FileManager.default.moveItem(atPath: inside(out, run), toPath: inside(aside, run))
                    }
                }
                placed.append((run, replaced))
                try AtomicFile.prepareDirectory(InputFile.parent(of: inside(out, run)))
                try fileOperation("move it into place", inside(out, run)) {
                    try FileManager.default.moveItem(atPath: inside(staging, run), toPath: inside(out, run))
                }
            }
            try merged.write(to: out)
            try? FileManager.default.removeItem(atPath: staging)
        } catch let code as ExitCode {
            throw code
        } catch {
            undo()
            throw error
        }
    }

    /// Runs a copy or a move of `path`; a failure is one line naming it and the system's reason
    /// ("No space left on device"), not Foundation's error dump.
    static func fileOperation(_ what: String, _ path: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as NSError {
            let posix = error.userInfo[NSUnderlyingErrorKey] as? NSError
            let reason = if let posix, posix.domain == NSPOSIXErrorDomain {
                String(cString: strerror(Int32(posix.code)))
            } else if error.domain == NSCocoaErrorDomain && error.code == NSFileWriteOutOfSpaceError {
                String(cString: strerror(ENOSPC))
            } else {
                error.localizedDescription.replacingOccurrences(of: "The operation could not be completed. ", with: "")
            }
            throw AtomicFile.WriteError(path: path, reason: "cannot \(what): \(reason)")
        }
    }

    /// Whether `path` is `folder` or inside it (canonical paths: `..` and links resolved).
    static func isSameOrInside(_ path: String, _ folder: String) -> Bool {
        let path = InputFile.canonical(path), folder = InputFile.canonical(folder)
        return path == folder || path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }

    /// The folders between a shard and its run (ITEM of ITEM/MODE) are folders, not links: a link
    /// would bring in runs from outside the shard.
    static func checkRunPath(_ run: String, in shard: String) throws {
        var current = shard
        for part in run.split(separator: "/").dropLast() {
            current = (current as NSString).appendingPathComponent(String(part))
            var status = stat()
            guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                throw NotARunFile(path: current, what: "not a folder of the shard's (a link, or missing)")
            }
        }
    }

    /// A run folder EchoLab wrote is a folder of folders and regular files; anything else (a
    /// link, a pipe, a device) is refused by name.
    static func checkRunFolder(_ folder: String, top: Bool = true) throws {
        var status = stat()
        guard lstat(folder, &status) == 0 else { throw NotARunFile(path: folder, what: "missing: the shard's run folders must come with its eval.json") }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
                try checkRunFolder((folder as NSString).appendingPathComponent(name), top: false)
            }
        case S_IFREG where !top:
            return
        default:
            throw NotARunFile(path: folder, what: top ? "not a run folder (a link or a file)"
                                : "not a file EchoLab writes (a link, pipe, socket or device) in a shard's run folder")
        }
    }

    struct NotARunFile: Error, CustomStringConvertible {
        let path: String
        let what: String
        var description: String { "\(path): \(what); not merged" }
    }

    struct RunOverShard: Error, CustomStringConvertible {
        let destination: String
        let shard: String
        var description: String { "\(destination): a run would be merged into or over the shard \(shard); choose another --out" }
    }

    struct OutIsShard: Error, CustomStringConvertible {
        let out: String
        var description: String { "\(out): the output folder is one of the shards or inside one; choose another (e.g. merged/)" }
    }

    struct NotOurs: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path): exists and is not a run EchoLab wrote; not replaced (choose an empty --out)" }
    }
}
