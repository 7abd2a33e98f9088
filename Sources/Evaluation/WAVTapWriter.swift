import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import Reporting
import Simulation

/// Streams the selected taps of a call into WAV files as it runs: blocks are gathered to
/// `chunkFrames` before each libsndfile write, files are written under temporary names and
/// renamed into place by `finish()` (a failed run leaves nothing behind).
///
/// The writes run on a second thread (the machine has two cores): the call fills one set of
/// chunks while the writer thread hands the other to libsndfile (and the kernel's page cache),
/// so most of the file cost is hidden behind the simulation. Double buffering, one batch in
/// flight: each file gets the same bytes, in the same order, as with synchronous writes.
public final class WAVTapWriter: CallTap {
    private let names: [String]
    /// Each name's signal, resolved once (a string compare per tap per tick otherwise).
    private let signals: [TickSignals.Signal]
    /// The signals `record` reads (a `BackgroundTap` copies only these).
    var signalsRead: Set<TickSignals.Signal> { Set(signals) }
    /// The set being filled by the call.
    private var chunks: [[Float]]
    private var filled = 0
    private let chunkFrames: Int
    private let background: BatchThread<[[Float]]>
    /// Tap name → file name, for the report.
    public let files: [String: String]

    public init(directory: String, names: [String], sampleRate: Int, chunkFrames: Int = 32_768) throws {
        self.names = names
        signals = names.map(TickSignals.Signal.init(tapName:))
        self.chunkFrames = chunkFrames
        let writers = try names.map {
            try SoundFileWriter(path: (directory as NSString).appendingPathComponent("\($0).wav"), sampleRate: sampleRate)
        }
        chunks = names.map { _ in [Float](repeating: 0, count: chunkFrames) }
        background = BatchThread(name: "echolab-tap-writer", spare: chunks.map { [Float](repeating: 0, count: $0.count) },
                                 process: { chunks, frames in
                                     for index in writers.indices { try writers[index].write(chunks[index], frames: frames) }
                                 },
                                 close: { for writer in writers { try writer.finish() } })
        files = Dictionary(uniqueKeysWithValues: names.map { ($0, "\($0).wav") })
    }

    deinit { background.stop() }

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

    /// Writes what is left and moves the files to their final names.
    public func finish() throws {
        try beginFinishing()
        try background.finish()
    }

    /// Hands what is left, and the closing and renaming of the files, to the writer thread and
    /// returns at once, so the caller can score the call meanwhile (replacing a previous run's
    /// taps costs the kernel milliseconds per file); `finish()` then waits and reports any error.
    public func beginFinishing() throws {
        guard !finishing else { return }
        finishing = true
        try flush()
        background.beginClosing()
    }

    private var finishing = false

    /// Hands the filled chunks to the writer thread and takes its spare set back (a swap of
    /// array references: no allocation, no copy).
    private func flush() throws {
        guard filled > 0 else { return }
        try background.submit(&chunks, count: filled)
        filled = 0
    }
}
