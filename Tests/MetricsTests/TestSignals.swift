import AudioCore
import AudioInterop
import Foundation

/// Small deterministic signals for the metric tests.
enum TestSignals {
    /// Seeded Gaussian noise with the given RMS level (−20 dBFS → RMS 0.1).
    static func noise(count: Int, dbfs: Double, seed: UInt64) -> [Float] {
        var random = SeededRandom(seed: seed)
        let amplitude = Float(Decibels.amplitude(fromDB: dbfs))
        return (0..<count).map { _ in random.nextGaussian() * amplitude }
    }

    /// `signal` delayed by `samples` (zeros in front, same length) and scaled by `gainDB`.
    static func delayed(_ signal: [Float], by samples: Int, gainDB: Double = 0) -> [Float] {
        let gain = Float(Decibels.amplitude(fromDB: gainDB))
        return (0..<signal.count).map { $0 >= samples ? signal[$0 - samples] * gain : 0 }
    }

    static func scaled(_ signal: [Float], gainDB: Double) -> [Float] {
        let gain = Float(Decibels.amplitude(fromDB: gainDB))
        return signal.map { $0 * gain }
    }

    static func sum(_ a: [Float], _ b: [Float]) -> [Float] { zip(a, b).map { $0 + $1 } }

    /// Seeded noise at `dbfs` inside `talk` only, silence elsewhere: a talk spurt.
    static func burst(count: Int, during talk: Range<Int>, dbfs: Double, seed: UInt64) -> [Float] {
        let loud = noise(count: count, dbfs: dbfs, seed: seed)
        return loud.indices.map { talk.contains($0) ? loud[$0] : 0 }
    }

    /// How many Welch frames (of `frameSize`, every `hop`) in `count` samples, and how many of
    /// them touch `range`.
    static func frames(count: Int, touching range: Range<Int>, frameSize: Int = 1024, hop: Int = 512) -> (all: Int, touching: Int) {
        let all = (count - frameSize) / hop + 1
        return (all, (0..<all).filter { $0 * hop < range.upperBound && $0 * hop + frameSize > range.lowerBound }.count)
    }

    /// Noise keeping only the FFT bins in [lowHz, highHz) (one FFT over the whole signal, even count).
    static func bandLimitedNoise(count: Int, sampleRate: Int, lowHz: Double, highHz: Double, seed: UInt64) -> [Float] {
        let white = noise(count: count, dbfs: -20, seed: seed)
        let fft = RealFFT(size: count)
        var real = [Float](repeating: 0, count: fft.binCount), imaginary = real
        fft.forward(white, real: &real, imaginary: &imaginary)
        for bin in 0..<fft.binCount {
            let frequency = Double(bin) * Double(sampleRate) / Double(count)
            if frequency < lowHz || frequency >= highHz { real[bin] = 0; imaginary[bin] = 0 }
        }
        var output = [Float](repeating: 0, count: count)
        fft.inverse(real: real, imaginary: imaginary, output: &output)
        return output.map { $0 / Float(count) }
    }

    /// The standard far-end scene: −20 dBFS white noise, echo = reference delayed by
    /// `delaySamples` and attenuated by `erlDB`.
    static func farEndScene(seconds: Double, sampleRate: Int = 48_000, delaySamples: Int = 1920,
                            erlDB: Double = 6, seed: UInt64 = 1) -> (reference: [Float], echo: [Float]) {
        let reference = noise(count: Int(seconds * Double(sampleRate)), dbfs: -20, seed: seed)
        return (reference, delayed(reference, by: delaySamples, gainDB: -erlDB))
    }
}
