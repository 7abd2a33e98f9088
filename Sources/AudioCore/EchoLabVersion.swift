/// The tool's version, reported in every file it writes, and the version of the canceller it
/// ships (the `echolab` backend's library in reports), which lives in the same tree.
public enum EchoLabVersion {
    public static let current = "0.1.0"
}
