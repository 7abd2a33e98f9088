import AudioInterop
import VirtualTime

/// The reference document's `AudioFileRecorder`: pulls what the peer said every period and
/// writes it to a WAV; nothing reaches the room, so there is no echo to cancel.
public final class RecordingSpeaker: CustomSpeaker {
    private let scheduler: Scheduler
    private var frame: AppFrameBuffer
    private var timer: RepeatingTimer?
    private var writer: SoundFileWriter?
    public let path: String
    public private(set) var failure: Error?

    public init(call: SimulatedCall, path: String, options: AppDeviceOptions = AppDeviceOptions()) {
        scheduler = call.scheduler
        frame = AppFrameBuffer(options: options)
        self.path = path
    }

    public override var drivesLoudspeaker: Bool { false }
    public override var deviceName: String { "recording speaker" }

    /// Opens the file and starts pulling (`startRecording(to:)`).
    public func start() throws {
        guard timer == nil else { return }
        if writer == nil {
            writer = try SoundFileWriter(path: path, sampleRate: frame.options.sampleRate, channelCount: 1)
        }
        timer = frame.options.startTimer(on: scheduler, phase: .render) { [unowned self] in record() }
    }

    /// Stops pulling; the file stays open for a later `start()` until `finish()`.
    public func stop() {
        timer?.cancel()
        timer = nil
    }

    /// Closes the recording under its final name.
    public func finish() throws {
        stop()
        try writer?.finish()
        writer = nil
    }

    private func record() {
        frame.pull(from: self)
        do {
            try writer?.write(frame.mono, frames: frame.frameCount)
        } catch {
            failure = error
            stop()
        }
    }
}
