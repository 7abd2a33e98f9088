import AudioCore
import AudioInterop

/// The call's send-side voice quality engine (PlanetKit's `sendVoiceProcessor`):
/// capture → AEC (mode, backend) → noise suppression → AGC → sent.
/// Mode changes take effect on the next tick; a new intensity with a different filter length
/// starts a new filter (it re-converges, as a real engine does), one with the same filter keeps
/// what it learned and only changes suppression.
public final class SendVoiceProcessor {
    public let frameSize: Int
    public let sampleRate: Int
    public let backend: EchoCancellerBackend
    public private(set) var echoCancellerMode: EchoCancellerMode = .disabled
    public private(set) var noiseSuppressorMode: NoiseSuppressorMode = .disabled
    public private(set) var autoGainControlMode: AutoGainControlMode = .disabled
    /// A fixed filter length from the scenario (`aec.filter_ms`), overriding the mode's.
    public let filterOverride: Int?
    public private(set) var canceller: EchoCanceller? {
        willSet { if let canceller, canceller !== newValue { retiredResets += canceller.divergenceResets } }
    }
    private var retiredResets = 0
    /// Times a canceller of this call reset its diverged filter, over every mode it ran in.
    public var cancellerResets: Int { retiredResets + (canceller?.divergenceResets ?? 0) }
    private var adaptive: AdaptiveIntensity?
    private var enhancer: SpeexPreprocessor?
    private var enhancerFrame: [Int16]
    /// Why adaptive suppression changed, in order.
    public var adaptiveDecisions: [AdaptiveDecision] { adaptive?.decisions ?? [] }

    init(frameSize: Int, sampleRate: Int, backend: EchoCancellerBackend, filterOverride: Int?) {
        self.frameSize = frameSize
        self.sampleRate = sampleRate
        self.backend = backend
        self.filterOverride = filterOverride
        enhancerFrame = [Int16](repeating: 0, count: frameSize)
    }

    /// `setAcousticEchoCanceller(mode:)`.
    public func setAcousticEchoCanceller(mode: EchoCancellerMode) throws {
        guard let settings = EchoCancellerSettings.forMode(mode, filterOverride: filterOverride) else {
            canceller = nil
            adaptive = nil
            echoCancellerMode = .disabled
            return
        }
        if let speex = canceller as? SpeexEchoControl, speex.settings.filterMilliseconds == settings.filterMilliseconds {
            speex.updateSuppression(settings.suppressionDB, doubleTalk: settings.doubleTalkSuppressionDB)
        } else {
            canceller = try makeCanceller(settings)
        }
        echoCancellerMode = mode
        if mode == .intensityAdaptive, let speex = canceller as? SpeexEchoControl {
            let adaptive = AdaptiveIntensity(framesPerWindow: sampleRate / 2 / frameSize, samplesPerFrame: frameSize) { [unowned speex] suppression, active in
                speex.updateSuppression(suppression, doubleTalk: active)
            }
            speex.observer = { adaptive.observe(reference: $0, capture: $1, linearOutput: $2) }
            self.adaptive = adaptive
        } else {
            (canceller as? SpeexEchoControl)?.observer = nil
            adaptive = nil
        }
    }

    private func makeCanceller(_ settings: EchoCancellerSettings) throws -> EchoCanceller {
        switch backend {
        case .speex: try SpeexEchoControl(frameSize: frameSize, sampleRate: sampleRate, settings: settings)
        }
    }

    /// `setNoiseSuppressor(mode:)`: speexdsp's spectral noise suppression (−15 dB at most).
    public func setNoiseSuppressor(mode: NoiseSuppressorMode) throws {
        noiseSuppressorMode = mode
        try configureEnhancer()
    }

    /// `setAutoGainControl(mode:)`: speexdsp's software AGC towards about −12 dBFS speech level.
    public func setAutoGainControl(mode: AutoGainControlMode) throws {
        autoGainControlMode = mode
        try configureEnhancer()
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
    func process(capture: [Float], reference: [Float], sent: inout [Float]) {
        if let canceller {
            canceller.process(capture: capture, reference: reference, output: &sent)
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
