import AudioCore

/// A mono stream at a target rate from any file libsndfile reads: channel selection is explicit,
/// the rate is converted through `Resampler` when it differs. `read` hands out exactly the number
/// of frames asked for until the file (and the resampler's tail) is exhausted, so callers can pull
/// fixed 10 ms blocks whatever the file's native rate and block size.
///
/// A looping stream starts the file over where it ends, at the file's own rate, before the
/// resampler: the converter sees one continuous signal, so the passes join as the file's end and
/// start do. (Rewound after the resampler, each pass was converted on its own, its end flushed
/// and its start primed from silence: a click at every restart of a resampled loop.)
public final class AudioFileStream {
    public let reader: SoundFileReader
    public let targetRate: Int
    public let selection: ChannelSelection
    /// Whether the file starts over at its end (an empty file still ends at once).
    public let loops: Bool
    /// Frames read from the file since its start or its last restart.
    private var framesThisPass = 0
    private let resampler: Resampler?
    private var interleaved: [Float]
    private var mono: [Float]
    private var monoStart = 0
    private var monoEnd = 0
    private var sourceExhausted = false
    private var flushed = false
    private let chunkFrames = 1024
    /// Frames per file read.
    private let readFrames: Int

    public init(path: String, targetRate: Int, selection: ChannelSelection = .monoOnly,
                quality: ResamplerQuality = .best, loops: Bool = false) throws {
        reader = try SoundFileReader(path: path)
        self.targetRate = targetRate
        self.selection = selection
        self.loops = loops
        guard selection.fits(channelCount: reader.channelCount) else {
            throw AudioIOError.unsupportedChannels(path: path, channelCount: reader.channelCount, selection: selection)
        }
        // A header may carry any rate (1 Hz, 20 MHz): one libsamplerate cannot convert is this
        // file's problem, so the error names the file, not only the ratio.
        do {
            resampler = reader.sampleRate == targetRate ? nil
                : try Resampler(inputRate: reader.sampleRate, outputRate: targetRate, quality: quality)
        } catch AudioIOError.resampler(let reason) {
            throw AudioIOError.cannotOpen(path: path, reason: "cannot convert its \(reader.sampleRate) Hz to \(targetRate) Hz: \(reason)")
        }
        // Without a resampler the file is read in large chunks (a read(2) per 64 KiB, not per
        // 10 ms block) and handed out from `mono`; with one, the resampler's 1024-frame chunks
        // are kept (its output is pinned by the golden vectors).
        readFrames = resampler == nil ? 16_384 : chunkFrames
        interleaved = [Float](repeating: 0, count: readFrames * reader.channelCount)
        mono = [Float](repeating: 0, count: readFrames)
        pending = [Float](repeating: 0, count: chunkFrames * 2 + 64)
    }

    /// Resampled output not yet handed out.
    private var pending: [Float]
    private var pendingStart = 0
    private var pendingEnd = 0

    /// Frames the stream will deliver in total, estimated from the file's length and the rate ratio.
    /// The length is the header's word (a compressed stream may claim up to `Int64.max` frames),
    /// so the product saturates instead of overflowing.
    public var estimatedFrameCount: Int64 {
        let (product, overflow) = reader.frameCount.multipliedReportingOverflow(by: Int64(targetRate))
        return overflow ? Int64.max : product / Int64(reader.sampleRate)
    }

    /// Fills `buffer[offset..<offset+frames]` and returns how many frames were real; the rest
    /// (at the end of the file) is zeroed.
    @discardableResult
    public func read(into buffer: inout [Float], at offset: Int = 0, frames: Int) throws -> Int {
        var filled = 0
        if resampler == nil {
            // A large read of a mono file with nothing held: libsndfile fills the caller's buffer directly.
            if reader.channelCount == 1 && frames >= readFrames && monoStart == monoEnd && !sourceExhausted && !loops {
                filled = try reader.read(into: &buffer, at: offset, frames: frames)
                if filled < frames { sourceExhausted = true }
            }
            while filled < frames {
                if monoStart == monoEnd {
                    guard try readChunk() else { break }
                }
                let n = min(frames - filled, monoEnd - monoStart)
                VectorMath.copy(mono, from: monoStart, into: &buffer, at: offset + filled, count: n)
                monoStart += n
                filled += n
            }
            for i in filled..<frames { buffer[offset + i] = 0 }
            return filled
        }
        while filled < frames {
            if pendingStart == pendingEnd {
                guard try refill() else { break }
            }
            let n = min(frames - filled, pendingEnd - pendingStart)
            VectorMath.copy(pending, from: pendingStart, into: &buffer, at: offset + filled, count: n)
            pendingStart += n
            filled += n
        }
        for i in filled..<frames { buffer[offset + i] = 0 }
        return filled
    }

    /// Starts again from the first frame, the resampler from silence (a second pass over a file).
    public func rewind() throws {
        try reader.seek(toFrame: 0)
        resampler?.reset()
        monoStart = 0; monoEnd = 0; pendingStart = 0; pendingEnd = 0
        sourceExhausted = false; flushed = false
        framesThisPass = 0
    }

    /// Reads the next chunk of the file into `mono`; false at the end of the file (never, for a
    /// looping stream of a file that holds audio).
    @discardableResult
    private func readChunk() throws -> Bool {
        guard !sourceExhausted else { return false }
        var got = try readFileChunk()
        if got == 0 && loops && framesThisPass > 0 {
            try reader.seek(toFrame: 0)
            framesThisPass = 0
            got = try readFileChunk()
        }
        framesThisPass += got
        if got == 0 { sourceExhausted = true }
        monoStart = 0; monoEnd = got
        return got > 0
    }

    /// The next chunk of the file, as mono, into `mono`.
    private func readFileChunk() throws -> Int {
        let got: Int
        if reader.channelCount == 1 {
            got = try reader.read(into: &mono, frames: readFrames)
        } else {
            got = try reader.read(into: &interleaved, frames: readFrames)
            switch selection {
            case .monoOnly, .downmix:
                SampleConversion.downmix(interleaved: interleaved, channelCount: reader.channelCount, frameCount: got, into: &mono)
            case .channel(let index):
                SampleConversion.extract(channel: index, interleaved: interleaved, channelCount: reader.channelCount, frameCount: got, into: &mono)
            }
        }
        return got
    }

    /// Produces more resampled output into `pending`; false when nothing more will come.
    private func refill() throws -> Bool {
        guard let resampler else { return false }
        pendingStart = 0; pendingEnd = 0
        if monoStart == monoEnd { try readChunk() }
        if sourceExhausted && monoStart == monoEnd && flushed { return false }
        let (consumed, produced): (Int, Int)
        do {
            (consumed, produced) = try resampler.process(mono, inputOffset: monoStart, inputFrames: monoEnd - monoStart,
                                                         into: &pending, outputCapacity: pending.count,
                                                         endOfInput: sourceExhausted)
        } catch AudioIOError.resampler(let reason) {
            throw AudioIOError.cannotOpen(path: reader.path, reason: "resampling to \(targetRate) Hz failed: \(reason)")
        }
        monoStart += consumed
        pendingEnd = produced
        if sourceExhausted && monoStart == monoEnd && produced == 0 { flushed = true; return false }
        return true
    }

    /// How many frames `readAll` reserves at most before reading (10 minutes at 48 kHz, 115 MB).
    static let initialReadAllFrames: Int64 = 48_000 * 600

    /// Reads a whole file as mono at `targetRate`.
    public static func readAll(path: String, targetRate: Int? = nil, selection: ChannelSelection = .monoOnly) throws -> (samples: [Float], sampleRate: Int) {
        let probe = try SoundFileReader(path: path)
        let rate = targetRate ?? probe.sampleRate
        let stream = try AudioFileStream(path: path, targetRate: rate, selection: selection)
        return (try read(stream, estimatedFrames: stream.estimatedFrameCount), rate)
    }

    /// A room's impulse response from `path`, at `targetRate`, and how many of its first samples
    /// come before the file's first sample (`leadingSamples`: where the file's time 0 is).
    ///
    /// A response is a filter, not a signal: convolution sums its taps once per sample, so
    /// resampled as a signal to r₂ samples a second from the r₁ it was measured at, each tap weighs
    /// r₂/r₁ of what it did and the path's gain moves with the rate (a 16 kHz response played at
    /// 48 kHz: 9.5 dB louder; a 96 kHz one 6 dB quieter). Scaled by r₁/r₂, its frequency response
    /// is the file's in the band both rates hold.
    ///
    /// Resampled, a tap is a band-limited pulse that rings on both sides of it: converted from the
    /// file's first sample, a direct path there lost the half before it (a unit impulse at sample
    /// 0 of a 16 kHz file read 3.6 dB weaker at 48 kHz; a measured room trimmed to its direct
    /// sound 0.6–0.8 dB). The file is converted after `resamplingLead(from:to:)` samples of
    /// silence, and the ringing before its time 0 is kept: the echo path puts time 0 at its bulk delay.
    public static func readImpulseResponse(path: String, targetRate: Int,
                                           selection: ChannelSelection = .monoOnly) throws -> (taps: [Float], leadingSamples: Int) {
        let sourceRate = try SoundFileReader(path: path).sampleRate
        let file = try AudioFileStream(path: path, targetRate: sourceRate, selection: selection)
        let own = try read(file, estimatedFrames: file.estimatedFrameCount)
        guard sourceRate != targetRate, !own.isEmpty else { return (own, 0) }
        let lead = resamplingLead(from: sourceRate, to: targetRate)
        let resampler: Resampler
        do {
            resampler = try Resampler(inputRate: sourceRate, outputRate: targetRate, quality: .best)
        } catch AudioIOError.resampler(let reason) {
            throw AudioIOError.cannotOpen(path: path, reason: "cannot convert its \(sourceRate) Hz to \(targetRate) Hz: \(reason)")
        }
        let input = [Float](repeating: 0, count: lead) + own
        var taps: [Float] = []
        taps.reserveCapacity(Int(Int64(input.count) * Int64(targetRate) / Int64(sourceRate)) + 64)
        var scratch = [Float](repeating: 0, count: 8192)
        var consumed = 0
        while true {
            let atEnd = consumed == input.count
            let (used, produced) = try resampler.process(input, inputOffset: consumed, inputFrames: input.count - consumed,
                                                         into: &scratch, outputCapacity: scratch.count, endOfInput: true)
            taps.append(contentsOf: scratch[0..<produced])
            consumed += used
            if atEnd && produced == 0 { break }
        }
        let scale = Float(Double(sourceRate) / Double(targetRate))
        for index in taps.indices { taps[index] *= scale }
        return (taps, lead * targetRate / sourceRate)
    }

    /// Silence put before a response converted from `sourceRate` to `targetRate`: at least the
    /// best sinc converter's reach (about 143 zero crossings each side: source samples when it
    /// raises the rate, target samples — more source samples — when it lowers it), in a whole
    /// number of source samples that is a whole number of target samples, so that the file's
    /// time 0 falls on a sample.
    package static func resamplingLead(from sourceRate: Int, to targetRate: Int) -> Int {
        func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
        let unit = sourceRate / gcd(sourceRate, targetRate)
        let reach = 160 * max(sourceRate, targetRate) / targetRate
        return (reach + unit - 1) / unit * unit
    }

    /// Everything `stream` delivers from where it is.
    package static func read(_ stream: AudioFileStream, estimatedFrames: Int64) throws -> [Float] {
        // Reserve what the header promises, up to a bound: the header may lie (a broken Ogg page
        // can claim 2^63 frames), and the buffer grows as the real audio arrives anyway.
        let step = 65_536
        var out = [Float](repeating: 0, count: Int(min(estimatedFrames, initialReadAllFrames)) + step)
        var total = 0
        while true {
            if total + step > out.count { out.append(contentsOf: repeatElement(0, count: out.count)) }
            let got = try stream.read(into: &out, at: total, frames: step)
            total += got
            if got < step { break }
        }
        out.removeLast(out.count - total)
        return out
    }
}
