import AudioCore
import AudioInterop
import Foundation
import Simulation

/// A run's plugin file, held open from the moment it is hashed until the run is done: the SHA-256
/// a report names is of this file, and `verify(loaded:)` says whether the plugin that ran was
/// loaded from it, unchanged. A path read twice — hashed, then loaded some 30 ms later by the
/// plugin's host — named two builds when the file was replaced between (a plugin rebuilt while
/// its runs start), and the report named the one that did not run.
final class PluginFile {
    let plugin: CancellerPlugin
    /// The file's SHA-256 (hex), or `BackendLibrary.unreadable`.
    let sha256: String
    private let handle: FileHandle?
    private let opened: (identity: FileIdentity, modifiedNanoseconds: Int64)?

    init(_ plugin: CancellerPlugin) {
        self.plugin = plugin
        handle = FileHandle(forReadingAtPath: plugin.path)
        opened = handle.flatMap { FileIdentity.of(descriptor: $0.fileDescriptor) }
        sha256 = (try? handle?.readToEnd()).flatMap { $0 }.map { sha256Hex(of: $0) } ?? BackendLibrary.unreadable
    }

    deinit { try? handle?.close() }

    /// The plugin was loaded from another file than the one hashed, or the file changed since.
    struct Changed: DescribedError, Equatable {
        let description: String
    }

    /// Throws `Changed` where a canceller of the run was loaded from a file other than the one
    /// hashed (its path replaced meanwhile), or that file was written after it was hashed. A host
    /// that could not tell its file (`loaded` empty), or named it on another device, is taken as
    /// loading this one.
    func verify(loaded: Set<FileIdentity>) throws {
        guard let handle, let opened else { return }
        let now = FileIdentity.of(descriptor: handle.fileDescriptor)
        // By inode on the same device: /proc/self/maps and fstat name the device differently on
        // some file systems (btrfs subvolumes, overlayfs before Linux 6.x), where this cannot tell.
        let other = loaded.first {
            $0.deviceMajor == opened.identity.deviceMajor && $0.deviceMinor == opened.identity.deviceMinor && $0.inode != opened.identity.inode
        }
        guard other != nil || now?.modifiedNanoseconds != opened.modifiedNanoseconds else { return }
        throw Changed(description: "plugin \(plugin.name) (\(plugin.path)): the file changed while the run started its plugin "
                      + "(sha256 \(sha256.prefix(12))… was read, \(other != nil ? "another file was loaded" : "then the file was written")): "
                      + "the run is not measured; run it again")
    }
}
