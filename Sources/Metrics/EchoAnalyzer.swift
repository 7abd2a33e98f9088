import Foundation
import AudioCore
import AudioInterop

/// Scores echo cancellation from recorded or simulated buffers or WAV files, by feeding them to
/// an `EchoAnalysisStream` block by block (so a buffer and a stream of the same audio give the
/// same result, bit for bit; files lose a DC offset first, `DCOffset`).
///
/// Method (each step is documented where it is implemented):
/// 1. The analysed length is the shortest common length of the inputs; files that differ by more
///    than `lengthTolerance` (1 s or 10 %, the smaller) are refused, smaller differences are
///    reported in `EchoAnalysis.lengthMismatch`.
/// 2. Bulk delay reference→mic by GCC-PHAT (`delay_ms`), from the first 32 far-end-active
///    blocks of the call (`DelayEstimator`, `DelayBlockCollector`).
/// 3. Files only: a DC offset (in every block) of −60 dBFS or more is taken off first (`DCOffset`).
/// 4. Welch frames (Hann, 21.3 ms, 50 % overlap) are classified: far end active when the
///    delay-aligned reference frame is ≥ −50 dBFS; near end silent from the near-end track, else
///    from mic − echo, else — recordings: mic and loopback only — from the mic's residual after
///    an echo path fitted offline over the whole call (`EchoPathGate`, a first pass over
///    reference and mic; `gate.method = "echo_path_fit"`). Single talk = both.
/// 5. Only single-talk frames are measured: mic and processed get one power spectrum each,
///    reduced at once to whole-band and octave-band powers; the reference and the echo track only
///    their whole-band power (by Parseval, no transform).
/// 6. ERL, ERLE, steady state, series, bands and convergence are sums over the rows of a compact
///    per-frame ledger, for the whole file and for each requested segment.
/// Single-threaded and deterministic: same input, same output, bit for bit.
public struct EchoAnalyzer: Sendable {
    public var configuration: EchoMetricsConfiguration
    /// The tap-free gate's decisions that runs of the same recording share (`analyzeFiles`
    /// without tracks); nil fits the echo path every time. Copies of an analyzer share the cache.
    public var gateDecisions: EchoPathGateCache?
    /// Polled between blocks as files are read (`analyzeFiles`): true stops the analysis with
    /// `AnalysisCancelled` — a signal asked the command to stop, and a long recording is read
    /// three times over.
    public var isCancelled: (@Sendable () -> Bool)?

    /// Samples per append when the batch entry points feed the stream (any size gives the same result).
    static let blockSize = 4096

    public init(configuration: EchoMetricsConfiguration = .default) {
        self.configuration = configuration
    }

    /// Analyses `signals`; `segments` are sample ranges (e.g. the parts of a timeline scenario)
    /// that get their own ERL/ERLE/steady/convergence, relative to each segment's start.
    public func analyze(_ signals: EchoSignals, segments: [Range<Int>] = []) -> EchoAnalysis {
        var signals = signals, configuration = configuration
        if let echo = signals.echo, signals.nearEnd == nil {
            signals.nearEnd = zip(signals.mic, echo).map { $0 - $1 }
            configuration = configuration.withNearEndFromEcho()
        }
        let length = max(0, signals.commonLength)
        var activity: FrameBits?
        var limitation: ActivityGateLimitation?
        var talker: EchoPathGate.TalkerLevels?
        if signals.echo == nil && signals.nearEnd == nil {
            // No tracks: the offline echo-path gate, a pass over reference and mic first.
            var gate = EchoPathGate(sampleRate: signals.sampleRate, configuration: configuration)
            var offset = 0
            while offset < length {
                let count = min(Self.blockSize, length - offset)
                gate.append(reference: signals.reference, mic: signals.mic, from: offset, count: count)
                offset += count
            }
            var decided = gate.finish()
            // Two clocks: again, over the loopback resampled to the mic's, as `analyzeFiles` does
            // (libsamplerate refuses no ratio this close to 1; were it to, the last pass stands).
            _ = try? ClockDriftFeed.compensate(&gate, activity: &decided, sampleRate: signals.sampleRate, configuration: configuration,
                                               samples: length) { feed in
                var start = 0
                while start < length {
                    let count = min(Self.blockSize, length - start)
                    try feed.append(reference: signals.reference, mic: signals.mic, from: start, count: count)
                    start += count
                }
            }
            activity = decided
            limitation = gate.limitation
            talker = gate.talkerLevels
        }
        let stream = EchoAnalysisStream(sampleRate: signals.sampleRate, configuration: configuration,
                                        includesEcho: signals.echo != nil, includesNearEnd: signals.nearEnd != nil,
                                        nearEndActivity: activity, gateLimitation: limitation, talkerLevels: talker)
        var offset = 0
        while offset < length {
            let count = min(Self.blockSize, length - offset)
            stream.append(reference: signals.reference, mic: signals.mic, processed: signals.processed,
                          echo: signals.echo, nearEnd: signals.nearEnd, from: offset, count: count)
            offset += count
        }
        return stream.finish(segments: segments)
    }

    /// Largest length difference (samples) that `analyzeFiles` scores on the overlap: 1 s or 10 %
    /// of the longest file, the smaller. Beyond it the files are not the same call (a wrong or cut
    /// file), and scoring a part of them would be a silent guess.
    public static func lengthTolerance(longestSamples: Int, sampleRate: Int) -> Int {
        min(sampleRate, longestSamples / 10)
    }

    /// Reads the headers of `paths` (the first is the reference) and checks that they can be
    /// scored together: audio in each, one rate, lengths within `lengthTolerance`. Throws `MetricsError` naming
    /// the offending file; returns the rate and each file's frames and channels. Each header is
    /// read once, in order: a rate that differs fails before the next file is opened. `eval` calls
    /// it before it runs a recording through the canceller, so a mismatch fails at once.
    /// `channel`: the channel the files will be read with, checked against each file's count
    /// before the lengths are — a 16-channel header holds a sixteenth of the frames, and read as
    /// a length that differs it hid what was wrong.
    public static func checkHeaders(_ paths: [String], channel: ChannelSelection? = nil)
        throws -> (sampleRate: Int, headers: [(frames: Int, channels: Int)]) {
        var headers: [(frames: Int, channels: Int)] = []
        var referenceRate = 0
        for path in paths {
            let reader = try withFileErrors(path) { try SoundFileReader(path: path) }
            // A mono file is read as mono whatever the selection (`analyzeFiles`).
            if let channel, reader.channelCount > 1, !channel.fits(channelCount: reader.channelCount) {
                try withFileErrors(path) {
                    throw AudioIOError.unsupportedChannels(path: path, channelCount: reader.channelCount, selection: channel)
                }
            }
            // Empty first: resampled or not, a file of 0 frames has nothing to score.
            guard reader.frameCount > 0 else { throw MetricsError.empty(path: path) }
            if headers.isEmpty { referenceRate = reader.sampleRate }
            guard reader.sampleRate == referenceRate else {
                throw MetricsError.sampleRateMismatch(path: path, sampleRate: reader.sampleRate,
                                                      referencePath: paths[0], referenceRate: referenceRate)
            }
            headers.append((Int(reader.frameCount), reader.channelCount))
        }
        let lengths = headers.map(\.frames)
        guard let longest = lengths.indices.max(by: { lengths[$0] < lengths[$1] }),
              let shortest = lengths.indices.min(by: { lengths[$0] < lengths[$1] }) else { return (referenceRate, headers) }
        let tolerance = lengthTolerance(longestSamples: lengths[longest], sampleRate: referenceRate)
        guard lengths[longest] - lengths[shortest] <= tolerance else {
            throw MetricsError.lengthMismatch(path: paths[shortest], samples: lengths[shortest], longestPath: paths[longest],
                                              longestSamples: lengths[longest], toleranceSamples: tolerance)
        }
        return (referenceRate, headers)
    }

    /// Streams the files (mono, native rate; all must share the reference's rate) through an
    /// `EchoAnalysisStream` in blocks, never holding them whole. Throws `MetricsError` naming the
    /// offending file (a rate that differs, a length that differs beyond `lengthTolerance`).
    /// `channel` picks the channel of multichannel files (mono files ignore it).
    /// `processedLag`: samples the processed file lags the mic by (a canceller's latency,
    /// `ProcessedLag`); its first `processedLag` samples are passed over so it is scored aligned.
    public func analyzeFiles(reference: String, mic: String, processed: String, echo: String? = nil,
                             nearEnd: String? = nil, segments: [Range<Int>] = [], channel: ChannelSelection = .monoOnly,
                             processedLag: Int = 0) throws -> EchoAnalysis {
        let paths = [reference, mic, processed] + [echo, nearEnd].compactMap { $0 }
        // Stamped before anything is read: a file replaced after this is read as the new file,
        // and its decisions are not kept under the old one's stamp.
        let stamps = gateDecisions != nil && echo == nil && nearEnd == nil
            ? FileStamp(path: reference).flatMap { reference in FileStamp(path: mic).map { (reference, $0) } } : nil
        let (referenceRate, headers) = try Self.checkHeaders(paths, channel: channel)
        precondition(processedLag >= 0, "a processed file lags its mic: the lag is not negative")
        // Aligned, nothing of the output would be left to score: every metric would be null.
        if processedLag >= headers[2].frames {
            throw MetricsError.unreadableFile(path: processed, reason: "holds \(headers[2].frames) samples, no more than its lag behind the mic (\(processedLag)): nothing is left to score once aligned")
        }
        // The processed file, aligned, ends `processedLag` samples earlier.
        var lengths = headers.map(\.frames)
        lengths[2] = max(0, lengths[2] - processedLag)
        let files = try zip(paths, headers).map { path, header in
            try Self.withFileErrors(path) {
                try AudioFileStream(path: path, targetRate: referenceRate, selection: header.channels == 1 ? .monoOnly : channel)
            }
        }
        var blocks = [[Float]](repeating: [Float](repeating: 0, count: Self.blockSize), count: files.count)
        func stopIfCancelled() throws { if isCancelled?() == true { throw AnalysisCancelled() } }
        func skipLag() throws {
            var skipped = 0
            while skipped < processedLag {
                let got = try Self.withFileErrors(processed) { try files[2].read(into: &blocks[2], frames: min(Self.blockSize, processedLag - skipped)) }
                if got == 0 { break }
                skipped += got
            }
        }
        // Each file's DC offset over the analysed stretch (`DCOffset`), read once first: it is
        // taken off before the gate and the stream see a sample.
        let analysed = lengths.min()!
        var offsets = [Float](repeating: 0, count: files.count)
        for index in files.indices {
            if index == 2 { try skipLag() }
            var offset = DCOffset(), read = 0
            while read < analysed {
                try stopIfCancelled()
                let got = try Self.withFileErrors(paths[index]) {
                    try files[index].read(into: &blocks[index], frames: min(Self.blockSize, analysed - read))
                }
                if got == 0 { break }
                offset.add(blocks[index], count: got)
                read += got
            }
            offsets[index] = offset.removed
            try Self.withFileErrors(paths[index]) { try files[index].rewind() }
        }
        try skipLag()
        var activity: FrameBits?
        var talker: EchoPathGate.TalkerLevels?
        var limitation: ActivityGateLimitation?
        var clockDrift: Double?
        if echo == nil && nearEnd == nil {
            // No tracks: the offline echo-path gate reads reference and mic once first, in blocks,
            // over the analysed length (the shortest of all files, the processed one included).
            // Reads reference and mic blocks from the start, handing each to `take`; rewinds.
            func readPass(_ take: (_ count: Int) throws -> Void) throws {
                var read = 0
                while true {
                    try stopIfCancelled()
                    var count = Self.blockSize
                    for index in 0..<2 {
                        let got = try Self.withFileErrors(paths[index]) {
                            try files[index].read(into: &blocks[index], frames: Self.blockSize)
                        }
                        count = min(count, got)
                    }
                    count = min(count, max(0, analysed - read))
                    for index in 0..<2 { DCOffset.remove(offsets[index], from: &blocks[index], count: count) }
                    try take(count)
                    read += count
                    if count < Self.blockSize { break }
                }
                for index in 0..<2 { try Self.withFileErrors(paths[index]) { try files[index].rewind() } }
            }
            func fitGate() throws -> EchoPathGateCache.Decisions {
                var gate = EchoPathGate(sampleRate: referenceRate, configuration: configuration, micOffset: offsets[1])
                try readPass { count in gate.append(reference: blocks[0], mic: blocks[1], from: 0, count: count) }
                var activity = gate.finish()
                // Two clocks: again, over the loopback resampled to the mic's (`ClockDriftFeed`).
                let drift = try ClockDriftFeed.compensate(&gate, activity: &activity, sampleRate: referenceRate,
                                                          configuration: configuration, samples: analysed) { feed in
                    try readPass { count in try feed.append(reference: blocks[0], mic: blocks[1], count: count) }
                }
                return EchoPathGateCache.Decisions(activity: activity, limitation: gate.limitation, talkerLevels: gate.talkerLevels,
                                                   clockDriftPPM: drift)
            }
            let decisions: EchoPathGateCache.Decisions
            if let gateDecisions, let stamps {
                let key = EchoPathGateCache.Key(reference: stamps.0, mic: stamps.1,
                                                referenceChannel: headers[0].channels == 1 ? .monoOnly : channel,
                                                micChannel: headers[1].channels == 1 ? .monoOnly : channel,
                                                sampleRate: referenceRate, samples: analysed, configuration: configuration)
                decisions = try gateDecisions.decisions(for: key, compute: fitGate)
            } else {
                decisions = try fitGate()
            }
            activity = decisions.activity
            limitation = decisions.limitation
            talker = decisions.talkerLevels
            clockDrift = decisions.clockDriftPPM
        }
        // With an echo track and no near-end track, mic − echo is the near end: the talker with
        // the mic's noise, as a simulated call's near-end track is. Without it, a recording given
        // its echo lost the near-end figures that the same recording without tracks estimates.
        let derivesNearEnd = echo != nil && nearEnd == nil
        let streamConfiguration = derivesNearEnd ? configuration.withNearEndFromEcho() : configuration
        var micLessEcho = [Float](repeating: 0, count: derivesNearEnd ? Self.blockSize : 0)
        let stream = EchoAnalysisStream(sampleRate: referenceRate, configuration: streamConfiguration,
                                        includesEcho: echo != nil, includesNearEnd: nearEnd != nil || derivesNearEnd,
                                        nearEndActivity: activity, gateLimitation: limitation, talkerLevels: talker)
        var census = InputCensus()
        while true {
            try stopIfCancelled()
            // The analysed length is the shortest file's: stop at the first short read.
            var count = Self.blockSize
            for index in files.indices {
                let got = try Self.withFileErrors(paths[index]) {
                    try files[index].read(into: &blocks[index], frames: Self.blockSize)
                }
                count = min(count, got)
            }
            census.count(reference: blocks[0], mic: blocks[1], samples: count)
            for index in files.indices { DCOffset.remove(offsets[index], from: &blocks[index], count: count) }
            // Blocks are in `paths` order: reference, mic, processed, then echo and near end if given.
            let echoBlock = echo == nil ? nil : blocks[3]
            let nearEndBlock = nearEnd == nil ? nil : blocks[echo == nil ? 3 : 4]
            if let echoBlock, let nearEndBlock {
                census.count(mic: blocks[1], echo: echoBlock, nearEnd: nearEndBlock, samples: count)
            } else if let echoBlock {
                census.count(mic: blocks[1], echo: echoBlock, samples: count)
                for i in 0..<count { micLessEcho[i] = blocks[1][i] - echoBlock[i] }
            }
            stream.append(reference: blocks[0], mic: blocks[1], processed: blocks[2], echo: echoBlock,
                          nearEnd: derivesNearEnd ? micLessEcho : nearEndBlock, count: count)
            if count < Self.blockSize { break }
        }
        var analysis = stream.finish(segments: segments)
        census.referenceOffset = offsets[0]
        census.micOffset = offsets[1]
        census.processedOffset = offsets[2]
        census.echoOffset = echo == nil ? nil : offsets[3]
        census.nearEndOffset = nearEnd == nil ? nil : offsets[echo == nil ? 3 : 4]
        census.clockDriftPPM = clockDrift
        analysis.inputs = census
        // Rows that could not be spilled stayed in memory; rows that could not be read back did not
        // count in the figures.
        if let failure = analysis.spillError, failure.operation == .read { throw failure }
        // A mismatch only where the files differ both as they are and as aligned: an output one
        // latency shorter (its tail cut) or one latency longer (its tail flushed) is none.
        let fileLengths = headers.map(\.frames)
        if Set(fileLengths).count > 1 && Set(lengths).count > 1 {
            analysis.lengthMismatch = LengthMismatch(analysedSamples: analysis.sampleCount,
                                                     files: zip(paths, fileLengths).map { .init(file: $0, samples: $1) })
        }
        return analysis
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
}
