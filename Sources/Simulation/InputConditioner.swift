import AudioCore
import AudioInterop

/// Turns whatever an app pushes (Float32 or Int16, mono or interleaved, any rate, any size) into
/// the engine's 48 kHz mono Float32 and appends it to a `CadenceBuffer`.
/// Scratch storage grows to the largest burst seen and is then reused; a resampler is created
/// only when the app's rate changes — so steady pushing allocates nothing.
final class InputConditioner {
    let engineRate: Int
    private var mono: [Float] = []
    private var resampled: [Float] = []
    private var resampler: Resampler?
    /// Frames (at the app's rate) of pushes refused: a rate libsamplerate cannot convert. They
    /// never reach the buffer, so they are counted here — dropped, not lost without a word.
    private(set) var rejectedFrames: Int64 = 0

    init(engineRate: Int) {
        self.engineRate = engineRate
    }

    /// Averages interleaved channels into engine Float32.
    static func downmix<S: PCMSample>(_ buffer: PCMBuffer<S>, frames: Int, into mono: inout [Float]) {
        let channels = buffer.channelCount
        if channels == 1 {
            for i in 0..<frames { mono[i] = buffer.samples[i].engineValue }
            return
        }
        let gain = 1 / Float(channels)
        for frame in 0..<frames {
            var sum: Float = 0
            for c in 0..<channels { sum += buffer.samples[frame * channels + c].engineValue }
            mono[frame] = sum * gain
        }
    }

    func append<S: PCMSample>(_ buffer: PCMBuffer<S>, to destination: inout CadenceBuffer) {
        // The buffer's fields are the app's to set: a channel count it zeroed (or made negative)
        // holds no frame to read, and is counted as refused, as an unconvertible rate is.
        guard buffer.channelCount > 0 else {
            rejectedFrames += Int64(max(0, buffer.frameCount))
            return
        }
        let frames = min(buffer.frameCount, buffer.samples.count / buffer.channelCount)
        guard frames > 0 else { return }
        if mono.count < frames { mono = [Float](repeating: 0, count: frames) }
        Self.downmix(buffer, frames: frames, into: &mono)
        if buffer.sampleRate == engineRate {
            resampler = nil
            destination.write(mono, count: frames)
            return
        }
        if resampler?.inputRate != buffer.sampleRate {
            guard let made = try? Resampler(inputRate: buffer.sampleRate, outputRate: engineRate, quality: .medium) else {
                rejectedFrames += Int64(frames)
                return
            }
            resampler = made
        }
        let capacity = frames * engineRate / buffer.sampleRate + 64
        if resampled.count < capacity { resampled = [Float](repeating: 0, count: capacity) }
        var consumed = 0
        while consumed < frames {
            guard let (used, produced) = try? resampler!.process(mono, inputOffset: consumed, inputFrames: frames - consumed,
                                                                 into: &resampled, outputCapacity: capacity) else {
                rejectedFrames += Int64(frames - consumed)
                return
            }
            destination.write(resampled, count: produced)
            consumed += used
            if used == 0 && produced == 0 { break }
        }
    }
}
