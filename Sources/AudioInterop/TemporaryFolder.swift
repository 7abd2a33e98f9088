import Foundation

/// Where EchoLab puts its scratch files: `TMPDIR` when it names an existing folder, else `/tmp`.
/// `FileManager.temporaryDirectory` returns `TMPDIR` as it is, and a scratch folder made under it
/// with its parents would create a stray folder (a mistyped `TMPDIR=/nonexistent`) on the user's disk.
package enum TemporaryFolder {
    package static var base: String {
        if let tmpdir = ProcessInfo.processInfo.environment["TMPDIR"], !tmpdir.isEmpty {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: tmpdir, isDirectory: &isDirectory), isDirectory.boolValue { return tmpdir }
        }
        return "/tmp"
    }

    /// A fresh, not yet existing path under `base` for one scratch folder or file.
    package static func uniquePath(prefix: String) -> String {
        (base as NSString).appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    }
}
