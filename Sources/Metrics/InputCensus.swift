import Foundation

/// What a recording's mic and loopback hold, counted while `EchoAnalyzer.analyzeFiles` reads
/// them: samples at full scale (the recording clipped: its echo is not linear, and the tap-free
/// gate takes what the fit cannot explain for a talker) and whether a file is digital silence
/// throughout (a dead mic or an empty loopback: every figure is then null, for that reason).
public struct InputCensus: Sendable, Equatable {
    /// "1 sample", "3 samples": how the clipping warnings count.
    public static func samples(_ n: Int) -> String { n == 1 ? "1 sample" : "\(n) samples" }
    /// What a clipped mic or loopback means for the figures, after the files and counts.
    public static let clippedConsequence = ": the recording clipped, so its echo is not linear and the echo metrics from it are uncertain"
    /// How a float file comes to be over full scale, and what follows for its echo.
    public static let overFullScaleCause = "(audio scaled after capture; if it was clipped before it was scaled, its echo is not linear)"
    /// One file's part of a clipping warning: "F has N samples at full scale (S)", or, for a float
    /// file that goes past 1, "at or over full scale (S, peaking at +P dBFS)", which is said apart
    /// (`isOverFullScale`): it is no converter's clip as it stands.
    public static func clippingPart(file: String, count: Int, peak: Float, share: String) -> (text: String, isOverFullScale: Bool) {
        peak > 1
            ? (String(format: "%@ has %@ at or over full scale (%@, peaking at %+.1f dBFS)", file, samples(count), share, 20 * log10(Double(peak))), true)
            : ("\(file) has \(samples(count)) at full scale (\(share))", false)
    }
    /// The share of `total` samples that `count` is, as the clipping warnings give it: a few
    /// samples in a long file read "< 0.01 %", never "0.00 %".
    public static func share(_ count: Int, of total: Double) -> String {
        let percent = 100 * Double(count) / max(total, 1)
        return count > 0 && percent < 0.005 ? "< 0.01 %" : String(format: "%.2f %%", percent)
    }

    /// |x| ≥ 32767/32768: a 16-bit converter's full scale, as `process` counts it.
    public static let fullScale: Float = 32_767 / 32_768

    public var samples = 0
    public var micFullScaleSamples = 0
    public var referenceFullScaleSamples = 0
    /// The largest |x| of each: over 1, a float file louder than any converter records or plays
    /// (scaled after capture, or synthesised), which is measured as it is rather than clipped.
    public var micPeak: Float = 0
    public var referencePeak: Float = 0
    public var micIsSilent = true
    public var referenceIsSilent = true
    /// The DC offsets taken off the mic, the loopback and the output before measuring
    /// (`DCOffset`), 0 where none.
    public var micOffset: Float = 0
    public var referenceOffset: Float = 0
    public var processedOffset: Float = 0
    /// The echo and near-end tracks' offsets; nil where the track was not given.
    public var echoOffset: Float?
    public var nearEndOffset: Float?
    /// How much faster the mic's clock ran than the loopback's, in ppm, where the tap-free gate
    /// resampled the loopback by it (`ClockDriftFeed`); nil where it did not.
    public var clockDriftPPM: Double?
    /// Where both tracks were given: the mic's power and what the tracks leave of it
    /// (Σ(mic − echo − near end)²), after the DC offsets.
    public var trackedMicPower = 0.0
    public var unexplainedMicPower = 0.0
    public var hasBothTracks = false
    /// Where the echo track was given alone: Σ mic·echo, Σ echo², Σ mic² (after the DC offsets).
    public var micEchoProduct = 0.0
    public var echoTrackPower = 0.0
    public var micPowerBesideEcho = 0.0

    public init() {}

    /// Where the echo track is given without a near-end track and clearly is the mic's echo (it
    /// explains half the mic's power or more at its best gain), how much louder than that echo
    /// it is, in dB: about 0 for the mic's own echo (a near end beside it shares nothing with it),
    /// +6 for a track at twice the gain. nil otherwise. Alone, a track at twice the gain put the
    /// talker in every frame (3 single-talk frames, ERLE ≥ 0.05 dB for a true 20) without a word:
    /// the two-track check (`tracksUnexplainedDB`) needs both.
    public var echoTrackExcessDB: Double? {
        guard !hasBothTracks, micEchoProduct != 0, echoTrackPower > 0, micPowerBesideEcho > 0,
              micEchoProduct * micEchoProduct >= 0.5 * echoTrackPower * micPowerBesideEcho else { return nil }
        return 20 * log10(echoTrackPower / abs(micEchoProduct))
    }

    /// The echo track alone holds the mic's echo upside down (it fits the mic best negated): the
    /// mic less the track then doubles the echo, and every frame reads as a talker.
    public var echoTrackIsInverted: Bool { echoTrackExcessDB != nil && micEchoProduct < 0 }

    /// Beyond this many dB either way, the echo track alone is not at the mic's level.
    public static let echoTrackExcessLimitDB = 1.0

    mutating func count(mic: [Float], echo: [Float], samples count: Int) {
        for i in 0..<count {
            let m = Double(mic[i]), e = Double(echo[i])
            micEchoProduct += m * e
            echoTrackPower += e * e
            micPowerBesideEcho += m * m
        }
    }

    /// How much of the mic the echo and near-end tracks leave unexplained, in dB of the mic's
    /// power (what the tracks miss: the room's noise where the near-end track lacks it, or a
    /// track of another gain, delay or file); nil without both tracks or with a silent mic.
    public var tracksUnexplainedDB: Double? {
        guard hasBothTracks, trackedMicPower > 0 else { return nil }
        return 10 * log10(max(unexplainedMicPower, trackedMicPower * 1e-15) / trackedMicPower)
    }

    /// Above this, the tracks are not what the mic holds: the figures read from them (ERL, ERLE,
    /// the near end) describe the tracks, not the recording.
    public static let tracksUnexplainedLimitDB = -10.0

    mutating func count(mic: [Float], echo: [Float], nearEnd: [Float], samples count: Int) {
        hasBothTracks = true
        for i in 0..<count {
            let m = Double(mic[i]), rest = m - Double(echo[i]) - Double(nearEnd[i])
            trackedMicPower += m * m
            unexplainedMicPower += rest * rest
        }
    }

    /// The corrections made to the files before they were measured, for the reports.
    public var corrections: InputCorrections {
        func dBFS(_ offset: Float) -> Double? { offset == 0 ? nil : 20 * log10(Double(abs(offset))) }
        var corrections = InputCorrections(micDCOffsetDBFS: dBFS(micOffset), loopbackDCOffsetDBFS: dBFS(referenceOffset),
                                           processedDCOffsetDBFS: dBFS(processedOffset), clockDriftPPM: clockDriftPPM)
        corrections.hasEchoTrack = echoOffset != nil
        corrections.echoDCOffsetDBFS = echoOffset.flatMap(dBFS)
        corrections.hasNearEndTrack = nearEndOffset != nil
        corrections.nearEndDCOffsetDBFS = nearEndOffset.flatMap(dBFS)
        return corrections
    }

    mutating func count(reference: [Float], mic: [Float], samples count: Int) {
        samples += count
        for i in 0..<count {
            let r = abs(reference[i]), m = abs(mic[i])
            if r >= Self.fullScale { referenceFullScaleSamples += 1 }
            if m >= Self.fullScale { micFullScaleSamples += 1 }
            referencePeak = max(referencePeak, r)
            micPeak = max(micPeak, m)
            if r != 0 { referenceIsSilent = false }
            if m != 0 { micIsSilent = false }
        }
    }

    /// Lines for stderr naming the file that clipped, holds nothing or had a DC offset taken off;
    /// none where none of these holds.
    public func warnings(mic: String, reference: String, processed: String = "the output", echo: String = "the echo track",
                         nearEnd: String = "the near-end track") -> [String] {
        func share(_ n: Int) -> String { Self.share(n, of: Double(samples)) }
        var lines: [String] = []
        var clipped: [String] = [], overFullScale: [String] = []
        for (file, count, peak) in [(mic, micFullScaleSamples, micPeak), (reference, referenceFullScaleSamples, referencePeak)] where count > 0 {
            // A float sample over 1 is no converter's clip as it stands: the file holds it and it is
            // measured as it is, though a clip scaled up after capture looks the same.
            let part = Self.clippingPart(file: file, count: count, peak: peak, share: share(count))
            if part.isOverFullScale { overFullScale.append(part.text) } else { clipped.append(part.text) }
        }
        if !clipped.isEmpty {
            lines.append(clipped.joined(separator: "; ") + Self.clippedConsequence)
        }
        if !overFullScale.isEmpty {
            lines.append(overFullScale.joined(separator: "; ") + ": louder than any converter records or plays, measured as it is " + Self.overFullScaleCause)
        }
        for (file, offset) in [(mic, corrections.micDCOffsetDBFS), (reference, corrections.loopbackDCOffsetDBFS),
                               (processed, corrections.processedDCOffsetDBFS), (echo, corrections.echoDCOffsetDBFS),
                               (nearEnd, corrections.nearEndDCOffsetDBFS)] {
            if let offset { lines.append(String(format: "%@ has a DC offset of %.1f dBFS: taken off before measuring", file, offset)) }
        }
        if let clockDriftPPM {
            lines.append(String(format: "%@ and %@ ran on two clocks (the mic's %+.1f ppm against the loopback's): the loopback was resampled to the mic's clock before telling double talk", mic, reference, clockDriftPPM))
        }
        if let unexplained = tracksUnexplainedDB, unexplained > Self.tracksUnexplainedLimitDB {
            lines.append(String(format: "%@ and %@ leave %.1f dB of %@ unexplained: they are not what the mic holds (another gain, delay or file?), and the ERL, ERLE and near-end figures read from them describe the tracks", echo, nearEnd, unexplained, mic))
        }
        let consequence = "the ERL, ERLE and near-end figures read from it describe the track, not the recording"
        if echoTrackIsInverted {
            lines.append("\(echo) holds the echo \(mic) holds upside down (it fits the mic best negated): a track of the other polarity, and \(consequence)")
        } else if let excess = echoTrackExcessDB, abs(excess) > Self.echoTrackExcessLimitDB {
            // A track a few samples off the mic fits it at a lower gain too: said as either.
            lines.append(String(format: "%@ is %@ dB %@ than the echo %@ holds (it fits the mic best scaled by %.2f): a track of another gain or delay, and %@",
                                echo, String(format: "%.1f", abs(excess)), excess > 0 ? "louder" : "quieter", mic, pow(10, -excess / 20), consequence))
        }
        if micIsSilent { lines.append("\(mic) is digital silence throughout: nothing was recorded") }
        if referenceIsSilent { lines.append("\(reference) is digital silence throughout: nothing was played, so there is no echo to measure") }
        // One file given twice (--processed the mic itself) is warned of once.
        var seen = Set<String>()
        return lines.filter { seen.insert($0).inserted }
    }
}
