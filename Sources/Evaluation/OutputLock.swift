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
public final class OutputLock {
    /// The lock file's name in the output folder.
    public static let fileName = ".echolab.lock"
    private let descriptor: Int32
    private let path: String

    /// Takes the lock of `folder` (which exists) for `command`, or throws `Held` naming the holder.
    public convenience init(folder: String, command: String) throws {
        try self.init(lockFile: (folder as NSString).appendingPathComponent(Self.fileName), guarding: folder,
                      kind: "folder", command: command)
    }

    /// Takes the lock of the output file `file` (whose folder exists) for `command`: two
    /// processes writing one file would each replace the other's temporary as it is written.
    public convenience init(file: String, command: String) throws {
        let folder = InputFile.parent(of: file), name = InputFile.lastComponent(of: file)
        let lockFile = folder.isEmpty ? ".\(name).echolab.lock" : (folder as NSString).appendingPathComponent(".\(name).echolab.lock")
        try self.init(lockFile: lockFile, guarding: file, kind: "file", command: command)
    }

    private convenience init(lockFile path: String, guarding guarded: String, kind: String, command: String) throws {
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
        self.init(descriptor: descriptor, path: path)
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

    /// Another command holds the folder's (or the output file's) lock.
    public struct Held: DescribedError {
        /// The folder or file as the command was given it.
        public let folder: String
        public let holder: String
        /// "folder" or "file".
        public var kind = "folder"
        public var description: String {
            "\(folder): \(holder) is writing this \(kind); wait for it to finish or choose another --out"
        }
    }
}
