import AudioInterop

/// Measures one Hann-windowed Welch frame of one signal: the whole-band power (bins 1…N/2, DC
/// excluded) and, where needed, the octave-band powers. Holds its FFT and scratch buffers so
/// frames allocate nothing. A struct, so that its buffers are reached through the owner's
/// `inout` access rather than through per-element class property checks.
struct FrameBandMeter {
    let frameSize: Int
    let bands: [OctaveBand]
    /// The weighted echo loss's 1/3-octave bands (`ThirdOctaveBands`).
    let thirdOctaves: [ThirdOctaveBand]
    private let fft: RealFFT
    private let window: [Float]
    private var power: [Float]
    /// Frame copy for frames that start before sample 0 (a delay-shifted reference).
    private var padded: [Float]
    /// Band powers of the last `measureBands` call, one per band.
    private(set) var bandPowers: [Double]
    /// 1/3-octave band powers of the last `measureThirdOctaves` call, one per band.
    private(set) var thirdOctavePowers: [Double]

    init(frameSize: Int, sampleRate: Int) {
        self.frameSize = frameSize
        bands = OctaveBands.layout(frameSize: frameSize, sampleRate: sampleRate)
        fft = RealFFT(size: frameSize)
        window = WelchFrames.hannWindow(size: frameSize)
        power = [Float](repeating: 0, count: frameSize / 2 + 1)
        padded = [Float](repeating: 0, count: frameSize)
        bandPowers = [Double](repeating: 0, count: bands.count)
        thirdOctaves = ThirdOctaveBands.layout(frameSize: frameSize, sampleRate: sampleRate)
        thirdOctavePowers = [Double](repeating: 0, count: thirdOctaves.count)
    }

    /// The 1/3-octave band powers of the spectrum the last `measureBands` call left, into
    /// `thirdOctavePowers` (no transform of its own).
    mutating func reduceToThirdOctaves() {
        for index in thirdOctaves.indices { thirdOctavePowers[index] = PowerSums.sum(power, thirdOctaves[index].bins) }
    }

    /// The octave band powers of the spectrum the last `measureThirdOctaves` or `measureBands`
    /// call left, into `out` (no transform of its own): the reference's, to tell which bands
    /// the far end reaches at all.
    func reduceToBands(into out: inout [Double]) {
        for index in bands.indices { out[index] = PowerSums.sum(power, bands[index].bins) }
    }

    /// The 1/3-octave band powers of the windowed frame at `signal[offset...]`, into
    /// `thirdOctavePowers`; samples before index 0 (a delay-shifted reference) count as zero.
    mutating func measureThirdOctaves(_ signal: [Float], offset: Int) {
        if offset >= 0 {
            fft.powerSpectrum(signal, offset: offset, window: window, into: &power)
        } else {
            pad(signal, offset: offset)
            fft.powerSpectrum(padded, offset: 0, window: window, into: &power)
        }
        reduceToThirdOctaves()
    }

    /// Power spectrum of `signal[offset..<offset+frameSize]`, reduced to `bandPowers`; returns
    /// the whole-band power. Bands are disjoint, ascending bin ranges: each bin is summed once,
    /// the whole band is the sum of the band sums and the stretches between them.
    mutating func measureBands(_ signal: [Float], offset: Int) -> Double {
        fft.powerSpectrum(signal, offset: offset, window: window, into: &power)
        var whole = 0.0
        var next = 1
        for index in bands.indices {
            let bins = bands[index].bins
            whole += PowerSums.sum(power, next..<bins.lowerBound)
            let bandPower = PowerSums.sum(power, bins)
            bandPowers[index] = bandPower
            whole += bandPower
            next = bins.upperBound
        }
        return whole + PowerSums.sum(power, next..<power.count)
    }

    /// Whole-band power of the windowed frame at `signal[offset...]` without a transform, by
    /// Parseval: for real x of even length N, Σ_{k=1}^{N/2} |X_k|² = (N·Σx² − X_0² + X_{N/2}²)/2,
    /// with X_0 = Σx and X_{N/2} = Σ(−1)ⁿx. The reference and the echo track only ever enter
    /// whole-band sums, so this replaces an FFT per frame. Samples before index 0 of `signal`
    /// (`offset` < 0: the shifted reference before it starts) count as zero.
    mutating func wholeBandPower(_ signal: [Float], offset: Int) -> Double {
        if offset >= 0 {
            return Self.parseval(signal, offset: offset, window: window, size: frameSize)
        }
        pad(signal, offset: offset)
        return Self.parseval(padded, offset: 0, window: window, size: frameSize)
    }

    /// Copies the frame at `signal[offset...]` (`offset` < 0) into `padded`, zeros before index 0.
    private mutating func pad(_ signal: [Float], offset: Int) {
        for index in 0..<frameSize {
            let source = offset + index
            padded[index] = source >= 0 && source < signal.count ? signal[source] : 0
        }
    }

    private static func parseval(_ signal: [Float], offset: Int, window: [Float], size: Int) -> Double {
        precondition(offset >= 0 && offset + size <= signal.count, "frame out of range")
        // Spans of exactly one frame, so the loop's bounds checks are against one known count.
        let x = signal.span.extracting(offset..<(offset + size)), w = window.span.extracting(0..<size)
        // Windowed in Float, as the FFT input is; summed in Double, two chains each.
        var squaresEven = 0.0, squaresOdd = 0.0, even = 0.0, odd = 0.0
        var index = 0
        while index < size {
            let a = Double(x[index] * w[index]), b = Double(x[index + 1] * w[index + 1])
            squaresEven += a * a; squaresOdd += b * b
            even += a; odd += b
            index += 2
        }
        let dc = even + odd, nyquist = even - odd
        return max(0, (Double(size) * (squaresEven + squaresOdd) - dc * dc + nyquist * nyquist) / 2)
    }
}
