/// The octave bands ERLE is reported in, mapped onto FFT bins.
struct OctaveBand: Sendable, Equatable {
    var lowHz: Double
    var highHz: Double
    /// Bins whose centre frequency k·rate/N lies in [lowHz, highHz); may be empty at low rates.
    var bins: Range<Int>
}

enum OctaveBands {
    /// [125, 250), [250, 500) … [8000, 16000) Hz: the speech range in seven octaves.
    static let edges: [(low: Double, high: Double)] = (0..<7).map { index in
        let low = 125.0 * Double(1 << index)
        return (low, 2 * low)
    }

    /// The bands below Nyquist for an FFT of `frameSize` at `sampleRate`. A band that starts at
    /// or above Nyquist is dropped; one that straddles it keeps the bins up to Nyquist.
    static func layout(frameSize: Int, sampleRate: Int) -> [OctaveBand] {
        let nyquist = Double(sampleRate) / 2
        let lastBin = frameSize / 2
        let binsPerHz = Double(frameSize) / Double(sampleRate)
        return edges.compactMap { edge in
            guard edge.low < nyquist else { return nil }
            // k·rate/N ≥ low ⇔ k ≥ low·N/rate, and k·rate/N < high ⇔ k < high·N/rate.
            let first = max(1, Int((edge.low * binsPerHz).rounded(.up)))
            let end = min(lastBin + 1, Int((edge.high * binsPerHz).rounded(.up)))
            return OctaveBand(lowHz: edge.low, highHz: edge.high, bins: first..<max(first, end))
        }
    }
}
