@testable import Evaluation
import Metrics

/// Runs built by hand for eval.json's statistics and verdicts: only the figures a test sets are
/// measured; the rest are nil, on the frame counts given.
enum HandBuiltRuns {
    static func metrics(erleSteady: Double? = nil, erleSteadyBound: Bool = false, erleSteadyFrames: Int = 400,
                        singleTalkFrames: Int = 800, doubleTalkFrames: Int = 300, method: ActivityGateMethod = .nearEndTrack,
                        nearEnd: NearEndPreservation? = nil, estimate: NearEndEstimate? = nil,
                        telephony: TelephonyMeasures? = nil) -> EchoMetrics {
        EchoMetrics(erlDB: nil, erleDB: nil, erleSteadyDB: erleSteady, erleSteadyIsLowerBound: erleSteadyBound, erleSteadyFrames: erleSteadyFrames,
                    convergenceSeconds: nil, delayMilliseconds: nil, erleSeries: [], erleBands: [],
                    gate: ActivityGateSummary(method: method, frames: singleTalkFrames + doubleTalkFrames,
                                              farEndActiveFrames: singleTalkFrames + doubleTalkFrames,
                                              singleTalkFrames: singleTalkFrames, doubleTalkFrames: doubleTalkFrames),
                    nearEnd: nearEnd, nearEndEstimate: estimate, telephony: telephony)
    }

    /// The near end in double talk: its attenuation (a lower bound where it was lost) and distortion.
    static func nearEnd(attenuation: Double?, lost: Bool = false, distortion: Double? = nil, frames: Int = 300) -> NearEndPreservation {
        NearEndPreservation(attenuationDB: attenuation, attenuationIsLowerBound: lost, distortionDB: distortion, doubleTalkFrames: frames,
                            singleTalkAttenuationDB: nil, singleTalkDistortionDB: nil, singleTalkFrames: 0)
    }

    /// The double-talk attenuation range (P.340) on `frames` frames.
    static func doubleTalkRange(_ range: Double, isLowerBound: Bool = false, frames: Int = 300) -> TelephonyMeasures {
        TelephonyMeasures(echoLoss: nil, echoLossUnmeasuredReason: nil,
                          doubleTalk: DoubleTalkReport(doubleTalkFrames: frames, doubleTalkShare: 0.5, levelDifferenceDB: nil,
                                                       levelDifferenceIsLowerBound: false, attenuationRangeDB: range,
                                                       attenuationRangeIsLowerBound: isLowerBound, attenuationRangeFrames: frames,
                                                       singleTalkAttenuationDB: nil, aroundFrames: 0, aroundShare: 0,
                                                       aroundLevelDifferenceDB: nil, aroundLevelDifferenceIsLowerBound: false),
                          doubleTalkUnmeasuredReason: nil)
    }

    /// A run that ran in `mode`.
    static func run(_ mode: String, metrics: EchoMetrics? = nil, findings: [String] = [], scores: [ScorerResult]? = nil) -> EvalDocument.Run {
        EvalDocument.Run(mode: mode, folder: "x/\(mode)", summary: RunSummary(metrics: metrics, findings: findings, scores: scores), error: nil)
    }

    /// Items named item0, item1, … of the runs given.
    static func items(_ runs: [[EvalDocument.Run]]) -> [EvalDocument.Item] {
        runs.enumerated().map { index, results in EvalDocument.Item(index: index, name: "item\(index)", file: "item\(index).json", results: results) }
    }
}
