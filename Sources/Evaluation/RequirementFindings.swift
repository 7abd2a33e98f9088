import Foundation
import Metrics

/// Findings of a telephony standard's requirement the call's send path misses. Unlike the lint's
/// (an app's mistake in its audio setup, which `run --strict` fails on), these judge the echo
/// cancellation itself; `compare` fails a run that gains one, as it fails any gained finding.
public enum RequirementFindings {
    /// The rule a weighted echo loss under TS 26.131's 46 dB is reported under.
    public static let echoLossRule = "echo-loss-below-ts26131"
    /// Every rule of this kind (`RunReport.Finding.Kind`).
    public static let rules: Set<String> = [echoLossRule]

    /// Whether the metrics' TCLw misses TS 26.131's 46 dB (the finding's condition; eval.md's
    /// telephony table counts recordings by it too, which have no findings).
    public static func missesEchoLoss(_ metrics: EchoMetrics?) -> Bool {
        metrics?.telephony?.echoLoss?.missesRequirement ?? false
    }

    /// TS 26.131's echo-loss requirement, judged as the report's Telephony section judges it: a
    /// TCLw measured under 46 dB on enough frames misses it, as does a lower bound whose measured
    /// bands alone keep it under 46 dB (`WeightedEchoLoss.mostDB`). Another lower bound under
    /// 46 dB may not (the loss can be higher), and a figure on too few frames is not one to judge by.
    public static func findings(_ metrics: EchoMetrics, durationSeconds: Double) -> [RunReport.Finding] {
        guard let loss = metrics.telephony?.echoLoss, loss.missesRequirement else { return [] }
        let shortfall = WeightedEchoLoss.requirementDB - loss.tclwDB
        return [RunReport.Finding(
            rule: echoLossRule, atSeconds: 0, untilSeconds: durationSeconds,
            message: "the send path's weighted echo loss (TCLw, TS 26.132 §8.7.1) is under the \(RunEvaluator.format(WeightedEchoLoss.requirementDB)) dB "
                + "TS 26.131 requires of a terminal: a stronger canceller mode or suppression, or less acoustic coupling",
            consequenceMetric: "tclw_db", consequenceDB: loss.tclwDB,
            consequence: loss.isLowerBound
                ? "TCLw at least \(RunEvaluator.format(loss.tclwDB)) and at most \(RunEvaluator.format(WeightedEchoLoss.mostDB(loss.bands) ?? loss.tclwDB)) dB "
                    + "over \(loss.analysisFrames) steady far-end single-talk analysis frames (its measured bands leak that much whatever the others do): "
                    + "the peer hears its own voice louder than a certified terminal would send it"
                : "TCLw \(RunEvaluator.format(loss.tclwDB)) dB over \(loss.analysisFrames) steady far-end single-talk analysis frames, "
                    + "\(RunEvaluator.format(shortfall)) dB short: the peer hears its own voice louder than a certified terminal would send it")]
    }
}
