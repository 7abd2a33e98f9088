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
        let hasNearEndAlone = outcome.results.contains { $0.summary?.nearEndAlone != nil }
        // The modes' estimate statistics are over double talk only (a lone talker's estimate is
        // its own axis), and the run table's attenuation column holds a lone talker's with its
        // track: a corpus of tap-free recordings read "—" in every row of either.
        let hasEstimateStatistics = summaries.contains { $0.nearEndEstimateDropDB != nil }
        let hasTrackedNearEndAlone = outcome.results.contains { $0.summary?.nearEndAlone?.isEstimate == false }

        blocks.append(.heading("Modes", level: 2, id: "modes"))
        // The two axes side by side, then their spread.
        var header = ["mode", "runs", "steady ERLE mean"]
        if hasNearEnd { header.append("near-end attenuation mean") }
        if hasEstimateStatistics { header.append("near-end drop mean (estimate)") }
        header += ["steady ERLE median", "p10"]
        if hasNearEnd { header += ["near-end attenuation median", "near-end distortion median"] }
        if hasEstimateStatistics { header.append("near-end drop median (estimate)") }
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
            if hasEstimateStatistics { row.append(lostNote(mean(summary?.nearEndEstimateDropDB), lost: summary?.nearEndEstimateLostRuns ?? 0)) }
            row += [stat(summary?.erleSteadyDB.median, " dB", isLowerBound: summary?.erleSteadyDB.medianIsLowerBound),
                    stat(summary?.erleSteadyDB.p10, " dB", isLowerBound: summary?.erleSteadyDB.p10IsLowerBound)]
            if hasNearEnd {
                row += [stat(summary?.nearEndAttenuationDB.median, " dB", isLowerBound: summary?.nearEndAttenuationDB.medianIsLowerBound),
                        lostNote(stat(summary?.nearEndDistortionDB.median, " dB"), lost: summary?.nearEndLostRuns ?? 0)]
            }
            if hasEstimateStatistics { row.append(stat(summary?.nearEndEstimateDropDB?.median, " dB", isLowerBound: summary?.nearEndEstimateDropDB?.medianIsLowerBound)) }
            row.append(convergenceCell(summary, runs: ran))
            row.append(.init("\(summary?.wins ?? 0)"))
            // Pipeline issues (counters: underruns, clicks, resets …) and lint findings apart:
            // a run can break the guide's rules with a healthy pipeline, and the other way round.
            row.append(.init("\(results.filter { $0.health.issues > 0 }.count)"))
            row.append(.init("\(results.filter { $0.health.lintFindings > 0 }.count)"))
            return row
        }, isSortable: detail == .full)))
        blocks += modesTableNotes()
        if let silent = silentSendNote(modes: modes, results: outcome.results) { blocks.append(.paragraph([.text(silent)])) }
        if let lint = lintFindingsNote(outcome) { blocks.append(.paragraph([.text(lint)])) }
        if let canceller = cancellerFindingsNote(outcome.results) { blocks.append(.paragraph([.text(canceller)])) }
        if let outside = echoOutsideSearchNote(outcome.results) { blocks.append(.paragraph([.text(outside)])) }
        if let recordings = recordingPipelineNote(outcome.results) { blocks.append(.paragraph([.text(recordings)])) }
        if let clipped = clippedRecordingsNote(outcome.results) { blocks.append(.paragraph([.text(clipped)])) }
        if let beyond = delayBeyondReachNote(outcome.results) { blocks.append(.paragraph([.text(beyond)])) }
        if let bandLimited = bandLimitedNote(outcome.results) { blocks.append(.paragraph([.text(bandLimited)])) }
        if let libraries = librariesNote(outcome.results) { blocks.append(.paragraph([.text(libraries)])) }
        blocks += telephonyTable(modes: modes, summaries: summaries) { mode in
            let runs = outcome.results.filter { $0.mode == mode }
            // A bound that may meet 46 dB, or a figure on too few bands, is neither below it nor
            // over it: counted apart, or a mode whose 6 such runs all stand under 46 dB would
            // read as if 6 had met it.
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
                marks.append("\"est.\" marks a run without a near-end track, whose near end is the estimate from mic and loopback: the output's drop under the talker the gate hears,"
                             + String(Self.estimateScope.dropLast()))
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
                                            + "a value marked (N frames) stands on fewer than \(FigureConfidence.minimumAnalysisFrames) analysis frames and counts in no mean or win.")]))
            blocks.append(.table(.init(header: ["item", "echo path"] + modes.map(\.description), rows: items.enumerated().map { position, item in
                let front = verdicts.front(ofItemAt: position)?.modes ?? []
                return [.init(item.name), .init(Self.echoPathText(item.results))] + modes.map { mode -> ReportDocument.Cell in
                    guard let result = item.results.first(where: { $0.mode == mode }) else { return .init("") }
                    guard let summary = result.summary else { return .init([.strong("failed")]) }
                    let m = summary.metrics, value = m?.erleSteadyDB
                    let nearEnd = m?.nearEnd
                    let estimate = nearEnd == nil ? m?.nearEndEstimate : nil
                    // A lone talker's figure first: a recording's estimate there is no double talk's.
                    let nearEndText = summary.nearEndAlone.map { alone in
                        compact(alone.value, isLowerBound: alone.isLowerBound, frames: alone.frames)
                            + (alone.isEstimate ? " est." : "") + " alone"
                    } ?? estimate.map { e in
                        compact(e.outputDropDB, isLowerBound: e.outputDropIsLowerBound, frames: e.frames)
                            + (e.outputDropDB == nil ? "" : " est.") + (e.isLost ? " (lost)" : "")
                    } ?? compact(nearEnd?.attenuationDB, isLowerBound: nearEnd?.isLost ?? false, frames: nearEnd?.doubleTalkFrames ?? 0)
                    let text = nearEndCell
                        ? "\(compact(value, isLowerBound: m?.erleSteadyIsLowerBound ?? false, frames: m?.erleSteadyFrames ?? 0)) / "
                            + nearEndText
                        : compact(value, isLowerBound: m?.erleSteadyIsLowerBound ?? false, frames: m?.erleSteadyFrames ?? 0, unit: " dB")
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
            if hasNearEnd || hasTrackedNearEndAlone { runHeader.append("near-end attenuation") }
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
                            .init(F.figure(m?.erlDB, isLowerBound: m?.erlIsLowerBound ?? false, frames: m?.erlFrames), value: m?.erlDB),
                            .init(F.seconds(m?.convergenceSeconds, isLowerBound: m?.convergenceIsLowerBound ?? false), value: m?.convergenceSeconds)]
                    if hasNearEnd || hasTrackedNearEndAlone {
                        if let alone = result.summary?.nearEndAlone, !alone.isEstimate {
                            let text = F.figure(alone.value, isLowerBound: alone.isLowerBound, frames: alone.frames) + ", talking alone"
                            row.append(.init(text, value: alone.value))
                        } else {
                            let value = nearEndAttenuation(result)
                            var text = m?.nearEnd.map { F.attenuation(value, isLost: $0.isLost, frames: $0.doubleTalkFrames) } ?? F.db(nil)
                            // No figure, but a talker that reached no one (muted, a file mic): said, not left a blank.
                            let unsent = m?.nearEnd?.talkNotSentFrames ?? 0
                            if value == nil, unsent > 0 { text += " (talk not sent: \(F.analysisFrames(unsent)))" }
                            row.append(.init(text, value: value, detail: value == nil && unsent > 0
                                ? "the near end talked over \(F.analysisFrames(unsent)) where nothing of the room was sent (muted, the audio unit "
                                    + "stopped, or a file or generator as the mic): none of it reached the peer" : nil))
                        }
                    }
                    if hasEstimate {
                        // Where the far end never played there is no double talk: the lone
                        // talker's figure, said as such (`nearEndEstimate(_:)`).
                        let e = m?.nearEndEstimate, value = nearEndEstimate(result)
                        let isAlone = (m?.gate.farEndActiveFrames ?? 1) == 0
                        let text = e.map { e in
                            isAlone ? F.figure(e.singleTalkOutputDropDB, isLowerBound: e.singleTalkOutputDropIsLowerBound, frames: e.singleTalkFrames)
                                + (e.singleTalkIsLost ? ": near end lost" : "") + ", talking alone"
                                : F.figure(e.outputDropDB, isLowerBound: e.outputDropIsLowerBound, frames: e.frames) + (e.isLost ? ": near end lost" : "")
                        } ?? F.db(nil)
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
        counted(statisticCell(summary?.convergenceSeconds.median, unit: " s", isLowerBound: summary?.convergenceSeconds.medianIsLowerBound ?? false),
                count: summary?.convergenceSeconds.count, runs: runs)
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
    /// many have a TCLw that cannot be judged against it (a bound under 46 dB that may meet it, or one on too few bands).
    /// A median over fewer than the mode's runs says over how many, as the Modes table's means
    /// do: a TCLw stands on 20 frames of far-end single talk, and runs without them are left out.
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
        if hasTCLw { header += ["TCLw median", "TCLw p10", "runs below 46 dB", "runs not judged against 46 dB (a bound, or too few bands)"] }
        if hasRange { header += ["double-talk attenuation range median", "P.340 category of the median"] }
        return [
            .paragraph([.text("In the telephony standards' terms (see docs/metrics.md): TCLw, the weighted terminal coupling loss "
                              + "(TS 26.131 asks 46 dB; a simulated run measured below it has the finding \(RequirementFindings.echoLossRule)), "
                              + "and the send attenuation range in double talk, which ITU-T P.340 categorises "
                              + "(1: ≤ 3 dB full duplex; 2a/2b/2c: ≤ 6/9/12 dB; 3: more). Each is over the mode's runs that have it "
                              + "on at least \(FigureConfidence.minimumAnalysisFrames) analysis frames; where that is not all of them, the median says over how many runs (\"3 of 5\").")]),
            .table(.init(header: header, rows: modes.map { mode in
                let summary = summaries.first { $0.mode == mode.description }
                var row: [ReportDocument.Cell] = [.init([.code(mode.description)])]
                if hasTCLw {
                    let counts = belowRequirement(mode)
                    row += [counted(stat(summary?.tclwDB.median, isLowerBound: summary?.tclwDB.medianIsLowerBound),
                                    count: summary?.tclwDB.count, runs: summary?.ran ?? 0),
                            stat(summary?.tclwDB.p10, isLowerBound: summary?.tclwDB.p10IsLowerBound),
                            .init("\(counts.below)"), .init("\(counts.notJudged)")]
                }
                if hasRange {
                    let median = summary?.doubleTalkAttenuationRangeDB.median
                    // Two decimals, as the run report prints it beside its category (`TelephonyBlocks.rangeText`).
                    let bounded = median != nil && summary?.doubleTalkAttenuationRangeDB.medianIsLowerBound == true
                    row += [counted(.init(TelephonyBlocks.rangeText(median, isLowerBound: bounded), value: median),
                                    count: summary?.doubleTalkAttenuationRangeDB.count, runs: summary?.ran ?? 0),
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
            // "every mode" only where every mode of the item failed with it, not every failed one.
            let lines = reasonsByMode(failed, ofModes: item.results.count) { [$0.error!] }
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
        if let recording = ran.first(where: { $0.summary?.micFile != nil })?.summary, let recordingMic = recording.micFile {
            // The player plays the file as it is: every channel of a multichannel one.
            let label = recording.micChannel.map { "mic (recording, every channel; its \($0) was scored, counted from 0)" } ?? "mic (recording)"
            clips.append(.init(label: label, path: relativePath(from: directory, to: recordingMic)))
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

    /// An item's echo path as its runs measured it: "ERL 9.6 dB, 60 ms", "ERL 9.6 to 9.7 dB, 77 ms",
    /// "ERL 13.7 dB (pooled over 2 routes), 41 ms", "—" where no run measured either. Figures on too few frames are left out, as from the means.
    static func echoPathText(_ results: [CorpusRun.Result]) -> String {
        func range(_ values: [Double], digits: Int, unit: String) -> String? {
            guard let low = values.min(), let high = values.max() else { return nil }
            let (a, b) = (ReportFormatting.number(low, digits: digits), ReportFormatting.number(high, digits: digits))
            return (a == b ? a : a + " to " + b) + unit   // "–" beside a minus read "-1.4–-0.7"
        }
        let metrics = results.compactMap { $0.summary?.metrics }
        let erls = metrics.compactMap { $0.isERLLowConfidence ? nil : $0.erlDB }
        // ERL at least some figure (the echo under the noise, no echo track) says so.
        let bound = metrics.contains { !$0.isERLLowConfidence && $0.erlDB != nil && $0.erlIsLowerBound } ? "≥ " : ""
        // An item that changes route pools its routes' echo into one ratio (`RunReportDocument.erlLabel`).
        let routes = Set(results.flatMap { $0.summary?.segments.compactMap(\.route) ?? [] })
        let pooled = routes.count > 1 ? " (pooled over \(routes.count) routes)" : ""
        let parts = [range(erls, digits: 1, unit: " dB").map { "ERL " + bound + $0 + pooled },
                     range(metrics.compactMap(\.delayMilliseconds), digits: 0, unit: " ms")].compactMap { $0 }
        return parts.isEmpty ? "—" : parts.joined(separator: ", ")
    }

    /// A matrix cell's value: "≥ 28.9" for a bound, "12.3 (16 frames)" for one on too few analysis
    /// `frames` to count, as the run's pages say it ("low confidence: 16 analysis frames"); `unit`
    /// right after the number ("12.3 dB (16 frames)").
    static func compact(_ value: Double?, isLowerBound: Bool, frames: Int, unit: String = "") -> String {
        guard value != nil else { return "—" }
        let thin = FigureConfidence.isLow(frames: frames) ? " (\(RunReportDocument.count(frames, "frame")))" : ""
        return (isLowerBound ? "≥ " : "") + ReportFormatting.number(value, digits: 1) + unit + thin
    }

    /// Near-end attenuation in double talk (dB), as eval.md's column has it: a call without
    /// double talk has none (its near-end single-talk figure measures something else, and would
    /// sort among the double-talk ones).
    static func nearEndAttenuation(_ result: CorpusRun.Result) -> Double? {
        result.summary?.metrics?.nearEnd?.attenuationDB
    }

    /// The tap-free near-end estimate's output drop (dB) of a run without a near-end track: in
    /// double talk, or, where the far end never played, while the talker was alone.
    static func nearEndEstimate(_ result: CorpusRun.Result) -> Double? {
        guard let metrics = result.summary?.metrics, let estimate = metrics.nearEndEstimate else { return nil }
        return metrics.gate.farEndActiveFrames == 0 ? estimate.singleTalkOutputDropDB : estimate.outputDropDB
    }

    /// An item's id on the page: its name, each character other than a letter, a digit, "-" and
    /// "." written as "_" and its UTF-8 bytes in hex, so that no two names share one ("a+b" and
    /// "a-b" both read "item-a-b", and one item's link went to the other).
    static func anchor(_ name: String) -> String {
        "item-" + name.map { character -> String in
            character.isLetter || character.isNumber || "-.".contains(character) ? String(character)
                : "_" + String(character).utf8.map { String(format: "%02X", $0) }.joined()
        }.joined()
    }

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
