import AudioCore
import AudioInterop

extension DelayEstimator {
    /// Whether the echo in `mic` leads `reference` by up to `maxLag` — a loopback recorded late —
    /// asked only where the block search found no delay at all (`Peak.none`).
    ///
    /// The block search cannot see such an echo once it leads by more than about a block (341 ms
    /// at 48 kHz): each reference block is correlated with the mic window that starts at the same
    /// sample, so the echo of a block that played before the window holds nothing of it, and no
    /// negative lag peaks. A loopback 0.1–0.3 s late is said to lie outside the search; 0.35–0.5 s
    /// late reads "no lag stands out", and the tap-free gate then fits nothing and scores the
    /// echo's frames as single talk (ERL 17.2 dB at 0.4 s where it is 9.6 dB).
    ///
    /// The whole-signal GCC-PHAT of `ProcessedLag` sees every lag to ±2·maxLag with the signals'
    /// full overlap. The echo leads when its highest peak lies at a negative lag within the
    /// search's reach (beyond the same millisecond `peak` leaves out at the edge), stands out of
    /// the correlation as a canceller's lag must (`ProcessedLag.minimumPeakRatio`), and is
    /// `outsideMargin` higher than any lag in 0…maxLag, as `peak` asks of a lag outside the search,
    /// and when the reference at that lag explains more of the mic than chance does
    /// (`LinearShare`): a whitened peak is a shared phase, not yet an echo.
    /// Under `ProcessedLag.minimumSamples` (a second) nothing is judged: a short clip's whitened
    /// correlation peaks by chance. It runs once per estimate, and only where there is no delay,
    /// so an ordinary call neither pays for it nor changes.
    ///
    /// `unlessInRange`: also false where a lag in 0…maxLag stands out on its own (asked without
    /// the block search first, as `LeadingEcho` asks it, that is the block search's "a delay").
    func echoLeads(reference: [Float], mic: [Float], unlessInRange: Bool = false) -> Bool {
        guard maxLag > 0, let peaks = ProcessedLag.correlationPeaks(reference, mic, maximumLag: maxLag) else { return false }
        if unlessInRange, peaks.inRange.ratio >= ProcessedLag.minimumPeakRatio { return false }
        let edge = millisecondLags
        let (lag, ratio) = peaks.overall
        return lag <= -edge && lag >= -maxLag && ratio >= ProcessedLag.minimumPeakRatio
            && Double(ratio) >= Self.outsideMargin * Double(max(0, peaks.inRange.ratio))
            && LinearShare.isAnEcho(x: reference, y: mic, lag: lag, sampleRate: sampleRate)
    }
}

/// Whether a recording's echo comes before its loopback, for a command that runs a canceller on
/// it without measuring it (`process`): no canceller removes an echo that leads its reference,
/// and without this check `process` runs one on a loopback recorded late without a word.
public enum LeadingEcho {
    /// Whether the echo in `mic` leads `reference` within the delay search (a loopback recorded
    /// late, or the two files swapped), read from their first minute at the mic's rate (a loopback
    /// of another rate or length is read as `process` reads it). Asked as the delay search asks
    /// it, only where no echo stands out within 0…500 ms: a loopback that also carries the near
    /// talker back (a far end without a canceller) peaks before the mic too, beside its echo.
    public static func isFound(inMicFile mic: String, referenceFile reference: String, channel: ChannelSelection = .monoOnly) throws -> Bool {
        let rate = try SoundFileReader(path: mic).sampleRate
        let frames = ProcessedLag.maximumSeconds * rate
        let micSamples = try ProcessedLag.firstMinute(of: mic, at: rate, frames: frames, channel: channel)
        let referenceSamples = try ProcessedLag.firstMinute(of: reference, at: rate, frames: frames, channel: channel)
        // The correlation reads the two over their common length.
        return DelayEstimator(sampleRate: rate, configuration: EchoMetricsConfiguration())
            .echoLeads(reference: referenceSamples, mic: micSamples, unlessInRange: true)
    }
}
