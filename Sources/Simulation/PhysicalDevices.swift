import AudioCore

/// The device's real loudspeaker, for apps that drive it themselves (a custom speaker's
/// `playToOutputDevice`). What is played here goes into the room — and, through the echo path,
/// into the microphone — 10 ms per engine tick, through a `CadenceBuffer` like a hardware buffer.
public final class Loudspeaker {
    let conditioner = InputConditioner(engineRate: AudioFormat.engine.sampleRate)
    var buffer = CadenceBuffer(capacity: AudioFormat.engine.sampleRate)
    /// The app stopped playing (`stop()`): what it played drains, then the loudspeaker idles.
    public private(set) var isStopped = true

    init() {}

    public func play<Sample: PCMSample>(_ audioBuffer: PCMBuffer<Sample>) {
        isStopped = false
        conditioner.append(audioBuffer, to: &buffer)
    }

    /// The app stops playing here (its custom speaker was reset or stopped): what it already
    /// played is heard out, then the loudspeaker is idle, nothing counted, until it plays again.
    /// Without it, the buffer ran dry as if the app had missed its timer: a clean
    /// `reset_custom_speaker` counted an underrun, and the rest of the call as priming.
    public func stop() { isStopped = true }

    /// One engine tick of what the app played, into `emission[0..<count]`: silence while idle.
    func emit(into emission: inout [Float], count: Int) {
        if isStopped {
            buffer.drain(into: &emission, count: count)
        } else {
            buffer.read(into: &emission, count: count)
        }
    }
}

/// The device's real microphone, for apps that capture it themselves and push it through a
/// custom mic (the pass-through case: echo still reaches it). Open it to start buffering.
public final class Microphone {
    /// Two seconds: the longest burst a scenario's period may ask for (990 ms), the reserve and the
    /// converter's block, with room for a late timer (one second held none of that at 1 s).
    var fifo = SampleFIFO(capacity: 2 * AudioFormat.engine.sampleRate)
    let conditioner = OutputConditioner(engineRate: AudioFormat.engine.sampleRate)
    public private(set) var isOpen = false
    /// Whether captures deliver audio: from the first that found a whole buffer's worth picked up
    /// since the microphone opened, until it closes.
    public private(set) var isDelivering = false

    init() {}

    public func open() {
        if !isOpen {
            conditioner.restart()
            isDelivering = false
        }
        isOpen = true
    }

    public func close() {
        isOpen = false
        isDelivering = false
        fifo.clear()
    }

    /// Fills `audioBuffer` with what the microphone picked up; returns the frames that are real.
    /// Until the microphone has picked up the whole buffer's worth and one engine block more (the
    /// reserve against a capture that comes early), a capture delivers nothing: it returns 0 with
    /// the buffer silent, and `isDelivering` stays false. An app's capture callback never hands
    /// out silence before the hardware has audio, so pushing nothing until then is what keeps a
    /// switch to this microphone free of a hole: the engine goes on with the old source until
    /// the new one's audio is there. The first delivery starts at the newest audio that leaves the
    /// reserve: at 48 kHz the stream's latency is what priming silence gave it, at other rates
    /// one engine block (10 ms) more (see below).
    @discardableResult
    public func capture<Sample: PCMSample>(into audioBuffer: inout PCMBuffer<Sample>) -> Int {
        guard isOpen else { return 0 }
        if !isDelivering {
            let frames = min(audioBuffer.frameCount, audioBuffer.samples.count / max(audioBuffer.channelCount, 1))
            let engineRate = conditioner.engineRate
            let burst = (frames * engineRate + audioBuffer.sampleRate - 1) / max(audioBuffer.sampleRate, 1)
            // At another rate one engine block more: the converter takes its input in whole
            // blocks and holds some back, so a first pull uses more than a burst, and with only
            // the reserve left a timer 2 ms early ran dry (7 ms of silence at 44.1 kHz).
            let block = engineRate / 100
            let needed = burst + block + (audioBuffer.sampleRate == engineRate ? 0 : block)
            guard fifo.count >= needed else {
                for i in audioBuffer.samples.indices { audioBuffer.samples[i] = Sample(engineValue: 0) }
                return 0
            }
            fifo.discardOldest(fifo.count - needed)
            isDelivering = true
        }
        return conditioner.pull(from: &fifo, into: &audioBuffer)
    }
}
