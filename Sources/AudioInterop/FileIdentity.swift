internal import CEchoLabPluginHost

/// A file as the kernel knows it (its device and inode), whatever path names it now.
public struct FileIdentity: Hashable, Sendable, CustomStringConvertible {
    // Made here only (from fstat, or a plugin host's report): the memberwise initialiser.
    public let deviceMajor: UInt32
    public let deviceMinor: UInt32
    public let inode: UInt64

    /// The file open at `descriptor`, and when its contents were last written (ns); nil where it
    /// cannot be told.
    public static func of(descriptor: Int32) -> (identity: FileIdentity, modifiedNanoseconds: Int64)? {
        var major: UInt32 = 0, minor: UInt32 = 0, inode: UInt = 0
        var modified: Int64 = 0
        guard echolab_file_identity(descriptor, &major, &minor, &inode, &modified) == 0 else { return nil }
        return (FileIdentity(deviceMajor: major, deviceMinor: minor, inode: UInt64(inode)), modified)
    }

    public var description: String { "\(deviceMajor):\(deviceMinor) inode \(inode)" }
}
