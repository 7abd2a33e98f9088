import AudioInterop
import VirtualTime

/// The reference document's `AudioFileRecorder`: pulls what the peer said every period through a
/// render graph (playout → recorder tap) that writes it to a WAV; nothing reaches the room, so
/// there is no echo to cancel.
public final class RecordingSpeaker: CustomSpeaker {
    private let scheduler: Scheduler
    private let options: AppDeviceOptions
    private lazy var tap = RecorderTapNode(input: PlayoutNode(speaker: self, options: options))
    private lazy var graph = RenderGraph(output: tap)
    private var timer: RepeatingTimer?
    public let path: String
    public private(set) var failure: Error?

    public init(call: SimulatedCall, path: String, options: AppDeviceOptions = AppDeviceOptions()) {
        scheduler = call.scheduler
        self.options = options
        self.path = path
    }

    public override var drivesLoudspeaker: Bool { false }
    public override var deviceName: String { "recording speaker" }

    /// Opens the file and starts pulling (`startRecording(to:)`).
    public func start() throws {
        guard timer == nil else { return }
        if tap.writer == nil {
            tap.writer = try SoundFileWriter(path: path, sampleRate: options.sampleRate, channelCount: 1)
        }
        timer = options.startTimer(on: scheduler, phase: .render) { [unowned self] in record() }
    }

    /// Stops pulling; the file stays open for a later `start()` until `finish()`.
    public func stop() {
        timer?.cancel()
        timer = nil
    }

    /// Closes the recording under its final name.
    public func finish() throws {
        stop()
        try tap.writer?.finish()
        tap.writer = nil
    }

    private func record() {
        do {
            try graph.render(frames: options.framesPerPeriod)
        } catch {
            failure = error
            stop()
        }
    }
}
