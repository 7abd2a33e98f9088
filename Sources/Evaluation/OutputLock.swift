import AudioCore
import AudioInterop
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An advisory lock on an output folder, held while `eval` writes it: a second eval into the same
/// folder is refused by name instead of interleaving its runs with the first's (an eval.json that
/// then describes only some of the folders beside it). The lock file (hidden, `.echolab.lock`)
/// names its holder and goes when the lock is released; the kernel releases the lock of a process
/// that ends any other way, and the next eval takes the file over.
public final class OutputLock {
    /// The lock file's name in the output folder.
    public static let fileName = ".echolab.lock"
    private let descriptor: Int32
    private let path: String

    /// Takes the lock of `folder` (which exists) for `command`, or throws `Held` naming the holder.
    public convenience init(folder: String, command: String) throws {
        // Everything that can fail happens before the object exists: a refused lock must not
        // reach `deinit`, which unlinks the holder's file.
        let path = (folder as NSString).appendingPathComponent(Self.fileName)
        var descriptor: Int32 = -1
        while true {
            // O_NOFOLLOW: a link planted at the name is not followed (and fails with ELOOP).
            descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw AtomicFile.WriteError(path: path, reason: "cannot lock the output folder: \(String(cString: strerror(errno)))")
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let busy = errno == EWOULDBLOCK
                let reason = String(cString: strerror(errno))
                let holder = Self.holder(descriptor)
                close(descriptor)
                if busy { throw Held(folder: folder, holder: holder) }
                throw AtomicFile.WriteError(path: path, reason: "cannot lock the output folder: \(reason)")
            }
            // The holder unlinks the file as it finishes: a lock taken on the file it just
            // unlinked locks nothing another eval can see. Locked under the name, or try again.
            if Self.isStillNamed(descriptor, path) { break }
            close(descriptor)
        }
        let line = "echolab \(command), pid \(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = line.withCString { pwrite(descriptor, $0, strlen($0), 0) }
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

    /// Whether `path` is still the file `descriptor` has open.
    private static func isStillNamed(_ descriptor: Int32, _ path: String) -> Bool {
        var open = stat(), named = stat()
        guard fstat(descriptor, &open) == 0, lstat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// What the lock file says about its holder ("echolab eval, pid 4242"), or a generic name.
    private static func holder(_ descriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        let text = count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
        return text.isEmpty || text.contains("\n") ? "another echolab" : text
    }

    /// Another command holds the folder's lock.
    public struct Held: DescribedError {
        public let folder: String
        public let holder: String
        public var description: String {
            "\(folder): \(holder) is writing this folder; wait for it to finish or choose another --out"
        }
    }
}
