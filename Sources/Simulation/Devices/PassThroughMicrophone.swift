import VirtualTime

/// The app captures the physical microphone itself and pushes it as a custom mic (Agora's
/// `AudioController` → `pushExternalAudioFrame` case). Echo from the loudspeaker still reaches
/// it, so it is a real microphone: AEC must stay on.
public final class PassThroughMicrophone: CustomMic {
    /// Weak: the call keeps its devices (for the counters) until it ends; a strong reference
    /// back would keep every call with such a device alive forever.
    private weak var call: SimulatedCall?
    private var frame: AppFrameBuffer
    private var timer: RepeatingTimer?

    public init(call: SimulatedCall, options: AppDeviceOptions = AppDeviceOptions()) {
        self.call = call
        frame = AppFrameBuffer(options: options)
    }

    public override var isRealMicrophone: Bool { true }
    public override var deviceName: String { "pass-through microphone" }

    public func start() {
        guard timer == nil, let call else { return }
        call.microphone.open()
        timer = frame.options.startTimer(on: call.scheduler, phase: .capture) { [unowned self, unowned call] in
            if frame.capture(from: call.microphone) { frame.send(to: self) }
        }
    }

    /// Stops capturing; closes the microphone only if this device had opened it (a second stop,
    /// such as `didStopCapturing` after the app's own, would close it under another mic's feet).
    public func stop() {
        guard let running = timer else { return }
        running.cancel()
        timer = nil
        call?.microphone.close()
    }

    /// The engine reads this mic no more (it switched to another): stop capturing, as an app
    /// would on this callback.
    public override func didStopCapturing() {
        stop()
    }
}
