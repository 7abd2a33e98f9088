import Foundation
import AudioCore
import AudioInterop

/// Scores echo cancellation from recorded or simulated buffers or WAV files.
///
/// Method (each step is documented where it is implemented):
/// 1. The analysed length is the shortest common length of the inputs.
/// 2. Bulk delay reference→mic by GCC-PHAT (`delay_ms`).
/// 3. Welch frames (Hann, 21.3 ms, 50 % overlap) are classified: far end active when the
///    delay-aligned reference frame is ≥ −50 dBFS; near end silent from the near-end track, else
///    from mic − echo, else assumed (`gate.method = "far_end_only"`). Single talk = both.
/// 4. Only single-talk frames are transformed: one power spectrum per signal and frame, reduced
///    at once to whole-band and octave-band powers in flat tables.
/// 5. ERL, ERLE, steady state, series, bands and convergence are sums over rows of those tables,
///    for the whole file and for each requested segment.
/// Same input, same output, bit for bit: the frame measurements and the delay blocks run in
/// parallel parts, but every value is computed in a fixed order and parts are combined in a
/// fixed order, whatever the core count or scheduling.
public struct EchoAnalyzer: Sendable {
    public var configuration: EchoMetricsConfiguration

    public init(configuration: EchoMetricsConfiguration = .default) {
        self.configuration = configuration
    }

    /// Analyses `signals`; `segments` are sample ranges (e.g. the parts of a timeline scenario)
    /// that get their own ERL/ERLE/steady/convergence, relative to each segment's start.
    public func analyze(_ signals: EchoSignals, segments: [Range<Int>] = []) -> EchoAnalysis {
        let length = max(0, signals.commonLength)
        let sampleRate = max(1, signals.sampleRate)
        let frames = WelchFrames(length: length, frameSize: configuration.frameSize(forSampleRate: sampleRate))

        let delay = DelayEstimator(sampleRate: sampleRate, configuration: configuration)
            .delaySamples(reference: signals.reference, mic: signals.mic, length: length)
        // The reference is shifted by whole samples; the fraction only matters for reporting.
        let shift = min(length, Int((delay ?? 0).rounded()))

        let gate = ActivityGate(signals: signals, frames: frames, referenceShift: shift, configuration: configuration)
        let ledger = Self.measureSingleTalk(signals, frames: frames, gate: gate, referenceShift: shift,
                                            sampleRate: sampleRate, threads: configuration.threadCount)

        let summary = ledger.summary(in: 0..<length,
                                     stepSamples: configuration.seriesStepSamples(forSampleRate: sampleRate),
                                     toleranceDB: configuration.convergenceToleranceDB)
        let whole = EchoMetrics(erlDB: summary.erlDB, erleDB: summary.erleDB, erleSteadyDB: summary.erleSteadyDB,
                                convergenceSeconds: summary.convergenceSeconds,
                                delayMilliseconds: delay.map { $0 * 1000 / Double(sampleRate) },
                                erleSeries: summary.series, erleBands: ledger.bandERLE(),
                                gate: gate.summary())
        return EchoAnalysis(whole: whole, segmentRanges: segments, sampleCount: length, ledger: ledger,
                            configuration: configuration)
    }

    /// Reads the files (mono, native rate; all must share the reference's rate) and analyses them.
    /// Throws `MetricsError` naming the offending file.
    public func analyzeFiles(reference: String, mic: String, processed: String, echo: String? = nil,
                             nearEnd: String? = nil, segments: [Range<Int>] = []) throws -> EchoAnalysis {
        // Rates are checked on the headers first, so a mismatch fails before any audio is read.
        let referenceRate = try Self.sampleRate(of: reference)
        for path in [mic, processed, echo, nearEnd].compactMap({ $0 }) {
            let rate = try Self.sampleRate(of: path)
            guard rate == referenceRate else {
                throw MetricsError.sampleRateMismatch(path: path, sampleRate: rate,
                                                      referencePath: reference, referenceRate: referenceRate)
            }
        }
        let referenceAudio = try Self.read(reference)
        func readMatching(_ path: String) throws -> [Float] { try Self.read(path).samples }
        let signals = EchoSignals(sampleRate: referenceAudio.sampleRate,
                                  reference: referenceAudio.samples,
                                  mic: try readMatching(mic),
                                  processed: try readMatching(processed),
                                  echo: try echo.map(readMatching),
                                  nearEnd: try nearEnd.map(readMatching))
        return analyze(signals, segments: segments)
    }

    private static func sampleRate(of path: String) throws -> Int {
        try withFileErrors(path) { try SoundFileReader(path: path).sampleRate }
    }

    private static func read(_ path: String) throws -> (samples: [Float], sampleRate: Int) {
        try withFileErrors(path) { try AudioFileStream.readAll(path: path) }
    }

    /// Runs `body`, turning any error into `MetricsError.unreadableFile` naming `path`.
    private static func withFileErrors<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as AudioIOError {
            // AudioIOError descriptions already start with the path; keep the rest only.
            var reason = error.description
            if reason.hasPrefix(path + ": ") { reason.removeFirst(path.count + 2) }
            throw MetricsError.unreadableFile(path: path, reason: reason)
        } catch {
            throw MetricsError.unreadableFile(path: path, reason: "\(error)")
        }
    }

    /// Transforms the single-talk frames only (the others never enter a metric) and stores their
    /// band powers. Without an echo track the echo at the mic is the mic, measured once. Rows are
    /// independent, so they are measured in parallel parts (one FFT per part and thread); a row's
    /// values do not depend on the part it fell in.
    private static func measureSingleTalk(_ signals: EchoSignals, frames: WelchFrames, gate: ActivityGate,
                                          referenceShift: Int, sampleRate: Int, threads: Int) -> FrameLedger {
        let singleTalk = gate.singleTalk
        let indices = singleTalk.indices.filter { singleTalk[$0] }
        let partCount = max(1, min(threads, indices.count / 256))
        let parts = ParallelParts.map(count: partCount, threads: threads) { part in
            measure(signals, frames: frames, frameIndices: indices,
                    rows: ParallelParts.ranges(of: indices.count, count: partCount)[part],
                    referenceShift: referenceShift, sampleRate: sampleRate)
        }
        var ledger = FrameLedger(sampleRate: sampleRate, frames: frames,
                                 bands: OctaveBands.layout(frameSize: frames.frameSize, sampleRate: sampleRate))
        ledger.frameIndices = indices
        ledger.reference = parts.flatMap(\.reference)
        ledger.mic = parts.flatMap(\.mic)
        ledger.processed = parts.flatMap(\.processed)
        ledger.echo = signals.echo == nil ? ledger.mic : parts.flatMap(\.echo)
        return ledger
    }

    private struct MeasuredRows: Sendable {
        var reference: [Double], echo: [Double], mic: [Double], processed: [Double]
    }

    private static func measure(_ signals: EchoSignals, frames: WelchFrames, frameIndices: [Int], rows: Range<Int>,
                                referenceShift: Int, sampleRate: Int) -> MeasuredRows {
        let meter = FrameBandMeter(frameSize: frames.frameSize, sampleRate: sampleRate)
        let size = rows.count * meter.columns
        var measured = MeasuredRows(reference: [Double](repeating: 0, count: size), echo: [],
                                    mic: [Double](repeating: 0, count: size),
                                    processed: [Double](repeating: 0, count: size))
        if signals.echo != nil { measured.echo = [Double](repeating: 0, count: size) }
        let processedIsMic = signals.processed == signals.mic
        for (row, frame) in frameIndices[rows].enumerated() {
            let start = frames.start(of: frame)
            meter.measure(signals.reference, start: start, shift: referenceShift, into: &measured.reference, row: row)
            meter.measure(signals.mic, start: start, into: &measured.mic, row: row)
            if processedIsMic {
                // No canceller ran (AEC disabled): same samples, same spectrum; copy the row.
                for column in 0..<meter.columns { measured.processed[row * meter.columns + column] = measured.mic[row * meter.columns + column] }
            } else {
                meter.measure(signals.processed, start: start, into: &measured.processed, row: row)
            }
            if let echo = signals.echo {
                meter.measure(echo, start: start, into: &measured.echo, row: row)
            }
        }
        return measured
    }
}
