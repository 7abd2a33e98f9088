import Foundation
import Synchronization

/// The program that hosts canceller plugins in child processes (`echolab plugin-host`).
///
/// A program that is such a host itself says so at start (the echolab binary does, whatever its
/// file is called: found by name, a copy named `echolab-bin` has no host and fails every plugin
/// run). Others —
/// an app embedding EchoLab, a test bundle — find one as `$ECHOLAB_PLUGIN_HOST`, or an `echolab`
/// beside their own executable.
public enum PluginHost {
    private static let own = Mutex<String?>(nil)

    /// This process's own executable hosts plugins (`echolab plugin-host`): call before a call
    /// makes a plugin's canceller.
    public static func hostInThisProgram() {
        own.withLock { $0 = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path }
    }

    /// $ECHOLAB_PLUGIN_HOST, else this process's binary where it hosts plugins or is named
    /// `echolab`, else an `echolab` beside it.
    static func executable() throws -> String {
        if let host = ProcessInfo.processInfo.environment["ECHOLAB_PLUGIN_HOST"], !host.isEmpty { return host }
        if let host = own.withLock({ $0 }) { return host }
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        if binary.lastPathComponent == "echolab" { return binary.path }
        let beside = binary.deletingLastPathComponent().appendingPathComponent("echolab").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        throw EchoControlError.pluginHostMissing(searchedBeside: binary.path)
    }
}
