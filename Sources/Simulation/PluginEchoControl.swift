import AudioCore
import AudioInterop
import Foundation

/// A canceller plugin behind `EchoControl`: its library runs in a child process
/// (`PluginProcess`), at the plugin's own rate with both sides resampled around it when that is
/// not the engine's (as for AECM). Either way the plugin gets one render before each capture of
/// the same 10 ms: at another rate the render side's frames wait for the capture side's. Its
/// latency is what it reports (`latency_samples`), at the engine's rate, plus that of the
/// resampling. It has no linear output, metrics or suppression
/// to steer: `intensityAdaptive` is passed to it by name, and it adapts, or not, itself.
public final class PluginEchoControl: EchoControl {
    public let backend: EchoCancellerBackend
    public let sampleRate: Int
    public let frameSize: Int
    public let intensity: EchoCancellerMode
    public let latencySamples: Int
    /// The resampling's share of `latencySamples` (0 at the engine's rate).
    let bridgeLatencySamples: Int
    private let process: PluginProcess
    /// The file the plugin was loaded from (nil where the child could not tell).
    public var loadedFile: FileIdentity? { process.loadedFile }
    private let bridge: (render: RateBridge, capture: RateBridge)?
    /// Render frames at the plugin's rate, waiting for their capture frames (with a bridge).
    private var pendingRender: SampleFIFO
    private var renderFrame: [Float]

    init(plugin: CancellerPlugin, sampleRate: Int, frameSize: Int, intensity: EchoCancellerMode, bridgeLatency: Int) throws {
        guard intensity != .disabled else { throw EchoControlError.noCanceller(backend: "plugin \(plugin.name)", intensity: intensity) }
        let host: String
        do { host = try PluginHost.executable() } catch { throw EchoControlError.pluginCannotStart(name: plugin.name, path: plugin.path, reason: "\(error)") }
        do {
            process = try PluginProcess(host: host, name: plugin.name, path: plugin.path, sampleRate: plugin.sampleRate,
                                        intensity: intensity.rawValue, options: plugin.options)
        } catch let failure as PluginProcess.PluginFailure where failure.isCreateRefusal {
            // A plugin that refuses the rate (one made for 16 kHz) is run at another by asking.
            throw failure.noting(" (it was asked for \(plugin.sampleRate) Hz; --plugin-rate \(plugin.name)=HZ, or a scenario's "
                                 + "aec.plugin_rate, runs it at 8000, 16000, 32000 or 48000)")
        }
        if plugin.sampleRate == sampleRate {
            bridge = nil
            latencySamples = process.latencySamples
            bridgeLatencySamples = 0
        } else {
            bridge = try RateBridge.pair(outerRate: sampleRate, innerRate: plugin.sampleRate, outerFrame: frameSize,
                                         innerFrame: plugin.sampleRate / 100)
            latencySamples = bridgeLatency + process.latencySamples * sampleRate / plugin.sampleRate
            bridgeLatencySamples = bridgeLatency
        }
        pendingRender = SampleFIFO(capacity: plugin.sampleRate)
        renderFrame = [Float](repeating: 0, count: plugin.sampleRate / 100)
        backend = EchoCancellerBackend(plugin: plugin)
        self.sampleRate = sampleRate
        self.frameSize = frameSize
        self.intensity = intensity
    }

    static func settings(for plugin: CancellerPlugin) -> [String: EchoControlSetting] {
        var settings: [String: EchoControlSetting] = ["plugin_path": .text(plugin.path), "rate_hz": .number(Double(plugin.sampleRate))]
        if let options = plugin.options { settings["plugin_options"] = .text(options) }
        return settings
    }

    public var settings: [String: EchoControlSetting] {
        var settings = Self.settings(for: backend.plugin!)
        settings["plugin_name"] = .text(reportedName)
        settings["latency_samples"] = .number(Double(latencySamples))
        return settings
    }

    public func finish() throws { try process.finish() }

    public func analyzeRender(_ frame: [Float]) throws {
        if let bridge {
            try bridge.render.push(frame) { inner, _ in pendingRender.write(inner, count: inner.count) }
        } else {
            try process.render(frame)
        }
    }

    public func processCapture(_ frame: [Float], into output: inout [Float]) throws {
        if let bridge {
            try bridge.capture.push(frame) { inner, out in
                // Both sides resample the same way, so a render frame is waiting; were none, the
                // plugin would get its capture alone rather than a render out of step.
                if pendingRender.count >= renderFrame.count {
                    _ = pendingRender.read(into: &renderFrame, count: renderFrame.count)
                    try process.render(renderFrame)
                }
                try process.capture(inner, into: &out)
            }
            bridge.capture.pull(into: &output)
        } else {
            try process.capture(frame, into: &output)
        }
    }

    /// The name the plugin gives itself (`echolab_canceller_api.name`).
    public var reportedName: String { process.reportedName }
    /// The latency the plugin reports (`latency_samples`, at its own rate), before the resampling's.
    public var reportedLatencySamples: Int { process.latencySamples }
    /// The plugin's rate (the engine's, or the one it was asked to run at).
    var pluginRate: Int { process.sampleRate }
    /// A failure of this plugin found by EchoLab, named as the child's own are.
    func failure(_ problem: String) -> PluginProcess.PluginFailure { process.failure(problem) }

    public var linearOutput: [Float]? { nil }
    public var metrics: EchoControlMetrics { EchoControlMetrics() }
    public var residualSuppression: ResidualSuppressionControl? { nil }
    /// A plugin is made for one intensity: another needs a new one.
    public func changeIntensity(to intensity: EchoCancellerMode) -> Bool { intensity == self.intensity }
}
