import AudioCore

/// A custom audio sink (PlanetKit's `PlanetKitCustomSpeaker`, Agora's external audio sink):
/// subclass it and pull what the peer said with `playAudio(into:)` on your own timer (20 or
/// 50 ms in the reference code). What reaches the room is up to you: play it on the call's
/// `loudspeaker`, record it, mix it — and if what you play differs from what you pulled, tell the
/// echo canceller with `putUserAcousticEchoCancellerReference`.
open class CustomSpeaker {
    var playout = SampleFIFO(capacity: AudioFormat.engine.sampleRate)
    let conditioner = OutputConditioner(engineRate: AudioFormat.engine.sampleRate)
    public internal(set) var isInUse = false
    /// The call's audio manager that set it, while it is in use: another call's is refused.
    weak var manager: AudioManager?

    public init() {}

    /// Whether what this speaker plays differs from what it pulls (mixing, effects). The lint
    /// requires the user AEC reference for such speakers when a real microphone is in use.
    open var altersPlayout: Bool { false }
    /// Whether this speaker plays into the room at all (a recorder does not).
    open var drivesLoudspeaker: Bool { true }
    open var deviceName: String { String(describing: type(of: self)) }

    /// Fills `audioBuffer` with the peer's audio, converted to its rate, channel count and sample
    /// type, and returns the number of **bytes** that hold call audio (PlanetKit's meaning: divide
    /// by the bytes per frame for frames). Silence before the first audio (startup latency) is part
    /// of the stream and counted in the bytes; after an underrun the rest of the buffer is zeroed
    /// and not counted. Returns 0 while not selected.
    @discardableResult
    public final func playAudio<Sample: PCMSample>(into audioBuffer: inout PCMBuffer<Sample>) -> Int {
        guard isInUse else {
            for i in audioBuffer.samples.indices { audioBuffer.samples[i] = .zero }
            return 0
        }
        let frames = conditioner.pull(from: &playout, into: &audioBuffer)
        return frames * audioBuffer.channelCount * Sample.sampleType.bytesPerSample
    }

    /// Called when the speaker is set (`setCustomSpeaker`): start pulling frames now.
    open func didStartPlaying() {}
    /// Called once when the speaker is let go: reset to the default speaker, or the call ended
    /// with it in use.
    open func didStopPlaying() {}
}
