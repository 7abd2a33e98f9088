import Metrics

/// Findings that judge a measured figure against a line: TS 26.131's 46 dB on TCLw
/// (`RequirementFindings.echoLossRule`), the canceller's reach on the echo's delay
/// (`LintRule.echoDelayBeyondFilter`). Such a finding's absence is a verdict only where the figure
/// could be judged: a TCLw that is a lower bound under 46 dB (`meets_ts26131_46db` null) may meet
/// the requirement or not, so a run without the finding there has no verdict to lose. `compare`
/// judges a change of such a rule's count only where the side it departs from had a verdict: a
/// finding gained over a baseline that could not be judged, or lost in a CURRENT that cannot, is
/// listed as not judged with this reason — the gate fails only on a certain regression.
///
/// Works on a run's eval.json result alone (`ComparedRun`), as `compare` does. `echo-leak-after-route-change`
/// also holds back on a bound (the first second's ERLE under the noise), but eval.json does not
/// keep that second's figure, so it is judged on the count as any finding is.
public enum FindingVerdicts {
    /// The rules whose finding depends on a figure's verdict.
    public static let rules: Set<String> = [RequirementFindings.echoLossRule, LintRule.echoDelayBeyondFilter.rawValue]

    /// Why a finding's rule had no verdict on one side of a comparison: what of its figure could
    /// not be judged. Reporting puts it in words ("the baseline measured no TCLw: …").
    public enum Unjudged: Sendable, Equatable {
        /// No TCLw was measured: nothing to judge against TS 26.131's 46 dB.
        case noEchoLoss
        /// The TCLw stands on too few analysis frames to judge (`FigureConfidence`).
        case echoLossOnFewFrames(frames: Int)
        /// The TCLw stands on fewer than half of the third octaves the far end reaches
        /// (`WeightedEchoLoss.BandCoverage`), and the bands left out could lift it over 46 dB.
        case echoLossOnFewBands(WeightedEchoLoss.BandCoverage)
        /// The TCLw is a lower bound under 46 dB: it may meet the requirement or not (`tclw` as
        /// the file has it, with its bound flag).
        case echoLossBoundUnderRequirement(tclw: BoundedValue)
        /// No echo delay was measured: its delay against the canceller's reach has no verdict.
        case noEchoDelay
    }

    /// Why `rule` could not be judged in `run` (an eval.json run as the gate reads it); nil where
    /// it was judged, or where the rule does not depend on a figure's verdict.
    static func unjudged(rule: String, in run: ComparedRun) -> Unjudged? {
        switch rule {
        case RequirementFindings.echoLossRule: return echoLossUnjudged(run.echoLoss)
        case LintRule.echoDelayBeyondFilter.rawValue:
            // The lint judges a measured delay; without one it judges the scenario's echo path
            // delay, which is only a lower bound (or nothing at all): under the reach, no verdict.
            return run.hasEchoDelay ? nil : .noEchoDelay
        default: return nil
        }
    }

    /// TCLw against 46 dB, as `WeightedEchoLoss.meetsRequirement` and `missesRequirement` judge
    /// it: not at all without a TCLw, on too few frames or on too few bands, and not for a bound under 46 dB its
    /// measured bands do not keep under it (`meets_ts26131_46db` null). A file written before
    /// that key judged a measured figure, and a bound at or over 46 dB.
    static func echoLossUnjudged(_ loss: ComparedRun.EchoLoss?) -> Unjudged? {
        guard let loss else { return .noEchoLoss }
        if let frames = loss.frames, FigureConfidence.isLow(frames: frames) { return .echoLossOnFewFrames(frames: frames) }
        // On too few bands a certain miss is judged (`meets_ts26131_46db` false); another is not.
        if let coverage = loss.coverage, coverage.isTooNarrowToJudge, case .unknown = loss.meetsRequirement { return .echoLossOnFewBands(coverage) }
        let unknown: Bool
        switch loss.meetsRequirement {
        case .meets: unknown = false
        case .unknown: unknown = true
        case .notWritten: unknown = loss.isLowerBound && WeightedEchoLoss.atJudgedPrecision(loss.tclwDB) < WeightedEchoLoss.requirementDB
        }
        return unknown ? .echoLossBoundUnderRequirement(tclw: BoundedValue(loss.tclwDB, isLowerBound: loss.isLowerBound)) : nil
    }
}
