import AudioCore
import Foundation
import Metrics

/// Recorded WAV files to score, by what each holds: what the loudspeaker played, what the mic
/// captured, the canceller's output, and where they are known the echo and the near talker alone
/// at the mic (a simulation's taps).
public struct RecordedFiles: Sendable, Equatable {
    public var reference: String
    public var mic: String
    public var processed: String
    public var echo: String?
    public var nearEnd: String?
    /// Which channel of a multichannel file is scored (`.monoOnly`: every file must be mono).
    public var channel: ChannelSelection

    public init(reference: String, mic: String, processed: String, echo: String? = nil, nearEnd: String? = nil,
                channel: ChannelSelection = .monoOnly) {
        self.reference = reference
        self.mic = mic
        self.processed = processed
        self.echo = echo
        self.nearEnd = nearEnd
        self.channel = channel
    }

    /// Every file, in the order their problems are reported.
    public var paths: [String] { [reference, mic, processed] + [echo, nearEnd].compactMap { $0 } }
}

extension RecordingMetrics {
    /// Something found while measuring that the figures alone do not say: how the output was
    /// aligned, or a warning that a figure may not be the recording's (`echolab metrics` prints
    /// each on stderr as it is found).
    public struct Notice: Sendable, Equatable, CustomStringConvertible {
        public var isWarning: Bool
        public var text: String

        public init(isWarning: Bool, text: String) {
            self.isWarning = isWarning
            self.text = text
        }

        public var description: String { isWarning ? "warning: \(text)" : text }

        static func warning(_ text: String) -> Notice { Notice(isWarning: true, text: text) }
    }

    /// Thrown by `measure` for a `processedLagMilliseconds` outside 0–500 ms (or not a number).
    public struct LagOutOfRange: DescribedError {
        public var milliseconds: Double
        public var description: String {
            "processed lag \(milliseconds) ms: must be a number from 0 to \(Int(ProcessedLag.maximumMilliseconds)) ms"
        }
    }

    /// Thrown by `measure` when its cancellation asked: nothing was measured.
    public struct Cancelled: DescribedError {
        /// The scorers were running (they take minutes where the analysis takes seconds).
        public var whileScoring: Bool
        public init(whileScoring: Bool) { self.whileScoring = whileScoring }
        public var description: String { whileScoring ? "interrupted while scoring" : "interrupted" }
    }

    /// The files' metrics as `echolab metrics` reports them: the processed file aligned with the
    /// mic (by `processedLagMilliseconds`, or its lag estimated from the two files), the echo
    /// metrics, why those that are null are, and each scorer's scores (`scorers`, each started
    /// here and stopped before this returns).
    ///
    /// `notify` gets each `Notice` as it is found, before the figures are done. Every file's
    /// header is checked before anything is read, so a bad file is named the same whatever is
    /// measured. Throws `LagOutOfRange` for a given lag outside 0–500 ms, `Cancelled` where
    /// `cancellation` asked, `ProcessedLag.OutOfRange` for an estimated lag clearly outside
    /// 0–500 ms, and the file's error (`AudioIOError`, `MetricsError`) for one that cannot be read.
    public static func measure(_ files: RecordedFiles, processedLagMilliseconds: Double? = nil,
                               scorers: [ScorerSpec] = [], scorerTimeout: Double = ScorerProcess.defaultTimeout,
                               cancellation: RunCancellation? = nil,
                               notify: (Notice) -> Void = { _ in }) throws -> RecordingMetrics {
        if let lag = processedLagMilliseconds, !ProcessedLag.isPossible(milliseconds: lag) {
            throw LagOutOfRange(milliseconds: lag)
        }
        func stopIfCancelled() throws(Cancelled) {
            if cancellation?.isCancelled == true { throw Cancelled(whileScoring: false) }
        }
        let lag = try processedLag(of: files, given: processedLagMilliseconds, notify: notify)
        try stopIfCancelled()
        for notice in tracksOffTheMic(files) { notify(notice) }
        var analyzer = EchoAnalyzer()
        if let cancellation { analyzer.isCancelled = { cancellation.isCancelled } }
        let analysis: EchoAnalysis
        do {
            analysis = try analyzer.analyzeFiles(reference: files.reference, mic: files.mic, processed: files.processed,
                                                 echo: files.echo, nearEnd: files.nearEnd, channel: files.channel, processedLag: lag.samples)
        } catch is AnalysisCancelled {
            throw Cancelled(whileScoring: false)
        }
        try stopIfCancelled()
        for notice in notices(of: analysis, files: files) { notify(notice) }
        var result = RecordingMetrics(analysis: analysis, processedLag: lag)
        if !scorers.isEmpty {
            let tracks = FileTracks(sampleRate: analysis.sampleRate, length: analysis.sampleCount, reference: files.reference, mic: files.mic,
                                    output: files.processed, outputLag: lag.samples, nearEnd: files.nearEnd, echo: files.echo,
                                    channel: files.channel)
            let processes = scorers.map { ScorerProcess(spec: $0, timeout: scorerTimeout) }
            defer { for process in processes { process.stop() } }
            result.scores = RunScoring.score(tracks, talk: analysis.talkRuns, frameSize: analysis.frameSize,
                                             id: URL(fileURLWithPath: files.processed).lastPathComponent, scorers: processes,
                                             cancellation: cancellation)
            if cancellation?.isCancelled == true { throw Cancelled(whileScoring: true) }
        }
        return result
    }

    /// The processed file's lag: given, or estimated (said when it is not 0, warned of when it
    /// cannot be told).
    private static func processedLag(of files: RecordedFiles, given milliseconds: Double?, notify: (Notice) -> Void) throws -> ProcessedLag {
        // Every file checked first, in the order the scoring checks them: an error names the
        // same file whether or not a lag is estimated.
        let (rate, _) = try EchoAnalyzer.checkHeaders(files.paths, channel: files.channel)   // a multichannel file needs a channel
        if let milliseconds {
            let given = ProcessedLag(samples: Int((milliseconds / 1000 * Double(rate)).rounded()), sampleRate: rate, source: .given)
            // A lag given by hand is taken as given, but one the files clearly contradict is said:
            // a wrong one reads the talker as cut, or leaves echo unaligned, with no other sign.
            if let estimate = try? ProcessedLag.estimate(mic: files.mic, processed: files.processed, channel: files.channel),
               estimate.source == .estimated, abs(estimate.samples - given.samples) > max(2, rate / 1000) {
                notify(.warning("\(files.processed) lags the mic by \(String(format: "%.1f", estimate.milliseconds)) ms by the files' own estimate, "
                                + "not the \(String(format: "%.1f", given.milliseconds)) ms given (--processed-lag-ms): scored as given"))
            }
            return given
        }
        let lag = try ProcessedLag.estimate(mic: files.mic, processed: files.processed, channel: files.channel)
        switch lag.source {
        case .estimated where lag.samples > 0:
            notify(Notice(isWarning: false, text: "\(files.processed) lags the mic by \(String(format: "%.1f", lag.milliseconds)) ms (\(lag.samples) samples): aligned before scoring"))
        case .notFound:
            let why = lag.filesAreTooShort ? "the files are under a second"
                : lag.outputIsSilent ? "it is digital silence over its first minute, all the estimate reads"
                : "it shares too little with it"
            notify(.warning("cannot tell how far \(files.processed) lags the mic (\(why)); scored unshifted (give --processed-lag-ms)"))
        default:
            break
        }
        return lag
    }

    /// The echo and near-end tracks are the mic's parts sample for sample: one that leads or lags
    /// it (a run's taps through a device mic the app forwards as its custom mic: mic.wav lags
    /// echo.wav and near.wav by the app's latency) puts the talker in frames scored as far-end
    /// single talk, and the figures read from it are not the recording's. Said, not corrected.
    private static func tracksOffTheMic(_ files: RecordedFiles) -> [Notice] {
        [("echo track", files.echo), ("near-end track", files.nearEnd)].compactMap { role, path in
            guard let path else { return nil }
            let milliseconds: Double
            do {
                let lag = try ProcessedLag.estimate(mic: files.mic, processed: path, channel: files.channel)
                guard lag.source == .estimated, lag.samples != 0 else { return nil }
                milliseconds = lag.milliseconds
            } catch let outside as ProcessedLag.OutOfRange {
                milliseconds = outside.milliseconds
            } catch {
                return nil   // the scoring reads the file again and names its problem
            }
            let amount = String(format: "%.1f", abs(milliseconds))
            return .warning("the \(role) \(path) \(milliseconds < 0 ? "leads" : "lags") the mic by \(amount) ms; "
                            + "the tracks must line up with the mic sample for sample, so its figures are not the recording's "
                            + "(a run's echo.wav and near.wav are the room at the device mic: through a forwarded custom mic, mic.wav lags them)")
        }
    }

    /// What the analysis found that may make a figure not the recording's: an echo outside the
    /// delay search, a tonal far end, clipped or silent inputs, figures that read as swapped
    /// roles, files of different lengths.
    private static func notices(of analysis: EchoAnalysis, files: RecordedFiles) -> [Notice] {
        var notices: [Notice] = []
        if let range = analysis.whole.echoOutsideDelaySearchMilliseconds {
            let scored = files.echo == nil && files.nearEnd == nil ? "no frame scored (the echo path cannot be fitted)" : "frames scored unaligned"
            notices.append(.warning("the echo in \(files.mic) is not within 0–\(Int(range)) ms of \(files.reference): it leads it (a loopback recorded late, or --reference and --mic swapped?) or lags it by more; delay_ms null, and \(scored)"))
        }
        if analysis.whole.delayUnmeasured == .tonalFarEnd {
            notices.append(.warning("the far end in \(files.reference) is tonal (a tone or held chord: most of its power in a few frequencies), so its delay repeats at every period and cannot be told; delay_ms null, and frames scored unaligned"))
        }
        let inputWarnings = analysis.inputs?.warnings(mic: files.mic, reference: files.reference, processed: files.processed,
                                                      echo: files.echo ?? "the echo track", nearEnd: files.nearEnd ?? "the near-end track") ?? []
        notices += inputWarnings.map(Notice.warning)
        notices += implausibleFigureWarnings(analysis.whole, reference: files.reference, mic: files.mic, processed: files.processed,
                                             echo: files.echo, nearEnd: files.nearEnd,
                                             outputOverMicWhereEchoUnderNoiseDB: analysis.outputOverMicWhereEchoUnderNoiseDB).map(Notice.warning)
        if let mismatch = analysis.lengthMismatch {
            // Named by role too: one file may be given as two (a mic scored as its own output).
            let roles = ["reference", "mic", "processed"] + (files.echo == nil ? [] : ["echo"]) + (files.nearEnd == nil ? [] : ["near end"])
            let lengths = zip(roles, mismatch.files).map { "\($0) \($1.file) \($1.samples)" }.joined(separator: ", ")
            notices.append(.warning("inputs differ in length (\(lengths) samples); scored the first \(mismatch.analysedSamples) samples only"))
        }
        return notices
    }
}
