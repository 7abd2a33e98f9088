import Evaluation
import Foundation

/// compare.md: `echolab compare`'s verdict for a pull request — the verdict, per-mode means (over
/// the runs both files judge), then every regression and improvement.
public enum ComparisonMarkdown {
    /// What the mode means are over: the same runs in both files, so that a change is one.
    static let modeMeansCaption = "Both means of a mode are over the same items (the items column): the runs both files hold and "
        + "judge, measured in both; a run only one file has, measured in only one, or with another library is in neither mean. "
        + "A mean over a lower bound is one itself (≥): its change is given only as far as it is certain (≥ a rise over a measured "
        + "baseline, ≤ a fall from a bounded baseline to a measured mean), and is otherwise not judged, as a run's is; where every run's figure is the same in both files, it is 0."

    /// Which EchoLab wrote each file, where they differ: said, not judged (compare.md and the JUnit
    /// file say it alike).
    static func writersLine(_ writers: (baseline: String, current: String)) -> String {
        "The baseline was written by \(writers.baseline), the current file by \(writers.current): they compare on the keys both "
            + "have, and a figure can move with the version that measured it (bless the baseline again once the change is understood)."
    }

    /// The diff for a pull request: the verdict, per-mode means, then every regression and improvement.
    public static func render(_ comparison: EvalComparison, baselineName: String, currentName: String) -> String {
        // Names, modes and failure messages are cells as the report writer writes them: a `|` or a
        // line break in them would end the cell or the row, and a `<` an HTML tag where the diff
        // is rendered (a plugin named "<b>"; a `\` before it is escaped too). The rest stays as
        // written: compare prints this to a CI log, where `erle\_steady\_db` would read worse.
        func row(_ cells: [String]) -> String {
            let escaped = cells.map { cell in
                MarkdownWriter.cellText(cell.replacingOccurrences(of: "\\", with: "\\\\")
                    .replacingOccurrences(of: "<", with: "\\<").replacingOccurrences(of: ">", with: "\\>"))
            }
            return "| " + escaped.joined(separator: " | ") + " |\n"
        }
        var md = "# EchoLab comparison\n\n"
        md += "Baseline `\(baselineName)` (\(RunReportDocument.count(comparison.baselineRuns, "run"))) · current `\(currentName)` (\(RunReportDocument.count(comparison.currentRuns, "run"))) · "
        md += "threshold \(thresholdText(comparison.maxRegressionDB)) dB on ERLE (the call and each of its segments), TCLw, "
        md += "near-end attenuation and its double-talk range, any new finding, any rise of a fault counter"
        md += comparison.hasScores ? ", \(thresholdText(comparison.maxRegressionScore)) on a scorer's score\n\n" : "\n\n"
        if let writers = comparison.writers { md += writersLine(writers) + "\n\n" }
        if comparison.baselineIsIncomplete { md += incompleteBaselineLine(added: comparison.added.count) }
        if let shard = comparison.baselineShard { md += shardBaselineLine(shard, added: comparison.added.count) }
        if let shard = comparison.currentShard { md += shardCurrentLine(shard) }
        if comparison.currentIsIncomplete { md += incompleteLine(notRun: comparison.notRun.count) }
        // An interrupted run's verdict is the line above; of the runs it holds, say what changed.
        let among = comparison.currentIsIncomplete ? " among the runs it holds"
            : comparison.baselineIsIncomplete || comparison.baselineShard != nil ? " among the runs the baseline holds" : ""
        md += comparison.regressions.isEmpty
            ? "**No regression\(among).**"
            : "**\(RunReportDocument.count(comparison.regressions.count, "regression"))\(among).**"
        md += " \(RunReportDocument.count(comparison.improvements.count, "improvement")) beyond the threshold."
        if !comparison.notJudged.isEmpty {
            md += " \(RunReportDocument.count(comparison.notJudged.count, "change")) beyond it not judged: a lower bound, or a figure that cannot be judged, leaves \(comparison.notJudged.count == 1 ? "its" : "their") direction unknown (listed below, with why)."
        }
        // Runs of another build are not judged by default: the verdict says how many it left out
        // (a plugin rebuilt for each CI run would otherwise pass unjudged under "No regression").
        if !comparison.judgesLibraryChanges, !comparison.libraryChanges.isEmpty {
            let count = comparison.libraryChanges.count
            md += " \(RunReportDocument.count(count, "run")) measured with another canceller library or plugin build \(count == 1 ? "was" : "were") not judged (listed below; --judge-library-changes judges \(count == 1 ? "it" : "them"))."
        }
        // New runs pass unjudged: said in the verdict, which is all a script or a reviewer may
        // read (an interrupted or sharded baseline's line above already counts them).
        if !comparison.added.isEmpty, !comparison.baselineIsIncomplete, comparison.baselineShard == nil {
            let count = comparison.added.count
            md += " \(RunReportDocument.count(count, "new run")) (not in the baseline) \(count == 1 ? "was" : "were") not judged (listed below)."
        }
        if !comparison.addedSegments.isEmpty {
            let count = comparison.addedSegments.count
            md += " \(RunReportDocument.count(count, "new segment")) (not in the baseline's call) \(count == 1 ? "was" : "were") not judged (listed below)."
        }
        md += "\n"
        if !comparison.modeMeans.isEmpty {
            let caption = comparison.judgesLibraryChanges
                ? modeMeansCaption.replacingOccurrences(of: ", or with another library is in neither mean", with: " is in neither mean (runs of another library are in both: --judge-library-changes)")
                : modeMeansCaption
            md += "\n## Mean steady-state ERLE per mode\n\n" + caption + "\n\n"
            md += "| mode | items | baseline | current | change |\n|---|---|---|---|---|\n"
            for mean in comparison.modeMeans {
                let change: String
                switch mean.change {
                case .exactly(let delta)?: change = Self.meanChange(delta) + " dB"
                case .atLeast(let delta)?: change = "≥ " + Self.meanChange(delta) + " dB"
                case .atMost(let delta)?: change = "≤ " + Self.meanChange(delta) + " dB"
                case .unknown?: change = "not judged (\(mean.notJudgedReason.map(words) ?? "a lower bound"))"
                case nil: change = "—"
                }
                md += row([mean.mode, "\(mean.items)", mean.baseline.map { db($0, isLowerBound: mean.baselineIsLowerBound) } ?? "—",
                           mean.current.map { db($0, isLowerBound: mean.currentIsLowerBound) } ?? "—", change])
            }
        }
        func table(_ title: String, _ changes: [EvalComparison.Change]) {
            guard !changes.isEmpty else { return }
            md += "\n## \(title)\n\n| item | mode | what | baseline | current | change |\n|---|---|---|---|---|---|\n"
            for change in changes {
                let delta = change.deltaText ?? "—"
                md += row([change.run.item, change.run.mode, change.whatText, change.baselineText, change.currentText, delta])
            }
        }
        // A scorer on one side only is a line, not a row per run: a baseline scored with AECMOS
        // against an eval run without the scorer listed 441 runs of the default corpus.
        func scoreNotes(_ changes: [EvalComparison.Change]) {
            guard !changes.isEmpty else { return }
            func alike(_ change: EvalComparison.Change) -> [String] { [change.whatText, change.baselineText, change.currentText] }
            let counts = Dictionary(changes.map { (alike($0), 1) }, uniquingKeysWith: +)
            md += "\n## Scores not compared (not judged)\n\n"
            var said = Set<[String]>()
            for change in changes where counts[alike(change)]! > Self.scoreNoteRowsAtMost && said.insert(alike(change)).inserted {
                md += "- \(MarkdownWriter.inlineText(change.whatText)): \(MarkdownWriter.inlineText(change.baselineText)) in the baseline, "
                    + "\(MarkdownWriter.inlineText(change.currentText)) now, in \(RunReportDocument.count(counts[alike(change)]!, "run"))\n"
            }
            let rows = changes.filter { counts[alike($0)]! <= Self.scoreNoteRowsAtMost }
            guard !rows.isEmpty else { return }
            if !said.isEmpty { md += "\n" }
            md += "| item | mode | what | baseline | current | change |\n|---|---|---|---|---|---|\n"
            for change in rows {
                md += row([change.run.item, change.run.mode, change.whatText, change.baselineText, change.currentText, change.deltaText ?? "—"])
            }
        }
        table("Regressions", comparison.regressions)
        table("Improvements", comparison.improvements)
        if !comparison.notJudged.isEmpty {
            md += "\n## Not judged: a lower bound, or a figure that cannot be judged, leaves the direction unknown\n\n"
            md += "A bound's true value may lie anywhere above it: ERLE or TCLw gets worse only where CURRENT is measured and under the baseline, "
                + "attenuation only where the baseline is measured and CURRENT over it. A finding that judges a figure against a line "
                + "(TCLw against TS 26.131's 46 dB, the echo delay against the canceller's reach) counts as gained only where the baseline's "
                + "figure could be judged, and as lost only where CURRENT's can be.\n\n"
            md += "| item | mode | what | baseline | current | change | not judged |\n|---|---|---|---|---|---|---|\n"
            for change in comparison.notJudged {
                md += row([change.run.item, change.run.mode, change.whatText, change.baselineText, change.currentText, change.deltaText ?? "—",
                           change.reasonText ?? ""])
            }
        }
        table(comparison.judgesLibraryChanges ? "Measured with another library (judged: --judge-library-changes)"
                                               : "Measured with another library (not judged)", comparison.libraryChanges)
        scoreNotes(comparison.scoreNotes)
        if !comparison.added.isEmpty {
            md += "\n## New runs (not in the baseline, not judged)\n\n"
            for run in comparison.added { md += listItem(run, former: comparison.formerRuns[run]) }
        }
        if !comparison.addedSegments.isEmpty {
            md += "\n## New segments (not in the baseline's call, not judged)\n\n"
            for (run, segment) in comparison.addedSegments {
                md += "- \(MarkdownWriter.inlineText(run.item)) × \(MarkdownWriter.inlineText(run.mode)): \(MarkdownWriter.inlineText(words(segment)))\n"
            }
        }
        if !comparison.notRun.isEmpty {
            md += "\n## Not run (the current run was interrupted)\n\n"
            for run in comparison.notRun { md += listItem(run) }
        }
        return md
    }

    /// Past this many runs alike, a score note is one line for them all.
    static let scoreNoteRowsAtMost = 10

    /// The verdict of an interrupted current run, and how many of the baseline's runs it did not
    /// reach (listed at the end: they are not regressions).
    static func incompleteLine(notRun: Int) -> String {
        let listed = notRun == 0 ? "" : "; \(RunReportDocument.count(notRun, "run")) of the baseline not run, listed below"
        return "**The current run is incomplete** (interrupted\(listed)): it cannot pass the gate.\n\n"
    }

    /// The verdict against an interrupted baseline: the runs it never reached would be new, and
    /// pass unjudged.
    static func incompleteBaselineLine(added: Int) -> String {
        let listed = added == 0 ? "" : "; \(RunReportDocument.count(added, "run")) of the current run not in it, listed below as new"
        return "**The baseline is incomplete** (an interrupted eval was blessed\(listed)): a gate against it cannot pass. Bless a complete eval.\n\n"
    }

    /// The verdict against one shard's eval.json: the other shards' runs would be new, and pass
    /// unjudged.
    static func shardBaselineLine(_ shard: String, added: Int) -> String {
        let listed = added == 0 ? "" : "; \(RunReportDocument.count(added, "run")) of the current run not in it, listed below as new"
        return "**The baseline is shard \(shard) of an eval** (the other shards' runs are not in it\(listed)): a gate against it cannot pass. "
            + "Bless the eval of the whole corpus (`echolab merge` joins the shards' folders).\n\n"
    }

    /// Why the baseline's runs of the other shards are missing from a shard's eval.json.
    static func shardCurrentLine(_ shard: String) -> String {
        "**The current run is shard \(shard) of an eval**: the baseline's runs of the other shards are missing from it. "
            + "Compare the merged eval (`echolab merge` joins the shards' folders), or each shard against the same shard of the baseline.\n\n"
    }

    /// A run as a list item: its item's name and mode stay text.
    static func listItem(_ run: EvalComparison.RunKey, former: EvalComparison.RunKey? = nil) -> String {
        let hint = former.map { former in
            let what = former.item == run.item ? "its mode changed" : former.mode == run.mode ? "renamed" : "renamed, its mode changed"
            return " — from a file of the same name as the missing \(MarkdownWriter.inlineText(former.item)) × \(MarkdownWriter.inlineText(former.mode)): \(what)?"
        } ?? ""
        return "- \(MarkdownWriter.inlineText(run.item)) × \(MarkdownWriter.inlineText(run.mode))\(hint)\n"
    }
}

// MARK: The comparison's words

/// `EvalComparison` holds its changes as values; these are their words, shared by compare.md,
/// the JUnit cases and compare's stdout (the Markdown). Formatting lives here, not in Evaluation.
extension ComparisonMarkdown {
    /// A level as the comparison prints it in its cells (two decimals), "≥ " before a lower bound
    /// (as eval.md prints it).
    static func db(_ value: Double, isLowerBound: Bool = false) -> String {
        (isLowerBound ? "≥ " : "") + String(format: "%.2f dB", value)
    }

    static func db(_ value: BoundedValue) -> String { db(value.value, isLowerBound: value.isLowerBound) }

    /// A threshold as the reports print it: two decimals, or as many more (up to six) as it was
    /// given with — 0.5035 printed "0.50" would hide why a change of 0.504 passed.
    public static func thresholdText(_ value: Double) -> String {
        var decimals = 2
        while decimals < 6, Double(String(format: "%.\(decimals)f", value)) != value { decimals += 1 }
        return String(format: "%.\(decimals)f", value)
    }

    /// `value` signed, with two decimals or as many more as show it beyond `threshold`:
    /// rounded to two, a fall of 0.5001 dB against 0.5 prints "-0.50", which reads as within it.
    static func signed(_ value: Double, beyond threshold: Double?) -> String {
        var decimals = 2
        func text() -> String { String(format: "%+.\(decimals)f", value) }
        // eval.json's values have four decimals, so a few more always do; the bound ends the loop.
        while let threshold, decimals < 12, abs(Double(text()) ?? 0) <= threshold { decimals += 1 }
        return text()
    }

    /// A mean's change to two decimals, with as many more (up to six: eval.json's values have
    /// four) as a change under 0.005 dB needs to show its sign (a fall of 0.003 dB printed
    /// "-0.00 dB"); none, or one of the means' rounding alone, is "+0.00".
    static func meanChange(_ delta: Double) -> String {
        guard abs(delta) >= 5e-7 else { return "+0.00" }
        var decimals = 2
        func text() -> String { String(format: "%+.\(decimals)f", delta) }
        while decimals < 6, Double(text()) == 0 { decimals += 1 }
        return text()
    }

    /// What a change compares, as the tables name it: a metric's key, `finding RULE`,
    /// `pipeline.PATH`, `segment 2 at 4.00 s (EVENTS): erle_db` …
    static func words(_ subject: EvalComparison.Subject) -> String {
        switch subject {
        case .run: "run"
        case .level(let metric): metric
        case .segment(let segment): words(segment)
        case .segmentLevel(let segment, let metric): "\(words(segment)): \(metric)"
        case .isNearEndLost(let measure): "near end lost" + words(measure)
        case .nearEndKept(let measure): "near end kept" + words(measure)
        case .finding(let rule): "finding \(rule)"
        case .counter(let path): path
        case .library: "library"
        case .scorer(let name): "scorer \(name)"
        case .score(let scorer, let name, let talkType): "score \(scorer) \(name) (\(talkType))"
        }
    }

    /// Where a near end was lost or kept: nothing for double talk (the measure it always was).
    static func words(_ measure: EvalComparison.NearEndMeasure) -> String {
        switch measure {
        case .doubleTalk: ""
        case .singleTalk: " in near-end single talk"
        case .estimate: " (estimate, no near-end track)"
        }
    }

    /// "segment 3 at 18.00 s (reset_custom_mic → set_aec disabled)": the baseline's events, and
    /// the current run's where they differ — the change that moved the segment's figures.
    static func words(_ segment: EvalComparison.Segment) -> String {
        func list(_ events: [String]) -> String { events.isEmpty ? "no event" : events.joined(separator: ", ") }
        let events = segment.currentEvents.map { "\(list(segment.events)) → \(list($0))" }
            ?? (segment.events.isEmpty ? nil : list(segment.events))
        return "segment \(segment.number) at \(String(format: "%.2f", segment.startSeconds)) s" + (events.map { " (\($0))" } ?? "")
    }

    /// One side of a change. A near end newly lost says what that means where it is the change.
    static func words(_ value: EvalComparison.Value, of subject: EvalComparison.Subject) -> String {
        switch value {
        case .level(let level): db(level)
        case .lowConfidence(let frames): "low confidence (\(ReportFormatting.analysisFrames(frames)))"
        case .notMeasured: "not measured"
        case .count(let count): "\(count)"
        case .flag(let flag): flag ? "true" : "false"
        case .score(let score): String(format: "%.2f", score)
        case .ran: "ran"
        case .failed(let error?): "failed: \(error)"
        case .failed(nil): "failed"
        case .missing: "missing"
        case .notInBaseline: "not in the baseline"
        case .nearEndKept: "kept"
        case .isNearEndLost:
            switch subject {
            case .isNearEndLost(.doubleTalk): "lost (nothing of the near talker sent in double talk)"
            case .isNearEndLost(.singleTalk): "lost (nothing of the near talker sent while it talked alone)"
            case .isNearEndLost(.estimate): "lost (the output 20 dB or more under the talker the gate hears, on half its frames or more)"
            default: "lost"
            }
        case .scored: "scored"
        case .notRun: "not run"
        case .unscored(let reason): "unscored: \(reason ?? "no reason given")"
        case .notScored: "not scored"
        case .name(let name): name
        }
    }

    /// Which side's bound left a level's change unknown, in the regression section's words.
    static func words(_ sides: EvalComparison.BoundedSides) -> String {
        switch sides {
        case .both: "both lower bounds"
        case .baseline: "the baseline a lower bound"
        case .current: "current a lower bound"
        }
    }

    static func words(_ side: EvalComparison.Side) -> String {
        switch side {
        case .baseline: "the baseline"
        case .current: "current"
        }
    }

    /// Why a change was not judged, naming the side whose figure had no verdict.
    static func words(_ reason: EvalComparison.NotJudgedReason) -> String {
        switch reason {
        case .lowerBound(let sides): return words(sides)
        case .finding(let unjudged, let side):
            let side = words(side)
            switch unjudged {
            case .noEchoLoss: return "\(side) measured no TCLw: it could not be judged against TS 26.131's 46 dB"
            case .echoLossOnFewFrames(let frames):
                return "\(side)'s TCLw stands on \(ReportFormatting.analysisFrames(frames)), too few to judge against TS 26.131's 46 dB"
            case .echoLossOnFewBands(let coverage):
                return "\(side)'s TCLw stands on \(TelephonyBlocks.coverageText(coverage)), too few to judge against TS 26.131's 46 dB"
            case .echoLossBoundUnderRequirement(let tclw):
                return "\(side)'s TCLw \(db(tclw)) is a lower bound under 46 dB: it could not be judged against TS 26.131"
            case .noEchoDelay: return "\(side) measured no echo delay: its delay against the canceller's reach could not be judged"
            }
        }
    }
}

extension EvalComparison.Change {
    /// What changed, in the reports' words.
    public var whatText: String { ComparisonMarkdown.words(subject) }
    public var baselineText: String { ComparisonMarkdown.words(baseline, of: subject) }
    public var currentText: String { ComparisonMarkdown.words(current, of: subject) }

    /// The change as the reports print it: a count, a score or dB, signed; a level or a score
    /// with as many decimals as show it beyond its threshold. A change to or from a lower bound
    /// is certain only one way, as the mode means' is, whichever its sign: "≥ +2.10 dB" or
    /// "≥ -20.69 dB" to a bound (the figure now may lie anywhere above it), "≤ -1.00 dB" from one
    /// (the figure printed alone read as the exact change). Between two bounds it is the
    /// difference of the figures, beside the reason it was not judged.
    public var deltaText: String? {
        guard let delta else { return nil }
        if subject.isCount { return String(format: "%+.0f", delta) }
        let number = ComparisonMarkdown.signed(delta, beyond: threshold)
        guard !subject.isScore else { return number }
        let mark = switch (baseline, current) {
        case (.level(let was), .level(let now)) where !was.isLowerBound && now.isLowerBound: "≥ "
        case (.level(let was), .level(let now)) where was.isLowerBound && !now.isLowerBound: "≤ "
        default: ""
        }
        return mark + number + " dB"
    }

    /// Why it was not judged, in words; nil where it was judged.
    public var reasonText: String? { notJudgedReason.map(ComparisonMarkdown.words) }
}
