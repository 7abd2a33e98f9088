import AudioInterop
import Foundation
import Simulation

/// Streams the selected taps of a call into WAV files as it runs: blocks are gathered to
/// `chunkFrames` before each libsndfile write, files are written under temporary names and
/// renamed into place by `finish()` (a failed run leaves nothing behind).
public final class WAVTapWriter: CallTap {
    private let names: [String]
    private var writers: [SoundFileWriter]
    private var chunks: [[Float]]
    private var filled = 0
    private let chunkFrames: Int
    /// Tap name → file name, for the report.
    public let files: [String: String]

    public init(directory: String, names: [String], sampleRate: Int, chunkFrames: Int = 8192) throws {
        self.names = names
        self.chunkFrames = chunkFrames
        writers = try names.map {
            try SoundFileWriter(path: (directory as NSString).appendingPathComponent("\($0).wav"), sampleRate: sampleRate)
        }
        chunks = names.map { _ in [Float](repeating: 0, count: chunkFrames) }
        files = Dictionary(uniqueKeysWithValues: names.map { ($0, "\($0).wav") })
    }

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
        for writer in writers { try writer.finish() }
    }

    private func flush() throws {
        guard filled > 0 else { return }
        for index in writers.indices { try writers[index].write(chunks[index], frames: filled) }
        filled = 0
    }

    private static func append(_ source: [Float], from offset: Int, count: Int, to chunk: inout [Float], at position: Int) {
        chunk.replaceSubrange(position..<(position + count), with: source[offset..<(offset + count)])
    }
}
