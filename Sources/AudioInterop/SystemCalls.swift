import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The POSIX calls the commands make beside the audio libraries' — whole writes to stderr and
/// stdout, a lock file's text, signal handlers — kept with the other C wrappers, so that the
/// modules above hold no pointer.
package enum SystemCalls {
    /// write(2) until all of `text` is written, past interruptions; nil, or why it could not
    /// (`strerror`, or "nothing was written").
    package static func writeAll(_ text: String, to descriptor: Int32) -> String? {
        Array(text.utf8).withUnsafeBytes { writeAll($0, to: descriptor) }
    }

    /// write(2) until all of `bytes` is written (it may take part of them), past interruptions;
    /// nil, or why it could not. A write that takes nothing ends it: looping on it would never end.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> String? {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return written < 0 ? String(cString: strerror(errno)) : "nothing was written" }
            offset += written
        }
        return nil
    }

    /// `text` written at the start of `descriptor` (pwrite(2)); whether all of it was.
    @discardableResult
    package static func write(_ text: String, atStartOf descriptor: Int32) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } == bytes.count
    }

    /// Up to `count` bytes from the start of `descriptor` (pread(2)); none where it fails.
    package static func read(upTo count: Int, fromStartOf descriptor: Int32) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        return Array(buffer.prefix(max(0, read)))
    }

    /// Whether `path` (a link not followed) is the file `descriptor` has open.
    package static func names(_ path: String, theFileOf descriptor: Int32) -> Bool {
        var open = stat(), named = stat()
        guard fstat(descriptor, &open) == 0, lstat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// Whether `signalNumber` is ignored (SIG_IGN) as the process stands.
    package static func isIgnored(_ signalNumber: Int32) -> Bool {
        var current = sigaction()
        sigaction(signalNumber, nil, &current)
        // Function pointers are compared by address: SIG_IGN is the handler value 1.
        guard let handler = current.__sigaction_handler.sa_handler else { return false }
        return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// Installs `handler` for `signalNumber` with sigaction(2), in place on return; interrupted
    /// system calls go on (SA_RESTART).
    package static func install(_ handler: @convention(c) (Int32) -> Void, for signalNumber: Int32) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(signalNumber, &action, nil)
    }
}
