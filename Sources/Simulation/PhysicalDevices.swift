import AudioCore

/// The device's real loudspeaker, for apps that drive it themselves (a custom speaker's
/// `playToOutputDevice`). What is played here goes into the room — and, through the echo path,
/// into the microphone — 10 ms per engine tick, through a `CadenceBuffer` like a hardware buffer.
public final class Loudspeaker {
    let conditioner = InputConditioner(engineRate: AudioFormat.engine.sampleRate)
    var buffer = CadenceBuffer(capacity: AudioFormat.engine.sampleRate)

    init() {}

    public func play<Sample: PCMSample>(_ audioBuffer: PCMBuffer<Sample>) {
        conditioner.append(audioBuffer, to: &buffer)
    }
}

/// The device's real microphone, for apps that capture it themselves and push it through a
/// custom mic (the pass-through case: echo still reaches it). Open it to start buffering.
public final class Microphone {
    var fifo = SampleFIFO(capacity: AudioFormat.engine.sampleRate)
    let conditioner = OutputConditioner(engineRate: AudioFormat.engine.sampleRate)
    public private(set) var isOpen = false

    init() {}

    public func open() {
        if !isOpen { conditioner.restart() }
        isOpen = true
    }

    public func close() {
        isOpen = false
        fifo.clear()
    }

    /// Fills `audioBuffer` with what the microphone picked up; returns the frames that are real.
    @discardableResult
    public func capture<Sample: PCMSample>(into audioBuffer: inout PCMBuffer<Sample>) -> Int {
        guard isOpen else { return 0 }
        return conditioner.pull(from: &fifo, into: &audioBuffer)
    }
}
