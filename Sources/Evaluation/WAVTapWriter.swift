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
    /// The set being filled by the call.
    private var chunks: [[Float]]
    private var filled = 0
    private let chunkFrames: Int
    private let background: BackgroundWrites
    /// Tap name → file name, for the report.
    public let files: [String: String]

    public init(directory: String, names: [String], sampleRate: Int, chunkFrames: Int = 8192) throws {
        self.names = names
        self.chunkFrames = chunkFrames
        let writers = try names.map {
            try SoundFileWriter(path: (directory as NSString).appendingPathComponent("\($0).wav"), sampleRate: sampleRate)
        }
        chunks = names.map { _ in [Float](repeating: 0, count: chunkFrames) }
        background = BackgroundWrites(writers: writers, spare: chunks)
        files = Dictionary(uniqueKeysWithValues: names.map { ($0, "\($0).wav") })
    }

    deinit { background.stop() }

    public func record(_ tick: TickSignals) throws {
        var offset = 0
        while offset < tick.count {
            let n = min(tick.count - offset, chunkFrames - filled)
            for index in names.indices {
                Self.append(tick.signal(named: names[index]), from: offset, count: n, to: &chunks[index], at: filled)
            }
            filled += n
            offset += n
            if filled == chunkFrames { try flush() }
        }
    }

    /// Writes what is left and moves the files to their final names.
    public func finish() throws {
        try flush()
        try background.finish()
    }

    /// Hands the filled chunks to the writer thread and takes its spare set back (a swap of
    /// array references: no allocation, no copy).
    private func flush() throws {
        guard filled > 0 else { return }
        try background.submit(&chunks, frames: filled)
        filled = 0
    }

    private static func append(_ source: [Float], from offset: Int, count: Int, to chunk: inout [Float], at position: Int) {
        chunk.replaceSubrange(position..<(position + count), with: source[offset..<(offset + count)])
    }
}

/// The writer thread of a `WAVTapWriter`. Between `submit` and the next `waitIdle` the thread
/// alone touches `writers` and `pending`; the semaphores order every hand-over, so the class is
/// safe although it is not checked by the compiler.
private final class BackgroundWrites: @unchecked Sendable {
    private let writers: [SoundFileWriter]
    private var pending: [[Float]]
    private var pendingFrames = 0
    private var failure: (any Error)?
    private var stopping = false
    private var running = true
    private let work = DispatchSemaphore(value: 0)
    private let idle = DispatchSemaphore(value: 1)
    private let exited = DispatchSemaphore(value: 0)

    init(writers: [SoundFileWriter], spare: [[Float]]) {
        self.writers = writers
        pending = spare.map { [Float](repeating: 0, count: $0.count) }
        let thread = Thread { [unowned self] in loop() }
        thread.name = "echolab-tap-writer"
        thread.start()
    }

    private func loop() {
        while true {
            work.wait()
            if stopping { break }
            if failure == nil {
                do {
                    for index in writers.indices { try writers[index].write(pending[index], frames: pendingFrames) }
                } catch {
                    failure = error
                }
            }
            idle.signal()
        }
        exited.signal()
    }

    /// Waits for the batch in flight, reports its error if it failed, and starts writing `chunks`
    /// (whose storage is swapped with the spare set the thread has finished with).
    func submit(_ chunks: inout [[Float]], frames: Int) throws {
        idle.wait()
        if let failure {
            idle.signal()
            throw failure
        }
        swap(&chunks, &pending)
        pendingFrames = frames
        work.signal()
    }

    /// Waits for the last batch, stops the thread and closes the files (renaming them into place).
    func finish() throws {
        stop()
        if let failure { throw failure }
        for writer in writers { try writer.finish() }
    }

    /// Ends the thread after the batch in flight (idempotent).
    func stop() {
        guard running else { return }
        running = false
        idle.wait()
        stopping = true
        work.signal()
        exited.wait()
        idle.signal()
    }
}
