import AudioCore
import AudioInterop
import EchoCancellation

/// The echolab backend: EchoLab's own canceller (`EchoLabCanceller`): a Kalman-stepped main
/// filter and a coarse filter over a 250 ms tail placed by a bulk delay estimate (up to 500 ms),
/// then residual echo suppression with a near-end detector and comfort noise. The linear filter
/// is the same at every intensity; the intensities are suppression targets:
///
/// | intensity | far-end single talk | double talk |
/// |---|---|---|
/// | `intensityMin` | residual × 1.5 off, floor −20 dB | nothing off |
/// | `intensityRecommended` | residual × 2 off, floor −40 dB, gated to the noise floor | nothing off |
/// | `intensityMax` | residual × 3 off, floor −60 dB, gated to the noise floor | residual × 1.5, floor −20 dB |
///
/// `intensityAdaptive` starts at Recommended and is steered like every backend's
/// (`AdaptiveIntensity`, through `residualSuppression`: ERL, double-talk share and echo-to-near
/// ratio), keeping the near talker whole unless asked for −25 dB in double talk or the echo path
/// is weak (a handset, a headset). The output is one frame late.
public final class EchoLabEchoControl: EchoControl, ResidualSuppressionControl {
    public let backend = EchoCancellerBackend.echolab
    public let sampleRate: Int
    public let frameSize: Int
    public private(set) var intensity: EchoCancellerMode
    public var suppressionDB: Int { Int(canceller.settings.farEndFloorDB) }
    public var doubleTalkSuppressionDB: Int { Int(canceller.settings.doubleTalkFloorDB) }
    let canceller: EchoLabCanceller

    public init(sampleRate: Int, frameSize: Int, intensity: EchoCancellerMode) throws {
        guard let settings = Self.suppression(for: intensity) else {
            throw EchoControlError.noCanceller(backend: "echolab", intensity: intensity)
        }
        guard sampleRate >= EchoLabCanceller.minimumSampleRate else {
            throw EchoControlError.unsupportedRate(backend: "echolab", sampleRate: sampleRate,
                                                   supported: "\(EchoLabCanceller.minimumSampleRate) Hz or more")
        }
        self.sampleRate = sampleRate
        self.frameSize = frameSize
        self.intensity = intensity
        canceller = EchoLabCanceller(sampleRate: sampleRate, frameSize: frameSize, settings: settings)
    }

    /// The lowest rate it runs at (`EchoLabCanceller.minimumSampleRate`).
    public static var minimumSampleRate: Int { EchoLabCanceller.minimumSampleRate }

    static func suppression(for intensity: EchoCancellerMode) -> SuppressionSettings? {
        switch intensity {
        case .disabled: nil
        case .intensityMin: .light
        case .intensityRecommended, .intensityAdaptive: .recommended
        case .intensityMax: .strong
        }
    }

    static func settings(for intensity: EchoCancellerMode) -> [String: EchoControlSetting] {
        suppression(for: intensity).map(settings) ?? [:]
    }

    static func settings(_ settings: SuppressionSettings) -> [String: EchoControlSetting] {
        ["filter_ms": .number(250), "max_delay_ms": .number(500),
         "suppression_db": .number(Double(settings.farEndFloorDB)),
         "double_talk_suppression_db": .number(Double(settings.doubleTalkFloorDB)),
         "overestimate": .number(Double(settings.farEndOverestimate)),
         "gates_far_end_single_talk": .flag(settings.gatesFarEndSingleTalk),
         "library": .text("echolab \(EchoLabVersion.current)")]
    }

    /// What runs now (the adaptive controller's last choice included).
    public var settings: [String: EchoControlSetting] { Self.settings(canceller.settings) }

    public func analyzeRender(_ frame: [Float]) { canceller.analyzeRender(frame) }

    public func processCapture(_ frame: [Float], into output: inout [Float]) {
        canceller.processCapture(frame, into: &output)
    }

    public var linearOutput: [Float]? { canceller.linearOutput }
    public var latencySamples: Int { frameSize }
    public var metrics: EchoControlMetrics {
        EchoControlMetrics(divergenceResets: canceller.divergenceResets, erlDB: canceller.erlDB, erleDB: canceller.erleDB,
                           delayMilliseconds: canceller.delayMilliseconds)
    }
    public var residualSuppression: ResidualSuppressionControl? { self }

    /// The adaptive controller's choice: the floors it names, the far-end overestimate and gating
    /// of the fixed intensity nearest to it. The near talker is kept whole (nothing taken off
    /// while the detector hears it, as at Min and Recommended) unless the controller asks for
    /// −25 dB or more in double talk — strong echo and little double talk — or the path is weak
    /// (the canceller's own ERL 20 dB or more), and then the residual estimate is taken off once.
    /// On a weak path the echo under a talker is 20 dB or more below him: taking the residual off
    /// clears the bins he leaves empty and barely touches him (the development corpus's earpieces,
    /// PESQ-WB 2.76 / 2.73 → 2.91 / 2.86, and 3.61 / 3.16 → 3.73 / 3.46 in the quiet room). In a
    /// loud room it cost the talker (AECMOS other in double talk 3.81 → 3.64), so there it stays
    /// off. The controller relaxes the double-talk floor to keep a talker audible; otherwise this
    /// canceller takes nothing off a talker it hears, whatever the floor, so here the floor only
    /// bounds what the pauses between words lose, and it is never shallower
    /// than Recommended's −10 dB: relaxed past it, it only left the pauses' echo in (3.6 dB of
    /// steady ERLE on the development corpus's held-out double-talk room, and no PESQ-WB won).
    public func setSuppression(farEndOnlyDB suppressionDB: Int, doubleTalkDB doubleTalk: Int) {
        let doubleTalk = min(doubleTalk, Int(SuppressionSettings.recommended.doubleTalkFloorDB))
        guard suppressionDB != self.suppressionDB || doubleTalk != doubleTalkSuppressionDB else { return }
        var settings: SuppressionSettings = suppressionDB > -30 ? .light : suppressionDB > -50 ? .recommended : .strong
        settings.farEndFloorDB = Float(suppressionDB)
        settings.doubleTalkFloorDB = Float(doubleTalk)
        let weakPath = (canceller.erlDB ?? 0) >= 20
        settings.doubleTalkOverestimate = doubleTalk <= -25 || weakPath ? 1 : 0
        canceller.settings = settings
    }

    /// The main filter's modelled echo and the near-end detector's call, for the adaptive controller.
    public var talkState: TalkState? {
        TalkState(modelledEchoPower: canceller.modelledEchoPower, nearEndTalking: canceller.nearEndTalking)
    }

    /// Every intensity runs the same filters: a change only changes the suppression.
    public func changeIntensity(to intensity: EchoCancellerMode) -> Bool {
        guard let settings = Self.suppression(for: intensity) else { return false }
        canceller.settings = settings
        self.intensity = intensity
        return true
    }
}
