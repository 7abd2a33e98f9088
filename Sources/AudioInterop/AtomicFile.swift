import AudioCore
import Foundation

/// Writes files so that a reader never sees half of one: write to a hidden temporary beside the
/// target (not fsynced: `writeFile`), then move it into place (`moveIntoPlace`: the old file is
/// renamed aside first, so the name holds the old file, for one system call nothing, then the
/// whole new one). The one place EchoLab replaces files; the renames and the temporaries are in
/// AtomicFile+Replacement.swift.
package enum AtomicFile {
    package struct WriteError: DescribedError {
        package let path: String
        package let reason: String
        package var description: String { "\(path): \(reason)" }
        package init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// Checks, before anything is read or written, that `path` may take a new file: it is none
    /// of `inputs` (writing would replace what the run reads) and not a folder, device, pipe or
    /// socket (`replacementProblem`). Throws a `WriteError` naming `path`.
    package static func checkWritable(_ path: String, inputs: [String]) throws {
        for input in inputs where InputFile.canonical(input) == InputFile.canonical(path) {
            throw WriteError(path: path, reason: "cannot write: it is an input (\(input)); choose another file")
        }
        if let problem = replacementProblem(at: path) {
            throw WriteError(path: path, reason: "cannot write: \(problem)")
        }
    }

    package static func write(_ text: String, to path: String) throws {
        try write(to: path) { write in try write(text) }
    }

    package static func write(_ data: Data, to path: String) throws {
        try write(to: path) { write in try write(data) }
    }

    /// Writes the text `produce` hands to its `write` piece by piece (a long report, never whole
    /// in memory), then moves the file into place as `write(_:to:)` does. What `produce` throws
    /// leaves the file at `path` as it was, and is rethrown.
    package static func write(to path: String, produce: (_ write: (any ContiguousBytesOrText) throws -> Void) throws -> Void) throws {
        try withoutActuallyEscaping(produce) { produce in try write([(path, produce)]) }
    }

    /// Writes several files as one change: every one to its temporary first, then all moved into
    /// place. A file that cannot be written (a full disk) leaves every path as it was; a move
    /// that fails puts back the files moved before it. eval.json and the pages rendered from it
    /// are never seen out of step: a full disk on eval.html left a merged eval.json beside the
    /// earlier runs `merge` had put back.
    package static func write(_ files: [(path: String, produce: (_ write: (any ContiguousBytesOrText) throws -> Void) throws -> Void)]) throws {
        var written: [String] = []
        defer { for temporary in written { unlink(temporary) } }
        for (path, produce) in files {
            let temporary = partialPath(for: path)
            do {
                try writeFile(to: temporary, produce: produce)
            } catch let failure as WriteFailure {
                throw WriteError(path: path, reason: "cannot write: " + failure.reason)
            }
            written.append(temporary)
        }
        var moved: [(path: String, replaced: String?)] = []
        for (path, _) in files {
            switch moveIntoPlaceKeepingReplaced(partialPath(for: path), to: path) {
            case .moved(let replaced):
                moved.append((path, replaced))
            case .failed(let reason):
                for (earlier, replaced) in moved.reversed() {
                    if let replaced { rename(replaced, earlier) } else { unlink(earlier) }
                }
                throw WriteError(path: path, reason: "cannot write: " + reason)
            }
        }
        removeReplaced(moved.compactMap(\.replaced))
    }

    /// Creates the folder a file at `path` goes into (and its parents) if needed, as
    /// `prepareDirectory` does; nothing for a bare name, which goes into the current folder.
    package static func prepareFolder(containing path: String) throws {
        let folder = InputFile.parent(of: path)
        guard !folder.isEmpty else { return }
        // Named by the file asked for (`--out good.wav/x.wav` named good.wav alone, as if it were
        // the output), as `prepareDirectory` names a file in a folder's path.
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw WriteError(path: path, reason: "cannot write: \(folder) is a file, not a folder")
        }
        try prepareDirectory(folder)
    }

    /// Creates `path` (and parents) if needed and checks it is a writable folder. Each missing
    /// folder is made with mkdir(2), so a failure names the folder and the system's reason
    /// ("Permission denied", "Read-only file system", "… is a file, not a folder").
    /// Returns the folders it created, outermost first (empty when `path` existed).
    @discardableResult
    package static func prepareDirectory(_ path: String) throws -> [String] {
        try prepareDirectory(path, attempts: 3)
    }

    private static func prepareDirectory(_ path: String, attempts: Int) throws -> [String] {
        guard !path.isEmpty else { throw WriteError(path: path, reason: "cannot create the folder: an empty string is not a folder") }
        var isDirectory: ObjCBool = false
        var created: [String] = []
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw WriteError(path: path, reason: "cannot write: exists and is not a folder") }
        } else {
            // The missing folders, outermost first.
            var missing: [String] = []
            var current = path
            while !current.isEmpty && current != "/" && !FileManager.default.fileExists(atPath: current) {
                missing.insert(current, at: 0)
                let parent = InputFile.parent(of: current)
                if parent == current { break }
                current = parent
            }
            var ancestorIsFolder: ObjCBool = false
            if !current.isEmpty, FileManager.default.fileExists(atPath: current, isDirectory: &ancestorIsFolder), !ancestorIsFolder.boolValue {
                throw WriteError(path: path, reason: "cannot create the folder: \(current) is a file, not a folder")
            }
            for folder in missing {
                if mkdir(folder, 0o777) == 0 { created.append(folder); continue }
                if errno == EEXIST { continue }     // made meanwhile by a parallel run
                // A parent vanished meanwhile: a parallel run that failed removed the item folder
                // they share, empty then. Start again from what exists now.
                if errno == ENOENT && attempts > 1 {
                    // What this attempt made and still stands is still this call's to remove.
                    let made = created.filter { FileManager.default.fileExists(atPath: $0) }
                    return made + (try prepareDirectory(path, attempts: attempts - 1)).filter { !made.contains($0) }
                }
                let reason = String(cString: strerror(errno))
                removeEmptyFolders(created)
                throw WriteError(path: path, reason: folder == path ? "cannot create the folder: \(reason)"
                                                                    : "cannot create the folder \(folder): \(reason)")
            }
        }
        guard access(path, W_OK) == 0 else {
            removeEmptyFolders(created)
            throw WriteError(path: path, reason: "cannot write: the folder is not writable")
        }
        return created
    }

    /// Removes `folders` (outermost first, as `prepareDirectory` returns them) innermost first,
    /// each only if empty: a parallel run may have put its own files in a shared parent.
    package static func removeEmptyFolders(_ folders: [String]) {
        for folder in folders.reversed() { rmdir(folder) }
    }
}
