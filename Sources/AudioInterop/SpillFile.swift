import Foundation

/// An unlinked temporary file of equal-sized blocks of plain values, written and read back as
/// bytes: the disk side of a table whose memory must stay bounded however long a call runs
/// (`SpillingRows` in Metrics). Nothing is left behind: the file has no name once it is open,
/// and it goes with this object or the process.
package final class SpillFile: Sendable {
    /// What failed, with the system's reason (`No space left on device`).
    package struct Failure: Error, CustomStringConvertible {
        package let reason: String
        package var description: String { "a temporary file for a long call's metric rows: \(reason)" }
    }

    private let handle: FileHandle
    /// The folder the file was made in, for messages.
    package let directory: String

    package init() throws(Failure) {
        directory = TemporaryFolder.base
        let path = (directory as NSString)
            .appendingPathComponent("echolab-rows-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        // open(2) itself, so that errno is its own when it fails; the name goes at once.
        let descriptor = open(path, O_CREAT | O_EXCL | O_RDWR, 0o600)
        guard descriptor >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        unlink(path)
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    deinit { try? handle.close() }

    /// Appends `elements` as one block, straight from the array's storage (no copy into a
    /// `Data`). A block written in part is cut off again: a half block is no block.
    package func append<Element: BitwiseCopyable>(_ elements: [Element]) throws(Failure) {
        do {
            let start = try handle.seekToEnd()
            do {
                try elements.withUnsafeBytes { try handle.write(contentsOf: $0) }
            } catch {
                try? handle.truncate(atOffset: start)
                throw error
            }
        } catch {
            throw Failure(reason: Self.reason(error))
        }
    }

    /// Reads block `index` of `count` elements into `buffer` (resized to `count` when it is not).
    /// On failure `buffer` holds `count` elements of zero bits, so that a reader's sums can finish
    /// before its owner reports the failure.
    package func read<Element: BitwiseCopyable>(block index: Int, count: Int, into buffer: inout [Element]) throws(Failure) {
        let bytes = count * MemoryLayout<Element>.stride
        if buffer.count != count {
            // Plain bits, entirely overwritten below.
            buffer = Array(unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
        }
        let data: Data
        do {
            try handle.seek(toOffset: UInt64(index * bytes))
            data = try handle.read(upToCount: bytes) ?? Data()
        } catch {
            Self.zero(&buffer)
            throw Failure(reason: Self.reason(error))
        }
        guard data.count == bytes else {
            Self.zero(&buffer)
            throw Failure(reason: "the file holds \(data.count) of the block's \(bytes) bytes")
        }
        buffer.withUnsafeMutableBytes { target in data.withUnsafeBytes { target.copyMemory(from: $0) } }
    }

    private static func zero<Element: BitwiseCopyable>(_ buffer: inout [Element]) {
        buffer.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }

    private static func reason(_ error: any Error) -> String {
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return (error as NSError).localizedDescription
    }
}
