import AudioCore
import Foundation

/// The replacement under `AtomicFile`: moves a finished temporary file to its final name,
/// replacing any file there — the last step of every write that must never be seen half done
/// (WAV taps, reports) — and writes the temporaries.
///
/// The file being replaced is first renamed aside (to a hidden name beside it), then the
/// temporary is renamed into place, then the old file is deleted. Renaming *over* an existing
/// file makes ext4 write the new file's data to disk before the rename returns (its
/// `auto_da_alloc` guard for programs that never fsync): for a re-run's four one-minute taps
/// (46 MB) that cost ~27 ms, a fifth of the whole run. Neither rename here replaces a file. A
/// reader sees the old file, for one system call no file, then the whole new file — never a part
/// of one; if the second rename fails, the old file is put back. EchoLab never fsyncs: after a
/// power failure a file may be empty, as with any unsynced write.
extension AtomicFile {
    /// Moves `temporary` to `path`. On failure throws a `WriteError` naming `path` and the reason
    /// (`strerror`, or what is in the way); the temporary file is left where it is for the caller
    /// to remove, and a file that was at `path` is still there.
    package static func moveIntoPlace(_ temporary: String, to path: String) throws(WriteError) {
        switch moveIntoPlaceKeepingReplaced(temporary, to: path) {
        case .failed(let reason): throw WriteError(path: path, reason: "cannot write: " + reason)
        case .moved(let replaced): if let replaced { unlink(replaced) }
        }
    }

    /// What `moveIntoPlaceKeepingReplaced` did.
    package enum Outcome: Equatable, Sendable {
        /// In place; the file it replaced, if any, waits at `replaced` (a hidden name beside it)
        /// for the caller to delete.
        case moved(replaced: String?)
        /// Not moved, for this reason (`strerror`); the temporary file is where it was, and a
        /// file that was at the path is still there.
        case failed(reason: String)
    }

    /// `moveIntoPlace`, except that the replaced file is left at a hidden name for the caller to
    /// delete (`removeReplaced`). Deleting a large file costs the kernel time — four one-minute
    /// taps still in ext4's page cache take ~16 ms to free — which a caller can spend on another
    /// thread, or after more urgent work.
    package static func moveIntoPlaceKeepingReplaced(_ temporary: String, to path: String) -> Outcome {
        // Only a file (or symlink) is replaced: a folder, a device or a pipe in the way stays.
        if let problem = replacementProblem(at: path) { return .failed(reason: problem) }
        let aside = asidePath(for: path)
        // A leftover of a replacement interrupted between the renames (its file is outdated).
        unlink(aside)
        // Nothing at `path` (the usual first write) or a failed move aside: there is nothing to
        // put back.
        let movedAside = rename(path, aside) == 0
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            if movedAside { rename(aside, path) }
            return .failed(reason: reason)
        }
        return .moved(replaced: movedAside ? aside : nil)
    }

    /// Why a new file may not take the place of what is at `path`, or nil: nothing there, a
    /// regular file, or a symbolic link to one or to nothing (the link is replaced, never what it
    /// points to). A rename replaces anything that is not a folder: run as root, `--out /dev/null`
    /// replaced the system's /dev/null with a WAV, and `--out /dev/stdout` would replace the
    /// system's link. A folder, a device, a pipe or a socket is refused, and so is a link to one
    /// and anything in /dev (not /dev/shm), /proc or /sys.
    package static func replacementProblem(at path: String) -> String? {
        // /dev's nodes and links (/dev/stdout → /proc/self/fd/1, a regular file when stdout is
        // redirected to one), /proc and /sys: no output belongs there. /dev/shm is a file system.
        let folder = InputFile.canonical(InputFile.parent(of: InputFile.absolute(path)))
        if folder == "/dev" || ["/dev/fd", "/dev/pts", "/proc", "/sys"].contains(where: { folder == $0 || folder.hasPrefix($0 + "/") }) {
            return "is in \(folder), where EchoLab writes no file"
        }
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        var kind = status.st_mode & S_IFMT, verb = "is"
        if kind == S_IFLNK {
            // A dangling link (or a loop) points to no file that could be lost.
            guard stat(path, &status) == 0 else { return nil }
            kind = status.st_mode & S_IFMT
            verb = "links to"
        }
        switch kind {
        case S_IFREG: return nil
        case S_IFDIR: return "\(verb) a folder, not a file"
        case S_IFCHR, S_IFBLK: return "\(verb) a device, not a file; EchoLab replaces only regular files"
        case S_IFIFO: return "\(verb) a named pipe, not a file; EchoLab replaces only regular files"
        default: return "\(verb) a socket, not a file; EchoLab replaces only regular files"
        }
    }

    /// Deletes what writing or replacing each of `names` in `folder` left at its hidden names if
    /// the process was killed there: the new file's `.NAME.partial` (SIGKILL, or a second signal,
    /// mid-write) and the replaced one's `.NAME.replaced` (between moving the new file in and
    /// deleting the old). The caller holds the folder's lock: no other writer's file is there.
    package static func removeLeftovers(of names: [String], in folder: String) {
        for name in names {
            let path = URL(fileURLWithPath: folder).appendingPathComponent(name).path
            unlink(asidePath(for: path))
            unlink(partialPath(for: path))
        }
    }

    /// The hidden name beside `path` where a new file is written before it is moved in:
    /// `.NAME.partial` (`AtomicFile`, `SoundFileWriter`).
    package static func partialPath(for path: String) -> String { hiddenPath(beside: path, suffix: ".partial") }

    /// The hidden name beside `path` where its replaced file waits: `.NAME.replaced`.
    private static func asidePath(for path: String) -> String { hiddenPath(beside: path, suffix: ".replaced") }

    /// `hiddenName(for:suffix:)` of `path`'s last component, in its folder.
    package static func hiddenPath(beside path: String, suffix: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(hiddenName(for: url.lastPathComponent, suffix: suffix)).path
    }

    /// `.NAME` + `suffix` — or, where that would pass a file name's 255 bytes (a legal output name
    /// of 242–255 bytes failed with "File name too long" for its hidden companions), NAME's first
    /// bytes, whole characters, then a hash of all of it: one name per output, the same every time.
    package static func hiddenName(for name: String, suffix: String) -> String {
        let limit = InputFile.maximumNameBytes
        let hidden = "." + name + suffix
        guard hidden.utf8.count > limit else { return hidden }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325   // FNV-1a, 64 bits
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let tag = "-" + String(hash, radix: 16)
        var prefix = ""
        for character in name {
            guard 1 + prefix.utf8.count + character.utf8.count + tag.utf8.count + suffix.utf8.count <= limit else { break }
            prefix.append(character)
        }
        return "." + prefix + tag + suffix
    }

    /// Writes `data` to a new file at `path` with write(2), and does not fsync it. Returns nil on
    /// success, else the reason (`strerror`); a failed write leaves no file at `path`.
    ///
    /// This is how the temporary of a replacement is written. A file already at `path` (a
    /// leftover) is removed first, never written through: a symlink or a hard link at that hidden
    /// name would otherwise lead the write into another file, an input perhaps. Foundation's
    /// `Data.write(to:)` fsyncs the file before closing it; EchoLab promises whole files under
    /// their names, not durability, and an fsync right after a run's taps waits for ext4's journal
    /// commit: the first report after four one-minute taps took 2.5–4 ms to sync, 1.5–6.5 ms for
    /// the three (a twentieth of the run).
    package static func writeFile(_ data: Data, to path: String) -> String? {
        do {
            try writeFile(to: path) { write in try write(data) }
            return nil
        } catch {
            return (error as? WriteFailure)?.reason ?? "\(error)"
        }
    }

    /// Why a write(2) or close(2) failed (`strerror`).
    package struct WriteFailure: DescribedError {
        package let reason: String
        package var description: String { reason }
    }

    /// Writes a new file at `path` from the pieces `produce` hands to its `write`, as
    /// `writeFile(_:to:)` writes one piece: never through a file already there, not fsynced.
    /// A piece that cannot be written throws `WriteFailure` out of `write`; whatever `produce`
    /// throws leaves no file at `path` and is rethrown. A long report is written so, in pieces,
    /// without its whole text in memory.
    package static func writeFile(to path: String, produce: (_ write: (any ContiguousBytesOrText) throws -> Void) throws -> Void) throws {
        unlink(path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw WriteFailure(reason: String(cString: strerror(errno))) }
        do {
            try produce { piece in
                if let reason = piece.withBytes({ SystemCalls.writeAll($0, to: descriptor) }) { throw WriteFailure(reason: reason) }
            }
        } catch {
            close(descriptor)
            unlink(path)
            throw error
        }
        // close(2) can report a write the kernel deferred (an NFS or quota error, say).
        if close(descriptor) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(path)
            throw WriteFailure(reason: reason)
        }
    }

    /// Deletes the replaced files `moveIntoPlaceKeepingReplaced` left.
    package static func removeReplaced(_ paths: [String]) {
        for path in paths { unlink(path) }
    }
}

/// What `AtomicFile.writeFile(to:produce:)` writes: bytes, or text as UTF-8.
package protocol ContiguousBytesOrText {
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result
}

extension Data: ContiguousBytesOrText {
    package func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result { withUnsafeBytes(body) }
}

extension String: ContiguousBytesOrText {
    package func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        var text = self
        return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}
