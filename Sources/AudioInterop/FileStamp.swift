import Foundation

/// A file as it is now: its path, inode, size and modification time. Caches that keep what they
/// made of a file (`DecodedAudioCache`, `EchoPathGateCache`) key on it, so a file rewritten or
/// replaced between two runs is read again. A rewrite that keeps inode, size and time (in place,
/// then `touch -r`) is not told apart: inputs are not to change while an eval reads them.
package struct FileStamp: Hashable, Sendable {
    package let path: String
    package let inode: UInt64
    package let size: UInt64
    package let modified: Double

    /// nil when the file cannot be stat'ed (the run that opens it then reports why).
    package init?(path: String) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value,
              let size = (attributes[.size] as? NSNumber)?.uint64Value,
              let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSinceReferenceDate else { return nil }
        self.path = path
        self.inode = inode
        self.size = size
        self.modified = modified
    }
}
