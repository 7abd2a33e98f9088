import AudioCore
import AudioInterop
import Foundation
import Simulation

/// Streams the selected taps of a call into WAV files as it runs: blocks are gathered to
/// `chunkFrames` before each libsndfile write (one call per 0.7 s of audio, not per tick), files
/// are written under temporary names and moved into place by `finish()`, so a failed run leaves
/// nothing behind and a re-run's old taps stay whole until the new ones replace them.
///
/// The writes run on the call's own thread: `eval` runs calls side by side on the cores
/// (`--jobs`), and a writer thread per call would only compete with them.
public final class WAVTapWriter: CallTap {
    private let names: [String]
    /// Each name's signal, resolved once (a string compare per tap per tick otherwise).
    private let signals: [TickSignals.Signal]
    private var chunks: [[Float]]
    private var filled = 0
    private let chunkFrames: Int
    private let writers: [SoundFileWriter]
    private enum State { case open, finished, discarded }
    private var state = State.open
    /// Tap name → file name, for the report.
    public let files: [String: String]

    public init(directory: String, names: [String], sampleRate: Int, chunkFrames: Int = 32_768) throws {
        self.names = names
        signals = names.map(TickSignals.Signal.init(tapName:))
        self.chunkFrames = chunkFrames
        writers = try names.map {
            try SoundFileWriter(path: (directory as NSString).appendingPathComponent("\($0).wav"), sampleRate: sampleRate)
        }
        chunks = names.map { _ in [Float](repeating: 0, count: chunkFrames) }
        files = Dictionary(uniqueKeysWithValues: names.map { ($0, "\($0).wav") })
    }

    deinit { discard() }

    /// Removes the partial files of a run that stops early (an error, an interrupt). Called by
    /// the owner before it reports, so that nothing is left when the process exits. Idempotent;
    /// nothing is written after it.
    public func discard() {
        if state == .open { state = .discarded }
        for writer in writers { writer.discard() }
    }

    public func record(_ tick: TickSignals) throws {
        var offset = 0
        while offset < tick.count {
            let n = min(tick.count - offset, chunkFrames - filled)
            for index in names.indices {
                VectorMath.copy(tick[signals[index]], from: offset, into: &chunks[index], at: filled, count: n)
            }
            filled += n
            offset += n
            if filled == chunkFrames { try flush() }
        }
    }

    /// Writes what is left and moves every tap to its final name; only then are the files of an
    /// earlier run they replaced deleted. Should a move fail, the taps moved before it stay (new)
    /// and the others are removed: the run fails, and its report is not written. Idempotent once
    /// it succeeded; after `discard` it throws.
    public func finish() throws {
        switch state {
        case .finished: return
        case .discarded: throw AudioIOError.cannotWrite(path: writers.first?.path ?? "", reason: "the taps were discarded")
        case .open: break
        }
        do {
            try flush()
        } catch {
            discard()
            throw error
        }
        var replaced: [String] = []
        defer { AtomicFile.removeReplaced(replaced) }
        do {
            for writer in writers {
                if let old = try writer.finishKeepingReplaced() { replaced.append(old) }
            }
        } catch {
            discard()
            throw error
        }
        state = .finished
    }

    private func flush() throws {
        guard filled > 0 else { return }
        for index in writers.indices { try writers[index].write(chunks[index], frames: filled) }
        filled = 0
    }
}
