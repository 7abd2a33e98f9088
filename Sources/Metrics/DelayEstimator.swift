import AudioInterop
import Foundation

/// Bulk delay reference→mic by GCC-PHAT (generalised cross-correlation with phase transform).
///
/// Blocks of `blockSize` samples (16384 at 48 kHz, hop half a block) are taken where the reference
/// is far-end active; at most `maxBlocks` of them, spread evenly over the eligible ones. For each,
/// the reference block is zero-padded and the mic window starting at the same sample is long
/// enough to hold the block delayed by up to `maxLag`, so every lag 0…maxLag is a linear (not
/// circular) correlation with the whole block. The cross-spectra X_mic·conj(X_ref) are whitened
/// to unit magnitude (PHAT: every frequency votes equally, which makes the peak sharp whatever
/// the spectrum of the far-end signal), summed over blocks and transformed back; the highest
/// peak in lags 0…maxLag, refined by parabolic interpolation, is the delay.
struct DelayEstimator {
    let blockSize: Int
    let hop: Int
    let maxLag: Int
    let maxBlocks: Int
    let activeMeanSquare: Double
    /// Transform length: at least blockSize + maxLag so no searched lag wraps around.
    let fftSize: Int
    let threads: Int

    init(sampleRate: Int, configuration: EchoMetricsConfiguration) {
        threads = configuration.threadCount
        blockSize = configuration.delayBlockSize(forSampleRate: sampleRate)
        hop = blockSize / 2
        maxLag = max(0, Int((configuration.maxDelayMilliseconds / 1000 * Double(sampleRate)).rounded()))
        maxBlocks = max(1, configuration.maxDelayBlocks)
        activeMeanSquare = pow(10, configuration.farEndActiveDBFS / 10)
        fftSize = Self.smoothSize(atLeast: blockSize + maxLag)
    }

    /// Smallest even size ≥ `value` whose only prime factors are 2, 3 and 5: FFTW is fast on
    /// those, and it is up to 38 % smaller than the next power of two (40500 instead of 65536
    /// for 16384 + 24000 at 48 kHz).
    static func smoothSize(atLeast value: Int) -> Int {
        var size = max(2, value + value % 2)
        while true {
            var rest = size
            for factor in [2, 3, 5] { while rest % factor == 0 { rest /= factor } }
            if rest == 1 { return size }
            size += 2
        }
    }

    /// Delay in (fractional) samples of `mic` relative to `reference` over their first `length`
    /// samples; nil when no block has far-end activity or the mic carries nothing correlated.
    func delaySamples(reference: [Float], mic: [Float], length: Int) -> Double? {
        let starts = blockStarts(reference: reference, length: length)
        guard !starts.isEmpty else { return nil }

        // Fixed parts (not one per core): the sums are added part by part in order, so the
        // result is the same on every machine.
        let partCount = min(4, starts.count)
        let parts = ParallelParts.map(count: partCount, threads: threads) { part in
            accumulate(reference: reference, mic: mic, length: length,
                       starts: Array(starts[ParallelParts.ranges(of: starts.count, count: partCount)[part]]))
        }
        var sumReal = parts[0].real, sumImaginary = parts[0].imaginary
        for part in parts.dropFirst() {
            for bin in sumReal.indices {
                sumReal[bin] += part.real[bin]
                sumImaginary[bin] += part.imaginary[bin]
            }
        }

        let fft = RealFFT(size: fftSize)
        var correlation = [Float](repeating: 0, count: fftSize)
        fft.inverse(real: sumReal.map { Float($0) }, imaginary: sumImaginary.map { Float($0) }, output: &correlation)
        let searchEnd = min(maxLag, fftSize - 1)
        var peak = 0
        for lag in 1...max(1, searchEnd) where lag <= searchEnd && correlation[lag] > correlation[peak] {
            peak = lag
        }
        guard correlation[peak] > 0 else { return nil }

        // Parabola through the peak and its neighbours (lag −1 is the last element of the
        // circular result) for sub-sample precision.
        let before = Double(correlation[(peak - 1 + fftSize) % fftSize])
        let centre = Double(correlation[peak])
        let after = Double(correlation[(peak + 1) % fftSize])
        let curvature = before - 2 * centre + after
        var offset = 0.0
        if curvature < 0 {
            offset = min(0.5, max(-0.5, 0.5 * (before - after) / curvature))
        }
        return max(0, Double(peak) + offset)
    }

    /// Sum over the blocks at `starts` of the PHAT-weighted cross-spectra X_mic·conj(X_ref)/|…|.
    private func accumulate(reference: [Float], mic: [Float], length: Int, starts: [Int])
        -> (real: [Double], imaginary: [Double]) {
        let fft = RealFFT(size: fftSize)
        let bins = fft.binCount
        var referenceBlock = [Float](repeating: 0, count: fftSize)
        var micWindow = [Float](repeating: 0, count: fftSize)
        var referenceReal = [Float](repeating: 0, count: bins), referenceImaginary = referenceReal
        var micReal = referenceReal, micImaginary = referenceReal
        var sumReal = [Double](repeating: 0, count: bins), sumImaginary = sumReal
        var referenceFilled = 0, micFilled = 0
        for start in starts {
            Self.load(reference, from: start, count: min(blockSize, length - start), into: &referenceBlock,
                      filled: &referenceFilled)
            Self.load(mic, from: start, count: min(fftSize, length - start), into: &micWindow, filled: &micFilled)
            fft.forward(referenceBlock, real: &referenceReal, imaginary: &referenceImaginary)
            fft.forward(micWindow, real: &micReal, imaginary: &micImaginary)
            // DC carries offsets, not delay: it stays out.
            for bin in 1..<bins {
                let rr = Double(referenceReal[bin]), ri = Double(referenceImaginary[bin])
                let mr = Double(micReal[bin]), mi = Double(micImaginary[bin])
                let crossReal = mr * rr + mi * ri
                let crossImaginary = mi * rr - mr * ri
                let magnitude = (crossReal * crossReal + crossImaginary * crossImaginary).squareRoot()
                // Bins with (almost) no energy have no phase worth a vote (branch-free select).
                let weight = magnitude > 1e-30 ? 1 / magnitude : 0
                sumReal[bin] += crossReal * weight
                sumImaginary[bin] += crossImaginary * weight
            }
        }
        return (sumReal, sumImaginary)
    }

    /// Starts of the blocks that enter the estimate: far-end-active blocks, thinned evenly to
    /// `maxBlocks`. A signal shorter than a block gets one zero-padded block at 0.
    func blockStarts(reference: [Float], length: Int) -> [Int] {
        guard length > 0 else { return [] }
        guard length >= blockSize else {
            var energy = 0.0
            for index in 0..<length { energy += Double(reference[index]) * Double(reference[index]) }
            return energy / Double(length) >= activeMeanSquare ? [0] : []
        }
        // Sum of squares per hop; a block is two consecutive hops.
        let hopCount = length / hop
        var hopEnergy = [Double](repeating: 0, count: hopCount)
        for block in 0..<hopCount {
            var sum = 0.0
            for index in (block * hop)..<((block + 1) * hop) {
                let value = Double(reference[index])
                sum += value * value
            }
            hopEnergy[block] = sum
        }
        var eligible: [Int] = []
        for block in 0..<(hopCount - 1) where (hopEnergy[block] + hopEnergy[block + 1]) / Double(blockSize) >= activeMeanSquare {
            eligible.append(block * hop)
        }
        guard eligible.count > maxBlocks else { return eligible }
        // Centre of each of maxBlocks equal shares of the eligible list.
        return (0..<maxBlocks).map { eligible[(2 * $0 + 1) * eligible.count / (2 * maxBlocks)] }
    }

    /// Copies `count` samples from `source[from...]` to the front of `buffer` and zeroes what an
    /// earlier load left beyond them; `filled` tracks how far non-zero data may extend, so the
    /// zero padding is written once rather than per block.
    private static func load(_ source: [Float], from: Int, count: Int, into buffer: inout [Float], filled: inout Int) {
        buffer.replaceSubrange(0..<count, with: source[from..<(from + count)])
        if filled > count {
            buffer.replaceSubrange(count..<filled, with: repeatElement(0, count: filled - count))
        }
        filled = count
    }
}
