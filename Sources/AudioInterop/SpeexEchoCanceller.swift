internal import CSpeexDSP
internal import CSpeexWarnings
import AudioCore

/// speexdsp's MDF echo canceller (`speex_echo_state_init_mc`). It takes Int16 frames only:
/// `capture` is what the microphone picked up, `reference` what the loudspeaker played for the
/// same frame; `output` receives the capture with the estimated echo removed.
public final class SpeexEchoCanceller {
    public let frameSize: Int
    public let filterLength: Int
    public let sampleRate: Int
    let state: OpaquePointer
    /// Times speexdsp reset the filter because it diverged ("acting funny and got slapped"):
    /// counted here, never printed (see CSpeexWarnings).
    public private(set) var divergenceResets = 0

    /// - Parameters:
    ///   - frameSize: samples per call (10–20 ms is what speex is tuned for).
    ///   - filterLength: the echo tail the adaptive filter can model, in samples (a room: 100–500 ms).
    public init(frameSize: Int, filterLength: Int, sampleRate: Int) throws {
        guard frameSize > 0, filterLength >= frameSize, sampleRate > 0 else {
            throw CancellerLibraryError.invalidSettings(library: "speex echo canceller", detail: "frame \(frameSize), filter \(filterLength), rate \(sampleRate)")
        }
        guard let state = speex_echo_state_init(Int32(frameSize), Int32(filterLength)) else {
            throw CancellerLibraryError.cannotStart(library: "speex echo canceller", reason: "cannot allocate state")
        }
        var rate = Int32(sampleRate)
        speex_echo_ctl(state, SPEEX_ECHO_SET_SAMPLING_RATE, &rate)
        self.state = state
        self.frameSize = frameSize
        self.filterLength = filterLength
        self.sampleRate = sampleRate
    }

    deinit { speex_echo_state_destroy(state) }

    /// Cancels one frame; all three buffers hold at least `frameSize` samples.
    public func cancel(capture: [Int16], reference: [Int16], output: inout [Int16]) {
        precondition(capture.count >= frameSize && reference.count >= frameSize && output.count >= frameSize)
        capture.withUnsafeBufferPointer { rec in
            reference.withUnsafeBufferPointer { play in
                output.withUnsafeMutableBufferPointer { out in
                    speex_echo_cancellation(state, rec.baseAddress, play.baseAddress, out.baseAddress)
                }
            }
        }
        // Thread-local, read right after the call: only this canceller's resets are in it.
        divergenceResets += Int(echolab_take_speex_resets())
    }

    /// Forgets the adapted filter (a device reset or route change).
    public func reset() { speex_echo_state_reset(state) }
}

/// speexdsp's preprocessor: noise suppression, automatic gain control and, when linked to an
/// echo canceller, residual echo suppression. Processes Int16 frames in place.
public final class SpeexPreprocessor {
    public let frameSize: Int
    public let sampleRate: Int
    private let state: OpaquePointer
    private var echoCanceller: SpeexEchoCanceller?   // kept alive while linked
    private var noiseSuppressionEnabled = false
    private var noiseSuppressionDB = -15

    public init(frameSize: Int, sampleRate: Int) throws {
        guard frameSize > 0, sampleRate > 0 else {
            throw CancellerLibraryError.invalidSettings(library: "speex preprocessor", detail: "frame \(frameSize), rate \(sampleRate)")
        }
        guard let state = speex_preprocess_state_init(Int32(frameSize), Int32(sampleRate)) else {
            throw CancellerLibraryError.cannotStart(library: "speex preprocessor", reason: "cannot allocate state for frame \(frameSize) at \(sampleRate) Hz")
        }
        self.state = state
        self.frameSize = frameSize
        self.sampleRate = sampleRate
        // Off unless asked: the preprocessor denoises by default.
        setNoiseSuppression(enabled: false)
        setAutomaticGainControl(enabled: false)
    }

    deinit { speex_preprocess_state_destroy(state) }

    /// Noise suppression up to `maxAttenuationDB` (negative). While an echo canceller is linked,
    /// turning noise suppression off keeps residual echo suppression working (see `linkEchoSuppression`).
    public func setNoiseSuppression(enabled: Bool, maxAttenuationDB: Int = -15) {
        noiseSuppressionEnabled = enabled
        noiseSuppressionDB = maxAttenuationDB
        applySpectralGainStage()
    }

    /// speexdsp applies its spectral gain, which carries both noise suppression and residual echo
    /// suppression, only while `SPEEX_PREPROCESS_SET_DENOISE` is on (`speex_preprocess_run` resets
    /// the gains to 1 otherwise). So the stage is on whenever either is wanted; with noise
    /// suppression off but an echo canceller linked, the noise floor is set to 0 dB so that only
    /// the residual echo is attenuated.
    private func applySpectralGainStage() {
        var on: Int32 = (noiseSuppressionEnabled || echoCanceller != nil) ? 1 : 0
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DENOISE, &on)
        var level = Int32(noiseSuppressionEnabled ? noiseSuppressionDB : 0)
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &level)
    }

    /// AGC towards `targetLevel` (speex's integer level, 8000 ≈ −12 dBFS RMS for speech).
    public func setAutomaticGainControl(enabled: Bool, targetLevel: Int = 8000, maxGainDB: Int = 30) {
        var on: Int32 = enabled ? 1 : 0
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC, &on)
        var target = Int32(targetLevel)
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC_TARGET, &target)
        var gain = Int32(maxGainDB)
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC_MAX_GAIN, &gain)
    }

    /// Links residual echo suppression to `canceller` (nil unlinks), with the attenuation in dB
    /// applied to residual echo alone and while the near end talks too (double talk).
    /// Residual echo suppression needs speex's spectral gain stage, so linking turns that stage on
    /// even when noise suppression is off (with a 0 dB noise floor, so noise is left alone).
    public func linkEchoSuppression(to canceller: SpeexEchoCanceller?, suppressDB: Int = -40, suppressActiveDB: Int = -15) {
        echoCanceller = canceller
        // SET_ECHO_STATE takes the SpeexEchoState* itself as the argument (nil unlinks).
        let pointer = canceller.map { UnsafeMutableRawPointer($0.state) }
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_ECHO_STATE, pointer)
        applySpectralGainStage()
        var suppress = Int32(suppressDB)
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_ECHO_SUPPRESS, &suppress)
        var active = Int32(suppressActiveDB)
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE, &active)
    }

    /// Processes `frame` in place; returns speex's voice-activity decision.
    @discardableResult
    public func process(_ frame: inout [Int16]) -> Bool {
        precondition(frame.count >= frameSize)
        return frame.withUnsafeMutableBufferPointer { speex_preprocess_run(state, $0.baseAddress) } != 0
    }
}
