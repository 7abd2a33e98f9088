import AudioCore
import AudioInterop
import Foundation
import Simulation

/// The plugins an eval or a run knows, by name. A backend's name is what its modes are called,
/// so every run of `mine:intensityMax` is summed and compared as one mode: two different
/// cancellers under one name would be averaged together and judged against each other's
/// baseline. `--plugin` registers a name first; a scenario that names a plugin of its own under
/// that name must name the same canceller — the same file contents (its SHA-256: a copy
/// elsewhere is the same plugin), the same options and the same rate.
public struct PluginNames {
    /// Where a name was first given a canceller, and which.
    private struct Known {
        var plugin: CancellerPlugin
        var digest: String
        var source: String
    }

    private var known: [String: Known] = [:]

    /// A name given two different cancellers.
    public struct Conflict: DescribedError, Equatable {
        public let description: String
    }

    /// Starts with the command line's `--plugin NAME=PATH` registrations.
    public init(registered: [CancellerPlugin]) {
        for plugin in registered where known[plugin.name] == nil {
            known[plugin.name] = Known(plugin: plugin, digest: BackendLibrary.digest(of: plugin), source: "--plugin \(plugin.name)")
        }
    }

    /// Takes `plugin`, which `source` (a scenario's file) names, or says how it differs from the
    /// canceller its name already has. The first use of a name keeps it.
    public mutating func admit(_ plugin: CancellerPlugin, from source: String) throws {
        let digest = BackendLibrary.digest(of: plugin)
        guard let earlier = known[plugin.name] else {
            known[plugin.name] = Known(plugin: plugin, digest: digest, source: source)
            return
        }
        let difference: String
        // A file that cannot be read has no digest to match: only the same path is the same plugin.
        let unreadable = digest == BackendLibrary.unreadable || earlier.digest == BackendLibrary.unreadable
        if earlier.digest != digest || (unreadable && InputFile.canonical(earlier.plugin.path) != InputFile.canonical(plugin.path)) {
            func hash(_ digest: String) -> String { digest == BackendLibrary.unreadable ? "unreadable" : "sha256 \(digest.prefix(12))…" }
            difference = "is \(plugin.path) (\(hash(digest))) here but \(earlier.plugin.path) (\(hash(earlier.digest))) in \(earlier.source)"
        } else if earlier.plugin.options != plugin.options {
            difference = "has plugin_options \(plugin.options ?? "none") here but \(earlier.plugin.options ?? "none") in \(earlier.source)"
        } else if earlier.plugin.sampleRate != plugin.sampleRate {
            difference = "runs at \(plugin.sampleRate) Hz here but at \(earlier.plugin.sampleRate) Hz in \(earlier.source)"
        } else {
            return
        }
        throw Conflict(description: "\(source): aec.plugin: plugin '\(plugin.name)' \(difference); "
                       + "one name is one canceller (its runs are summed and compared as one mode): give this one another aec.backend")
    }
}
