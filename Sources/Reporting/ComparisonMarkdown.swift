import Evaluation
import Foundation

/// compare.md: `echolab compare`'s verdict for a pull request — the verdict, per-mode means (over
/// the runs both files judge), then every regression and improvement.
public enum ComparisonMarkdown {
    /// What the mode means are over: the same runs in both files, so that a change is one.
    static let modeMeansCaption = "Both means of a mode are over the same items (the items column): the runs both files hold and "
        + "judge, measured in both; a run only one file has, measured in only one, or with another library is in neither mean. "
        + "A mean over a lower bound is one itself (≥): its change is given only as far as it is certain (≥ a rise over a measured "
        + "baseline, ≤ a fall from a bounded baseline to a measured mean), and is otherwise not judged, as a run's is."

    /// The diff for a pull request: the verdict, per-mode means, then every regression and improvement.
    public static func render(_ comparison: EvalComparison, baselineName: String, currentName: String) -> String {
        // Names, modes and failure messages are cells as the report writer writes them: a `|` or a
        // line break in them would end the cell or the row.
        func row(_ cells: [String]) -> String { "| " + cells.map(MarkdownWriter.cellText).joined(separator: " | ") + " |\n" }
        var md = "# EchoLab comparison\n\n"
        md += "Baseline `\(baselineName)` (\(RunReportDocument.count(comparison.baselineRuns, "run"))) · current `\(currentName)` (\(RunReportDocument.count(comparison.currentRuns, "run"))) · "
        md += "threshold \(EvalComparison.thresholdText(comparison.maxRegressionDB)) dB on ERLE (the call and each of its segments), TCLw, "
        md += "near-end attenuation and its double-talk range, any new finding, any rise of a fault counter"
        md += comparison.hasScores ? ", \(EvalComparison.thresholdText(comparison.maxRegressionScore)) on a scorer's score\n\n" : "\n\n"
        if comparison.currentIsIncomplete { md += incompleteLine(notRun: comparison.notRun.count) }
        // An interrupted run's verdict is the line above; of the runs it holds, say what changed.
        let among = comparison.currentIsIncomplete ? " among the runs it holds" : ""
        md += comparison.regressions.isEmpty
            ? "**No regression\(among).**"
            : "**\(RunReportDocument.count(comparison.regressions.count, "regression"))\(among).**"
        md += " \(RunReportDocument.count(comparison.improvements.count, "improvement")) beyond the threshold."
        if !comparison.notJudged.isEmpty {
            md += " \(RunReportDocument.count(comparison.notJudged.count, "change")) beyond it not judged: a lower bound leaves \(comparison.notJudged.count == 1 ? "its" : "their") direction unknown (listed below)."
        }
        md += "\n"
        if !comparison.modeMeans.isEmpty {
            md += "\n## Mean steady-state ERLE per mode\n\n" + modeMeansCaption + "\n\n"
            md += "| mode | items | baseline | current | change |\n|---|---|---|---|---|\n"
            for mean in comparison.modeMeans {
                let change: String
                switch mean.change {
                case .exactly(let delta)?: change = String(format: "%+.2f dB", delta)
                case .atLeast(let delta)?: change = String(format: "≥ %+.2f dB", delta)
                case .atMost(let delta)?: change = String(format: "≤ %+.2f dB", delta)
                case .unknown?: change = "not judged (\(mean.notJudgedReason ?? "a lower bound"))"
                case nil: change = "—"
                }
                md += row([mean.mode, "\(mean.items)", mean.baseline.map { EvalComparison.db($0, isLowerBound: mean.baselineIsLowerBound) } ?? "—",
                           mean.current.map { EvalComparison.db($0, isLowerBound: mean.currentIsLowerBound) } ?? "—", change])
            }
        }
        func table(_ title: String, _ changes: [EvalComparison.Change]) {
            guard !changes.isEmpty else { return }
            md += "\n## \(title)\n\n| item | mode | what | baseline | current | change |\n|---|---|---|---|---|---|\n"
            for change in changes {
                let delta = change.deltaText ?? "—"
                md += row([change.run.item, change.run.mode, change.what, change.baseline, change.current, delta])
            }
        }
        table("Regressions", comparison.regressions)
        table("Improvements", comparison.improvements)
        if !comparison.notJudged.isEmpty {
            md += "\n## Not judged: a lower bound leaves the direction unknown\n\n"
            md += "A bound's true value may lie anywhere above it: ERLE or TCLw gets worse only where CURRENT is measured and under the baseline, "
                + "attenuation only where the baseline is measured and CURRENT over it. A finding that judges a figure against a line "
                + "(TCLw against TS 26.131's 46 dB, the echo delay against the canceller's reach) counts as gained only where the baseline's "
                + "figure could be judged, and as lost only where CURRENT's can be.\n\n"
            md += "| item | mode | what | baseline | current | change | not judged |\n|---|---|---|---|---|---|---|\n"
            for change in comparison.notJudged {
                md += row([change.run.item, change.run.mode, change.what, change.baseline, change.current, change.deltaText ?? "—", change.reason ?? ""])
            }
        }
        table("Measured with another library (not judged)", comparison.libraryChanges)
        table("Scores not compared (not judged)", comparison.scoreNotes)
        if !comparison.added.isEmpty {
            md += "\n## New runs (not in the baseline, not judged)\n\n"
            for run in comparison.added { md += listItem(run) }
        }
        if !comparison.notRun.isEmpty {
            md += "\n## Not run (the current run was interrupted)\n\n"
            for run in comparison.notRun { md += listItem(run) }
        }
        return md
    }

    /// The verdict of an interrupted current run, and how many of the baseline's runs it did not
    /// reach (listed at the end: they are not regressions).
    static func incompleteLine(notRun: Int) -> String {
        let listed = notRun == 0 ? "" : "; \(RunReportDocument.count(notRun, "run")) of the baseline not run, listed below"
        return "**The current run is incomplete** (interrupted\(listed)): it cannot pass the gate.\n\n"
    }

    /// A run as a list item: its item's name and mode stay text.
    static func listItem(_ run: EvalComparison.RunKey) -> String {
        "- \(MarkdownWriter.inlineText(run.item)) × \(MarkdownWriter.inlineText(run.mode))\n"
    }
}
