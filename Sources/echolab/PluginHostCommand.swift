import ArgumentParser
import AudioInterop

/// The child process a canceller plugin runs in (`PluginProcess` starts it): not for people, so
/// hidden from help. It loads the plugin and answers frame by frame on its standard input, a
/// socket to the parent.
struct PluginHostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin-host",
        abstract: "Host a canceller plugin for a parent echolab (internal).",
        shouldDisplay: false
    )

    @Argument var path: String
    @Argument var sampleRate: Int
    @Argument var intensity: String
    @Argument var options: String?

    func run() throws {
        let status = PluginProcess.runHost(path: path, sampleRate: sampleRate, intensity: intensity, options: options)
        throw ExitCode(status)
    }
}
