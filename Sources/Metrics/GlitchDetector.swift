import Foundation

/// One click: where it is and how far it stands out of its surroundings.
public struct GlitchEvent: Codable, Equatable, Sendable {
    /// Sample of the strongest second difference in the (merged) event.
    public var sampleIndex: Int
    /// 20·log10(|second difference| / local RMS of the second difference), in dB.
    public var strengthDB: Double

    public init(sampleIndex: Int, strengthDB: Double) {
        self.sampleIndex = sampleIndex
        self.strengthDB = strengthDB
    }

    enum CodingKeys: String, CodingKey {
        case sampleIndex = "sample", strengthDB = "strength_db"
    }
}

/// Clicks and dropouts found in one signal.
public struct GlitchReport: Equatable, Sendable {
    /// Clicks in time order.
    public var events: [GlitchEvent]
    /// Runs of digital silence inside active audio, in time order.
    public var gaps: [Range<Int>]

    public init(events: [GlitchEvent], gaps: [Range<Int>]) {
        self.events = events
        self.gaps = gaps
    }

    /// Clicks whose sample lies in `range`, e.g. `count(in: t - 480 ..< t + 481)` for ±10 ms at 48 kHz.
    public func count(in range: Range<Int>) -> Int {
        events.reduce(0) { $0 + (range.contains($1.sampleIndex) ? 1 : 0) }
    }
}

/// Finds clicks (discontinuities) and gaps (dropouts to digital silence) in a mono signal.
///
/// A click is where the second difference d[n] = x[n] − 2x[n−1] + x[n−2] exceeds `thresholdFactor`
/// times the RMS of d over the surrounding `contextSeconds` (~5 ms, the few samples right around
/// n left out so a click does not raise its own threshold) and is above `floorDBFS` in absolute
/// terms. The second difference of smooth audio is small (it scales with frequency²), while a
/// jump in value or slope makes it spike, so sines and speech pass and splices do not. Detections
/// closer than `mergeSeconds` to the previous one are one event (a jump spikes d at two
/// consecutive samples).
///
/// A gap is a run of samples with |x| < `silenceAmplitude` lasting at least `minimumGapSeconds`
/// that neither touches the start nor the end of the signal and is preceded and followed by
/// `contextSeconds` of audio at or above `floorDBFS` (mean square): a dropout, not a pause.
public struct GlitchDetector: Sendable {
    public var sampleRate: Int
    public var thresholdFactor: Double
    public var floorDBFS: Double
    public var contextSeconds: Double
    public var mergeSeconds: Double
    public var minimumGapSeconds: Double
    public var silenceAmplitude: Float

    public init(sampleRate: Int, thresholdFactor: Double = 8, floorDBFS: Double = -60,
                contextSeconds: Double = 0.005, mergeSeconds: Double = 0.005,
                minimumGapSeconds: Double = 0.005, silenceAmplitude: Float = 1e-6) {
        self.sampleRate = sampleRate
        self.thresholdFactor = thresholdFactor
        self.floorDBFS = floorDBFS
        self.contextSeconds = contextSeconds
        self.mergeSeconds = mergeSeconds
        self.minimumGapSeconds = minimumGapSeconds
        self.silenceAmplitude = silenceAmplitude
    }

    /// Clicks and gaps of `signal`.
    public func analyze(_ signal: [Float]) -> GlitchReport {
        GlitchReport(events: clicks(in: signal), gaps: gaps(in: signal))
    }

    /// Clicks of `signal` whose sample lies in `range`; detection looks at the whole signal so
    /// the local context around the range is the real one.
    public func count(in signal: [Float], range: Range<Int>) -> Int {
        clicks(in: signal).reduce(0) { $0 + (range.contains($1.sampleIndex) ? 1 : 0) }
    }

    /// Click events of `signal` in time order.
    public func clicks(in signal: [Float]) -> [GlitchEvent] {
        let count = signal.count
        guard count >= 3 else { return [] }
        // Prefix sums of d² for O(1) local energies; d[n] itself is recomputed where needed
        // rather than stored (one array of the signal's length instead of two).
        var prefix = [Double](repeating: 0, count: count + 1)
        var running = 0.0
        for index in 2..<count {
            let d = Double(signal[index]) - 2 * Double(signal[index - 1]) + Double(signal[index - 2])
            running += d * d
            prefix[index + 1] = running
        }
        let halfContext = max(4, Int((contextSeconds * Double(sampleRate) / 2).rounded()))
        let guardSamples = 2
        let floor = pow(10, floorDBFS / 20)
        let factor = thresholdFactor
        let mergeDistance = max(1, Int((mergeSeconds * Double(sampleRate)).rounded()))

        var events: [GlitchEvent] = []
        var lastDetection: Int?
        let floorSquared = floor * floor
        for index in 2..<count {
            let d = Double(signal[index]) - 2 * Double(signal[index - 1]) + Double(signal[index - 2])
            guard d * d > floorSquared else { continue }
            let magnitude = abs(d)
            let low = max(2, index - halfContext), high = min(count, index + halfContext + 1)
            let guardLow = max(low, index - guardSamples), guardHigh = min(high, index + guardSamples + 1)
            let energy = (prefix[high] - prefix[low]) - (prefix[guardHigh] - prefix[guardLow])
            let samples = (high - low) - (guardHigh - guardLow)
            let localRMS = samples > 0 ? (max(0, energy) / Double(samples)).squareRoot() : 0
            guard magnitude > factor * localRMS else { continue }
            // Silence around a click gives an infinite ratio; report it against a tiny floor.
            let strength = 20 * log10(magnitude / max(localRMS, 1e-12))
            if let lastDetection, index - lastDetection < mergeDistance, let last = events.last {
                if strength > last.strengthDB {
                    events[events.count - 1] = GlitchEvent(sampleIndex: index, strengthDB: strength)
                }
            } else {
                events.append(GlitchEvent(sampleIndex: index, strengthDB: strength))
            }
            lastDetection = index
        }
        return events
    }

    /// Dropouts to digital silence inside active audio, as sample ranges.
    public func gaps(in signal: [Float]) -> [Range<Int>] {
        let minimumLength = max(1, Int((minimumGapSeconds * Double(sampleRate)).rounded()))
        let context = max(1, Int((contextSeconds * Double(sampleRate)).rounded()))
        let activeMeanSquare = pow(10, floorDBFS / 10)
        func isActive(_ range: Range<Int>) -> Bool {
            guard !range.isEmpty else { return false }
            var sum = 0.0
            for index in range { sum += Double(signal[index]) * Double(signal[index]) }
            return sum / Double(range.count) >= activeMeanSquare
        }
        var gaps: [Range<Int>] = []
        var index = 0
        while index < signal.count {
            guard abs(signal[index]) < silenceAmplitude else { index += 1; continue }
            let start = index
            while index < signal.count && abs(signal[index]) < silenceAmplitude { index += 1 }
            let run = start..<index
            guard run.count >= minimumLength, start > 0, index < signal.count else { continue }
            if isActive(max(0, start - context)..<start) && isActive(index..<min(signal.count, index + context)) {
                gaps.append(run)
            }
        }
        return gaps
    }
}
