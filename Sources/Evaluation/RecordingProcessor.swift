import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import Metrics
import Simulation

/// Runs a canceller on recordings, as WebRTC's `audioproc_f` does: the recorded microphone and
/// loopback (what the loudspeaker played) go straight to the canceller — nothing is simulated —
/// and the output is written aligned sample for sample with the microphone: the canceller's
/// processing latency is removed (and reported). Streams block by block, so a recording of any
/// length runs in the same memory.
///
/// It runs at the microphone's rate when the backend does (speex at any rate, WebRTC's AEC at 8,
/// 16, 32 or 48 kHz, AECM at any rate through its own resampling); otherwise at 48 kHz, with the
/// output resampled back to the microphone's rate. The loopback is resampled to that rate.
public struct RecordingProcessor {
    public var mode: EchoControlMode
    /// Which channel of multichannel recordings to take (mono files need none).
    public var channel: ChannelSelection
    /// Where the canceller's latency is remembered (a corpus's runs share one); nil measures it.
    public var latencies: EchoControlLatencies?

    public init(mode: EchoControlMode, channel: ChannelSelection = .monoOnly, latencies: EchoControlLatencies? = nil) {
        self.mode = mode
        self.channel = channel
        self.latencies = latencies
    }

    /// What a run did.
    public struct Outcome: Sendable, Equatable {
        /// The rate the canceller ran at.
        public var processingRate: Int
        /// The microphone's rate, which the output has too.
        public var sampleRate: Int
        /// Output samples (= the microphone's).
        public var frames: Int64
        /// The canceller's latency that was removed, at the processing rate.
        public var latencySamples: Int
        public var divergenceResets: Int
        /// The loopback's length minus the microphone's, in seconds (nil without a loopback).
        /// Where it is shorter the rest of the mic was processed against silence; where longer,
        /// its end was not used.
        public var referenceExcessSeconds: Double?
        /// The loopback's own rate (nil without a loopback); resampled to `processingRate`.
        public var referenceRate: Int?
        /// Samples at full scale (|x| ≥ 32767/32768) in the mic and in the loopback, as the files
        /// hold them (at their own rates): a recording that clipped has echo no linear filter can
        /// model, and an ERLE scored from it is uncertain. Resampled for the canceller, a 16-bit
        /// file peaking at −0.01 dBFS overshoots to +0.1, and was said to be over full scale.
        public var clippedMicSamples = 0
        public var clippedLoopbackSamples = 0
        /// The largest |x| in the mic and in the loopback as the files hold them: over 1, a
        /// float file louder than any converter records or plays (scaled after capture, or
        /// synthesised).
        public var micPeak: Float = 0
        public var loopbackPeak: Float = 0
        /// The largest |x| the canceller wrote (the mic's, copied, in `disabled`).
        public var outputPeak: Float = 0
        /// The mic's DC offset as the canceller received it, judged as `metrics` judges one
        /// (`DCOffset`: 0 where there is none).
        public var micOffset = 0.0
        /// `intensityAdaptive`'s decisions, as in a simulated call (the same controller); their
        /// `frame` counts samples at `processingRate`. Empty in every other mode.
        public var adaptiveDecisions: [AdaptiveDecision] = []
        /// A plugin canceller's own name, as it reported it (nil for a built-in backend).
        public var pluginName: String?
        /// The file the plugin canceller was loaded from (empty for a built-in backend).
        public var pluginFiles: Set<FileIdentity> = []

        /// Where a clipped signal is, and what follows from it (none when nothing clipped), in the
        /// words `metrics` uses. A float file over full scale is said to be so, and what became of
        /// it: the built-in cancellers hold their output within full scale (as a converter would),
        /// so what the mic held over it is clipped there; a plugin's output may carry it on.
        public func clippingWarnings(mic: String, reference: String?, cancellerRan: Bool) -> [String] {
            // Each over its own samples: the mic's frames, the loopback's over the same time.
            let loopbackSamples = Double(frames) * Double(referenceRate ?? sampleRate) / Double(sampleRate)
            var clipped: [String] = [], overFullScale: [String] = []
            for (file, count, peak, samples) in [(mic, clippedMicSamples, micPeak, Double(frames)),
                                                 (reference, clippedLoopbackSamples, loopbackPeak, loopbackSamples)] {
                guard let file, count > 0 else { continue }
                let part = InputCensus.clippingPart(file: file, count: count, peak: peak, share: InputCensus.share(count, of: samples))
                if part.isOverFullScale { overFullScale.append(part.text) } else { clipped.append(part.text) }
            }
            var lines: [String] = []
            if !clipped.isEmpty { lines.append(clipped.joined(separator: "; ") + InputCensus.clippedConsequence) }
            if !overFullScale.isEmpty {
                let handled = !cancellerRan ? "passed on as it is"
                    : micPeak > 1 && outputPeak <= 1 ? "given to the canceller as it is, whose output stays within full scale: what the mic holds over it is clipped there"
                    : "given to the canceller as it is"
                lines.append(overFullScale.joined(separator: "; ") + ": louder than any converter records or plays "
                             + InputCensus.overFullScaleCause + "; " + handled)
            }
            return lines
        }

        /// Above this the mic's mean is an offset worth a word (a rig's, a converter's).
        public static let dcOffsetWarningDBFS = -40.0

        /// Where the mic holds a DC offset and a canceller ran (nil otherwise): the canceller was
        /// given it, and the ones without a high-pass filter of their own remove far less echo over
        /// it (−30.6 dBFS took echolab's steady ERLE from 36.2 to 11.3 dB, WebRTC's AEC's from
        /// 36.0 to 13.8), which the metrics' own correction of the offset does not undo.
        public func dcOffsetWarning(mic: String, mode: EchoControlMode) -> String? {
            guard micOffset != 0, mode.intensity != .disabled else { return nil }
            let level = 20 * log10(abs(micOffset))
            guard level >= Self.dcOffsetWarningDBFS else { return nil }
            return String(format: "%@ has a DC offset of %.1f dBFS: the canceller was given it as recorded, and those without a high-pass "
                          + "filter of their own (echolab, webrtc) remove far less echo over one; take it off first to measure them without it", mic, level)
        }

        /// One line for stderr when the loopback and the microphone differ by more than a 10 ms
        /// frame (nil otherwise): processing on silently would hide a cut or wrong file.
        public func lengthWarning(mic: String, reference: String) -> String? {
            guard let excess = referenceExcessSeconds, abs(excess) > 0.01 else { return nil }
            let amount = String(format: "%.2f s", abs(excess))
            return excess < 0
                ? "\(reference) is \(amount) shorter than \(mic): the mic's last \(amount) were processed against a silent loopback"
                : "\(reference) is \(amount) longer than \(mic): its last \(amount) were not used"
        }

        /// One line for stderr when the loopback's rate is not the microphone's (nil otherwise):
        /// it is resampled and processed, but a device records both at one rate, so a different
        /// one usually means a file from another recording or a wrong export.
        public func rateWarning(mic: String, reference: String) -> String? {
            guard let referenceRate, referenceRate != sampleRate else { return nil }
            let what = referenceRate == processingRate ? "the canceller ran at the loopback's rate, the mic resampled"
                : "the loopback was resampled to \(processingRate) Hz"
            return "\(reference) is at \(referenceRate) Hz, \(mic) at \(sampleRate) Hz: \(what)"
        }
    }

    /// The rate the canceller runs at on a mic recorded at `micRate`: the mic's own where the
    /// backend takes it, else 48 kHz; a plugin's own (`--plugin-rate`, else 48 kHz), so that the
    /// recording is resampled once, to the rate the plugin really runs at, and the outcome says so.
    static func processingRate(_ mode: EchoControlMode, micRate: Int) -> Int {
        if mode.intensity == .disabled { return micRate }
        if let plugin = mode.backend.plugin { return plugin.sampleRate }
        return runsNatively(mode.backend, at: micRate) ? micRate : 48_000
    }

    private static func runsNatively(_ backend: EchoCancellerBackend, at rate: Int) -> Bool {
        switch backend {
        case .webrtc: [8000, 16_000, 32_000, 48_000].contains(rate)
        case .aec3: WebRTCAEC3Processor.sampleRates.contains(rate)
        case .echolab: rate % 100 == 0 && rate >= EchoLabEchoControl.minimumSampleRate
        // speex and AECM take any 10 ms frame.
        default: rate % 100 == 0
        }
    }

    /// `reference` nil: nothing was played (near-end single talk); the canceller gets silence.
    /// A `cancellation` is polled once a second of audio: `RunCancelled` is thrown, and no output
    /// is left (not even its partial file). With `lockingFor`, the output file's `OutputLock` is
    /// held for that command (`process`) while it is written: another process writing the same
    /// file is refused before it writes anything, instead of writing into this one's temporary.
    /// `progress` is told the share of the mic processed, once a second of audio.
    public func process(mic: String, reference: String?, output: String, cancellation: RunCancellation? = nil,
                        lockingFor command: String? = nil, progress: ((Double) -> Void)? = nil) throws -> Outcome {
        // A plugin's library is an input too: the output written over it would replace the
        // canceller that writes it.
        try AtomicFile.checkWritable(output, inputs: [mic, reference, mode.backend.plugin?.path].compactMap { $0 })
        let micProbe = try SoundFileReader(path: mic)
        let micRate = micProbe.sampleRate, micLength = micProbe.frameCount
        guard micLength > 0 else { throw AudioIOError.holdsNoAudio(path: mic, consequence: "nothing to process") }
        // Without a canceller the mic passes through at its own rate, whatever it is: a round trip
        // through 48 kHz would cut the band edge of a 22.05 kHz file (measured: −14.5 dB of
        // difference on white noise).
        let rate = Self.processingRate(mode, micRate: micRate)
        let frame = max(1, rate / 100)
        let micStream = try AudioFileStream(path: mic, targetRate: rate, selection: micProbe.channelCount == 1 ? .monoOnly : channel)
        let referenceProbe = try reference.map { try SoundFileReader(path: $0) }
        // A loopback of no audio is a file that went wrong, not a far end that was silent: the
        // output would come back as the mic, and nothing would say so but a warning.
        if let reference, let referenceProbe, referenceProbe.frameCount == 0 {
            throw AudioIOError.holdsNoAudio(path: reference, consequence: "no far end to cancel")
        }
        let referenceStream = try reference.map { path in
            try AudioFileStream(path: path, targetRate: rate, selection: referenceProbe?.channelCount == 1 ? .monoOnly : channel)
        }
        let referenceExcess = referenceProbe.map { Double($0.frameCount) / Double($0.sampleRate) - Double(micLength) / Double(micRate) }
        let control: EchoControl?
        do {
            control = try EchoControlFactory.make(mode, sampleRate: rate, frameSize: frame, latencies: latencies)
        } catch {
            // A plugin's start cut short by the interruption stopped the run.
            if (error as? PluginProcess.PluginFailure)?.isInterruption == true { throw RunCancelled() }
            // Named with the recording, as a failure while it runs is: the plugin's name alone does not say which recording.
            if let failure = error as? PluginProcess.PluginFailure { throw failure.naming(input: mic) }
            throw error
        }
        let latency = control?.latencySamples ?? 0
        // The adaptive mode measures and steers as it does in a call: without it, it would run as
        // intensityRecommended, its starting point, and say nothing new.
        let adaptive = mode.intensity == .intensityAdaptive ? control.flatMap { AdaptiveIntensity(steering: $0, sampleRate: rate, frameSize: frame) } : nil
        // A missing folder is created, as `run` and `eval` create theirs (its failure names the reason).
        try AtomicFile.prepareFolder(containing: output)
        let lock = try command.map { try OutputLock(file: output, command: $0) }
        defer { withExtendedLifetime(lock) {} }
        let writer = try SoundFileWriter(path: output, sampleRate: micRate)
        do {
            let back = rate == micRate ? nil : try Resampler(inputRate: rate, outputRate: micRate, quality: .best)
            var capture = [Float](repeating: 0, count: frame), render = [Float](repeating: 0, count: frame)
            var processed = [Float](repeating: 0, count: frame)
            var resampled = [Float](repeating: 0, count: frame * micRate / rate + 64)
            // Output sample j is mic sample j − latency: skip the first `latency` output samples, and
            // after the mic's end feed silence until every mic sample has its output.
            var micFrames = 0, produced = 0, written = 0, micEnded = false
            var chunks = 0
            var clippedMic = 0, clippedLoopback = 0
            var micPeak: Float = 0, loopbackPeak: Float = 0, outputPeak: Float = 0
            // The mic's offset judged as `metrics` judges it (blocks' median mean, where they agree):
            // a plain mean read a clipped talker's lopsided waveform as a −38 dBFS offset that
            // metrics, on the same file, did not find.
            var micOffset = DCOffset(), micBlock = [Float](repeating: 0, count: DCOffset.blockSize), micBlockFill = 0
            while true {
                chunks += 1
                if chunks % 100 == 0 {
                    if cancellation?.isCancelled == true { throw RunCancelled() }
                    progress?(Double(micFrames) * Double(micRate) / (Double(rate) * Double(micLength)))
                }
                let got = micEnded ? 0 : try micStream.read(into: &capture, frames: frame)
                micFrames += got
                if got < frame {
                    micEnded = true
                    for i in got..<frame { capture[i] = 0 }
                }
                let referenceGot = try referenceStream?.read(into: &render, frames: frame) ?? 0
                for i in referenceGot..<frame { render[i] = 0 }
                clippedMic += Self.fullScaleCount(capture, count: got, peak: &micPeak)
                for i in 0..<got {
                    micBlock[micBlockFill] = capture[i]
                    micBlockFill += 1
                    if micBlockFill == micBlock.count {
                        micOffset.add(micBlock, count: micBlockFill)
                        micBlockFill = 0
                    }
                }
                clippedLoopback += Self.fullScaleCount(render, count: referenceGot, peak: &loopbackPeak)
                if let control {
                    try control.analyzeRender(render)
                    try control.processCapture(capture, into: &processed)
                    try control.checkOutput(processed, frame: produced / frame)
                    _ = Self.fullScaleCount(processed, count: frame, peak: &outputPeak)
                    adaptive?.observe(reference: render, capture: capture, count: frame, control: control)
                } else {
                    VectorMath.copy(capture, into: &processed, count: frame)
                }
                let first = produced
                produced += frame
                let start = max(first, latency + written), end = min(produced, latency + micFrames)
                if end > start {
                    try write(processed, from: start - first, count: end - start, to: writer, through: back, buffer: &resampled, limit: micLength)
                    written += end - start
                }
                if micEnded && written >= micFrames { break }
            }
            if let back {
                // Flush the resampler's tail; then the output is exactly as long as the mic (the
                // round trip through 48 kHz may differ by a sample of rounding).
                let (_, produced) = try back.process([], inputFrames: 0, into: &resampled, outputCapacity: resampled.count, endOfInput: true)
                try writer.write(resampled, frames: Int(min(Int64(produced), micLength - writer.framesWritten)))
                let missing = Int(micLength - writer.framesWritten)
                if missing > 0 { try writer.write([Float](repeating: 0, count: missing), frames: missing) }
            }
            // A signal in the last second of audio is not lost: nothing is put in place after it.
            if cancellation?.isCancelled == true { throw RunCancelled() }
            try control?.finish()
            try writer.finish()
            var outcome = Outcome(processingRate: rate, sampleRate: micRate, frames: writer.framesWritten, latencySamples: latency,
                                  divergenceResets: control?.metrics.divergenceResets ?? 0, referenceExcessSeconds: referenceExcess,
                                  referenceRate: referenceProbe?.sampleRate)
            micOffset.add(micBlock, count: micBlockFill)
            outcome.micOffset = Double(micOffset.removed)
            // Counted above where the canceller got a file's own samples; a file resampled for it is
            // counted again at its own rate (the resampler's overshoot is none of the file's).
            // Over the stretch the canceller received (`produced` samples at its rate): a loopback
            // longer than the mic is counted as far as when it is not resampled.
            (outcome.clippedMicSamples, outcome.micPeak) = micRate == rate ? (clippedMic, micPeak)
                : try Self.fullScaleCount(file: mic, probe: micProbe, channel: channel,
                                          frames: Self.ownRateFrames(produced, rate: rate, fileRate: micRate), cancellation: cancellation)
            (outcome.clippedLoopbackSamples, outcome.loopbackPeak) = if let reference, let referenceProbe, referenceProbe.sampleRate != rate {
                try Self.fullScaleCount(file: reference, probe: referenceProbe, channel: channel,
                                        frames: Self.ownRateFrames(produced, rate: rate, fileRate: referenceProbe.sampleRate),
                                        cancellation: cancellation)
            } else {
                (clippedLoopback, loopbackPeak)
            }
            outcome.outputPeak = control == nil ? micPeak : outputPeak
            outcome.adaptiveDecisions = adaptive?.decisions ?? []
            outcome.pluginName = (control as? PluginEchoControl)?.reportedName
            outcome.pluginFiles = Set([(control as? PluginEchoControl)?.loadedFile].compactMap { $0 })
            return outcome
        } catch {
            // The partial output goes now, not whenever the writer is freed.
            writer.discard()
            // A plugin's wait cut short by the interruption stopped the run; the plugin did no wrong.
            if (error as? PluginProcess.PluginFailure)?.isInterruption == true { throw RunCancelled() }
            // A diverged canceller's output is named with the recording it diverged on.
            if case .outputNotAudio(let mode, let value, let sample, let frame, nil)? = error as? EchoControlError {
                throw EchoControlError.outputNotAudio(mode: mode, value: value, sample: sample, frame: frame, input: mic)
            }
            // A plugin's failure too: unnamed, a long recording's line says neither file nor time.
            if let failure = error as? PluginProcess.PluginFailure { throw failure.naming(input: mic) }
            throw error
        }
    }

    /// Full scale as a 16-bit recording reaches it: 32767/32768 and beyond.
    static let fullScale = InputCensus.fullScale

    /// Samples at or over full scale among the first `count`, and the largest |x| kept in `peak`.
    static func fullScaleCount(_ samples: [Float], count: Int, peak: inout Float) -> Int {
        var clipped = 0
        for i in 0..<count {
            let magnitude = abs(samples[i])
            if magnitude >= fullScale { clipped += 1 }
            peak = max(peak, magnitude)
        }
        return clipped
    }

    /// The samples at `fileRate` that span `frames` samples at `rate`, rounded up.
    static func ownRateFrames(_ frames: Int, rate: Int, fileRate: Int) -> Int {
        Int((Int64(frames) * Int64(fileRate) + Int64(rate) - 1) / Int64(rate))
    }

    /// `fullScaleCount` over a file's first `frames` samples at its own rate (`probe`'s, opened
    /// already), and their peak. A `cancellation` is polled every 64 Ki samples: an hour-long
    /// file is read again here, after the run's own polls.
    static func fullScaleCount(file path: String, probe: SoundFileReader, channel: ChannelSelection, frames limit: Int,
                               cancellation: RunCancellation?) throws -> (count: Int, peak: Float) {
        let stream = try AudioFileStream(path: path, targetRate: probe.sampleRate, selection: probe.channelCount == 1 ? .monoOnly : channel)
        var buffer = [Float](repeating: 0, count: 16_384)
        var count = 0, peak: Float = 0, read = 0, blocks = 0
        while read < limit {
            blocks += 1
            if blocks % 4 == 0, cancellation?.isCancelled == true { throw RunCancelled() }
            let got = try stream.read(into: &buffer, frames: min(buffer.count, limit - read))
            count += fullScaleCount(buffer, count: got, peak: &peak)
            read += got
            if got == 0 { break }
        }
        return (count, peak)
    }

    /// Writes at most up to `limit` frames in all (the mic's length).
    private func write(_ samples: [Float], from offset: Int, count: Int, to writer: SoundFileWriter, through resampler: Resampler?,
                       buffer: inout [Float], limit: Int64) throws {
        guard let resampler else {
            try writer.write(samples, from: offset, frames: count)
            return
        }
        try resampler.convert(samples, from: offset, count: count, scratch: &buffer) { output, frames in
            try writer.write(output, frames: Int(min(Int64(frames), limit - writer.framesWritten)))
        }
    }
}
