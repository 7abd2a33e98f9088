import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import ScenarioFiles

/// What `merge` does on disk, once `EvalMerge.merge` has checked the shards fit: check every run
/// folder before OUT is touched, then copy the runs into a hidden folder in OUT, move them into
/// place (an earlier merge's runs moved aside until the reports are written) and write the
/// reports. A failure, or a cancellation before the moves, leaves OUT as it was.
public enum MergeOutput {
    /// The runs of `shards` (folder, its eval.json) that ran, each as its source folder and its
    /// OUT-relative folder, after checking: OUT is no shard and inside none, the folders between
    /// a shard and its run are folders (not links), a run folder holds only folders and regular
    /// files (a FIFO would block the copy, a device be read), no run lands in or over a shard, and
    /// a run folder already in OUT is one EchoLab wrote.
    public static func runs(of shards: [(folder: String, eval: EvalFile)], out: String) throws -> [(source: String, run: String)] {
        for (folder, _) in shards where InputFile.isSameOrInside(out, folder) { throw OutIsShard(out: out) }
        var runs: [(source: String, run: String)] = []
        for (folder, eval) in shards {
            for run in eval.runFolders {
                let source = (folder as NSString).appendingPathComponent(run)
                try checkRunPath(run, in: folder)
                try checkRunFolder(source)
                let destination = (out as NSString).appendingPathComponent(run)
                for (shard, _) in shards where InputFile.isSameOrInside(shard, destination) || InputFile.isSameOrInside(destination, shard) {
                    throw RunOverShard(destination: destination, shard: shard)
                }
                if FileManager.default.fileExists(atPath: destination),
                   !ScenarioDiscovery.isEchoLabOutput((destination as NSString).appendingPathComponent("report.json")) {
                    throw NotOurs(path: destination)
                }
                runs.append((source, run))
            }
        }
        return runs
    }

    /// Thrown by `write` when `cancellation` asked before the runs were moved: nothing was merged.
    public struct Cancelled: DescribedError {
        public var description: String { "interrupted before the runs were merged: nothing was merged" }
    }

    /// Copies the runs into a hidden folder in OUT first, then moves each into place (an earlier
    /// run there moved aside, not deleted: `FolderReplacement`) and writes the reports: a merge
    /// that fails, or is cancelled (`cancellation`: SIGINT, SIGTERM or SIGHUP) before the moves,
    /// leaves OUT as it was — an earlier merge there intact (its runs moved back), a folder it
    /// created removed.
    /// `renderer` renders eval.md/eval.html and a recording run's pages again (nil: JSON only).
    public static func write(_ merged: EvalReport, runs: [(source: String, run: String)], to out: String,
                             renderer: (any ReportRenderer)?, cancellation: RunCancellation? = nil) throws {
        try write(merged, runs: runs, to: out, renderer: renderer, cancellation: cancellation) { source, destination in
            try FileManager.default.moveItem(atPath: source, toPath: destination)
        }
    }

    /// `write`, moving folders with `moveItem` (a test makes a move fail where no file system
    /// would on demand).
    package static func write(_ merged: EvalReport, runs: [(source: String, run: String)], to out: String,
                              renderer: (any ReportRenderer)?, cancellation: RunCancellation?,
                              moveItem: @escaping (_ source: String, _ destination: String) throws -> Void) throws {
        /// Folders this merge made: OUT and its parents (`outFolders`); the items' folders in OUT
        /// are the replacement's. Undone, they go: the items' while OUT is still locked (an eval
        /// waiting for it may make one of its own there next), then OUT's.
        let outFolders = try AtomicFile.prepareDirectory(out)
        // Held until the merge is written or undone: an eval or another merge into OUT meanwhile
        // is refused by name, as a second eval is (an eval running there rewrote the merged
        // eval.json and mixed its runs with the merged ones).
        var lock: OutputLock?
        do {
            lock = try OutputLock(folder: out, command: "merge")
        } catch {
            for folder in outFolders.reversed() { rmdir(folder) }
            throw error
        }
        defer { withExtendedLifetime(lock) {} }
        /// Puts OUT back as it was: the folders this merge made go once the lock is let go.
        func removeOut() {
            lock = nil   // its file goes with it, so that OUT, if this merge made it, can go too
            for folder in outFolders.reversed() { rmdir(folder) }
        }
        var replacement: FolderReplacement
        do {
            replacement = try FolderReplacement(root: out, stagingName: stagingName, moveItem: moveItem)
        } catch let error as FolderReplacement.AsideNotEmpty {
            // Earlier runs an interrupted merge moved aside are the only copy of them: never deleted.
            throw EarlierRunsAside(folder: error.folder)
        } catch {
            removeOut()
            throw error
        }
        /// Puts OUT back as it was; returns the earlier runs it could not move back, which stay
        /// aside with the rest of the staging folder.
        func undo() -> [String] {
            let stranded = replacement.undo()
            if stranded.isEmpty { removeOut() }
            return stranded
        }
        /// Asked before the moves only: nothing has been moved aside, so nothing can be stranded.
        func stopIfCancelled() throws {
            guard cancellation?.isCancelled == true else { return }
            _ = undo()
            throw Cancelled()
        }
        do {
            for (source, run) in runs {
                try stopIfCancelled()
                let copy = try replacement.stage(source, as: run)
                if let renderer { try renderRecordingPages(of: copy, at: (out as NSString).appendingPathComponent(run), renderer: renderer) }
            }
            try stopIfCancelled()
            for name in CorpusRun.reportFileNames { try AtomicFile.checkWritable((out as NSString).appendingPathComponent(name), inputs: []) }
            // From here on renames and the reports: a failure puts OUT back as it was.
            for (_, run) in runs { try replacement.place(run) }
            try merged.write(to: out, renderer: renderer)
            replacement.finish()
        } catch let error as Cancelled {
            throw error
        } catch {
            let stranded = undo()
            if !stranded.isEmpty { throw NotUndone(error: error, runs: stranded, folder: replacement.aside) }
            throw error
        }
    }

    /// The hidden folder in OUT where a merge stages its runs (and, in its `.replaced`, the
    /// earlier runs it replaces until the reports are written).
    public static let stagingName = ".echolab-merge.partial"

    /// A merge failed, and putting OUT back failed too: earlier runs it had moved aside could not
    /// be moved back. They are kept, with the staging folder, where the message says.
    public struct NotUndone: DescribedError {
        let error: any Error
        let runs: [String]
        let folder: String
        public var description: String {
            let which = runs.count == 1 ? "run \(runs[0]) waits" : "runs " + runs.joined(separator: ", ") + " wait"
            return "\(error); and OUT could not be put back as it was: the earlier \(which) in \(folder), the only copy: "
                + (runs.count == 1 ? "move it back by hand" : "move them back by hand")
        }
    }

    /// OUT holds earlier runs that a merge moved aside and could not put back (or a merge killed
    /// between its moves): the next merge stops rather than delete the only copy of them.
    public struct EarlierRunsAside: DescribedError {
        let folder: String
        public var description: String {
            "\(folder): holds earlier runs an interrupted merge moved aside, the only copy of them; move them back into OUT "
                + "or delete the folder, then merge again"
        }
    }

    /// A recording run's pages link the corpus's mic and loopback relative to where eval put the
    /// run: the copy in `staging` gets its pages rendered again, from its report.json, with links
    /// from `destination`, where it will be, to the absolute paths the report names (not from
    /// where the shard is now: shards copied elsewhere after their eval, or reached through a
    /// link, would be linked wrongly). A scenario run's players link its own taps, which move
    /// with it.
    static func renderRecordingPages(of staging: String, at destination: String, renderer: any ReportRenderer) throws {
        let reportPath = (staging as NSString).appendingPathComponent("report.json")
        guard let data = FileManager.default.contents(atPath: reportPath),
              let schema = try? JSONValue.parseMembers(["schema"], ofObjectIn: [UInt8](data), maximumBytes: 64 << 20),
              schema["schema"]?.stringValue?.hasPrefix("echolab.recording/") == true else { return }
        let report: RecordingReport
        do {
            report = try RecordingReport(reading: try JSONValue.parse([UInt8](data), maximumBytes: 64 << 20))
        } catch {
            throw AtomicFile.WriteError(path: reportPath, reason: "cannot render its pages again: \(error)")
        }
        for page in renderer.pages(of: report, folder: InputFile.absolute(destination)) {
            // Replaced in place: the copy is in the hidden staging folder, which a failure removes.
            let path = (staging as NSString).appendingPathComponent(page.name)
            if let reason = AtomicFile.writeFile(Data(page.render().utf8), to: path) {
                throw AtomicFile.WriteError(path: path, reason: "cannot write its page: \(reason)")
            }
        }
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

    public struct NotARunFile: DescribedError {
        let path: String
        let what: String
        public var description: String { "\(path): \(what); not merged" }
    }

    public struct RunOverShard: DescribedError {
        let destination: String
        let shard: String
        public var description: String { "\(destination): a run would be merged into or over the shard \(shard); choose another --out" }
    }

    public struct OutIsShard: DescribedError {
        let out: String
        public var description: String { "\(out): the output folder is one of the shards or inside one; choose another (e.g. merged/)" }
    }

    public struct NotOurs: DescribedError {
        let path: String
        public var description: String { "\(path): exists and is not a run EchoLab wrote; not replaced (choose an empty --out)" }
    }
}
