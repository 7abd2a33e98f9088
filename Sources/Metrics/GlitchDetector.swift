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

    /// The report without the gaps that meet one of `stretches` (in time order): silence the
    /// pipeline sent on purpose — a mute, the audio unit stopped — is no dropout, however loud
    /// the audio around it.
    public func leavingOut(gapsMeeting stretches: [Range<Int>]) -> GlitchReport {
        guard !stretches.isEmpty else { return self }
        var first = 0
        let kept = gaps.filter { gap in
            while first < stretches.count && stretches[first].upperBound < gap.lowerBound { first += 1 }
            return !(first < stretches.count && stretches[first].lowerBound <= gap.upperBound)
        }
        return GlitchReport(events: events, gaps: kept)
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

    /// The shortest gap, in samples (at least one).
    var minimumGapSamples: Int { max(1, Int((minimumGapSeconds * Double(sampleRate)).rounded())) }
    /// The click and gap context, in samples (at least one).
    public var contextSamples: Int { max(1, Int((contextSeconds * Double(sampleRate)).rounded())) }

    /// Clicks and gaps of `signal` (through a `GlitchStream`, so both give the same result).
    public func analyze(_ signal: [Float]) -> GlitchReport {
        let stream = GlitchStream(detector: self)
        var offset = 0
        while offset < signal.count {
            let count = min(4096, signal.count - offset)
            stream.append(signal, from: offset, count: count)
            offset += count
        }
        return stream.finish()
    }

    /// Click events of `signal` in time order.
    public func clicks(in signal: [Float]) -> [GlitchEvent] {
        analyze(signal).events
    }

    /// Dropouts to digital silence inside active audio, as sample ranges.
    public func gaps(in signal: [Float]) -> [Range<Int>] {
        analyze(signal).gaps
    }
}
