import AudioCore
import AudioInterop

/// The call's send-side voice quality engine (PlanetKit's `sendVoiceProcessor`):
/// capture → AEC (mode, backend) → noise suppression → AGC → sent.
/// Mode changes take effect on the next tick.
public final class SendVoiceProcessor {
    public let frameSize: Int
    public let sampleRate: Int
    public let backend: EchoCancellerBackend
    public private(set) var echoCancellerMode: EchoCancellerMode = .disabled
    public private(set) var noiseSuppressorMode: NoiseSuppressorMode = .disabled
    public private(set) var autoGainControlMode: AutoGainControlMode = .disabled
    /// A fixed filter length from the scenario (`aec.filter_ms`), overriding the mode's.
    public let filterOverride: Int?
    /// Where the cancellers' latencies are remembered: a new canceller of a configuration met
    /// before (an intensity change back) is not measured again.
    let latencies: EchoControlLatencies
    public private(set) var canceller: EchoControl? {
        willSet { if let canceller, canceller !== newValue { retiredResets += canceller.metrics.divergenceResets } }
    }
    private var retiredResets = 0
    /// Times a canceller of this call reset its diverged filter, over every mode it ran in.
    public var cancellerResets: Int { retiredResets + (canceller?.metrics.divergenceResets ?? 0) }
    private var adaptive: AdaptiveIntensity?
    private var enhancer: SpeexPreprocessor?
    private var enhancerFrame: [Int16]
    /// Ticks processed: the frame a canceller's output is checked as (`EchoControl.checkOutput`).
    private var processedFrames = 0
    /// Samples by which `sent` lags the capture now: the canceller's latency, and one frame for
    /// the speexdsp preprocessor (noise suppression, AGC), whose overlap-add outputs a frame late.
    public var latencySamples: Int { (canceller?.latencySamples ?? 0) + (enhancer == nil ? 0 : frameSize) }
    /// Why adaptive suppression changed, in order, over every stretch the call ran in
    /// intensityAdaptive: the first 1023 decisions and the latest (bounded, so a day-long call's
    /// list stays small; `adaptiveDecisionCount` counts them all).
    public var adaptiveDecisions: [AdaptiveDecision] { AdaptiveIntensity.kept(earlierDecisions + (adaptive?.decisions ?? [])) }
    /// The decisions of the controllers a mode change replaced (each starts afresh): a report
    /// listed the last one's alone, dated from its own start, 4.5 s early.
    private var earlierDecisions: [AdaptiveDecision] = []
    private var earlierDecisionCount = 0
    /// The name the last canceller plugin made gave itself (nil: none ran).
    public private(set) var pluginName: String?
    /// The files the call's plugin cancellers were loaded from (one, unless the file was replaced
    /// between two of them).
    public private(set) var pluginFiles: Set<FileIdentity> = []
    /// The latency it reported (`latency_samples`, at its own rate).
    public private(set) var pluginLatencySamples: Int?
    /// How many decisions adaptive suppression took, listed or not.
    public var adaptiveDecisionCount: Int { earlierDecisionCount + (adaptive?.decisionCount ?? 0) }

    /// Told of each mode the app sets (component — "aec", "ns", "agc" — and what it is now): the
    /// call logs them as events, whoever set them, a scenario's timeline or app code.
    var onChange: ((String, String) -> Void)?

    init(frameSize: Int, sampleRate: Int, backend: EchoCancellerBackend, filterOverride: Int?, latencies: EchoControlLatencies) {
        self.latencies = latencies
        self.frameSize = frameSize
        self.sampleRate = sampleRate
        self.backend = backend
        self.filterOverride = filterOverride
        enhancerFrame = [Int16](repeating: 0, count: frameSize)
    }

    /// `setAcousticEchoCanceller(mode:)`. A backend that can switch in place keeps what it
    /// learned (speex: same filter length; WebRTC: always); otherwise a new canceller starts and
    /// re-converges, as a real engine does.
    public func setAcousticEchoCanceller(mode: EchoCancellerMode) throws {
        if mode == .disabled {
            try retireCanceller()
        } else if canceller?.changeIntensity(to: mode) != true {
            try retireCanceller()
            canceller = try EchoControlFactory.make(EchoControlMode(backend: backend, intensity: mode), sampleRate: sampleRate,
                                                    frameSize: frameSize, filterOverride: filterOverride, latencies: latencies)
            if let plugin = canceller as? PluginEchoControl {
                pluginName = plugin.reportedName
                pluginLatencySamples = plugin.reportedLatencySamples
                if let file = plugin.loadedFile { pluginFiles.insert(file) }
            }
        }
        echoCancellerMode = mode
        if let replaced = adaptive {
            earlierDecisions = AdaptiveIntensity.kept(earlierDecisions + replaced.decisions)
            earlierDecisionCount += replaced.decisionCount
        }
        adaptive = mode == .intensityAdaptive
            ? canceller.flatMap { AdaptiveIntensity(steering: $0, sampleRate: sampleRate, frameSize: frameSize, startFrame: Int64(processedFrames)) }
            : nil
        onChange?("aec", "mode \(mode)")
    }

    /// Ends the canceller's run (`EchoControl.finish`) at the call's end, before `SimulatedCall.end()`.
    /// Throws where it failed there (a plugin crashing in its `destroy`).
    public func finishCanceller() throws {
        guard let canceller else { return }
        try canceller.finish()
    }

    /// Lets go of the canceller a mode change replaces: detached first, so that whatever its
    /// `finish` or the next one's making throws, no finished canceller is left to call.
    private func retireCanceller() throws {
        let retired = canceller
        canceller = nil
        try retired?.finish()
    }

    /// `setNoiseSuppressor(mode:)`: speexdsp's spectral noise suppression (−15 dB at most).
    public func setNoiseSuppressor(mode: NoiseSuppressorMode) throws {
        noiseSuppressorMode = mode
        try configureEnhancer()
        onChange?("ns", "mode \(mode)")
    }

    /// `setAutoGainControl(mode:)`: speexdsp's software AGC towards about −12 dBFS speech level.
    public func setAutoGainControl(mode: AutoGainControlMode) throws {
        autoGainControlMode = mode
        try configureEnhancer()
        onChange?("agc", "mode \(mode)")
    }

    private func configureEnhancer() throws {
        guard noiseSuppressorMode == .enabled || autoGainControlMode == .software else {
            enhancer = nil
            return
        }
        let stage = try enhancer ?? SpeexPreprocessor(frameSize: frameSize, sampleRate: sampleRate)
        stage.setNoiseSuppression(enabled: noiseSuppressorMode == .enabled)
        stage.setAutomaticGainControl(enabled: autoGainControlMode == .software)
        enhancer = stage
    }

    /// One tick: `capture` and `reference` in, `sent` out (all `frameSize` long).
    func process(capture: [Float], reference: [Float], sent: inout [Float]) throws {
        defer { processedFrames += 1 }
        if let canceller {
            try canceller.analyzeRender(reference)
            try canceller.processCapture(capture, into: &sent)
            try canceller.checkOutput(sent, frame: processedFrames)
            adaptive?.observe(reference: reference, capture: capture, count: frameSize, control: canceller)
        } else {
            VectorMath.copy(capture, into: &sent, count: frameSize)
        }
        if let enhancer {
            VectorMath.convert(sent, into: &enhancerFrame, count: frameSize)
            enhancer.process(&enhancerFrame)
            VectorMath.convert(enhancerFrame, into: &sent, count: frameSize)
        }
    }
}
