import AudioCore
import VirtualTime

/// A custom speaker driven by the app that plays into the room itself, as the guide's
/// `CustomMixingSpeaker` does: every period it pulls its render graph (the peer's playout, and
/// whatever a subclass mixes in: `makeGraph`), plays the result on the call's loudspeaker and —
/// when `putsReference` — starts the user AEC reference and puts exactly what it plays, so the
/// canceller knows what the room hears; it stops the reference when it stops, unless the app
/// started the reference itself (then the app must stop it, as PlanetKit's guide does after
/// resetting the custom speaker).
public class AppDrivenSpeaker: CustomSpeaker {
    /// Weak: the call keeps its devices (for the counters) until it ends; a strong reference
    /// back would keep every call with such a device alive forever.
    weak var call: SimulatedCall?
    public let putsReference: Bool
    var frame: AppFrameBuffer
    private var timer: RepeatingTimer?
    public private(set) var failure: Error?

    init(call: SimulatedCall, putsReference: Bool, options: AppDeviceOptions) {
        self.call = call
        self.putsReference = putsReference
        frame = AppFrameBuffer(options: options)
    }

    public func start() {
        guard timer == nil, let call else { return }
        if putsReference { call.startUserReference() }
        timer = frame.options.startTimer(on: call.scheduler, phase: .render) { [unowned self] in playNextBlock() }
    }

    public func stop() {
        if timer != nil { call?.loudspeaker.stop() }
        timer?.cancel()
        timer = nil
        if putsReference { call?.stopUserReferenceOfDevice() }
    }

    /// The graph one period is pulled through; built on first use, so a subclass can reach its
    /// own stored properties. The default plays the peer as it is.
    private(set) lazy var graph = RenderGraph(output: makeGraph(playout: PlayoutNode(speaker: self, options: frame.options)))

    /// The graph's output node, given the node that pulls the peer's playout.
    func makeGraph(playout: PlayoutNode) -> RenderNode { playout }

    private func playNextBlock() {
        guard let call else { return }
        do {
            try graph.render(frames: frame.frameCount)
        } catch {
            failure = error
            stop()
            return
        }
        VectorMath.copy(graph.output, into: &frame.mono, count: frame.frameCount)
        frame.packMono()
        if putsReference { frame.putReference(to: call) }
        frame.play(on: call.loudspeaker)
    }
}

/// The guide's `CustomMixingSpeaker`: peer + background music to the loudspeaker. Without the
/// user AEC reference, the music echoes back to the peer.
public final class MixingSpeaker: AppDrivenSpeaker {
    private let music: BlockSource
    private let musicGain: Float

    public init(call: SimulatedCall, music: SignalSource, musicGainDB: Double = 0, putsReference: Bool,
                options: AppDeviceOptions = AppDeviceOptions()) throws {
        // As much of the music as the call can play, at the speaker's rate, and a second more (a
        // speaker's frames need not end with the call's last tick): decoded once for all of an
        // eval item's modes.
        let frames = call.expectedDuration.map { (SimulatedCall.tickCount(for: $0) + 100) * options.sampleRate / 100 }
        self.music = try BlockSource(music, sampleRate: options.sampleRate, loops: true, cache: call.decodedAudio, expectedFrames: frames)
        musicGain = Float(Decibels.amplitude(fromDB: musicGainDB))
        super.init(call: call, putsReference: putsReference, options: options)
    }

    public override var altersPlayout: Bool { true }
    public override var deviceName: String { putsReference ? "mixing speaker (with AEC reference)" : "mixing speaker" }

    /// Peer (unit gain) + looping music × its gain, on a mixer.
    override func makeGraph(playout: PlayoutNode) -> RenderNode {
        MixerNode(inputs: [.init(playout), .init(PlayerNode(blockSource: music, maximumFrames: frame.frameCount), gain: musicGain)],
                  maximumFrames: frame.frameCount)
    }
}

/// Plays the peer unchanged on the loudspeaker through the app (an app that "directly controls
/// the speaker device"), optionally putting the same audio as user AEC reference.
public final class PassThroughSpeaker: AppDrivenSpeaker {
    public override init(call: SimulatedCall, putsReference: Bool, options: AppDeviceOptions = AppDeviceOptions()) {
        super.init(call: call, putsReference: putsReference, options: options)
    }

    public override var deviceName: String { "pass-through speaker" }
}
