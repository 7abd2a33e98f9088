import Foundation

import AudioInterop

/// Frame layout of the Welch analysis: frames of `frameSize` samples every `hop = frameSize/2`
/// samples from sample 0, kept only when wholly inside the analysed length (a signal shorter than
/// one frame has no frames, hence nil metrics).
struct WelchFrames: Sendable, Equatable {
    let frameSize: Int
    let hop: Int
    let count: Int

    init(length: Int, frameSize: Int) {
        self.frameSize = frameSize
        hop = frameSize / 2
        count = length >= frameSize ? (length - frameSize) / hop + 1 : 0
    }

    func start(of frame: Int) -> Int { frame * hop }

    /// Frames lying wholly inside `range` (so a segment never borrows samples from its neighbour).
    func frames(inside range: Range<Int>) -> Range<Int> {
        guard count > 0, range.upperBound - range.lowerBound >= frameSize else { return 0..<0 }
        let first = max(0, (range.lowerBound + hop - 1) / hop)
        let end = min(count, (range.upperBound - frameSize) / hop + 1)
        return first..<max(first, end)
    }

    /// Periodic Hann window: with 50 % overlap the shifted windows sum to a constant, so every
    /// sample weighs the same in the Welch average.
    static func hannWindow(size: Int) -> [Float] {
        (0..<size).map { index in
            Float(0.5 - 0.5 * cos(2 * Double.pi * Double(index) / Double(size)))
        }
    }
}

/// Computes, for one frame of one signal, the power spectrum (once) and from it the band powers
/// stored in a row of a flat table: column 0 is the whole band (bins 1…N/2, DC excluded),
/// columns 1… the octave bands. Holds its FFT and scratch buffers so frames allocate nothing;
/// one instance per thread.
final class FrameBandMeter {
    let frameSize: Int
    let bands: [OctaveBand]
    var columns: Int { 1 + bands.count }
    private let fft: RealFFT
    private let window: [Float]
    private var power: [Float]
    private var scratch: [Float]

    init(frameSize: Int, sampleRate: Int) {
        self.frameSize = frameSize
        bands = OctaveBands.layout(frameSize: frameSize, sampleRate: sampleRate)
        fft = RealFFT(size: frameSize)
        window = WelchFrames.hannWindow(size: frameSize)
        power = [Float](repeating: 0, count: frameSize / 2 + 1)
        scratch = [Float](repeating: 0, count: frameSize)
    }

    /// Measures `signal[start - shift ..< start - shift + frameSize]` (samples outside the signal
    /// count as zero: a delay-shifted reference starts with silence) into `table[row]`.
    func measure(_ signal: [Float], start: Int, shift: Int = 0, into table: inout [Double], row: Int) {
        let from = start - shift
        if from >= 0 && from + frameSize <= signal.count {
            fft.powerSpectrum(signal, offset: from, window: window, into: &power)
        } else {
            for index in 0..<frameSize {
                let source = from + index
                scratch[index] = source >= 0 && source < signal.count ? signal[source] : 0
            }
            fft.powerSpectrum(scratch, offset: 0, window: window, into: &power)
        }
        // Bands are disjoint, ascending bin ranges: each bin is summed once, the whole band is
        // the sum of the band sums and the stretches between them.
        let base = row * columns
        var whole = 0.0
        var next = 1
        for (index, band) in bands.enumerated() {
            whole += PowerSums.sum(power, next..<band.bins.lowerBound)
            let bandPower = PowerSums.sum(power, band.bins)
            table[base + 1 + index] = bandPower
            whole += bandPower
            next = band.bins.upperBound
        }
        whole += PowerSums.sum(power, next..<power.count)
        table[base] = whole
    }
}
