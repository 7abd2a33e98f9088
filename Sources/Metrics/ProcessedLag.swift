import AudioCore
import AudioInterop
import Foundation

/// How far a canceller's output lags its input. Every real canceller has latency (speexdsp's
/// preprocessor a frame, WebRTC's AEC about 8 ms, AEC3 about 9 ms), and an output scored against
/// the mic without taking it out misreads the near talker — a speex run's own sent.wav, one
/// frame late, reads its near-end attenuation only as a bound (≥ 0.8 dB) where its report reads
/// 3.0 —: `metrics` estimates the lag and aligns the output before scoring.
///
/// The estimate is the generalised cross-correlation with phase transform (GCC-PHAT) of mic and
/// output over their first minute: what the canceller passes (the near talker, the residual) is
/// the mic delayed, so the whitened cross-spectrum peaks at the lag whatever the spectra are —
/// unless most bins hold something else. Whitening weighs every bin alike, and a residual spread
/// over the band outvotes a talker held in a few (a tone, a hum): where the mic explains at least
/// half of the output at the plain correlation's peak and under half of that at the whitened
/// peak, the plain peak's lag is taken.
public struct ProcessedLag: Sendable, Equatable {
    /// The lag taken out, in samples at the files' rate (0 when none was found or estimated).
    public var samples: Int
    /// The files' sample rate.
    public var sampleRate: Int
    public var source: Source
    /// Whether no lag was estimated because the files are under `minimumSamples` (a second):
    /// `notFound` for that reason, not for a correlation that found nothing.
    public var filesAreTooShort: Bool
    /// Whether no lag was estimated because the output is digital silence over what the estimate
    /// reads (its first minute): nothing to align, said so rather than "shares too little".
    public var outputIsSilent = false

    /// Where the lag comes from.
    public enum Source: String, Sendable {
        /// Estimated from the files.
        case estimated
        /// Given by the user (`--processed-lag-ms`).
        case given
        /// The output shares too little with the mic to tell (silent, or unrelated): scored
        /// unshifted.
        case notFound = "not_found"
    }

    public init(samples: Int, sampleRate: Int, source: Source, filesAreTooShort: Bool = false) {
        self.samples = samples
        self.sampleRate = sampleRate
        self.source = source
        self.filesAreTooShort = filesAreTooShort
    }

    /// The first `maximumSeconds` of each file (files at one rate, as `EchoAnalyzer` checks them;
    /// a multichannel one through `channel`), cut to the shortest: what the whole-signal
    /// correlations read.
    static func firstMinute(of paths: [String], channel: ChannelSelection) throws -> (rate: Int, samples: [[Float]]) {
        let (rate, headers) = try EchoAnalyzer.checkHeaders(paths)
        let limit = min(headers.map(\.frames).min() ?? 0, maximumSeconds * rate)
        return (rate, try paths.map { try firstMinute(of: $0, at: rate, frames: limit, channel: channel) })
    }

    /// Up to `frames` of the file at `rate` (resampled if it has another), a mono file as mono
    /// whatever `channel` selects, as the commands read it.
    static func firstMinute(of path: String, at rate: Int, frames: Int, channel: ChannelSelection) throws -> [Float] {
        let channels = try SoundFileReader(path: path).channelCount
        let stream = try AudioFileStream(path: path, targetRate: rate, selection: channels == 1 ? .monoOnly : channel)
        var samples = [Float](repeating: 0, count: frames)
        let got = try stream.read(into: &samples, frames: frames)
        return Array(samples.prefix(got))
    }

    /// The lag in milliseconds.
    public var milliseconds: Double { Double(samples) * 1000 / Double(sampleRate) }

    /// The largest latency taken for a canceller's (a lag beyond it is an error, not aligned).
    public static let maximumMilliseconds = 500.0

    /// Whether a lag given by hand can be one: a number from 0 to `maximumMilliseconds`.
    public static func isPossible(milliseconds: Double) -> Bool { milliseconds.isFinite && (0...maximumMilliseconds).contains(milliseconds) }
    /// How much of the files the estimate reads.
    static let maximumSeconds = 60
    /// The correlation peak must stand this far above the correlation's mean magnitude.
    static let minimumPeakRatio: Float = 8
    /// A peak outside 0…500 ms must stand this far above every lag more than a millisecond from
    /// it to be called the output's lag (an error) rather than nothing found.
    static let outOfRangeMargin: Float = 3
    /// A peak within 0…500 ms taken beside a taller one elsewhere must stand this far above
    /// every lag away from both: speech's rhythm peaks at many lags about as high (an espeak-ng
    /// recording 1.2 s late peaked at 269 ms, 48.3 times the mean, beside others at 48.4).
    static let inRangeMargin: Float = 1.5
    /// The output is the mic delayed by another lag, where the mic explains at least this share
    /// of it there (a correlation coefficient) …
    static let energeticCoefficient = 0.5
    /// … and at most half as much at the whitened peak's lag: whitening weighs every bin alike,
    /// so a residual spread over the band outvotes a near talker held in a few bins (a tone, a
    /// hum, a narrowband voice).
    static let energeticMargin = 0.5

    /// The shortest files a lag is estimated on: twice the longest lag (a second).
    static func minimumSamples(maximumLag: Int) -> Int { 2 * maximumLag }

    /// A lag outside 0…`maximumMilliseconds`: the output leads the mic, or trails it by more than
    /// any canceller's latency — a file of another take, or one cut differently.
    public struct OutOfRange: DescribedError, Equatable {
        public let path: String
        public let milliseconds: Double
        public var description: String {
            let amount = String(format: "%.1f", abs(milliseconds))
            let what = milliseconds < 0 ? "leads the mic by \(amount) ms" : "lags the mic by \(amount) ms"
            return "\(path): \(what), outside the 0–\(Int(maximumMilliseconds)) ms a canceller's latency takes; "
                + "align it with the mic first, or give --processed-lag-ms"
        }
    }

    /// Estimates the lag of `processed` behind `mic` (files at one rate, as `EchoAnalyzer`
    /// checks them). Throws `OutOfRange` for a clear lag outside 0…500 ms (the search reaches
    /// 1 s either way; beyond it nothing is found and the output is scored unshifted).
    public static func estimate(mic: String, processed: String, channel: ChannelSelection = .monoOnly) throws -> ProcessedLag {
        let (rate, files) = try firstMinute(of: [mic, processed], channel: channel)
        let micSamples = files[0], processedSamples = files[1]
        let maximumLag = Int(maximumMilliseconds / 1000 * Double(rate))
        if !processedSamples.isEmpty, !processedSamples.contains(where: { $0 != 0 }) {
            var silent = ProcessedLag(samples: 0, sampleRate: rate, source: .notFound)
            silent.outputIsSilent = true
            return silent
        }
        guard let peaks = correlationPeaks(micSamples, processedSamples, maximumLag: maximumLag) else {
            let short = min(micSamples.count, processedSamples.count) < minimumSamples(maximumLag: maximumLag)
            return ProcessedLag(samples: 0, sampleRate: rate, source: .notFound, filesAreTooShort: short)
        }
        // A canceller's output cannot lead its input. Where the peak in 0…500 ms stands out on its
        // own and is at least half the tallest, the output is taken to lag by it: an output of
        // residual echo alone (an echo-only mic) correlates with the mic through what the
        // canceller left, no clean delay, so its tallest peak may fall a sample early, or far
        // away by chance, beside an in-range one nearly as tall. A file that really leads, or
        // was cut from another take, peaks where it lies and nowhere near as high in range.
        let inRangeStandsOut = peaks.inRange.ratio >= max(minimumPeakRatio, 0.5 * peaks.overall.ratio, inRangeMargin * peaks.otherwise)
        let (lag, ratio) = inRangeStandsOut ? peaks.inRange : peaks.overall
        guard ratio >= minimumPeakRatio else {
            return ProcessedLag(samples: 0, sampleRate: rate, source: .notFound)
        }
        if peaks.energetic != lag {
            // The whitened peak must carry the output's power too. A plugin's output whose
            // residual echo was the far end 34 ms later than the mic's echo, beside a 300 Hz near
            // talker, peaked whitened at 34 ms, where the mic explained 0.29 of it; at 0 it
            // explained 0.88, and scored 34 ms late the talker read 10.4 dB cut, not 0.5 dB louder.
            let atPeak = abs(coefficient(micSamples, processedSamples, lag: lag))
            let atEnergetic = abs(coefficient(micSamples, processedSamples, lag: peaks.energetic))
            if atEnergetic >= energeticCoefficient, atPeak < energeticMargin * atEnergetic {
                return ProcessedLag(samples: peaks.energetic, sampleRate: rate, source: .estimated)
            }
        }
        guard (0...maximumLag).contains(lag) else {
            // Out of range is an error only where the peak is the signals' one lag: speech's own
            // rhythm gives lags far from any true one a tenth of a true peak's height (an espeak-ng
            // recording 1.2 s late peaked at 860 ms, 1.3 times its runner-up; a true lag stands
            // 14 to 40 times over it), and past the search's reach that is all there is.
            guard ratio >= outOfRangeMargin * peaks.runnerUp else {
                return ProcessedLag(samples: 0, sampleRate: rate, source: .notFound)
            }
            // And only where the mic at that lag explains the output's power as a delay of it
            // would: with --reference and --mic swapped, the output (a near talker) peaked by
            // chance 673 ms before the far end given as the mic, and the error sent the user to
            // re-align a file that was fine, before the swap could be seen.
            guard LinearShare.isAnEcho(x: micSamples, y: processedSamples, lag: lag, sampleRate: rate) else {
                return ProcessedLag(samples: 0, sampleRate: rate, source: .notFound)
            }
            throw OutOfRange(path: processed, milliseconds: Double(lag) * 1000 / Double(rate))
        }
        return ProcessedLag(samples: lag, sampleRate: rate, source: .estimated)
    }

    /// The lag of `y` behind `x` where their whitened cross-correlation peaks, searched over
    /// ±2·`maximumLag` (so a lag beyond the range is seen, not folded in), and where it peaks
    /// within 0…`maximumLag`, each with its height over the correlation's mean magnitude; and
    /// the tallest lag more than `runnerUpDistance` from the overall peak (`runnerUp`: how far
    /// that peak stands out of the rest), and from both peaks (`otherwise`: how far the two stand
    /// out); and `energetic`, the lag in 0…`maximumLag` where the plain (unwhitened) correlation
    /// peaks — where the output's power is the mic delayed. Nil when there is nothing to correlate.
    ///
    /// Each block fades in and out over `maximumLag / 100` samples (5 ms). Cut square, a block's
    /// edges spread its low frequencies over the whole band, and where the signals hold nothing
    /// of their own (a 22 kHz recording above 11 kHz, a 16 kHz canceller's output above 8 kHz)
    /// the whitening weighs that spread as much as any content: x's and y's blocks start on the
    /// same sample, so it peaks at lag 0. An espeak-ng recording read a 550 ms lag as 0, and AECM's
    /// sent signal (957 samples late) as 0 too.
    static func correlationPeaks(_ x: [Float], _ y: [Float], maximumLag: Int)
        -> (overall: (lag: Int, ratio: Float), inRange: (lag: Int, ratio: Float), runnerUp: Float, otherwise: Float, energetic: Int)? {
        let count = min(x.count, y.count)
        let reach = 2 * maximumLag
        // Under a second the correlation of unrelated signals peaks by chance often enough to
        // pass for a lag.
        guard count >= minimumSamples(maximumLag: maximumLag) else { return nil }
        // Blocks of `hop` samples of x and `hop + reach` of y, zero-padded to `size` ≥ hop + 2·reach + 1:
        // each block's circular correlation is its linear one over ±reach, unwrapped.
        var size = 1
        while size < 2 * (reach + 1) { size *= 2 }
        size *= 2
        let hop = size - 2 * reach - 1
        guard count > 0 else { return nil }
        let fft = RealFFT(size: size)
        let bins = fft.binCount
        var sumReal = [Double](repeating: 0, count: bins), sumImaginary = [Double](repeating: 0, count: bins)
        var frameX = [Float](repeating: 0, count: size), frameY = [Float](repeating: 0, count: size)
        var xr = [Float](repeating: 0, count: bins), xi = xr, yr = xr, yi = xr
        var start = 0
        while start < count {
            let n = min(hop, count - start)
            for i in 0..<size { frameX[i] = i < n ? x[start + i] : 0 }
            // y's block reaches `reach` further, so a lag up to it finds its samples.
            let m = min(n + reach, count - start)
            for i in 0..<size { frameY[i] = i < m ? y[start + i] : 0 }
            taper(&frameX, count: n, fade: maximumLag / 100)
            taper(&frameY, count: m, fade: maximumLag / 100)
            fft.forward(frameX, real: &xr, imaginary: &xi)
            fft.forward(frameY, real: &yr, imaginary: &yi)
            for k in 0..<bins {
                // conj(X)·Y: its inverse peaks at the lag of y behind x.
                sumReal[k] += Double(xr[k] * yr[k] + xi[k] * yi[k])
                sumImaginary[k] += Double(xr[k] * yi[k] - xi[k] * yr[k])
            }
            start += hop
        }
        var real = [Float](repeating: 0, count: bins), imaginary = real
        var whitenedBins = 0
        for k in 0..<bins {
            let magnitude = (sumReal[k] * sumReal[k] + sumImaginary[k] * sumImaginary[k]).squareRoot()
            guard magnitude > 1e-20 else { continue }
            real[k] = Float(sumReal[k] / magnitude)
            imaginary[k] = Float(sumImaginary[k] / magnitude)
            whitenedBins += 1
        }
        guard whitenedBins > 0 else { return nil }
        var correlation = [Float](repeating: 0, count: size)
        fft.inverse(real: real, imaginary: imaginary, output: &correlation)
        // The plain (power-weighted) correlation, for the lag in 0…maximumLag where the output's
        // power lies: an output that is the mic delayed holds the mic's autocorrelation there,
        // whose peak is at the delay however broad (the whitened one, away from the spread
        // residual's peak, is a few bins' cosine and noise: it read 2 samples for 0).
        var plain = [Float](repeating: 0, count: size)
        fft.inverse(real: sumReal.map { Float($0) }, imaginary: sumImaginary.map { Float($0) }, output: &plain)
        // Lags −reach…reach: index τ for τ ≥ 0, size + τ for τ < 0. The peak is judged against
        // the lags where the signals overlap at all (a lag beyond a file's length holds nothing,
        // and would make any peak look tall).
        // Peaks of either sign count: an output sent upside down (a stage that inverts) peaks
        // negative at its lag, and is as late as it would be the right way up.
        let searched = min(reach, count - 1)
        var best = (lag: 0, value: -Float.infinity), bestInRange = best
        var total: Float = 0
        for lag in -searched...searched {
            let value = abs(correlation[lag >= 0 ? lag : size + lag])
            total += value
            if value > best.value { best = (lag, value) }
            if lag >= 0 && lag <= maximumLag && value > bestInRange.value { bestInRange = (lag, value) }
        }
        let mean = total / Float(2 * searched + 1)
        guard mean > 0 else { return nil }
        // The tallest lags away from the peaks: from the overall peak, and from both peaks.
        let distance = runnerUpDistance(maximumLag: maximumLag)
        var runnerUp = -Float.infinity, third = -Float.infinity
        for lag in -searched...searched where abs(lag - best.lag) > distance {
            let value = abs(correlation[lag >= 0 ? lag : size + lag])
            runnerUp = max(runnerUp, value)
            if abs(lag - bestInRange.lag) > distance { third = max(third, value) }
        }
        // (A steady tone correlates alike at every period from its lag: there the output cannot
        // tell which, and the tallest is taken as any would be.)
        let energetic = (0...min(maximumLag, searched)).max { abs(plain[$0]) < abs(plain[$1]) } ?? 0
        return ((best.lag, best.value / mean), (bestInRange.lag, bestInRange.value / mean), runnerUp / mean, third / mean, energetic)
    }

    /// How much of `y` is `x` delayed by `lag` (the correlation coefficient over their overlap; a
    /// negative lag: `y` leads).
    static func coefficient(_ x: [Float], _ y: [Float], lag: Int) -> Double {
        let start = max(0, -lag), end = min(x.count, y.count - lag)
        guard start < end else { return 0 }
        var cross = 0.0, xx = 0.0, yy = 0.0
        for i in start..<end {
            let a = Double(x[i]), b = Double(y[i + lag])
            cross += a * b
            xx += a * a
            yy += b * b
        }
        return xx > 0 && yy > 0 ? cross / (xx * yy).squareRoot() : 0
    }

    /// Lags this close to a peak are its own shoulders, not another candidate (1 ms).
    static func runnerUpDistance(maximumLag: Int) -> Int { max(1, maximumLag / 500) }

    /// Fades `frame[0..<count]` in and out over `fade` samples each way (a half cosine), or over
    /// half the block where it is shorter than two fades.
    private static func taper(_ frame: inout [Float], count: Int, fade: Int) {
        let length = min(fade, count / 2)
        for i in 0..<length {
            let gain = Float(0.5 - 0.5 * cos(Double.pi * (Double(i) + 0.5) / Double(length)))
            frame[i] *= gain
            frame[count - 1 - i] *= gain
        }
    }
}
