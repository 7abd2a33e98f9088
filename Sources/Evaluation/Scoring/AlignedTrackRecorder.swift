import AudioCore
import AudioInterop
import Foundation
import Metrics

/// Keeps a simulated call's tracks as its measurement sees them — every input lined up with
/// `sent` by the send path's latency, tick by tick (`CallMeasurement`) — in Float32 WAVs in a
/// temporary folder, so that scorers hear the output aligned as the report scores it. Used only
/// when the run has scorers; the folder goes with `remove()` (and with the recorder). Blocks are
/// gathered to `chunkFrames` before each write, as the tap writer does; nothing is allocated per
/// tick. Costs 5 × 192 kB per second of call on disk while the run lasts.
final class AlignedTrackRecorder {
    static let tracks: [RunScoring.Track] = [.reference, .mic, .output, .echo, .nearEnd]
    let folder: String
    let sampleRate: Int
    private let writers: [SoundFileWriter]
    private var chunks: [[Float]]
    private var filled = 0
    private let chunkFrames: Int
    private(set) var length = 0
    /// The first write that failed (a full disk): the recorder stops writing, the call goes on,
    /// and `finish` throws it, so the scores are missing with the reason and the run stands.
    private var failure: (any Error)?

    /// Why the tracks could not be kept. It names no path in the folder, which is new each run:
    /// a reason naming it made every eval's report.json differ from the last.
    struct Failure: DescribedError {
        let description: String
        init(_ error: any Error, folder: String) {
            description = "\(error)".replacingOccurrences(of: folder, with: "<tracks folder>")
        }
    }

    init(sampleRate: Int, chunkFrames: Int = 32_768) throws(Failure) {
        folder = TemporaryFolder.uniquePath(prefix: "echolab-tracks")
        self.sampleRate = sampleRate
        self.chunkFrames = chunkFrames
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            writers = try Self.tracks.map { [folder] track in
                try SoundFileWriter(path: (folder as NSString).appendingPathComponent("\(track.rawValue).wav"), sampleRate: sampleRate)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw Failure(error, folder: folder)
        }
        chunks = Self.tracks.map { _ in [Float](repeating: 0, count: chunkFrames) }
    }

    deinit { remove() }

    /// Appends one tick's aligned signals (named, not a list: a list would be allocated per tick).
    func append(reference: [Float], mic: [Float], output: [Float], echo: [Float], nearEnd: [Float], count: Int) {
        guard failure == nil else { return }
        var offset = 0
        while offset < count {
            let n = min(count - offset, chunkFrames - filled)
            VectorMath.copy(reference, from: offset, into: &chunks[0], at: filled, count: n)
            VectorMath.copy(mic, from: offset, into: &chunks[1], at: filled, count: n)
            VectorMath.copy(output, from: offset, into: &chunks[2], at: filled, count: n)
            VectorMath.copy(echo, from: offset, into: &chunks[3], at: filled, count: n)
            VectorMath.copy(nearEnd, from: offset, into: &chunks[4], at: filled, count: n)
            filled += n
            offset += n
            if filled == chunkFrames {
                do { try flush() } catch { failure = error; return }
            }
        }
        length += count
    }

    /// Closes the files; returns them as the tracks a scorer reads (near end and echo included:
    /// a simulation knows both).
    func finish() throws(Failure) -> FileTracks {
        if let failure { throw Failure(failure, folder: folder) }
        var paths: [RunScoring.Track: (path: String, skip: Int)] = [:]
        do {
            try flush()
            for (track, writer) in zip(Self.tracks, writers) {
                try writer.finish()
                paths[track] = (writer.path, 0)
            }
        } catch {
            throw Failure(error, folder: folder)
        }
        return FileTracks(sampleRate: sampleRate, length: length, paths: paths, channel: .monoOnly)
    }

    /// Deletes the folder and what is in it.
    func remove() {
        for writer in writers { writer.discard() }
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func flush() throws {
        guard filled > 0 else { return }
        for index in writers.indices { try writers[index].write(chunks[index], frames: filled) }
        filled = 0
    }
}
