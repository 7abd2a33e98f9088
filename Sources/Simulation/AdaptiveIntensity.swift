import AudioCore
import Foundation

/// `intensityAdaptive`: every half second, measure the echo path and the talk situation and pick
/// the residual suppression, instead of fixing it in advance:
/// - ERL estimate = reference power / capture power over frames where the far end is active.
///   Strong echo (ERL < 6 dB, a loud speakerphone) needs −60/−25 dB; moderate echo (6–20 dB) the
///   recommended −40/−15 dB; weak echo (≥ 20 dB, a headset) only −20/−10 dB, sparing the near end.
/// - Double talk = share of far-end-active frames where the linear filter removes less than
///   3 dB although it had removed ≥ 10 dB on average (the near end is talking over the echo).
///   Above 30 %, the double-talk suppression is relaxed by 10 dB so the near end stays audible.
/// The decisions are logged with their measurements so reports can show why suppression changed.
/// The same controller steers a simulated call (`SendVoiceProcessor`) and a recording run
/// through the canceller (`RecordingProcessor`): the mode means one thing wherever it runs.
public final class AdaptiveIntensity {
    private let framesPerWindow: Int
    private let samplesPerFrame: Int
    private var frame: Int64 = 0
    private var referenceSum: Double = 0
    private var captureSum: Double = 0
    private var activeFrames = 0
    private var doubleTalkFrames = 0
    private var smoothedAttenuationDB = 0.0
    /// The decisions, bounded: the first `maximumDecisions − 1` and, in the last slot, the
    /// latest (a day-long call switching every half second would otherwise keep 172 800).
    public private(set) var decisions: [AdaptiveDecision] = []
    /// Every decision taken, including those no longer listed.
    public private(set) var decisionCount = 0
    static let maximumDecisions = 1024
    private let apply: (Int, Int) -> Void
    private let activityThreshold: Float = 1e-5   // −50 dBFS mean square

    init(framesPerWindow: Int, samplesPerFrame: Int, apply: @escaping (Int, Int) -> Void) {
        self.framesPerWindow = framesPerWindow
        self.samplesPerFrame = samplesPerFrame
        self.apply = apply
        decisions.reserveCapacity(Self.maximumDecisions)
    }

    /// A controller steering `control`'s residual suppression, deciding every half second of
    /// `frameSize`-sample frames at `sampleRate`; nil when the backend has no suppression to steer.
    public static func steering(_ control: EchoControl, sampleRate: Int, frameSize: Int) -> AdaptiveIntensity? {
        guard let suppression = control.residualSuppression else { return nil }
        return AdaptiveIntensity(framesPerWindow: max(1, sampleRate / 2 / frameSize), samplesPerFrame: frameSize) { [unowned suppression] single, double in
            suppression.setSuppression(single, doubleTalk: double)
        }
    }

    /// One frame the canceller has just processed: its reference and capture (`count` samples)
    /// and the canceller's linear output, where it shows one.
    public func observe(reference: [Float], capture: [Float], count: Int, control: EchoControl) {
        observe(reference: VectorMath.meanSquare(reference, count: count), capture: VectorMath.meanSquare(capture, count: count),
                linearOutput: control.linearOutput.map { VectorMath.meanSquare($0, count: count) })
    }

    /// One frame's mean squares; `linearOutput` nil where the backend has no linear stage to
    /// show (then double talk is not measured and the share stays 0).
    func observe(reference: Float, capture: Float, linearOutput: Float?) {
        frame += 1
        if reference > activityThreshold && capture > 0 {
            activeFrames += 1
            referenceSum += Double(reference)
            captureSum += Double(capture)
            if let linearOutput {
                let attenuation = 10 * log10(Double(capture) / max(Double(linearOutput), 1e-12))
                smoothedAttenuationDB = 0.98 * smoothedAttenuationDB + 0.02 * attenuation
                if smoothedAttenuationDB >= 10 && attenuation < 3 { doubleTalkFrames += 1 }
            }
        }
        if frame % Int64(framesPerWindow) == 0 { decide() }
    }

    private func decide() {
        defer { referenceSum = 0; captureSum = 0; activeFrames = 0; doubleTalkFrames = 0 }
        guard activeFrames >= framesPerWindow / 4, captureSum > 0 else { return }
        let erl = 10 * log10(referenceSum / captureSum)
        let share = Double(doubleTalkFrames) / Double(activeFrames)
        var (suppression, active) = erl < 6 ? (-60, -25) : erl < 20 ? (-40, -15) : (-20, -10)
        if share > 0.3 { active += 10 }
        if decisions.last.map({ $0.suppressionDB != suppression || $0.doubleTalkSuppressionDB != active }) ?? true {
            let decision = AdaptiveDecision(frame: frame * Int64(samplesPerFrame), erlEstimateDB: erl, doubleTalkShare: share,
                                            suppressionDB: suppression, doubleTalkSuppressionDB: active)
            if decisions.count < Self.maximumDecisions {
                decisions.append(decision)
            } else {
                decisions[decisions.count - 1] = decision
            }
            decisionCount += 1
            apply(suppression, active)
        }
    }
}

/// Why `intensityAdaptive` changed suppression, with what it measured.
public struct AdaptiveDecision: Hashable, Sendable {
    /// Sample index (engine rate) at which the decision took effect.
    public var frame: Int64
    public var erlEstimateDB: Double
    public var doubleTalkShare: Double
    public var suppressionDB: Int
    public var doubleTalkSuppressionDB: Int

    public init(frame: Int64, erlEstimateDB: Double, doubleTalkShare: Double, suppressionDB: Int, doubleTalkSuppressionDB: Int) {
        self.frame = frame
        self.erlEstimateDB = erlEstimateDB
        self.doubleTalkShare = doubleTalkShare
        self.suppressionDB = suppressionDB
        self.doubleTalkSuppressionDB = doubleTalkSuppressionDB
    }
}
