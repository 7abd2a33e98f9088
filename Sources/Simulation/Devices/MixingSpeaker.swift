import AudioCore
import VirtualTime

/// The reference document's `CustomMixingSpeaker`: every period (50 ms there) it pulls the peer,
/// mixes background music in, plays the mix on the loudspeaker and — when `putsReference` —
/// starts the user AEC reference and puts the mix as reference, so the canceller knows about
/// the music. Without it, the music echoes back to the peer.
public final class MixingSpeaker: CustomSpeaker {
    private let call: SimulatedCall
    private let music: BlockSource
    private let musicGain: Float
    public let putsReference: Bool
    private var frame: AppFrameBuffer
    private var musicBlock: [Float]
    private var timer: RepeatingTimer?
    public private(set) var failure: Error?

    public init(call: SimulatedCall, music: SignalSource, musicGainDB: Double = 0, putsReference: Bool,
                options: AppDeviceOptions = AppDeviceOptions()) throws {
        self.call = call
        self.music = try BlockSource(music, sampleRate: options.sampleRate, loops: true)
        musicGain = Float(Decibels.amplitude(fromDB: musicGainDB))
        self.putsReference = putsReference
        frame = AppFrameBuffer(options: options)
        musicBlock = [Float](repeating: 0, count: frame.frameCount)
    }

    public override var altersPlayout: Bool { true }
    public override var deviceName: String { putsReference ? "mixing speaker (with AEC reference)" : "mixing speaker" }

    public func start() {
        guard timer == nil else { return }
        if putsReference { call.startUserAcousticEchoCancellerReference() }
        let timer = frame.options.makeTimer(on: call.scheduler, phase: .render)
        timer.setEventHandler { [unowned self] in mix() }
        timer.schedule()
        self.timer = timer
    }

    public func stop() {
        timer?.cancel()
        timer = nil
        if putsReference { call.stopUserAcousticEchoCancellerReference() }
    }

    private func mix() {
        frame.pull(from: self)
        do {
            try music.read(into: &musicBlock, count: frame.frameCount)
        } catch {
            failure = error
            stop()
            return
        }
        frame.mix(musicBlock, gain: musicGain)
        frame.packMono()
        if putsReference { frame.putReference(to: call) }
        frame.play(on: call.loudspeaker)
    }
}

/// Plays the peer unchanged on the loudspeaker through the app (an app that "directly controls
/// the speaker device"), optionally putting the same audio as user AEC reference.
public final class PassThroughSpeaker: CustomSpeaker {
    private let call: SimulatedCall
    public let putsReference: Bool
    private var frame: AppFrameBuffer
    private var timer: RepeatingTimer?

    public init(call: SimulatedCall, putsReference: Bool, options: AppDeviceOptions = AppDeviceOptions()) {
        self.call = call
        self.putsReference = putsReference
        frame = AppFrameBuffer(options: options)
    }

    public override var deviceName: String { "pass-through speaker" }

    public func start() {
        guard timer == nil else { return }
        if putsReference { call.startUserAcousticEchoCancellerReference() }
        let timer = frame.options.makeTimer(on: call.scheduler, phase: .render)
        timer.setEventHandler { [unowned self] in
            frame.pull(from: self)
            frame.packMono()
            if putsReference { frame.putReference(to: call) }
            frame.play(on: call.loudspeaker)
        }
        timer.schedule()
        self.timer = timer
    }

    public func stop() {
        timer?.cancel()
        timer = nil
        if putsReference { call.stopUserAcousticEchoCancellerReference() }
    }
}
