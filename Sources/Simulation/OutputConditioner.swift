import AudioCore
import AudioInterop

/// Hands engine audio (48 kHz mono, from a FIFO the engine fills every tick) to an app that
/// pulls buffers of its own size, rate, channel count and sample type.
/// The first pulls after attaching find the FIFO not yet filled to the app's burst: the shortfall
/// is put *before* the audio as priming silence (startup latency, reported as delivered frames),
/// so the stream stays continuous, and one engine block stays in reserve against early pulls;
/// later shortfalls are underruns, zero-filled at the end and counted.
final class OutputConditioner {
    let engineRate: Int
    private var engineBlock: [Float] = []
    private var staging: [Float]
    private var stagingStart = 0
    private var stagingEnd = 0
    private var resampled: [Float] = []
    private var resampler: Resampler?
    private(set) var primed = false
    private(set) var primingSamples: Int64 = 0
    private(set) var underruns = 0
    private(set) var missingSamples: Int64 = 0
    /// Frames (at the app's rate) of pulls filled with silence because the resampler refused
    /// the app's rate: engine audio not delivered, counted.
    private(set) var rejectedFrames: Int64 = 0

    init(engineRate: Int) {
        self.engineRate = engineRate
        staging = [Float](repeating: 0, count: engineRate / 100)
    }

    func restart() {
        primed = false
        stagingStart = 0
        stagingEnd = 0
        resampler?.reset()
    }

    /// Fills `buffer` (all `frameCount` frames); returns how many frames hold call audio.
    func pull<S: PCMSample>(from fifo: inout SampleFIFO, into buffer: inout PCMBuffer<S>) -> Int {
        let frames = min(buffer.frameCount, buffer.samples.count / buffer.channelCount)
        guard frames > 0 else { return 0 }
        if engineBlock.count < frames { engineBlock = [Float](repeating: 0, count: frames) }
        var real = 0
        if buffer.sampleRate == engineRate {
            resampler = nil
            real = take(from: &fifo, frames: frames, into: &engineBlock)
        } else {
            real = resample(from: &fifo, frames: frames, rate: buffer.sampleRate)
        }
        Self.spread(engineBlock, frames: frames, into: &buffer)
        return real
    }

    /// Engine Float32 mono into every channel of the app's buffer, in its sample type.
    static func spread<S: PCMSample>(_ mono: [Float], frames: Int, into buffer: inout PCMBuffer<S>) {
        let channels = buffer.channelCount
        for frame in 0..<frames {
            let value = S(engineValue: mono[frame])
            for c in 0..<channels { buffer.samples[frame * channels + c] = value }
        }
    }

    private func take(from fifo: inout SampleFIFO, frames: Int, into block: inout [Float]) -> Int {
        if !primed {
            // Prime at the first pull that finds one engine block, and keep that block in reserve:
            // a pull up to one engine period early (jitter + leeway) then still finds its audio.
            // Pulls before that are all silence. The silence is startup latency, part of the
            // stream, so it counts as delivered: an app that keeps only the returned frames (the
            // reference's `frameLength = bytes / 4`) must get it, not lose the audio behind it.
            let reserve = engineRate / 100
            guard fifo.count >= reserve else {
                for i in 0..<frames { block[i] = 0 }
                primingSamples += Int64(frames)
                return frames
            }
            primed = true
            let real = min(frames, fifo.count - reserve)
            let shortfall = frames - real
            for i in 0..<shortfall { block[i] = 0 }
            primingSamples += Int64(shortfall)
            return shortfall + fifo.readAvailable(into: &block, at: shortfall, count: real)
        }
        let got = fifo.readAvailable(into: &block, count: frames)
        if got < frames {
            for i in got..<frames { block[i] = 0 }
            underruns += 1
            missingSamples += Int64(frames - got)
        }
        return got
    }

    private func resample(from fifo: inout SampleFIFO, frames: Int, rate: Int) -> Int {
        if resampler?.outputRate != rate {
            guard let made = try? Resampler(inputRate: engineRate, outputRate: rate, quality: .medium) else {
                rejectedFrames += Int64(frames)
                for i in 0..<frames { engineBlock[i] = 0 }
                return 0
            }
            resampler = made
        }
        var produced = 0
        var realEngineFrames = 0, engineFramesUsed = 0
        while produced < frames {
            if stagingStart == stagingEnd {
                let block = staging.count
                realEngineFrames += take(from: &fifo, frames: block, into: &staging)
                engineFramesUsed += block
                stagingStart = 0
                stagingEnd = block
            }
            guard let (used, made) = try? resampler!.process(staging, inputOffset: stagingStart, inputFrames: stagingEnd - stagingStart,
                                                              into: &engineBlock, outputOffset: produced, outputCapacity: frames - produced) else {
                rejectedFrames += Int64(frames - produced)
                break
            }
            stagingStart += used
            produced += made
        }
        for i in produced..<frames { engineBlock[i] = 0 }
        guard engineFramesUsed > 0 else { return produced }
        return produced * realEngineFrames / engineFramesUsed
    }
}
