import Foundation

/// Moves a finished temporary file to its final name, replacing any file there — the last step
/// of every write that must never be seen half done (WAV taps, reports).
///
/// The file being replaced is unlinked first, then the temporary is renamed: a rename *over*
/// an existing file makes ext4 write the new file's data to disk before it returns (its
/// `auto_da_alloc` guard for programs that never fsync), which for a re-run's four one-minute
/// taps (46 MB) cost ~27 ms — a fifth of the whole run. EchoLab makes no durability promise
/// (it never fsyncs), only that a name holds either nothing new or a whole file; between the
/// unlink and the rename the name holds nothing, for one system call.
public enum FileReplacement {
    /// Returns nil on success, else the reason (`strerror`) the rename failed; the temporary
    /// file is left where it is for the caller to remove.
    public static func moveIntoPlace(_ temporary: String, to path: String) -> String? {
        // A failed unlink (no such file, a folder, no permission) is not an error here: the
        // rename then fails, or succeeds, for the same reason, and says so.
        unlink(path)
        guard rename(temporary, path) == 0 else { return String(cString: strerror(errno)) }
        return nil
    }
}
