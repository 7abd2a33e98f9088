import AudioCore
internal import CEchoLabPluginHost
import Foundation

/// A canceller plugin (`echolab_canceller.h`) running in a child process of its own: EchoLab's
/// binary started as `echolab plugin-host`, which loads the plugin and answers frame by frame over
/// a Unix socket. A plugin that crashes, hangs, returns an error or writes NaN, Inf or ±2^20 and beyond throws a
/// `PluginFailure` naming it and what happened; EchoLab's own process is untouched.
package final class PluginProcess {
    /// How long `create` may take, and how long one 10 ms frame may.
    package static let createTimeoutMilliseconds = 10_000
    package static let frameTimeoutMilliseconds = 2_000

    /// One line: the plugin (its registered name and file) and what went wrong.
    package struct PluginFailure: DescribedError, Equatable {
        package let plugin: String
        package let path: String
        package private(set) var problem: String
        /// The wait for the plugin was cut short by `stopWaiting` (the command interrupted): the
        /// run was stopped, the plugin did nothing wrong.
        package let isInterruption: Bool
        /// The recording the plugin was running on, named first (`process`), as a built-in
        /// backend's failure names it; nil in a simulated call.
        package private(set) var input: String?
        /// The name the plugin gave itself, where it got as far as saying it (nil where it failed
        /// to start): a run's report names the plugin so, whether the run passed or failed.
        package private(set) var reportedName: String?
        package var description: String { (input.map { "\($0): " } ?? "") + "plugin \(plugin) (\(path)): \(problem)" }
        /// Whether the plugin's `create` refused (returned NULL with a reason).
        package var isCreateRefusal: Bool { problem.hasPrefix("create failed") }
        /// The same failure with `note` after its problem.
        package func noting(_ note: String) -> PluginFailure {
            var noted = self
            noted.problem += note
            return noted
        }

        /// The same failure, named with the recording it happened on.
        package func naming(input: String) -> PluginFailure {
            var named = self
            named.input = input
            return named
        }

        init(plugin: String, path: String, problem: String, reportedName: String? = nil) {
            self.plugin = plugin
            self.path = path
            self.problem = problem
            self.reportedName = reportedName
            isInterruption = echolab_plugin_client_stopped() != 0
        }
    }

    package let name: String
    package let path: String
    package let sampleRate: Int
    package let frameSize: Int
    /// The name the plugin gives itself (`echolab_canceller_api.name`).
    package let reportedName: String
    /// What its `latency_samples` says, at its own rate.
    package let latencySamples: Int
    /// The file the child loaded the plugin from (nil where it could not tell): the path may
    /// name another file by then than the one a report hashed (`PluginFile`).
    package let loadedFile: FileIdentity?
    private let client: OpaquePointer
    private var error = [CChar](repeating: 0, count: 512)
    private var captures = 0
    private var finished = false

    /// Starts `host` (EchoLab's binary) to run the plugin at `path`. `name` is the name it is
    /// registered under, for messages.
    package init(host: String, name: String, path: String, sampleRate: Int, intensity: String, options: String?) throws {
        self.name = name
        self.path = path
        self.sampleRate = sampleRate
        frameSize = sampleRate / 100
        var reason = [CChar](repeating: 0, count: 512)
        let started = reason.withUnsafeMutableBufferPointer { buffer in
            echolab_plugin_client_start(host, path, Int32(sampleRate), intensity, options, "plugin \(name)", Int32(Self.createTimeoutMilliseconds),
                                        Int32(Self.frameTimeoutMilliseconds), buffer.baseAddress, buffer.count)
        }
        guard let started else { throw PluginFailure(plugin: name, path: path, problem: Self.text(reason)) }
        client = started
        reportedName = String(cString: echolab_plugin_client_name(started))
        latencySamples = Int(echolab_plugin_client_latency(started))
        var major: UInt32 = 0, minor: UInt32 = 0, inode: UInt = 0
        echolab_plugin_client_loaded_file(started, &major, &minor, &inode)
        loadedFile = inode == 0 ? nil : FileIdentity(deviceMajor: major, deviceMinor: minor, inode: UInt64(inode))
    }

    deinit { echolab_plugin_client_stop(client) }

    /// The far end as played: one frame.
    package func render(_ frame: [Float]) throws {
        precondition(frame.count >= frameSize)
        let code = frame.withUnsafeBufferPointer { source in
            error.withUnsafeMutableBufferPointer { echolab_plugin_client_render(client, source.baseAddress, $0.baseAddress, $0.count) }
        }
        guard code == 0 else { throw failure(Self.text(error)) }
    }

    /// One microphone frame in, the plugin's output out; an output sample that is NaN, infinite
    /// or ±2^20 (+120 dBFS) and beyond fails the plugin, as such a sample in an input file is
    /// refused: a canceller's output goes to the peer, and past that the metrics' sums overflow.
    package func capture(_ input: [Float], into output: inout [Float]) throws {
        precondition(input.count >= frameSize && output.count >= frameSize)
        let code = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { out in
                error.withUnsafeMutableBufferPointer { echolab_plugin_client_capture(client, source.baseAddress, out.baseAddress, $0.baseAddress, $0.count) }
            }
        }
        guard code == 0 else { throw failure(Self.text(error)) }
        if let (index, fault) = SoundFileReader.firstInvalidSample(output, in: 0..<frameSize) {
            let what = fault == .tooLoud ? " (±2^20, +120 dBFS, or louder: not audio)" : ""
            // A frame is 10 ms at any rate; counted from the plugin's start, which a mode change
            // mid-call makes later than the call's.
            let time = String(format: "%.2f", Double(captures) / 100)
            throw failure("wrote \(output[index]) at sample \(index) of frame \(captures), \(time) s after it started\(what)")
        }
        captures += 1
    }

    /// The end of the run: the plugin's `destroy` runs and its child exits. Throws where it
    /// crashed, exited with a failure or hung there: a plugin that corrupts its memory often
    /// fails only as it frees it, and its run must not pass.
    package func finish() throws {
        guard !finished else { return }
        finished = true
        let code = error.withUnsafeMutableBufferPointer { echolab_plugin_client_finish(client, $0.baseAddress, $0.count) }
        guard code == 0 else { throw failure(Self.text(error)) }
    }

    /// A failure of this plugin that EchoLab found out itself (its latency, say), named as the
    /// child's own failures are.
    package func failure(_ problem: String) -> PluginFailure {
        PluginFailure(plugin: name, path: path, problem: problem, reportedName: reportedName)
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Ends every wait for a plugin's answer, now and from now on, in this process: the plugin's
    /// child is killed and its call fails with "interrupted". Only sets a flag, so the command's
    /// signal handler may call it: an interrupted run stops at once, not when a hung plugin's
    /// time is up. The package's own (it cannot be undone), not the library's.
    package static func stopWaiting() {
        echolab_plugin_client_stop_waiting()
    }

    /// The child's side: `echolab plugin-host PATH RATE INTENSITY [OPTIONS]` calls this and exits
    /// with what it returns.
    package static func runHost(path: String, sampleRate: Int, intensity: String, options: String?) -> Int32 {
        echolab_plugin_host_run(path, Int32(sampleRate), intensity, options)
    }
}
