import AudioCore
import AudioInterop
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An advisory lock on an output folder, held while `eval` or `run` writes it: a second command
/// into the same folder is refused by name instead of interleaving its runs with the first's (an
/// eval.json that then describes only some of the folders beside it; two runs' taps spliced, or a
/// folder the failing one removed under the other). The lock file (hidden, `.echolab.lock`)
/// names its holder and goes when the lock is released; the kernel releases the lock of a process
/// that ends any other way, and the next command takes the file over. `process` locks its output
/// file the same way, through `.NAME.echolab.lock` beside it.
package final class OutputLock {
    /// The lock file's name in the output folder.
    package static let fileName = ".echolab.lock"
    private let descriptor: Int32
    private let path: String

    /// Takes the lock of `folder` (which exists) for `command`, or throws `Held` naming the holder
    /// — also where another command holds a folder `folder` lies in (an eval's output folder,
    /// whose runs it replaces and lists), unless `insideOwnFolder` (an eval's own run, inside the
    /// folder it holds itself).
    package convenience init(folder: String, command: String, insideOwnFolder: Bool = false) throws {
        try self.init(lockFile: (folder as NSString).appendingPathComponent(Self.fileName), guarding: folder,
                      kind: "folder", command: command, enclosedBy: insideOwnFolder ? nil : folder)
    }

    /// Takes the lock of the output file `file` (whose folder exists) for `command`: two
    /// processes writing one file would each replace the other's temporary as it is written.
    /// A file in a folder another command holds is refused as a folder there is.
    package convenience init(file: String, command: String) throws {
        let folder = InputFile.parent(of: file)
        let name = AtomicFile.hiddenName(for: InputFile.lastComponent(of: file), suffix: ".echolab.lock")
        let lockFile = folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
        try self.init(lockFile: lockFile, guarding: file, kind: "file", command: command, enclosedBy: folder.isEmpty ? "." : folder,
                      includingItself: true)
    }

    /// `enclosedBy`: a folder whose enclosing folders' holders refuse this lock too (with
    /// `includingItself`, that folder's own holder as well).
    private convenience init(lockFile path: String, guarding guarded: String, kind: String, command: String, enclosedBy enclosed: String?,
                             includingItself: Bool = false) throws {
        // Everything that can fail happens before the object exists: a refused lock must not
        // reach `deinit`, which unlinks the holder's file.
        var descriptor: Int32 = -1
        // A file's lock is its own business: its errors name the output file, as writing it would.
        let named = kind == "file" ? guarded : path
        while true {
            // O_NOFOLLOW: a link planted at the name is not followed (and fails with ELOOP).
            descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw AtomicFile.WriteError(path: named, reason: "cannot lock the output \(kind): \(String(cString: strerror(errno)))")
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let busy = errno == EWOULDBLOCK
                let reason = String(cString: strerror(errno))
                let holder = Self.holder(descriptor)
                close(descriptor)
                if busy { throw Held(folder: guarded, holder: holder, kind: kind) }
                throw AtomicFile.WriteError(path: named, reason: "cannot lock the output \(kind): \(reason)")
            }
            // The holder unlinks the file as it finishes: a lock taken on the file it just
            // unlinked locks nothing another eval can see. Locked under the name, or try again.
            if SystemCalls.names(path, theFileOf: descriptor) { break }
            close(descriptor)
        }
        let line = "echolab \(command), pid \(getpid())\n"
        _ = ftruncate(descriptor, 0)
        SystemCalls.write(line, atStartOf: descriptor)
        // Looked for with this lock held: an eval that takes its folder after this look takes
        // each of its runs' folders too, and finds this one held.
        if let enclosed, let (folder, holder) = Self.enclosingHolder(of: enclosed, includingItself: includingItself) {
            unlink(path)
            close(descriptor)
            throw Held(folder: guarded, holder: holder, kind: kind, enclosingFolder: folder)
        }
        self.init(descriptor: descriptor, path: path)
    }

    /// The nearest folder enclosing `folder` (with `includingItself`, `folder` too) whose lock
    /// another command holds, and what its lock file says of that command; nil where none is held.
    /// A lock file nobody holds (left by a command that was killed) is no holder.
    static func enclosingHolder(of folder: String, includingItself: Bool) -> (folder: String, holder: String)? {
        guard let resolved = realpath(folder, nil) else { return nil }
        var current = String(cString: resolved)
        free(resolved)
        if !includingItself {
            guard current != "/" else { return nil }
            current = InputFile.parent(of: current)
        }
        while true {
            let lockFile = (current as NSString).appendingPathComponent(fileName)
            let descriptor = open(lockFile, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            if descriptor >= 0 {
                defer { close(descriptor) }
                if flock(descriptor, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK { return (current, holder(descriptor)) }
            }
            if current == "/" { return nil }
            current = InputFile.parent(of: current)
        }
    }

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    // Unlinked while still held: an eval that opened the name meanwhile finds it locked, or —
    // once this one is closed — that its file has no name any more, and makes a new one.
    deinit {
        unlink(path)
        close(descriptor)
    }

    /// What the lock file says about its holder ("echolab eval, pid 4242"), or a generic name.
    private static func holder(_ descriptor: Int32) -> String {
        let text = String(decoding: SystemCalls.read(upTo: 128, fromStartOf: descriptor), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty || text.contains("\n") ? "another echolab" : text
    }

    /// Another command holds the folder's (or the output file's) lock, or that of a folder it lies in.
    package struct Held: DescribedError {
        /// The folder or file as the command was given it.
        package let folder: String
        package let holder: String
        /// "folder" or "file".
        package var kind = "folder"
        /// The folder, enclosing this one, whose lock is held (its full path); nil where it is this one's.
        package var enclosingFolder: String?
        package var description: String {
            let writing = enclosingFolder.map { "\($0), which holds this \(kind)" } ?? "this \(kind)"
            return "\(folder): \(holder) is writing \(writing); wait for it to finish or choose another --out"
        }
    }
}
