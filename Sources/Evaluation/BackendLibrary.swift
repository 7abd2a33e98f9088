import Foundation
import Simulation

/// What a run's canceller is, in one line for reports and eval.json: a built-in backend's library
/// and version ("speexdsp 1.2.1", "tg_owt 0~git…"), or a plugin's own name and its file's SHA-256
/// (with its options and a rate other than 48 kHz), so that a baseline says what it measured. nil without a canceller.
enum BackendLibrary {
    /// `pluginDigest`: the plugin file's SHA-256 where the caller has it (else it is read here).
    static func describe(_ mode: EchoControlMode, pluginName: String? = nil, pluginDigest: String? = nil) -> String? {
        guard mode.intensity != .disabled else { return nil }
        if let plugin = mode.backend.plugin {
            // Its options and a rate other than the default are part of what was measured: a
            // re-tuned plugin reads as another canceller in `compare`, not as a regression.
            return "plugin \(pluginName ?? plugin.name), sha256 \(pluginDigest ?? digest(of: plugin))"
                + (plugin.options.map { ", options \($0)" } ?? "")
                + (plugin.sampleRate == CancellerPlugin.defaultSampleRate ? "" : ", at \(plugin.sampleRate) Hz")
        }
        if case .text(let library)? = EchoControlFactory.settings(for: mode)["library"] { return library }
        return nil
    }

    /// The plugin file's SHA-256 (hex), or `unreadable`, as a run reads it (`PluginFile`).
    static func digest(of plugin: CancellerPlugin) -> String { PluginFile(plugin).sha256 }

    /// The digest of a file that cannot be read.
    static let unreadable = "unreadable"
}
