import AudioCore
import AudioInterop
import Foundation
import Simulation
import Synchronization

/// The SHA-256 of each plugin file as an eval found it when it started, which each of its runs
/// must still find: one name is one canceller (`PluginNames`), and a file rebuilt while a long
/// eval runs would otherwise put two cancellers' runs in one mode's figures (each run named its
/// own hash, and both were summed as one).
public final class PluginDigests: Sendable {
    private let digests = Mutex<[String: String]>([:])

    /// What the digests were recorded at the start of, as the notes say it: "the eval", "the run".
    private let startedWhat: String

    /// `command`: what the digests are recorded at the start of ("eval", "run", "process").
    public init(command: String = "eval") { startedWhat = "the \(command)" }

    /// A run found its plugin's file other than the eval did.
    public struct Changed: DescribedError, Equatable {
        public let description: String
    }

    /// Keeps `plugin`'s digest as it is now, unless one is kept for its file already.
    public func record(_ plugin: CancellerPlugin) {
        let path = InputFile.canonical(plugin.path)
        guard digests.withLock({ $0[path] }) == nil else { return }
        let digest = BackendLibrary.digest(of: plugin)
        digests.withLock { kept in if kept[path] == nil { kept[path] = digest } }
    }

    /// The digest kept for `plugin`'s file; nil where none is.
    func digest(of plugin: CancellerPlugin) -> String? {
        let path = InputFile.canonical(plugin.path)
        return digests.withLock { $0[path] }
    }

    /// A note for a plugin's failure where its file is no longer the one the eval started with:
    /// a plugin rebuilt in place while it ran crashes in code that changed under it, and the
    /// crash is not the plugin's own ("crashed at frame 390 (signal 11)" alone says nothing of it).
    /// nil where the file is as it was, or was never recorded.
    func changedNote(forFileAt path: String) -> String? {
        guard let kept = digests.withLock({ $0[InputFile.canonical(path)] }), InputFile.problem(at: path) == nil,
              let contents = FileManager.default.contents(atPath: path) else { return nil }
        let now = sha256Hex(of: contents)
        guard now != kept else { return nil }
        return "its file changed while it ran: sha256 \(kept.prefix(12))… when \(startedWhat) started, \(now.prefix(12))… now; rebuilt under it?"
    }

    /// `error` as a command reports it: a plugin's failure says where its file changed under it
    /// since it was recorded (`changedNote(forFileAt:)`); any other error as it is.
    public func noting(_ error: any Error) -> any Error {
        guard let failure = error as? PluginProcess.PluginFailure, !failure.isInterruption,
              let note = changedNote(forFileAt: failure.path) else { return error }
        return failure.noting(" (\(note))")
    }

    /// Throws `Changed` where `digest` (a run's, at its start) is not the one kept for
    /// `plugin`'s file; keeps it where none is.
    func check(_ plugin: CancellerPlugin, digest: String) throws {
        let path = InputFile.canonical(plugin.path)
        let kept: String = digests.withLock { kept in
            if let earlier = kept[path] { return earlier }
            kept[path] = digest
            return digest
        }
        guard kept != digest else { return }
        let again = startedWhat == "the eval" ? "one name is one canceller, so this run is not measured; run the eval again"
            : "the run is not measured; run it again"
        throw Changed(description: "plugin \(plugin.name): \(plugin.path) changed while \(startedWhat) ran (\(Self.shown(kept)) "
                      + "when it started, \(Self.shown(digest)) now): " + again)
    }

    /// A digest as the error gives it: its first 12 digits, or what stood for one where the file
    /// could not be read ("unreadable…" read like a hash cut short).
    private static func shown(_ digest: String) -> String {
        digest == BackendLibrary.unreadable ? "no file it can read (removed or unreadable)" : "sha256 \(digest.prefix(12))…"
    }
}
