import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import Reporting
import Simulation
import Synchronization

/// Streams the selected taps of a call into WAV files as it runs: blocks are gathered to
/// `chunkFrames` before each libsndfile write, files are written under temporary names and
/// renamed into place by `finish()` (a failed run leaves nothing behind).
///
/// The writes run on a second thread (the machine has two cores): the call fills one set of
/// chunks while the writer thread hands earlier ones to libsndfile (and the kernel's page
/// cache), so most of the file cost is hidden behind the simulation. Up to `queueDepth` sets wait
/// for the writer, in order: each file gets the same bytes, in the same order, as with
/// synchronous writes.
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
    /// Sets of chunks that may wait for the writer thread.
    private static let queueDepth = 3
    /// Tap name → file name, for the report.
    public let files: [String: String]

    public init(directory: String, names: [String], sampleRate: Int, chunkFrames: Int = 32_768) throws {
        self.names = names
        signals = names.map(TickSignals.Signal.init(tapName:))
        self.chunkFrames = chunkFrames
        let writers = try names.map {
            try SoundFileWriter(path: (directory as NSString).appendingPathComponent("\($0).wav"), sampleRate: sampleRate)
        }
        self.writers = writers
        let replaced = ReplacedFiles()
        self.replaced = replaced
        func makeChunks() -> [[Float]] { names.map { _ in [Float](repeating: 0, count: chunkFrames) } }
        chunks = makeChunks()
        background = BatchThread(name: "echolab-tap-writer", spares: (0..<Self.queueDepth).map { _ in makeChunks() },
                                 process: { chunks, frames in
                                     for index in writers.indices { try writers[index].write(chunks[index], frames: frames) }
                                 },
                                 close: { [replaced] in
                                     do {
                                         for writer in writers {
                                             if let old = try writer.finishKeepingReplaced() { replaced.append(old) }
                                         }
                                     } catch {
                                         FileReplacement.removeReplaced(replaced.take())
                                         throw error
                                     }
                                 },
                                 afterClose: { [replaced] in replaced.removeEach() })
        files = Dictionary(uniqueKeysWithValues: names.map { ($0, "\($0).wav") })
    }

    deinit { discard() }

    /// Stops the writer thread and removes the partial files; files replaced already are
    /// outdated (their replacements are in place) and go. For a run that stops early (an error,
    /// an interrupt): called by its owner before it reports, so that nothing is left when the
    /// process exits — `deinit` may run on a worker thread that dropped the last reference,
    /// after the main thread has exited (an interrupted re-run left its six `.partial` taps in
    /// one try out of four). Idempotent; also what a writer dropped without `finish` does.
    public func discard() {
        background.stop()
        for writer in writers { writer.discard() }
        FileReplacement.removeReplaced(replaced.take())
    }

    /// The files, written on the writer thread until it stops.
    private let writers: [SoundFileWriter]

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

    /// Writes what is left, moves the files to their final names and deletes the files of an
    /// earlier run they replaced; returns when all is done.
    public func finish() throws {
        try waitUntilInPlace()
        // The writer thread deletes the replaced files from the moment the taps are in place;
        // this thread takes its share of what is left.
        replaced.removeEach()
        try background.finish()
    }

    /// Writes what is left and returns once every tap is under its final name (or throws why
    /// not). The files of an earlier run they replaced are deleted from then on, on the writer
    /// thread, while the caller goes on; `finish()` helps and waits. Freeing four one-minute taps
    /// still in ext4's page cache costs the kernel 5–11 ms (measured), longer than `run` takes to
    /// write its reports.
    public func waitUntilInPlace() throws {
        try beginFinishing()
        try background.waitUntilClosed()
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
    /// Files the taps replaced, moved aside on the writer thread, not yet deleted.
    private let replaced: ReplacedFiles

    private final class ReplacedFiles: Sendable {
        private let paths = Mutex<[String]>([])
        func append(_ path: String) { paths.withLock { $0.append(path) } }
        func take() -> [String] { paths.withLock { paths in defer { paths = [] }; return paths } }
        /// Deletes the files one by one until none is left; two threads may share the work.
        func removeEach() {
            while let path = paths.withLock({ $0.popLast() }) { FileReplacement.removeReplaced([path]) }
        }
    }

    /// Hands the filled chunks to the writer thread and takes its spare set back (a swap of
    /// array references: no allocation, no copy).
    private func flush() throws {
        guard filled > 0 else { return }
        try background.submit(&chunks, count: filled)
        filled = 0
    }
}
