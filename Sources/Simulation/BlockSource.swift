import AudioCore
import AudioInterop

/// A stream of engine-rate mono blocks from a `SignalSource`: a file (resampled with the medium
/// sinc converter — see README "Scenario format" for why — channel chosen
/// explicitly) or a seeded generator. Reads past the end give silence, or start over when looping.
final class BlockSource {
    let source: SignalSource
    private let file: AudioFileStream?
    /// The whole file, when `DecodedAudioCache` holds it (eval): read from memory, the same bits.
    private let decoded: DecodedAudioCache.Decoded?
    private var position = 0
    /// Frames read since the file's start or its last rewind: a read that comes up short starts
    /// the file over only after a pass that held audio, so an empty file ends at once, and a file
    /// that ends exactly on a block boundary (its next read is empty) still loops.
    private var framesThisPass = 0
    private var generator: SignalGenerator?
    let loops: Bool
    private(set) var isExhausted = false

    init(_ source: SignalSource, sampleRate: Int, loops: Bool = false) throws {
        self.source = source
        self.loops = loops
        switch source {
        case .file(let path, let channel):
            decoded = DecodedAudioCache.shared.decoded(path: path, targetRate: sampleRate, selection: channel, quality: .medium)
            file = decoded == nil ? try AudioFileStream(path: path, targetRate: sampleRate, selection: channel, quality: .medium) : nil
        case .generator(let kind, let seed):
            file = nil
            decoded = nil
            generator = SignalGenerator(kind: kind, sampleRate: sampleRate, seed: seed)
        }
    }

    /// Frames the source holds (nil for endless generators).
    var frameCount: Int64? { decoded?.estimatedFrameCount ?? file?.estimatedFrameCount }

    /// Fills `count` frames and returns how many are real audio (the rest, past the end of a
    /// file that does not loop, is silence).
    @discardableResult
    func read(into buffer: inout [Float], at offset: Int = 0, count: Int) throws -> Int {
        if generator != nil {
            generator!.fill(&buffer, at: offset, count: count)
            return count
        }
        if let decoded {
            return readDecoded(decoded, into: &buffer, at: offset, count: count)
        }
        guard let file else { return 0 }
        var filled = 0
        while filled < count {
            if isExhausted {
                for i in filled..<count { buffer[offset + i] = 0 }
                return filled
            }
            let got = try file.read(into: &buffer, at: offset + filled, frames: count - filled)
            filled += got
            framesThisPass += got
            if filled < count {
                if loops && framesThisPass > 0 && file.estimatedFrameCount > 0 {
                    try file.rewind()
                    framesThisPass = 0
                } else {
                    isExhausted = true
                }
            }
        }
        return count
    }

    /// `read` from the decoded file, step for step as from the stream.
    private func readDecoded(_ decoded: DecodedAudioCache.Decoded, into buffer: inout [Float], at offset: Int, count: Int) -> Int {
        let samples = decoded.samples
        var filled = 0
        while filled < count {
            if isExhausted {
                for i in filled..<count { buffer[offset + i] = 0 }
                return filled
            }
            let got = min(count - filled, samples.count - position)
            VectorMath.copy(samples, from: position, into: &buffer, at: offset + filled, count: got)
            position += got
            filled += got
            framesThisPass += got
            if filled < count {
                for i in filled..<count { buffer[offset + i] = 0 }
                if loops && framesThisPass > 0 && decoded.estimatedFrameCount > 0 {
                    position = 0
                    framesThisPass = 0
                } else {
                    isExhausted = true
                }
            }
        }
        return count
    }
}
