import Foundation

/// Writes files so that a reader never sees half of one: write to a hidden temporary beside the
/// target, then rename over it (atomic on one filesystem).
public enum AtomicFile {
    public struct WriteError: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(path): cannot write: \(reason)" }
    }

    public static func write(_ text: String, to path: String) throws {
        try write(Data(text.utf8), to: path)
    }

    public static func write(_ data: Data, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial")
        do {
            try data.write(to: temporary)
        } catch {
            throw WriteError(path: path, reason: Self.reason(error))
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw WriteError(path: path, reason: reason)
        }
    }

    /// Creates `path` (and parents) if needed and checks it is a writable folder.
    public static func prepareDirectory(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw WriteError(path: path, reason: "exists and is not a folder") }
        } else {
            // Name the ancestor that is in the way rather than relaying Foundation's generic error.
            var ancestor = (path as NSString).deletingLastPathComponent
            while !ancestor.isEmpty && ancestor != "/" && !FileManager.default.fileExists(atPath: ancestor) {
                ancestor = (ancestor as NSString).deletingLastPathComponent
            }
            var ancestorIsFolder: ObjCBool = false
            if !ancestor.isEmpty, FileManager.default.fileExists(atPath: ancestor, isDirectory: &ancestorIsFolder), !ancestorIsFolder.boolValue {
                throw WriteError(path: path, reason: "\(ancestor) is a file, not a folder")
            }
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw WriteError(path: path, reason: Self.reason(error))
            }
        }
        guard access(path, W_OK) == 0 else { throw WriteError(path: path, reason: "folder is not writable") }
    }

    static func reason(_ error: Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return (error as NSError).localizedDescription
    }
}
