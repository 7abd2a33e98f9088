import Foundation

/// One 1/3-octave band of the weighted echo loss, mapped onto FFT bins.
struct ThirdOctaveBand: Sendable, Equatable {
    /// The nominal centre frequency (IEC 61260), the frequency the weighting places the band at.
    var centreHz: Double
    /// Bins whose centre frequency k·rate/N lies in the band: [c·2^(−1/6), c·2^(1/6)) around the
    /// exact centre c = 1000·2^(k/3) the nominal one stands for, so neighbouring bands share
    /// their edge and no bin falls in two bands or in none.
    var bins: Range<Int>
}

/// The bands 3GPP TS 26.132 §8.7.1 weights the terminal coupling loss over: 1/3 octaves whose
/// nominal centres lie between 300 Hz and 6.7 kHz, 315 … 6300 Hz.
enum ThirdOctaveBands {
    static let nominalCentresHz: [Double] = [315, 400, 500, 630, 800, 1000, 1250, 1600, 2000, 2500, 3150, 4000, 5000, 6300]
    /// The exact (base-two) centres: 1000·2^(k/3) for k = −5 … 8.
    static let exactCentresHz: [Double] = nominalCentresHz.map(exactCentreHz(nominal:))

    /// The exact centre 1000·2^(k/3) a nominal centre stands for (the nearest k).
    static func exactCentreHz(nominal: Double) -> Double {
        1000 * pow(2, (3 * log2(nominal / 1000)).rounded() / 3)
    }
    /// 2^(1/6): a band's edges lie this factor either side of its exact centre.
    static let halfBand = 1.122_462_048_309_373

    /// The bands that lie wholly below Nyquist and hold at least one bin of an FFT of
    /// `frameSize` at `sampleRate` (at 8 kHz the weighting ends at 3150 Hz; from 16 kHz on it
    /// spans all fourteen).
    static func layout(frameSize: Int, sampleRate: Int) -> [ThirdOctaveBand] {
        let nyquist = Double(sampleRate) / 2
        let binsPerHz = Double(frameSize) / Double(sampleRate)
        return zip(nominalCentresHz, exactCentresHz).compactMap { centre, exact in
            let low = exact / halfBand, high = exact * halfBand
            guard high <= nyquist else { return nil }
            let first = max(1, Int((low * binsPerHz).rounded(.up)))
            let end = min(frameSize / 2 + 1, Int((high * binsPerHz).rounded(.up)))
            guard end > first else { return nil }
            return ThirdOctaveBand(centreHz: centre, bins: first..<end)
        }
    }
}
