import AudioCore
import AudioInterop

/// A stream of engine-rate mono blocks from a `SignalSource`: a file (resampled with the medium
/// sinc converter — see README "Scenario format" for why — channel chosen
/// explicitly) or a seeded generator. Reads past the end give silence, or start over when looping.
final class BlockSource {
    let source: SignalSource
    private let file: AudioFileStream?
    private var generator: SignalGenerator?
    let loops: Bool
    private(set) var isExhausted = false

    init(_ source: SignalSource, sampleRate: Int, loops: Bool = false) throws {
        self.source = source
        self.loops = loops
        switch source {
        case .file(let path, let channel):
            file = try AudioFileStream(path: path, targetRate: sampleRate, selection: channel, quality: .medium)
        case .generator(let kind, let seed):
            file = nil
            generator = SignalGenerator(kind: kind, sampleRate: sampleRate, seed: seed)
        }
    }

    /// Frames the source holds (nil for endless generators).
    var frameCount: Int64? { file?.estimatedFrameCount }

    /// Fills `count` frames and returns how many are real audio (the rest, past the end of a
    /// file that does not loop, is silence).
    @discardableResult
    func read(into buffer: inout [Float], at offset: Int = 0, count: Int) throws -> Int {
        if generator != nil {
            generator!.fill(&buffer, at: offset, count: count)
            return count
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
            if filled < count {
                if loops && got + filled > 0 && file.estimatedFrameCount > 0 {
                    try file.rewind()
                } else {
                    isExhausted = true
                }
            }
        }
        return count
    }
}
