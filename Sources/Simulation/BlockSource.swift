import AudioCore
import AudioInterop

/// A stream of engine-rate mono blocks from a `SignalSource`: a file (resampled with the medium
/// sinc converter — see README "Scenario format" for why — channel chosen
/// explicitly) or a seeded generator. Reads past the end give silence, or start over when looping.
final class BlockSource {
    private var file: AudioFileStream?
    /// The whole file, when the `DecodedAudioCache` handed in holds it (eval): read from memory,
    /// the same bits. For a looping file, the stream's first `expectedFrames` frames.
    private var decoded: DecodedAudioCache.Decoded?
    private var position = 0
    private var generator: SignalGenerator?
    private var isExhausted = false
    /// A looping file's stream, to open where its decoded stretch runs out.
    private let reopen: (() throws -> AudioFileStream)?

    /// `cache`: decoded inputs shared by the runs of a corpus; nil streams the file.
    /// `expectedFrames`: how much a looping file is read (a call's length at `sampleRate`): the
    /// cache holds that much of its stream.
    init(_ source: SignalSource, sampleRate: Int, loops: Bool = false, cache: DecodedAudioCache? = nil,
         expectedFrames: Int? = nil) throws {
        switch source {
        case .file(let path, let channel):
            // A looping file's stream starts the file over before its resampler, so the passes
            // join without a click: the cache holds a stretch of that stream (one pass, converted
            // on its own, would not join), as long as the call reads.
            if loops {
                decoded = expectedFrames.flatMap { cache?.looped(path: path, targetRate: sampleRate, selection: channel, quality: .medium,
                                                                 frames: $0) }
                reopen = { try AudioFileStream(path: path, targetRate: sampleRate, selection: channel, quality: .medium, loops: true) }
            } else {
                decoded = cache?.decoded(path: path, targetRate: sampleRate, selection: channel, quality: .medium)
                reopen = nil
            }
            file = decoded == nil
                ? try AudioFileStream(path: path, targetRate: sampleRate, selection: channel, quality: .medium, loops: loops) : nil
        case .generator(let kind, let seed):
            file = nil
            decoded = nil
            reopen = nil
            generator = SignalGenerator(kind: kind, sampleRate: sampleRate, seed: seed)
        }
    }

    /// Fills `count` frames and returns how many are real audio (the rest, past the end of a
    /// file that does not loop, is silence).
    @discardableResult
    func read(into buffer: inout [Float], at offset: Int = 0, count: Int) throws -> Int {
        if generator != nil {
            generator!.fill(&buffer, at: offset, count: count)
            return count
        }
        if let decoded {
            if let reopen, position + count > decoded.samples.count {
                // Read past the stretch the cache holds: the stream, brought to where it ends
                // (a looping file never runs out; a call that reads longer than expected).
                // The caller's block takes the skipped audio, so nothing is allocated here.
                let stream = try reopen()
                var left = position
                while left > 0 {
                    let got = try stream.read(into: &buffer, at: offset, frames: min(left, count))
                    guard got > 0 else { break }   // a file with no audio: nothing to skip
                    left -= got
                }
                file = stream
                self.decoded = nil
            } else {
                return readDecoded(decoded, into: &buffer, at: offset, count: count)
            }
        }
        guard let file, !isExhausted else {
            for i in 0..<count { buffer[offset + i] = 0 }
            return 0
        }
        // The stream zeroes what it could not fill; it falls short only at its end (a looping
        // stream: only when the file is empty).
        let got = try file.read(into: &buffer, at: offset, frames: count)
        if got < count { isExhausted = true }
        return got
    }

    /// `read` from the decoded file (a file that does not loop), as from the stream.
    private func readDecoded(_ decoded: DecodedAudioCache.Decoded, into buffer: inout [Float], at offset: Int, count: Int) -> Int {
        let got = min(count, decoded.samples.count - position)
        VectorMath.copy(decoded.samples, from: position, into: &buffer, at: offset, count: got)
        for i in got..<count { buffer[offset + i] = 0 }
        position += got
        if got < count { isExhausted = true }
        return got
    }
}
