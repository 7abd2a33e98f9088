import AudioCore
import AudioInterop
import VirtualTime

/// A custom mic that plays a `SignalSource` on its own timer — the reference document's
/// `AudioFileMicrophone`: every period it reads the next frames and `sendAudio`s them.
/// `FileMicrophone` and `GeneratorMicrophone` are this with a file or a generator.
public class SourceMicrophone: CustomMic {
    private let source: BlockSource
    private var frame: AppFrameBuffer
    private let scheduler: Scheduler
    private var timer: RepeatingTimer?
    private let name: String
    /// The first error reading the source, if any (the timer stops then).
    public private(set) var failure: Error?

    /// `decoded`: where a file is decoded once and shared (the call's own, by default).
    init(call: SimulatedCall, source: SignalSource, loops: Bool, options: AppDeviceOptions, name: String,
         decoded: DecodedAudioCache? = nil) throws {
        self.source = try BlockSource(source, sampleRate: options.sampleRate, loops: loops, cache: decoded ?? call.decodedAudio)
        frame = AppFrameBuffer(options: options)
        scheduler = call.scheduler
        self.name = name
    }

    public override var deviceName: String { name }

    /// Starts sending (`playFile(url:)` in the reference code).
    public func start() {
        guard timer == nil else { return }
        timer = frame.options.startTimer(on: scheduler, phase: .capture) { [unowned self] in sendNextFrame() }
    }

    /// Stops sending (`stopPlayback()`).
    public func stop() {
        timer?.cancel()
        timer = nil
    }

    /// The engine reads this mic no more (it switched to another): stop sending, as an app
    /// would on this callback.
    public override func didStopCapturing() {
        stop()
    }

    private func sendNextFrame() {
        do {
            try source.read(into: &frame.mono, count: frame.frameCount)
        } catch {
            failure = error
            stop()
            return
        }
        frame.packMono()
        frame.send(to: self)
    }
}

/// A WAV (any libsndfile format) as the microphone; silence after its end unless it loops.
public final class FileMicrophone: SourceMicrophone {
    /// `decoded`: a cache the file is decoded into once and read from by every mic of it
    /// (without one, the call's corpus cache, or the file streams).
    public init(call: SimulatedCall, path: String, channel: ChannelSelection = .monoOnly, loops: Bool = false,
                options: AppDeviceOptions = AppDeviceOptions(), decoded: DecodedAudioCache? = nil) throws {
        try super.init(call: call, source: .file(path: path, channel: channel), loops: loops, options: options, name: "file microphone",
                       decoded: decoded)
    }
}

/// A tone or noise generator as the microphone (TTS and test-signal sources).
public final class GeneratorMicrophone: SourceMicrophone {
    public init(call: SimulatedCall, signal: SignalKind, seed: UInt64 = 0, options: AppDeviceOptions = AppDeviceOptions()) throws {
        try super.init(call: call, source: .generator(signal, seed: seed), loops: false, options: options, name: "generator microphone")
    }
}
