import AudioCore
import Foundation

/// `intensityAdaptive`: every half second, measure the echo path and the talk situation and pick
/// the residual suppression, instead of fixing it in advance:
/// - ERL estimate = reference power / capture power over frames where the far end is active,
///   the last windows counted too (each half the one after it).
///   Strong echo (ERL < 6 dB, a loud speakerphone) needs −60/−25 dB; moderate echo (6–20 dB) the
///   recommended −40/−15 dB; weak echo (≥ 20 dB, a headset) only −20/−10 dB, sparing the near end.
///   A class changes only when the estimate is 2 dB past its edge.
/// - Double talk = share of far-end-active frames where the linear filter removes less than
///   3 dB although it had removed ≥ 10 dB on average (the near end is talking over the echo).
///   Above 30 %, the double-talk suppression is relaxed by 10 dB so the near end stays audible.
/// - Echo-to-near ratio = in those double-talk frames, what the linear filter took off (the
///   echo it modelled: capture less its output) against what it left (the near talker and its
///   residual). At −10 dB or below the talker stands so far over the echo that the filter's
///   residual (20–30 dB under the echo) is inaudible under it: the double-talk suppression is
///   relaxed by 10 dB too (once, whichever of the two asks). Above 50 % double talk the call is
///   a conversation: the far-end suppression is the light −20 dB while it lasts.
/// A backend that reports its own reading of each frame (`TalkState`: the echo its filter
/// modelled, its near-end detector) is measured from that instead: ERL = reference over modelled
/// echo, double talk = its detector's frames, echo-to-near = modelled echo over what the linear
/// stage left in them.
/// The decisions are logged with their measurements so reports can show why suppression changed.
/// The same controller steers a simulated call (`SendVoiceProcessor`) and a recording run
/// through the canceller (`RecordingProcessor`): the mode means one thing wherever it runs.
public final class AdaptiveIntensity {
    private let framesPerWindow: Int
    private let samplesPerFrame: Int
    private let startFrame: Int64
    private var frame: Int64 = 0
    private var referenceSum: Double = 0
    /// The ERL's denominator: capture power, or the echo the backend's filter models where it
    /// reports a `TalkState`.
    private var echoSum: Double = 0
    private var activeFrames = 0
    private var doubleTalkFrames = 0
    private var doubleTalkEcho: Double = 0, doubleTalkNear: Double = 0
    private var referenceHistory: Double = 0, echoHistory: Double = 0
    private var smoothedAttenuationDB = 0.0
    /// The decisions, bounded: the first `maximumDecisions − 1` and, in the last slot, the
    /// latest (a day-long call switching every half second would otherwise keep 172 800).
    public private(set) var decisions: [AdaptiveDecision] = []
    /// Every decision taken, including those no longer listed.
    public private(set) var decisionCount = 0
    static let maximumDecisions = 1024

    /// `decisions` (several controllers' in turn) kept as one controller keeps its own: the first
    /// `maximumDecisions − 1` and the latest.
    static func kept(_ decisions: [AdaptiveDecision]) -> [AdaptiveDecision] {
        guard decisions.count > maximumDecisions, let latest = decisions.last else { return decisions }
        return Array(decisions.prefix(maximumDecisions - 1)) + [latest]
    }
    private let apply: (Int, Int) -> Void
    private let activityThreshold: Float = 1e-5   // −50 dBFS mean square

    /// `startFrame`: the call's frames processed before this controller took over (a mode set
    /// mid-call), so that its decisions are dated in the call's time, not its own.
    init(framesPerWindow: Int, samplesPerFrame: Int, startFrame: Int64 = 0, apply: @escaping (Int, Int) -> Void) {
        self.framesPerWindow = framesPerWindow
        self.samplesPerFrame = samplesPerFrame
        self.startFrame = startFrame
        self.apply = apply
        decisions.reserveCapacity(Self.maximumDecisions)
    }

    /// A controller steering `control`'s residual suppression, deciding every half second of
    /// `frameSize`-sample frames at `sampleRate`; nil when the backend has no suppression to steer.
    public convenience init?(steering control: EchoControl, sampleRate: Int, frameSize: Int, startFrame: Int64 = 0) {
        guard let suppression = control.residualSuppression else { return nil }
        self.init(framesPerWindow: max(1, sampleRate / 2 / frameSize), samplesPerFrame: frameSize,
                  startFrame: startFrame) { [unowned suppression] single, double in
            suppression.setSuppression(farEndOnlyDB: single, doubleTalkDB: double)
        }
    }

    /// One frame the canceller has just processed: its reference and capture (`count` samples)
    /// and the canceller's linear output, where it shows one.
    public func observe(reference: [Float], capture: [Float], count: Int, control: EchoControl) {
        observe(reference: VectorMath.meanSquare(reference, count: count), capture: VectorMath.meanSquare(capture, count: count),
                linearOutput: control.linearOutput.map { VectorMath.meanSquare($0, count: count) },
                talk: control.residualSuppression?.talkState)
    }

    /// One frame's mean squares; `linearOutput` nil where the backend has no linear stage to
    /// show (then double talk is not measured and the share stays 0). With the backend's own
    /// `talk` reading, the ERL is the reference over the echo its filter modelled (a near talker
    /// in the capture does not read as a louder echo path) and double talk is its detector's.
    func observe(reference: Float, capture: Float, linearOutput: Float?, talk: TalkState? = nil) {
        frame += 1
        if let talk {
            if reference > activityThreshold && talk.modelledEchoPower > 0 {
                activeFrames += 1
                if talk.nearEndTalking {
                    doubleTalkFrames += 1
                    doubleTalkEcho += Double(talk.modelledEchoPower)
                    doubleTalkNear += Double(linearOutput ?? capture)
                } else {
                    // The ERL from far-end single talk only: a near talker lifts what the
                    // filter models too while it adapts through the talk.
                    referenceSum += Double(reference)
                    echoSum += Double(talk.modelledEchoPower)
                }
            }
        } else if reference > activityThreshold && capture > 0 {
            activeFrames += 1
            referenceSum += Double(reference)
            echoSum += Double(capture)
            if let linearOutput {
                let attenuation = 10 * log10(Double(capture) / max(Double(linearOutput), 1e-12))
                smoothedAttenuationDB = 0.98 * smoothedAttenuationDB + 0.02 * attenuation
                if smoothedAttenuationDB >= 10 && attenuation < 3 {
                    doubleTalkFrames += 1
                    doubleTalkEcho += max(Double(capture) - Double(linearOutput), 0)
                    doubleTalkNear += Double(linearOutput)
                }
            }
        }
        if frame % Int64(framesPerWindow) == 0 { decide() }
    }

    /// The echo path's class (0: strong, ERL < 6 dB; 1: moderate, < 20 dB; 2: weak), kept until
    /// the estimate is 2 dB past an edge: an ERL near 6 dB flipped the suppression every half
    /// second (5.0, 7.6, 5.9 … dB in one call).
    private var echoPath: Int?
    private static let edges = [6.0, 20.0]
    /// Far-end and double-talk suppression (dB) per class.
    private static let suppressions = [(-60, -25), (-40, -15), (-20, -10)]

    private func classify(_ erl: Double) -> Int {
        let edges = Self.edges
        guard var path = echoPath else { return edges.firstIndex(where: { erl < $0 }) ?? edges.count }
        while path > 0 && erl < edges[path - 1] - 2 { path -= 1 }
        while path < edges.count && erl >= edges[path] + 2 { path += 1 }
        return path
    }

    private func decide() {
        defer { referenceSum = 0; echoSum = 0; activeFrames = 0; doubleTalkFrames = 0; doubleTalkEcho = 0; doubleTalkNear = 0 }
        // The ERL over the last few windows, each weighted by the frames it measured: a window
        // of mostly double talk (whose few single-talk frames are often the detector's misses)
        // moves it little.
        referenceHistory = 0.5 * referenceHistory + referenceSum
        echoHistory = 0.5 * echoHistory + echoSum
        // Until far-end single talk has given an ERL there is no path to classify: the call
        // keeps the intensity it started with (Recommended's), whatever the double talk.
        guard activeFrames >= framesPerWindow / 4, echoHistory > 0 else { return }
        let erl = 10 * log10(referenceHistory / echoHistory)
        let share = Double(doubleTalkFrames) / Double(activeFrames)
        // Without double talk there is no ratio to speak of. Floored at −60 dB: frames where
        // the filter took nothing off read as a talker 60 dB or more over the echo.
        let echoToNear: Double? = doubleTalkFrames > 0 && doubleTalkNear > 0
            ? 10 * log10(max(doubleTalkEcho / doubleTalkNear, 1e-6)) : nil
        let path = classify(erl)
        echoPath = path
        var (suppression, active) = Self.suppressions[path]
        if share > 0.3 || (echoToNear ?? 0) <= -10 { active += 10 }
        // A conversation, not a far end talking alone: what cuts the talker then is the far-end
        // suppression missing its onsets and pauses, so it is the light one while it lasts.
        if share > 0.5 { suppression = max(suppression, -20) }
        if decisions.last.map({ $0.suppressionDB != suppression || $0.doubleTalkSuppressionDB != active }) ?? true {
            let decision = AdaptiveDecision(frame: (startFrame + frame) * Int64(samplesPerFrame), erlEstimateDB: erl, doubleTalkShare: share,
                                            echoToNearDB: echoToNear, suppressionDB: suppression, doubleTalkSuppressionDB: active)
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
    /// Echo the linear filter removed against what it left, in the window's double-talk frames
    /// (dB, floored at −60); nil when the window had none (or the backend shows no linear stage).
    public var echoToNearDB: Double?
    public var suppressionDB: Int
    public var doubleTalkSuppressionDB: Int

    public init(frame: Int64, erlEstimateDB: Double, doubleTalkShare: Double, echoToNearDB: Double? = nil, suppressionDB: Int,
                doubleTalkSuppressionDB: Int) {
        self.frame = frame
        self.erlEstimateDB = erlEstimateDB
        self.doubleTalkShare = doubleTalkShare
        self.echoToNearDB = echoToNearDB
        self.suppressionDB = suppressionDB
        self.doubleTalkSuppressionDB = doubleTalkSuppressionDB
    }
}
