import AudioCore
import AudioInterop
import Foundation

/// A 16 kHz 16-bit WAV of `seconds` of speech-like audio at `level` in `folder`: its path.
func writeSpeechWAV(_ name: String, in folder: URL, seconds: Double = 3, level: Double = -20, seed: UInt64 = 1,
                    rate: Int = 16_000) throws -> String {
    let path = folder.appendingPathComponent(name).path
    let samples = SignalGenerator.render(.speechLike(levelDBFS: level, pitchHz: 120), sampleRate: rate,
                                         count: Int(seconds * Double(rate)), seed: seed)
    try SoundFileWriter.write(samples, to: path, sampleRate: rate, encoding: .pcm16)
    return path
}
