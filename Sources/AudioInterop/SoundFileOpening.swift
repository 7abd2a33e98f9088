internal import CSndFile
import Synchronization

/// libsndfile keeps why an `sf_open` failed in one process-wide variable, which any other
/// thread's open overwrites — a success sets it to "No Error." (without this lock, under `eval --jobs 2`
/// a text file named .wav gets that reason one run in three). Every open, and the reading of its failure, holds
/// this lock; opening is a small part of reading a file.
enum SoundFileOpening {
    private static let lock = Mutex(())

    /// The open file, or nil and libsndfile's reason.
    static func open(_ path: String, mode: Int32, info: inout SF_INFO) -> (handle: OpaquePointer?, failure: String?) {
        lock.withLock { _ in
            guard let handle = sf_open(path, mode, &info) else { return (nil, reason(sf_strerror(nil))) }
            return (handle, nil)
        }
    }

    /// libsndfile's text for a failure, in the words of EchoLab's other errors: without the
    /// "System error : " it puts before the system's own reason, and without its closing period
    /// ("cannot write: System error : No space left on device." beside a report's "cannot write:
    /// No space left on device").
    static func reason(_ text: UnsafePointer<CChar>?) -> String {
        var reason = text.map { String(cString: $0) } ?? "unknown error"
        if reason.hasPrefix(systemErrorPrefix) { reason.removeFirst(systemErrorPrefix.count) }
        while reason.last == "." || reason.last == " " || reason.last == "\n" { reason.removeLast() }
        return reason.isEmpty ? "unknown error" : reason
    }

    private static let systemErrorPrefix = "System error : "
}
