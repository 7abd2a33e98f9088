import AudioCore

extension DelayEstimator {
    /// Whether the echo in `mic` leads `reference` by up to `maxLag` — a loopback recorded late —
    /// asked only where the block search found no delay at all (`Peak.none`).
    ///
    /// The block search cannot see such an echo once it leads by more than about a block (341 ms
    /// at 48 kHz): each reference block is correlated with the mic window that starts at the same
    /// sample, so the echo of a block that played before the window holds nothing of it, and no
    /// negative lag peaks. A loopback 0.1–0.3 s late was said to lie outside the search; 0.35–0.5 s
    /// late read "no lag stands out", and the tap-free gate then fitted nothing and scored the
    /// echo's frames as single talk (ERL 17.2 dB at 0.4 s where it is 9.6 dB).
    ///
    /// The whole-signal GCC-PHAT of `ProcessedLag` sees every lag to ±2·maxLag with the signals'
    /// full overlap. The echo leads when its highest peak lies at a negative lag within the
    /// search's reach (beyond the same millisecond `peak` leaves out at the edge), stands out of
    /// the correlation as a canceller's lag must (`ProcessedLag.minimumPeakRatio`), and is
    /// `outsideMargin` higher than any lag in 0…maxLag, as `peak` asks of a lag outside the search.
    /// Under `ProcessedLag.minimumSamples` (a second) nothing is judged: a short clip's whitened
    /// correlation peaks by chance. It runs once per estimate, and only where there is no delay,
    /// so an ordinary call neither pays for it nor changes.
    func echoLeads(reference: [Float], mic: [Float]) -> Bool {
        guard maxLag > 0, let peaks = ProcessedLag.correlationPeaks(reference, mic, maximumLag: maxLag) else { return false }
        let edge = millisecondLags
        let (lag, ratio) = peaks.overall
        return lag <= -edge && lag >= -maxLag && ratio >= ProcessedLag.minimumPeakRatio
            && Double(ratio) >= Self.outsideMargin * Double(max(0, peaks.inRange.ratio))
    }
}

/// Whether a recording's echo comes before its loopback, for a command that runs a canceller on
/// it without measuring it (`process`): no canceller removes an echo that leads its reference,
/// and `process` ran one on a loopback recorded late without a word.
public enum LeadingEcho {
    /// Whether the echo in `mic` leads `reference` within the delay search (a loopback recorded
    /// late, or the two files swapped), read from their first minute. False where the files'
    /// rates differ (nothing is judged) or the echo lies where it should.
    public static func inFiles(mic: String, reference: String, channel: ChannelSelection = .monoOnly) throws -> Bool {
        guard (try? EchoAnalyzer.checkHeaders([mic, reference])) != nil else { return false }
        let (rate, files) = try ProcessedLag.firstMinute(of: [mic, reference], channel: channel)
        return DelayEstimator(sampleRate: rate, configuration: EchoMetricsConfiguration()).echoLeads(reference: files[1], mic: files[0])
    }
}
