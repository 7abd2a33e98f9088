import AudioInterop
import EchoLabJSON
import Foundation
import Metrics
import Evaluation
import Simulation

/// `eval.md` and `eval.html`, built as one `ReportDocument` from the eval's results in plan
/// order (so the bytes do not depend on `--jobs`). The Markdown is the pull-request view: per
/// mode summary, steady ERLE items × modes, failures. The HTML page adds a sortable table of
/// every run and, per item, ERLE over time and per band with one line/bar per mode and audio
/// players for the mic and each mode's `sent.wav`.
public enum EvalReportDocument {
    public enum Detail: Sendable { case summary, full }

    /// "3 items × 2 modes"; without --modes, where each item ran in its own mode, no grid:
    /// "7 items, each in its own mode (3 modes)".
    static func plan(items: Int, modes: Int, modesGiven: Bool) -> String {
        let itemText = "\(items) item\(items == 1 ? "" : "s")"
        guard modesGiven || modes < 2 else { return "\(itemText), each in its own mode (\(modes) modes)" }
        return "\(itemText) × \(modes) mode\(modes == 1 ? "" : "s")"
    }

    /// `summaries`: eval.json's per-mode statistics. `directory`: where the eval's files are
    /// written (links to a recording's own mic are made relative to it).
    /// `verdicts`: what Evaluation judged — eval.json's verdict over the corpus (`best_modes`),
    /// each item's front, the compared means — shown here, never judged again.
    static func make(_ report: EvalReport, detail: Detail, summaries: [ModeSummary], verdicts: EvalVerdicts,
                     directory: String) -> ReportDocument {
        typealias F = ReportFormatting
        let outcome = report.outcome, modes = report.modes, items = report.items
        let corpusFront = verdicts.corpusFront
        var blocks: [ReportDocument.Block] = []
        if !outcome.isComplete {
            blocks.append(.note([.strong("Interrupted:"),
                                 .text(" \(outcome.results.count) of \(outcome.plannedCount) runs finished; the others are not listed.")]))
        }
        if let shard = outcome.shard { blocks.append(.paragraph([.text("Shard \(shard) of the plan.")])) }
        if let best = bestModesParagraph(corpusFront, itemNames: items.map(\.name)) {
            blocks.append(best)
        } else if let none = noBestModesParagraph(modes: modes.map(\.description), modesGiven: outcome.modes != nil,
                                                  itemsWithAVerdict: items.indices.filter { verdicts.front(ofItemAt: $0) != nil }.count) {
            blocks.append(none)
        }
        let hasLostNearEnd = summaries.contains { $0.nearEndLostRuns > 0 }
        blocks.append(.paragraph([.text(plan(items: items.count, modes: modes.count, modesGiven: outcome.modes != nil) + ": "
                                        + runCount(outcome.results.count, failed: outcome.failedCount) + ". "
                                        + "Steady ERLE is ERLE over the last half of the far-end single talk: higher removes more echo. "
                                        + "Near-end attenuation is how much of the near talker the canceller took away in double talk: lower keeps more of it"
                                        + (hasLostNearEnd ? "; a run that lost the near end entirely counts at its bound there, and is left out of the distortion median (\"lost\")." : "."))]))
        let hasNearEnd = outcome.results.contains { nearEndAttenuation($0) != nil }
        // Runs without a near-end track (recordings): their near end is the tap-free estimate.
        let hasEstimate = outcome.results.contains { nearEndEstimate($0) != nil }
        // Items whose far end never played: their near end is judged talking alone.
        let hasNearEndAlone = outcome.results.contains { nearEndAlone($0.summary?.metrics) != nil }

        blocks.append(.heading("Modes", level: 2, id: "modes"))
        // The two axes side by side, then their spread.
        var header = ["mode", "runs", "steady ERLE mean"]
        if hasNearEnd { header.append("near-end attenuation mean") }
        if hasEstimate { header.append("near-end drop mean (estimate)") }
        header += ["steady ERLE median", "p10"]
        if hasNearEnd { header += ["near-end attenuation median", "near-end distortion median"] }
        if hasEstimate { header.append("near-end drop median (estimate)") }
        header += ["convergence median", "wins", "runs with pipeline issues", "runs with lint findings"]
        blocks.append(.table(.init(header: header, rows: modes.map { mode in
            let summary = summaries.first { $0.mode == mode.description }
            func stat(_ value: Double?, _ unit: String, isLowerBound: Bool? = false) -> ReportDocument.Cell {
                statisticCell(value, unit: unit, isLowerBound: isLowerBound ?? false)
            }
            let results = outcome.results.filter { $0.mode == mode }
            let name: ReportDocument.Cell = corpusFront?.modes.contains(mode.description) == true
                ? .init([.code(mode.description), .text(" ★")]) : .init([.code(mode.description)])
            let ran = results.filter { $0.summary != nil }.count, failed = results.filter { $0.error != nil }.count
            // A mean over fewer runs than the mode ran says over how many: the others have no value
            // there (no far-end single talk, no double talk) or one on too few frames.
            func mean(_ statistics: ModeSummary.Statistics?) -> ReportDocument.Cell {
                counted(stat(statistics?.mean, " dB", isLowerBound: statistics?.meanIsLowerBound), count: statistics?.count, runs: ran)
            }
            var row: [ReportDocument.Cell] = [name, .init(failed == 0 ? "\(ran)" : "\(ran) of \(ran + failed) (\(failed) failed)", value: Double(ran), isNumeric: false),
                                              mean(summary?.erleSteadyDB)]
            if hasNearEnd { row.append(mean(summary?.nearEndAttenuationDB)) }
            if hasEstimate { row.append(lostNote(mean(summary?.nearEndEstimateDropDB), lost: summary?.nearEndEstimateLostRuns ?? 0)) }
            row += [stat(summary?.erleSteadyDB.median, " dB", isLowerBound: summary?.erleSteadyDB.medianIsLowerBound),
                    stat(summary?.erleSteadyDB.p10, " dB", isLowerBound: summary?.erleSteadyDB.p10IsLowerBound)]
            if hasNearEnd {
                row += [stat(summary?.nearEndAttenuationDB.median, " dB", isLowerBound: summary?.nearEndAttenuationDB.medianIsLowerBound),
                        lostNote(stat(summary?.nearEndDistortionDB.median, " dB"), lost: summary?.nearEndLostRuns ?? 0)]
            }
            if hasEstimate { row.append(stat(summary?.nearEndEstimateDropDB?.median, " dB", isLowerBound: summary?.nearEndEstimateDropDB?.medianIsLowerBound)) }
            row.append(convergenceCell(summary, runs: ran))
            row.append(.init("\(summary?.wins ?? 0)"))
            // Pipeline issues (counters: underruns, clicks, resets …) and lint findings apart:
            // a run can break the guide's rules with a healthy pipeline, and the other way round.
            row.append(.init("\(results.filter { health($0).issues > 0 }.count)"))
            row.append(.init("\(results.filter { health($0).findings > 0 }.count)"))
            return row
        }, isSortable: detail == .full)))
        blocks += modesTableNotes()
        if let silent = silentSendNote(modes: modes, results: outcome.results) { blocks.append(.paragraph([.text(silent)])) }
        if let lint = lintFindingsNote(outcome.results) { blocks.append(.paragraph([.text(lint)])) }
        if let canceller = cancellerFindingsNote(outcome.results) { blocks.append(.paragraph([.text(canceller)])) }
        if let outside = echoOutsideSearchNote(outcome.results) { blocks.append(.paragraph([.text(outside)])) }
        if let clipped = clippedRecordingsNote(outcome.results) { blocks.append(.paragraph([.text(clipped)])) }
        if let bandLimited = bandLimitedNote(outcome.results) { blocks.append(.paragraph([.text(bandLimited)])) }
        if let libraries = librariesNote(outcome.results) { blocks.append(.paragraph([.text(libraries)])) }
        blocks += telephonyTable(modes: modes, summaries: summaries) { mode in
            let runs = outcome.results.filter { $0.mode == mode }
            // A bound that may meet 46 dB is neither below it nor over it: counted apart, or a
            // mode whose 6 such runs all stood under 46 dB read as if 6 had met it.
            let unjudged = runs.filter { result in
                guard let loss = result.summary?.metrics?.telephony?.echoLoss else { return false }
                return loss.meetsRequirement == nil && !loss.isLowConfidence
            }.count
            return (runs.filter { RequirementFindings.missesEchoLoss($0.summary?.metrics) }.count, unjudged)
        }
        let scoreBlocks = ScoreBlocks.modes(modes.map(\.description), summaries: summaries, isSortable: detail == .full)
            + (detail == .full ? ScoreBlocks.aecmosChart(verdicts.aecmosDoubleTalk, modes: modes.map(\.description)) : [])

        switch detail {
        case .summary:
            blocks += scoreBlocks
            let nearEndCell = hasNearEnd || hasEstimate || hasNearEndAlone
            blocks.append(.heading(nearEndCell ? "Steady ERLE and near-end attenuation, items × modes" : "Steady-state ERLE, items × modes",
                                   level: 2, id: "matrix"))
            var marks: [String] = []
            if hasEstimate {
                marks.append("\"est.\" marks a run without a near-end track, whose near end is the estimate from mic and loopback: the output's drop under the talker the gate hears")
            }
            if hasNearEndAlone {
                marks.append("\"alone\" marks an item whose far end never played, whose near end is judged by what was taken off it while it talked alone")
            }
            let cellLegend = nearEndCell
                ? "Each cell: steady ERLE / near-end attenuation in double talk, in dB (" + (["— where there is none"] + marks).joined(separator: "; ") + "). " : ""
            // What each item gives a canceller to remove: a 40 dB ERL leaves little echo, a
            // 220 ms delay tests the canceller's reach; eval.html has them per run.
            let echoPathLegend = "The echo path: the item's ERL in far-end single talk and the echo's bulk delay, "
                + "the range over its runs where they differ (each run measures them lined up with its canceller's output). "
            blocks.append(.paragraph([.text(cellLegend + echoPathLegend
                                            + "In bold, the modes of each item that no other mode beats on both; each value links to its run's report. "
                                            + "≥ marks a lower bound (an output under the input's noise floor; a near end lost); "
                                            + "a value marked (few frames) stands on fewer than \(FigureConfidence.minimumAnalysisFrames) analysis frames and counts in no mean or win.")]))
            blocks.append(.table(.init(header: ["item", "echo path"] + modes.map(\.description), rows: items.enumerated().map { position, item in
                let front = verdicts.front(ofItemAt: position)?.modes ?? []
                return [.init(item.name), .init(Self.echoPathText(item.results))] + modes.map { mode -> ReportDocument.Cell in
                    guard let result = item.results.first(where: { $0.mode == mode }) else { return .init("") }
                    guard let summary = result.summary else { return .init([.strong("failed")]) }
                    let m = summary.metrics, value = m?.erleSteadyDB
                    let nearEnd = m?.nearEnd
                    let estimate = nearEnd == nil ? m?.nearEndEstimate : nil
                    let nearEndText = estimate.map { e in
                        compact(e.outputDropDB, isLowerBound: e.outputDropIsLowerBound, isLowConfidence: FigureConfidence.isLow(frames: e.frames))
                            + (e.outputDropDB == nil ? "" : " est.") + (e.isLost ? " (lost)" : "")
                    } ?? nearEndAlone(m).map { alone in
                        compact(alone.value, isLowerBound: alone.isLowerBound, isLowConfidence: FigureConfidence.isLow(frames: alone.frames)) + " alone"
                    } ?? compact(nearEnd?.attenuationDB, isLowerBound: nearEnd?.isLost ?? false, isLowConfidence: nearEnd?.isLowConfidence ?? false)
                    let text = nearEndCell
                        ? "\(compact(value, isLowerBound: m?.erleSteadyIsLowerBound ?? false, isLowConfidence: m?.isSteadyLowConfidence ?? false)) / "
                            + nearEndText
                        : compact(value, isLowerBound: m?.erleSteadyIsLowerBound ?? false, isLowConfidence: m?.isSteadyLowConfidence ?? false,
                                  unit: " dB")
                    if front.contains(mode.description) {
                        return .init([.strongLink(text, href: "\(result.folder)/report.md")], value: value)
                    }
                    return .init([.link(text, href: "\(result.folder)/report.md")], value: value)
                }
            })))
            let reasons = items.compactMap { item in unmeasuredReasons(item.results, nearEnd: nearEndCell).map { (item.name, $0) } }
            if !reasons.isEmpty {
                blocks.append(.paragraph([.text("Why a cell has no value, in its runs' own reports' words:")]))
                blocks.append(.list(reasons.map { name, reasons in [.strong(name), .text(" — " + reasons.joined(separator: "; "))] }))
            }
            blocks.append(.paragraph([.text("Every run with its convergence, pipeline health and ERLE plots: "), .link("eval.html", href: "eval.html"), .text(".")]))
        case .full:
            // The modes' trade-off plot with the modes' tables, before the Scores section: after
            // it, the plot and its caption read as the AECMOS chart's.
            blocks += tradeOffChart(verdicts.comparedMeans, front: corpusFront, modes: modes.map(\.description))
            blocks += scoreBlocks
            blocks.append(.heading("Every run", level: 2, id: "runs"))
            blocks.append(.paragraph([.text("Click a column to sort. Pipeline health counts underruns, overruns, clicks and gaps in the sent audio, canceller resets, unconserved buffers and lint findings.")]))
            var runHeader = ["item", "mode", "steady ERLE", "ERLE", "ERL", "convergence"]
            if hasNearEnd || hasNearEndAlone { runHeader.append("near-end attenuation") }
            if hasEstimate { runHeader.append("near-end drop (estimate)") }
            runHeader.append("pipeline health")
            blocks.append(.table(.init(header: runHeader, rows: items.flatMap { item in
                item.results.map { result -> [ReportDocument.Cell] in
                    let m = result.summary?.metrics
                    let mode = result.modeName
                    // A failed run has no folder: its mode is text, not a link to nothing.
                    var row: [ReportDocument.Cell] = [.init([.link(item.name, href: "#\(anchor(item.name))")]),
                                                      result.summary == nil ? .init(mode)
                                                          : .init([.link(mode, href: "\(result.folder)/report.html")])]
                    if result.summary == nil {
                        row += [.init([.strong("failed")])] + Array(repeating: ReportDocument.Cell(""), count: runHeader.count - 3)
                        return row
                    }
                    let frames = m?.gate.singleTalkFrames
                    row += [.init(F.figure(m?.erleSteadyDB, isLowerBound: m?.erleSteadyIsLowerBound ?? false, frames: m?.erleSteadyFrames),
                                  value: m?.erleSteadyDB, detail: m?.erleSteadyDB == nil ? result.summary?.echoUnmeasuredReason : nil),
                            .init(F.figure(m?.erleDB, isLowerBound: m?.erleIsLowerBound ?? false, frames: frames), value: m?.erleDB),
                            .init(F.figure(m?.erlDB, frames: frames), value: m?.erlDB),
                            .init(F.seconds(m?.convergenceSeconds), value: m?.convergenceSeconds)]
                    if hasNearEnd || hasNearEndAlone {
                        if let alone = nearEndAlone(m) {
                            let text = F.figure(alone.value, isLowerBound: alone.isLowerBound, frames: alone.frames) + ", talking alone"
                            row.append(.init(text, value: alone.value))
                        } else {
                            let value = nearEndAttenuation(result)
                            let text = m?.nearEnd.map { F.attenuation(value, isLost: $0.isLost, frames: $0.doubleTalkFrames) } ?? F.db(nil)
                            row.append(.init(text, value: value))
                        }
                    }
                    if hasEstimate {
                        let e = m?.nearEndEstimate, value = nearEndEstimate(result)
                        let text = e.map { F.figure(value, isLowerBound: $0.outputDropIsLowerBound, frames: $0.frames) + ($0.isLost ? ": near end lost" : "") } ?? F.db(nil)
                        row.append(.init(text, value: value))
                    }
                    row.append(healthCell(result))
                    return row
                }
            }, isSortable: true)))
            for (position, item) in items.enumerated() {
                blocks += itemBlocks(item, front: verdicts.front(ofItemAt: position), modes: modes, directory: directory)
            }
        }

        let failures = outcome.results.filter { $0.error != nil }
        if !failures.isEmpty {
            blocks.append(.heading("Failures", level: 2, id: "failures"))
            blocks.append(.list(failures.map { [.text("\($0.item) (\($0.modeName)): \($0.error ?? "")")] }))
        }
        return ReportDocument(title: "EchoLab evaluation", blocks: blocks)
    }


    /// A mean's cell with the runs it is over, where that is not every run the mode ran: the
    /// Modes table's means are each over the mode's own runs with a value, so two modes' means
    /// may stand on different items (and the trade-off plot's on the items common to all).
    static func counted(_ cell: ReportDocument.Cell, count: Int?, runs: Int) -> ReportDocument.Cell {
        guard let count, cell.value != nil, count != runs else { return cell }
        var noted = cell
        // "runs" is said once, under the table: the Modes table must read at 1280 px with 21 modes.
        noted.spans.append(.text(" (\(count) of \(runs))"))
        return noted
    }

    /// A mode's convergence median in the Modes table, over how many of its `runs` where fewer
    /// (ERLE never settled within ±3 dB, or removed under 3 dB: nothing converged), as a mean's.
    static func convergenceCell(_ summary: ModeSummary?, runs: Int) -> ReportDocument.Cell {
        counted(statisticCell(summary?.convergenceSeconds.median, unit: " s", isLowerBound: false), count: summary?.convergenceSeconds.count, runs: runs)
    }

    /// What the Modes table's columns rest on, under it: a mean over fewer runs than the mode ran
    /// (the "N of M runs"), and what convergence is, and why a mode may have none.
    static func modesTableNotes() -> [ReportDocument.Block] {
        let opening = "Each dB mean and median is over the mode's runs that have a value on at least "
            + "\(FigureConfidence.minimumAnalysisFrames) analysis frames; where that is not all of them, the mean says over how many runs (\"3 of 5\"), "
            + "so two modes' means may stand on different items. "
            + "Convergence is the first ERLE window from which ERLE stays within ±3 dB of its steady state, two windows at least (docs/metrics.md), "
            + "none where the steady ERLE is 6 dB or less (disabled, or a canceller that failed): nothing converged; "
            + "none either where the ERLE had not settled for two windows when the call ended, or where a bound at the mic's floor "
            + "leaves it unknown (each run's report says which, in "
        // A key is code: inside the text the writers escaped its backticks, and the page showed them.
        let closing = "); its median is over the runs that have one, and says over how many where that is not all of them. "
            + "p10 is steady ERLE's 10th percentile (the worst tenth of the runs). Near-end distortion is the output's difference "
            + "from the near end in double talk, residual echo included (lower is better); a near-end attenuation under 0 dB is a "
            + "talker sent louder than it spoke (an automatic gain control's gain), not one kept better. Pipeline issues are "
            + "underruns, overruns, clicks and gaps in the sent audio (not a mute's or a stopped audio unit's silence: sent on purpose, its run's events say when), canceller resets and buffers "
            + "that lost audio; lint findings are the AEC rules' (a missed telephony requirement is counted in the table below)."
        return [.paragraph([.text(opening), .code("convergence_unmeasured"), .text(closing)])]
    }

    /// The modes whose runs sent silence while the far end talked alone, with how many: such a run's
    /// ERLE is a bound at the noise floor and its convergence tells only how that floor moved, so the table read a muting
    /// canceller as the best one, with no lint finding, and named nothing that it muted.
    static func silentSendNote(modes: [EchoControlMode], results: [CorpusRun.Result]) -> String? {
        let counts = modes.compactMap { mode -> String? in
            let ran = results.filter { $0.mode == mode }.compactMap(\.summary)
            let silent = ran.filter { $0.findings.contains(RequirementFindings.silentSendRule) }.count
            return silent > 0 ? "\(mode.description) in \(silent) of \(ran.count) run\(ran.count == 1 ? "" : "s")" : nil
        }
        guard !counts.isEmpty else { return nil }
        return "Sent silence while the far end talked alone (\(RequirementFindings.silentSendRule)): " + counts.joined(separator: "; ")
            + ". Such a run's ERLE is a bound at the noise floor and its convergence tells only how that floor moved: it cut the line instead of the echo, "
            + "and wins no item where it did so."
    }

    /// The lint's findings, rule by rule, with the items that have them grouped by the modes they
    /// have them in ("every mode", "every mode but disabled", or the modes named): the Modes
    /// table counts the runs with findings, and a CI log or a reader of eval.md had no rule to
    /// look up. nil where no run has one.
    static func lintFindingsNote(_ results: [CorpusRun.Result]) -> String? {
        let tally = LintTally(results)
        guard !tally.rules.isEmpty else { return nil }
        let ran = Dictionary(grouping: results, by: \.item).mapValues { $0.map { $0.modeName } }
        func which(_ those: [String], of item: String) -> String {
            let all = ran[item] ?? []
            if those.count == all.count, all.count > 1 { return "every mode" }
            let others = all.filter { !those.contains($0) }
            if others == ["disabled"], those.count > 1 { return "every mode but disabled" }
            return those.joined(separator: ", ")
        }
        return "Lint findings (the app's audio setup against the guides' AEC rules; eval --strict fails on them): "
            + tally.rules.map { rule, runs in
                var items: [String] = [], modes: [String: [String]] = [:]
                for run in runs {
                    if modes[run.item] == nil { items.append(run.item) }
                    modes[run.item, default: []].append(run.modeName)
                }
                var groups: [String] = [], grouped: [String: [String]] = [:]
                for item in items {
                    let key = which(modes[item]!, of: item)
                    if grouped[key] == nil { groups.append(key) }
                    grouped[key, default: []].append(item)
                }
                return rule + " " + groups.map { "in \($0): " + grouped[$0]!.joined(separator: ", ") }.joined(separator: "; ")
            }.joined(separator: "; ") + "."
    }

    /// The canceller's own findings (an echo leak after a route change: its behaviour, which no
    /// app setup avoids), rule by rule with the runs that have them, counted apart from the lint
    /// and from the pipeline's issues; nil where no run has one. Without it eval.md never named
    /// the leak a route-change corpus is run to catch.
    static func cancellerFindingsNote(_ results: [CorpusRun.Result]) -> String? {
        var rules: [String] = [], runs: [String: [String]] = [:]
        for result in results {
            for rule in result.summary?.findings(of: .canceller) ?? [] {
                if runs[rule] == nil { rules.append(rule) }
                let run = "\(result.item) (\(result.modeName))"
                if runs[rule]?.contains(run) != true { runs[rule, default: []].append(run) }
            }
        }
        guard !rules.isEmpty else { return nil }
        return "The canceller's own findings (its behaviour, not the app's setup; not counted as lint findings or pipeline issues): "
            + rules.map { rule in
                let list = runs[rule]!
                return "\(rule) in \(list.count) run\(list.count == 1 ? "" : "s"): " + list.joined(separator: ", ")
            }.joined(separator: "; ") + "."
    }

    /// The items whose echo lay outside the delay search — before the reference (a loopback
    /// recorded late, which no canceller can follow) or beyond its reach: their cells and wins
    /// were ranked with the others, and only a run's page said why. nil where none.
    static func echoOutsideSearchNote(_ results: [CorpusRun.Result]) -> String? {
        var items: [String] = [], range = 0.0
        for result in results {
            guard let outside = result.summary?.echoOutsideDelaySearchMilliseconds, !items.contains(result.item) else { continue }
            items.append(result.item)
            range = outside
        }
        guard !items.isEmpty else { return nil }
        return "The echo lies outside the 0–\(Int(range)) ms delay search of its reference on " + items.joined(separator: ", ")
            + ": it leads the reference (a loopback recorded late, which no canceller can follow) or lags it by more (beyond "
            + "a canceller's reach too). Those items' figures and wins say how the modes coped with an echo they could not place."
    }

    /// The recordings whose mic or loopback reached full scale, with how many samples: a clipped
    /// echo is no longer the loopback's linear image, so every canceller's figures there stand on
    /// an echo none can fully remove, and without echo and near-end tracks the gate that finds
    /// double talk misreads it (6.86 % of a mic clipped read 81 single-talk frames for 535, and
    /// turned which mode was best). Said only in a run's health cell before; nil where none clipped.
    static func clippedRecordingsNote(_ results: [CorpusRun.Result]) -> String? {
        var items: [String] = []
        var said = Set<String>()
        for result in results {
            guard let health = result.summary?.recordingHealth, health.isClipped, said.insert(result.item).inserted else { continue }
            let parts = [health.clippedSamples.mic > 0 ? "mic: \(InputCensus.samples(health.clippedSamples.mic))" : nil,
                         (health.clippedSamples.loopback ?? 0) > 0 ? "loopback: \(InputCensus.samples(health.clippedSamples.loopback!))" : nil]
            items.append("\(result.item) (" + parts.compactMap { $0 }.joined(separator: ", ") + " at full scale)")
        }
        guard !items.isEmpty else { return nil }
        return "Recordings that clipped: " + items.joined(separator: ", ") + ". A clipped echo is not the loopback's linear image: "
            + "no canceller removes all of it, and without echo and near-end tracks the gate that finds double talk misreads it, so "
            + "read these items' figures and verdicts with care."
    }

    /// The backends whose canceller runs below the rate of a call or recording it ran on,
    /// resampled around: the band above half its rate is never sent, and reads as echo removed in
    /// their ERLE, its convergence and their wins (a pass-through plugin at 8 kHz was named best on
    /// both axes of a white-noise corpus, 8.3 dB of ERLE). nil where none does.
    static func bandLimitedNote(_ results: [CorpusRun.Result]) -> String? {
        var backends: [EchoCancellerBackend] = []
        for result in results {
            // A 16 kHz recording loses nothing to a 16 kHz canceller.
            guard let backend = result.mode?.backend, let rate = backend.cancellerRate, let runRate = result.summary?.sampleRate,
                  runRate > rate, !backends.contains(backend) else { continue }
            backends.append(backend)
        }
        guard !backends.isEmpty else { return nil }
        let named = backends.map { "\($0.name) at \($0.cancellerRate! / 1000) kHz" }.joined(separator: ", ")
        return "Cancellers run below the call's rate (\(named)) never send the band above half their rate, and what was there "
            + "reads as echo removed, in their ERLE, convergence and wins: about 10·log10(24 kHz over half the rate) on a far end "
            + "with as much power up there as below (white noise: 4.8 dB at 16 kHz, 7.8 dB at 8 kHz, a little more with the "
            + "resampler's roll-off), a few hundredths of a dB on speech; a 48 kHz call's near end loses that band too."
    }

    /// What each backend's runs were measured with (eval.json's per-run `library`: a library and
    /// its version, a plugin's name and SHA-256), so that a page read without eval.json says what
    /// it measured; a backend whose runs name several (merged shards of two builds) lists each.
    /// A failed run's canceller counts too (a plugin that crashed: which build crashed is what
    /// its author needs). nil where no run names one.
    static func librariesNote(_ results: [CorpusRun.Result]) -> String? {
        var order: [String] = [], libraries: [String: [String]] = [:]
        for result in results {
            guard let backend = result.mode?.backend.name, let library = result.summary?.library ?? result.library else { continue }
            if libraries[backend] == nil { order.append(backend) }
            if libraries[backend]?.contains(library) != true { libraries[backend, default: []].append(library) }
        }
        guard !order.isEmpty else { return nil }
        return "Measured with: " + order.map { "\($0): \(libraries[$0]!.joined(separator: " and "))" }.joined(separator: "; ") + "."
    }

    /// The bands the item's runs give no ERLE in, with the runs' own reason and the modes it holds
    /// for ("every mode" where all): an empty slot in the band chart says nothing by itself.
    static func unmeasuredBandsNote(_ ran: [CorpusRun.Result]) -> String? {
        let withBands = ran.filter { ($0.summary?.metrics?.erleBands.contains { $0.erleDB != nil }) == true }
        let lines = reasonsByMode(withBands) { result in
            (result.summary?.metrics?.erleBands ?? []).compactMap { band in
                band.unmeasuredReason.map { "\(RunReportDocument.bandName(band)): \($0)" }
            }
        }
        return lines.isEmpty ? nil : "No ERLE in " + lines.joined(separator: "; ") + "."
    }

    /// Each reason the runs give (`reasons`), once, with the modes it holds for ("every mode"
    /// where it holds for all of `runs`), in the order first given.
    static func reasonsByMode(_ runs: [CorpusRun.Result], _ reasons: (CorpusRun.Result) -> [String]) -> [String] {
        var grouped: [(reason: String, modes: [String])] = []
        for result in runs {
            let mode = result.modeName
            for text in reasons(result) {
                if let index = grouped.firstIndex(where: { $0.reason == text }) { grouped[index].modes.append(mode) } else { grouped.append((text, [mode])) }
            }
        }
        return grouped.map { "\($0.reason) (\($0.modes.count == runs.count ? "every mode" : $0.modes.joined(separator: ", ")))" }
    }

    /// Why an item's runs have no steady ERLE (and, with `nearEnd`, no near-end attenuation in
    /// double talk), in their reports' own words (`echo_unmeasured`; the telephony double talk's
    /// reason), each reason once with the modes it holds for ("every mode" where all): nil where
    /// every run has both, or says nothing.
    static func unmeasuredReasons(_ results: [CorpusRun.Result], nearEnd: Bool) -> [String]? {
        let ran = results.filter { $0.summary != nil }
        func grouped(_ what: String, _ reason: (CorpusRun.Result) -> String?) -> [String] {
            reasonsByMode(ran) { result in reason(result).map { ["\(what): \($0)"] } ?? [] }
        }
        let erle = grouped("no steady ERLE") { result in
            result.summary?.metrics?.erleSteadyDB == nil ? result.summary?.echoUnmeasuredReason : nil
        }
        let attenuation = !nearEnd ? [] : grouped("no near-end attenuation") { result in
            // A lone talker's figure stands in its cell ("alone"): nothing is missing there.
            guard let m = result.summary?.metrics, let n = m.nearEnd, n.attenuationDB == nil, nearEndAlone(m) == nil else { return nil }
            return m.telephony?.doubleTalkUnmeasuredReason
        }
        return erle.isEmpty && attenuation.isEmpty ? nil : erle + attenuation
    }

    /// `EvalDocument.nearEndAlone` of a run's metrics, if any.
    static func nearEndAlone(_ metrics: EchoMetrics?) -> (value: Double, isLowerBound: Bool, frames: Int)? {
        metrics.flatMap(EvalDocument.nearEndAlone)
    }

    /// The distortion median's cell, with how many runs lost the near end: those have no
    /// distortion to measure and are left out of it (their attenuation counts at its bound).
    static func lostNote(_ cell: ReportDocument.Cell, lost: Int) -> ReportDocument.Cell {
        guard lost > 0 else { return cell }
        var noted = cell
        noted.spans.append(.text(" (\(lost) lost)"))
        return noted
    }

    /// A per-mode statistic's cell, one decimal: "≥" where it is over lower bounds (a near end
    /// lost, an output under the noise floor), as its statistics are lower bounds too.
    static func statisticCell(_ value: Double?, unit: String, isLowerBound: Bool) -> ReportDocument.Cell {
        let bound = value != nil && isLowerBound ? "≥ " : ""
        return .init(bound + ReportFormatting.number(value, digits: 1, unit: unit), value: value)
    }

    /// The telephony standards' figures per mode (TCLw against TS 26.131's 46 dB; P.340's send
    /// attenuation range in double talk), where any run has them: a table of their own, beside
    /// the two axes rather than in their table.
    /// `belowRequirement`: how many of a mode's runs miss TS 26.131's echo loss (a simulated
    /// run's echo-loss finding; a recording, which has no findings, by the same rule), and how
    /// many have a TCLw that cannot be judged against it (a bound under 46 dB that may meet it).
    static func telephonyTable(modes: [EchoControlMode], summaries: [ModeSummary],
                               belowRequirement: (EchoControlMode) -> (below: Int, notJudged: Int)) -> [ReportDocument.Block] {
        typealias F = ReportFormatting
        let hasTCLw = summaries.contains { $0.tclwDB.count > 0 }
        let hasRange = summaries.contains { $0.doubleTalkAttenuationRangeDB.count > 0 }
        guard hasTCLw || hasRange else { return [] }
        func stat(_ value: Double?, isLowerBound: Bool?) -> ReportDocument.Cell {
            statisticCell(value, unit: " dB", isLowerBound: isLowerBound ?? false)
        }
        var header = ["mode"]
        if hasTCLw { header += ["TCLw median", "TCLw p10", "runs below 46 dB", "runs not judged against 46 dB (a bound)"] }
        if hasRange { header += ["double-talk attenuation range median", "P.340 category of the median"] }
        return [
            .paragraph([.text("In the telephony standards' terms (see docs/metrics.md): TCLw, the weighted terminal coupling loss "
                              + "(TS 26.131 asks 46 dB; a simulated run measured below it has the finding \(RequirementFindings.echoLossRule)), "
                              + "and the send attenuation range in double talk, which ITU-T P.340 categorises "
                              + "(1: ≤ 3 dB full duplex; 2a/2b/2c: ≤ 6/9/12 dB; 3: more).")]),
            .table(.init(header: header, rows: modes.map { mode in
                let summary = summaries.first { $0.mode == mode.description }
                var row: [ReportDocument.Cell] = [.init([.code(mode.description)])]
                if hasTCLw {
                    let counts = belowRequirement(mode)
                    row += [stat(summary?.tclwDB.median, isLowerBound: summary?.tclwDB.medianIsLowerBound),
                            stat(summary?.tclwDB.p10, isLowerBound: summary?.tclwDB.p10IsLowerBound),
                            .init("\(counts.below)"), .init("\(counts.notJudged)")]
                }
                if hasRange {
                    let median = summary?.doubleTalkAttenuationRangeDB.median
                    // Two decimals, as the run report prints it beside its category (`TelephonyBlocks.rangeText`).
                    let bounded = median != nil && summary?.doubleTalkAttenuationRangeDB.medianIsLowerBound == true
                    row += [.init(TelephonyBlocks.rangeText(median, isLowerBound: bounded), value: median),
                            .init(summary?.doubleTalkRating.map { $0.category.rawValue + ($0.isBestCase ? " or worse" : "") } ?? "—")]
                }
                return row
            })),
        ]
    }

    /// One item: its front's paragraph (`front`: Evaluation's verdict on it), its ERLE over time
    /// and per band, one line / bar per mode, and its audio.
    static func itemBlocks(_ item: (index: Int, name: String, file: String, results: [CorpusRun.Result]), front: BestModes.Verdict?,
                           modes: [EchoControlMode], directory: String) -> [ReportDocument.Block] {
        var blocks: [ReportDocument.Block] = [.heading(item.name, level: 3, id: anchor(item.name)),
                                              .paragraph([.text("From "), .code(item.file)])]
        if let best = bestModesParagraph(front, isCorpus: false) { blocks.append(best) }
        let ran = item.results.filter { $0.summary != nil }
        // A failed run says so here, with its error, not only under Failures: otherwise an item
        // whose runs all failed shows empty plots whose notes blame the audio or --no-taps.
        let failed = item.results.filter { $0.error != nil }
        if !failed.isEmpty {
            let lines = reasonsByMode(failed) { [$0.error!] }
            blocks.append(.note([.text((ran.isEmpty ? "Every run of this item failed: " : "Failed: ") + lines.joined(separator: "; ") + ".")]))
            if ran.isEmpty { return blocks }
        }
        let duration = ran.map { $0.summary!.durationSeconds }.max() ?? 0.5
        let singleTalkFrames = ran.compactMap { $0.summary?.metrics?.gate.singleTalkFrames }.max() ?? 0
        let hasNearEnd = ran.contains { $0.summary?.metrics?.nearEnd != nil }
        if let reasons = unmeasuredReasons(item.results, nearEnd: hasNearEnd) {
            blocks.append(.note([.text("No value here, in the runs' own reports' words: " + reasons.joined(separator: "; ") + ".")]))
        }
        // Where every run says why it has no ERLE, and says the same, the empty plot says that
        // (a file microphone's call has far-end single talk, just no echo in what was sent).
        let echoReasons = Set(ran.map { $0.summary?.echoUnmeasuredReason })
        let emptyNote = echoReasons.count == 1 ? echoReasons.first!.map { "No ERLE in this item: \($0)" } : nil
        var chart = ReportDocument.TimeChart(
            title: "\(item.name): ERLE over time, one line per mode", yLabel: "ERLE (dB)", durationSeconds: max(duration, 0.5),
            lines: ran.map { result in
                let series = result.summary?.metrics?.erleSeries ?? []
                let step = series.count >= 2 ? series[1].timeSeconds - series[0].timeSeconds : 0.5
                let name = result.modeName
                return .init(name: name, points: series.map { ($0.timeSeconds + step / 2, $0.erleDB) }, colour: ModeColours.colour(for: name, among: modes.map(\.description)),
                             lowerBounds: series.map(\.isLowerBound), frames: series.map(\.frames))
            },
            emptyNote: emptyNote ?? RunReportDocument.noERLENote(singleTalkFrames: singleTalkFrames, place: " in this item"))
        // The timeline is the scenario's, the same in every mode but for the intensity a mode
        // gives set_aec: an action that reads differently between modes is labelled by its verb.
        let timelines = ran.compactMap { $0.summary?.timeline }
        chart.markers = (timelines.first ?? []).enumerated().map { index, event in
            let same = timelines.allSatisfy { index < $0.count && $0[index].action == event.action }
            let verb = event.action.split(separator: " ").first.map(String.init) ?? event.action
            return .init(t: event.seconds, label: same ? event.action : "\(verb) (each mode's)")
        }
        blocks.append(.timeChart(chart))
        let bands = ran.compactMap { $0.summary?.metrics?.erleBands }.max { $0.count < $1.count } ?? []
        blocks.append(.bandChart(.init(
            title: "\(item.name): ERLE per octave band, per mode", yLabel: "ERLE (dB)", bands: bands.map { ($0.lowHz, $0.highHz) },
            series: ran.map { result in
                let name = result.modeName
                let bands = result.summary?.metrics?.erleBands ?? []
                return .init(name: name, values: bands.map(\.erleDB), lowerBounds: bands.map(\.isLowerBound), colour: ModeColours.colour(for: name, among: modes.map(\.description)))
            },
            emptyNote: emptyNote ?? RunReportDocument.noERLENote(singleTalkFrames: singleTalkFrames, what: "band", place: " in this item"))))
        if let note = Self.unmeasuredBandsNote(ran) { blocks.append(.paragraph([.text(note)])) }
        var clips: [ReportDocument.AudioClip] = []
        if let recordingMic = ran.first(where: { $0.summary?.micFile != nil })?.summary?.micFile {
            clips.append(.init(label: "mic (recording)", path: relativePath(from: directory, to: recordingMic)))
        } else if let withMic = ran.first(where: { $0.summary?.taps["mic"] != nil }) {
            clips.append(.init(label: "mic (canceller input)", path: "\(withMic.folder)/\(withMic.summary!.taps["mic"]!)"))
        }
        for result in ran {
            if let sent = result.summary?.taps["sent"] {
                clips.append(.init(label: "sent: \(result.modeName)", path: "\(result.folder)/\(sent)"))
            }
        }
        let noOutput = ran.allSatisfy { $0.summary?.taps["sent"] == nil }
        if clips.isEmpty || (noOutput && ran.allSatisfy({ $0.summary?.micFile == nil })) {
            blocks.append(.note([.text("No audio taps were written (--no-taps): nothing to listen to for this item.")]))
        } else {
            // A recording's mic is an input: it can be played even when no output was kept.
            if noOutput { blocks.append(.note([.text("The canceller's output was not kept (--no-taps).")])) }
            blocks.append(.audio(clips))
        }
        return blocks
    }

    /// "N runs, 0 failed", or with failures how many of the runs succeeded ("21 runs: 12 succeeded,
    /// 9 failed": "12 runs, 9 failed" read as 3 succeeded).
    private static func runCount(_ runs: Int, failed: Int) -> String {
        failed == 0 ? "\(runs) runs, 0 failed" : "\(runs) runs: \(runs - failed) succeeded, \(failed) failed"
    }

    /// A matrix cell's value: "≥ 28.9" for a bound, "12.3 (few frames)" for a low-confidence one;
    /// `unit` right after the number ("12.3 dB (few frames)").
    /// An item's echo path as its runs measured it: "ERL 9.6 dB, 60 ms", "ERL 9.6–9.7 dB, 77 ms",
    /// "—" where no run measured either. Figures on too few frames are left out, as from the means.
    static func echoPathText(_ results: [CorpusRun.Result]) -> String {
        func range(_ values: [Double], digits: Int, unit: String) -> String? {
            guard let low = values.min(), let high = values.max() else { return nil }
            let (a, b) = (ReportFormatting.number(low, digits: digits), ReportFormatting.number(high, digits: digits))
            return (a == b ? a : a + "–" + b) + unit
        }
        let metrics = results.compactMap { $0.summary?.metrics }
        let erls = metrics.compactMap { $0.isLowConfidence ? nil : $0.erlDB }
        let parts = [range(erls, digits: 1, unit: " dB").map { "ERL " + $0 },
                     range(metrics.compactMap(\.delayMilliseconds), digits: 0, unit: " ms")].compactMap { $0 }
        return parts.isEmpty ? "—" : parts.joined(separator: ", ")
    }

    static func compact(_ value: Double?, isLowerBound: Bool, isLowConfidence: Bool, unit: String = "") -> String {
        guard value != nil else { return "—" }
        return (isLowerBound ? "≥ " : "") + ReportFormatting.number(value, digits: 1) + unit + (isLowConfidence ? " (few frames)" : "")
    }

    /// "Best on both axes: …" for a verdict (nil without one); for the corpus (`isCorpus`) it
    /// says which items the modes were compared on, that the Modes table stars them, and where a
    /// lower bound left a front mode's order unknown (`itemNames`: the corpus's items, in order).
    static func bestModesParagraph(_ front: BestModes.Verdict?, isCorpus: Bool = true, itemNames: [String] = []) -> ReportDocument.Block? {
        guard let front, !front.modes.isEmpty else { return nil }
        let scope = !isCorpus ? "this item" : corpusScope(front)
        let marked = isCorpus ? "; ★ below" : ""
        // Where the near end is the tap-free estimate, on which items.
        let estimated = front.nearEndEstimatedItems == 0 ? ""
            : !isCorpus || front.nearEndEstimatedItems == front.nearEndComparedItems
                ? " The near end is the estimate from mic and loopback (no near-end track): the output's drop under the talker the gate hears."
                : " On \(front.nearEndEstimatedItems) of the \(front.nearEndComparedItems) items (no near-end track) the near end is the estimate from mic and loopback: the output's drop under the talker the gate hears."
        let lead: String, why: String
        switch front.axes {
        case .both:
            lead = "Best on both axes:"
            why = " — no other mode removes at least as much echo (steady ERLE) and keeps at least as much of the near talker in double talk, and does better at one (\(scope))\(marked).\(estimated)"
        case .erleOnly:
            lead = "Best on steady ERLE:"
            let frames = RunReportDocument.count(front.doubleTalkFrames, "analysis frame")
            let reason = front.doubleTalkItems == 0 ? "no double talk to judge the near end on"
                : isCorpus ? "the gate heard double talk (in \(RunReportDocument.count(front.doubleTalkItems, "item")), \(frames)) but no mode has a near-end figure to judge it on"
                : "the gate heard double talk (\(frames)) but no mode has a near-end figure to judge it on"
            why = " — judged on ERLE alone: \(reason) (\(scope))\(marked)."
        case .nearEndOnly:
            lead = front.nearEndEstimatedItems > 0 ? "Best on the near end (estimated):" : "Best on near-end attenuation:"
            why = " — judged on the near end alone: no far-end single talk to judge ERLE on (\(scope))\(marked).\(estimated)"
        case .nearEndAlone:
            lead = "Best with the near end alone:"
            why = " — the far end never played (no echo, no double talk), so judged on what each mode took off the near talker, which it should leave whole (\(scope))\(marked)."
        }
        var spans: [ReportDocument.Span] = [.strong(lead), .text(" ")]
        for (index, mode) in front.modes.enumerated() {
            if index > 0 { spans.append(.text(", ")) }
            spans.append(.code(mode))
        }
        return .paragraph(spans + [.text(why)] + (isCorpus ? tiesSpans(front, itemNames: itemNames) : []))
    }

    /// Why a corpus has no best modes: fewer than two cancellers ran (`disabled` is the
    /// reference, never ranked), or no item gave two of them figures to compare on echo or double
    /// talk. Where some items have verdicts of their own (a near talker alone, which the corpus
    /// does not compare), the wins count those. Where the modes were not given and two cancellers
    /// ran, each item ran as written, in its own mode: no two modes ran on one item (the last
    /// reason misled there).
    static func noBestModesParagraph(modes: [String], modesGiven: Bool = true, itemsWithAVerdict: Int = 0) -> ReportDocument.Block? {
        guard !modes.isEmpty else { return nil }
        let cancellers = modes.filter { $0 != "disabled" }
        if !modesGiven && cancellers.count > 1 {
            return .paragraph([.strong("No best modes:"), .text(" each item ran as written, in its own mode, so no item ran two modes to compare; "),
                               .code("--modes"), .text(" runs every item in each mode given.")])
        }
        let reference: [ReportDocument.Span] = [.code("disabled"), .text(" is the reference a canceller is judged against, never ranked")]
        let wins = itemsWithAVerdict == 0 ? "so every mode's wins are 0"
            : "and the wins count the verdicts of the \(RunReportDocument.count(itemsWithAVerdict, "item")) judged on their own (the near end alone)"
        let why: [ReportDocument.Span] = switch cancellers.count {
        case 0: [.text(" no canceller ran: ")] + reference + [.text(".")]
        case 1: [.text(" one canceller ran, "), .code(cancellers[0]), .text(", and ")] + reference
            + [.text(": there is no other to rank it against, so every mode's wins are 0.")]
        default: [.text(" no item gave two cancellers a steady ERLE or a near-end figure in double talk that counts to compare (or all but one removed no echo, or muted the send), \(wins).")]
        }
        return .paragraph([.strong("No best modes:")] + why)
    }

    /// Which items a corpus verdict compared the modes on, each axis on its own: echo removal
    /// where every mode has a steady ERLE (far-end single talk), the near end where every mode
    /// has a figure for it (double talk).
    static func corpusScope(_ front: BestModes.Verdict) -> String {
        let erle = front.axes.judgesERLE, nearEnd = front.axes.judgesNearEnd
        if (!erle || front.erleComparedItems == front.items) && (!nearEnd || front.nearEndComparedItems == front.items) {
            return "mode against mode, mean differences over the corpus"
        }
        var parts: [String] = []
        if erle { parts.append("steady ERLE over the \(front.erleComparedItems) of \(front.items) items where every mode has one") }
        if nearEnd {
            let items = front.nearEndComparedItems == 1 ? "item" : "items"
            parts.append("the near end over the \(front.nearEndComparedItems)\(erle ? " \(items)" : " of \(front.items) items") where every mode has a figure for it")
        }
        return "mode against mode, mean differences: " + parts.joined(separator: ", ")
    }

    /// What the corpus's verdict could not decide: on each axis judged, the items where a lower
    /// bound left a front mode's order against another mode unknown, counted as no difference
    /// (nothing where no bound did).
    static func tiesSpans(_ front: BestModes.Verdict, itemNames: [String]) -> [ReportDocument.Span] {
        let axes: [(name: String, items: [Int], compared: Int, perMode: (BestModes.Ties) -> Int)] =
            (!front.axes.judgesERLE ? [] : [("echo (steady ERLE)", front.erleTiedItems, front.erleComparedItems, { $0.erleItems.count })])
            + (!front.axes.judgesNearEnd ? [] : [("the near end", front.nearEndTiedItems, front.nearEndComparedItems, { $0.nearEndItems.count })])
        guard axes.contains(where: { !$0.items.isEmpty }) else { return [] }
        var spans: [ReportDocument.Span] = [.text(" An item where a lower bound leaves two modes' order unknown (an output under the noise floor"
                                                  + (front.axes == .erleOnly ? "" : "; a near end lost") + ") counts as no difference between them: ")]
        for (index, axis) in axes.enumerated() {
            if index > 0 { spans.append(.text("; ")) }
            guard !axis.items.isEmpty else { spans.append(.text("on \(axis.name), none")); continue }
            let names = axis.items.prefix(6).map { itemNames.indices.contains($0) ? itemNames[$0] : "item \($0 + 1)" }
            let more = axis.items.count > names.count ? ", and \(axis.items.count - names.count) more" : ""
            spans.append(.text("on \(axis.name), \(axis.items.count) of the \(axis.compared) items compared (\(names.joined(separator: ", "))\(more)) \(axis.items.count == 1 ? "was" : "were") such ties for "
                                 + (front.ties.count > 1 ? "a front mode — " : "")))
            let tied = front.ties.filter { axis.perMode($0) > 0 }
            for (n, ties) in tied.enumerated() {
                if n > 0 { spans.append(.text(", ")) }
                spans.append(.code(ties.mode))
                if front.ties.count > 1 { spans.append(.text(" on \(axis.perMode(ties))")) }
            }
        }
        spans.append(.text("."))
        return spans
    }

    /// Each mode as a point, steady ERLE up and near-end attenuation across (`means`: the corpus
    /// means over the items every mode has its values on, as Evaluation computed them), the best
    /// on both axes ringed; a note instead where the corpus has no double talk to plot.
    static func tradeOffChart(_ means: BestModes.ComparedMeans?, front: BestModes.Verdict?, modes: [String] = []) -> [ReportDocument.Block] {
        let points = (means?.points ?? []).compactMap { point -> ReportDocument.ScatterChart.Point? in
            guard let erle = point.erleSteadyDB, let nearEnd = point.nearEndAttenuationDB else { return nil }
            return .init(name: point.mode, x: nearEnd, y: erle, isHighlighted: front?.modes.contains(point.mode) == true,
                         colour: ModeColours.colour(for: point.mode, among: modes),
                         xIsLowerBound: point.nearEndIsLowerBound, yIsLowerBound: point.erleSteadyIsLowerBound)
        }
        // No point (no item every mode has a near-end figure on): no caption, and the title and
        // the plot's own note say why.
        let shown = points.isEmpty ? nil : means
        let over = shown.map { $0.erleComparedItems == $0.items && $0.nearEndComparedItems == $0.items
            ? "means over all \($0.items) items"
            : "steady ERLE over \($0.erleComparedItems), near end over \($0.nearEndComparedItems) of \($0.items) items" } ?? "no item to plot both values of"
        let estimated = (front?.nearEndEstimatedItems ?? 0) > 0
        // The Modes table's means are each mode's over its own runs: the same mode can sit at
        // another ERLE here, and two modes swap places. Said where the reader compares them.
        let caption: [ReportDocument.Block] = shown.map { means in
            let items = { (count: Int) in "\(count) item\(count == 1 ? "" : "s")" }
            let all = means.erleComparedItems == means.items && means.nearEndComparedItems == means.items
            return [.paragraph([.text("Each point is a mode's mean steady ERLE over the \(items(means.erleComparedItems)) (of \(means.items)) "
                               + "on which every mode plotted has one, and its mean near-end attenuation over the "
                               + "\(items(means.nearEndComparedItems)) on which every mode plotted has one"
                               + (all ? "" : ", while the Modes table's means are over each mode's own runs: "
                                  + "its order can differ from the table's")
                               + (points.contains { $0.xIsLowerBound || $0.yIsLowerBound }
                                  ? ". ≥ marks a mean over a lower bound (an arrow the way the truth may lie). " : ". ")
                               + "The rings follow the corpus front (★ in the Modes table), which compares modes pair by pair, item by item, "
                               + "not these means: a ringed point may sit below or right of an unringed one.")])]
        } ?? []
        var chart = ReportDocument.ScatterChart(title: "Echo removed against near end kept, one point per mode (\(over))",
                                   xLabel: (estimated ? "near-end attenuation in double talk, or its estimate from mic and loopback without a near-end track (dB)"
                                                      : "near-end attenuation in double talk (dB)") + ": left keeps more of the near talker",
                                   yLabel: "steady ERLE (dB)", points: points, highlightLabel: "best on both axes",
                                   emptyNote: "No mode has both a steady ERLE and a near-end attenuation in double talk to plot")
        // A tooltip names its axes ("1.9, ≥ 15.4" left the reader to guess which was which).
        chart.valueNames = ("near-end attenuation", "steady ERLE")
        return caption + [.scatterChart(chart)]
    }

    /// A run's health in one line of the table, what it counts on hover. It sorts by all it
    /// counts: the pipeline's issues, the lint's findings and the canceller's own findings (a run
    /// that reads "ok for the app; the canceller's: 1 finding" is not as clean as one that reads "ok").
    static func healthCell(_ result: CorpusRun.Result) -> ReportDocument.Cell {
        let (issues, findings, text) = health(result)
        // A recording that clipped has no issue of the pipeline's, but says so; nor is the
        // canceller's own finding one, but it is said (hidden behind "ok", a leak after a route
        // change went unseen).
        let clipped = result.summary?.recordingHealth?.isClipped ?? false
        let canceller = result.summary?.findings(of: .canceller).count ?? 0
        let counts = [issues > 0 ? "\(issues) issue\(issues == 1 ? "" : "s")" : nil,
                      findings > 0 ? "\(findings) finding\(findings == 1 ? "" : "s")" : nil].compactMap { $0 }.joined(separator: ", ")
        let short = issues + findings == 0 ? (clipped ? "ok (the recording clipped)" : canceller > 0 ? "ok for the app" : "ok") : counts
        let said = canceller > 0 ? short + "; the canceller's: \(canceller) finding\(canceller == 1 ? "" : "s")" : short
        return .init(said, value: Double(issues + findings + canceller), isNumeric: false,
                     detail: issues + findings == 0 && !clipped && canceller == 0 ? nil : text)
    }

    /// Pipeline health of a run: how many things went wrong in the pipeline (`issues`), how many
    /// lint findings it has, and both in words. A missed telephony requirement is not the
    /// pipeline's health: the telephony table counts those.
    static func health(_ result: CorpusRun.Result) -> (issues: Int, findings: Int, text: String) {
        guard let summary = result.summary else { return (0, 0, "") }
        let findings = summary.findings(of: .lint)
        var parts: [String] = []
        var issues = 0
        func count(_ n: Int, _ noun: String) {
            if n > 0 { issues += n; parts.append("\(n) \(noun)\(n == 1 ? "" : "s")") }
        }
        if let pipeline = summary.pipeline {
            count(pipeline.underruns, "underrun"); count(pipeline.overruns, "overrun"); count(pipeline.sentClicks, "click")
            count(pipeline.sentGaps, "gap"); count(pipeline.aecResets, "canceller reset")
            for (name, buffer) in pipeline.buffers where !buffer.isConserved {
                issues += 1
                parts.append("\(name) not conserved")
            }
        }
        if let streams = summary.hardwareStreams {
            count(streams.underruns, "hardware stream underrun")
            // Samples, not events: one issue, said with its count.
            if streams.droppedSamples > 0 {
                issues += 1
                parts.append("\(streams.droppedSamples) sample\(streams.droppedSamples == 1 ? "" : "s") dropped by a hardware stream")
            }
        }
        if let health = summary.recordingHealth {
            count(health.aecResets, "canceller reset")
            // Clipping is the recording's, not the pipeline's: said, not counted as an issue.
            for (stage, count) in [("mic", health.clippedSamples.mic), ("loopback", health.clippedSamples.loopback ?? 0)] where count > 0 {
                parts.append("\(count) \(stage) samples clipped")
            }
        }
        // The canceller's own findings (an echo leak after a route change) are said, not
        // counted as the app's lint.
        let canceller = summary.findings(of: .canceller)
        if !canceller.isEmpty { parts.append("the canceller's: " + canceller.joined(separator: ", ")) }
        if !findings.isEmpty {
            var rules: [String] = []
            for rule in findings where !rules.contains(rule) { rules.append(rule) }
            parts.append("findings: " + rules.map { rule in
                let n = findings.filter { $0 == rule }.count
                return n > 1 ? "\(rule) ×\(n)" : rule
            }.joined(separator: ", "))
        }
        return (issues, findings.count, parts.isEmpty ? "ok" : parts.joined(separator: "; "))
    }

    /// Near-end attenuation in double talk (dB), as eval.md's column has it: a call without
    /// double talk has none (its near-end single-talk figure measures something else, and would
    /// sort among the double-talk ones).
    static func nearEndAttenuation(_ result: CorpusRun.Result) -> Double? {
        result.summary?.metrics?.nearEnd?.attenuationDB
    }

    /// The tap-free near-end estimate's output drop (dB) of a run without a near-end track.
    static func nearEndEstimate(_ result: CorpusRun.Result) -> Double? {
        result.summary?.metrics?.nearEndEstimate?.outputDropDB
    }

    static func anchor(_ name: String) -> String { "item-" + name.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "-" } }

    /// `target` relative to the folder `base`, for a link a browser follows: `base` as given (a
    /// browser climbs the page's own address as text, through any link in it), `target` as the
    /// result model holds it, where it really is: the run resolved its links when it was measured
    /// (`RecordingReport.Files`), since through a symbolic link `link/../x` is another folder for
    /// the kernel than for text. Rendering reads no disk: the bytes are the model's alone.
    static func relativePath(from base: String, to target: String) -> String {
        let from = InputFile.lexicalComponents(base), to = InputFile.lexicalComponents(target)
        var shared = 0
        while shared < from.count, shared < to.count, from[shared] == to[shared] { shared += 1 }
        return (Array(repeating: "..", count: from.count - shared) + to[shared...]).joined(separator: "/")
    }
}
