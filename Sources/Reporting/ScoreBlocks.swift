import Evaluation
import Foundation

/// The scorers' scores in the reports: a run's (one row per scorer, talk type and score, or why
/// there is none), and a corpus's per mode (mean, median and 10th percentile), with AECMOS' two
/// axes plotted against each other. Each carries its scorer's name, version and model.
enum ScoreBlocks {
    typealias F = ReportFormatting

    /// The AEC Challenge's talk types, for people.
    static func talkName(_ talkType: String) -> String {
        switch talkType {
        case "st": "far-end single talk"
        case "nst": "near-end single talk"
        case "dt": "double talk"
        default: talkType
        }
    }

    /// Who scored: the name given, how the program names itself, its version and model file.
    static func identity(scorer: String, reportedName: String?, version: String?, modelSHA256: String?) -> String {
        let parts = [reportedName, version.map { "version \($0)" }, modelSHA256.map { "model SHA-256 \($0.prefix(12))…" }].compactMap { $0 }
        return parts.isEmpty ? scorer : "\(scorer) (\(parts.joined(separator: ", ")))"
    }

    static let caveat = "AECMOS predicts opinion scores from 1 to 5 (higher is better): echo, how much echo is left; other, what the canceller did to the rest. It scores a muted output well, so read it beside the near-end figures."

    /// A run's or a recording's "Scores" section (nothing when no scorer was asked).
    static func run(_ scores: [ScorerResult]?) -> [ReportDocument.Block] {
        guard let scores else { return [] }
        var rows: [[ReportDocument.Cell]] = []
        for result in scores {
            let who = identity(scorer: result.name, reportedName: result.reportedName, version: result.version, modelSHA256: result.modelSHA256)
            guard let talkTypes = result.talkTypes else {
                rows.append([.init(who), .init("—"), .init("—"), .init("none: \(result.unscoredReason ?? "not scored")")])
                continue
            }
            for talk in talkTypes {
                for name in talk.scores.keys.sorted() {
                    let score = talk.scores[name]!
                    rows.append([.init(who), .init("\(talkName(talk.talkType)) (\(talk.stretches) stretch\(talk.stretches == 1 ? "" : "es"), \(F.number(talk.seconds, digits: 1)) s)"),
                                 .init([.code(name)]), .init(value(score), value: score.value)])
                }
            }
        }
        var blocks: [ReportDocument.Block] = [.heading("Scores", level: 2, id: "scores"),
                                              .table(.init(header: ["scorer", "talk type", "score", "value"], rows: rows))]
        if scores.contains(where: { $0.name == "aecmos" && $0.talkTypes != nil }) { blocks.append(.paragraph([.text(caveat)])) }
        return blocks
    }

    /// A value with its range and direction: `4.72 (1–5, higher is better)`.
    static func value(_ score: ScoreValue) -> String {
        "\(F.number(score.value)) (\(F.number(score.minimum, digits: 0))–\(F.number(score.maximum, digits: 0)), \(score.higherIsBetter ? "higher" : "lower") is better)"
    }

    /// eval's per-mode "Scores" table (nothing when no run was scored): one row per mode, one
    /// column per scorer, talk type and score — its mean and 10th percentile over the mode's runs
    /// — and one of each scorer's unscored runs.
    static func modes(_ modes: [String], summaries: [ModeSummary], isSortable: Bool) -> [ReportDocument.Block] {
        guard summaries.contains(where: { $0.scores != nil }) else { return [] }
        /// A column: one score of one scorer (as it identifies itself) in one talk type.
        struct Column: Equatable {
            var identity: ModeSummary.ScorerStatistics.Identity; var scorer: String; var talkType: String; var name: String
        }
        var columns: [Column] = [], scorers: [String] = [], identities: [String] = []
        for summary in summaries {
            for scorer in summary.scores ?? [] {
                let who = identity(scorer: scorer.scorer, reportedName: scorer.reportedName, version: scorer.version, modelSHA256: scorer.modelSHA256)
                if !scorers.contains(scorer.scorer) { scorers.append(scorer.scorer) }
                if !scorer.scores.isEmpty, !identities.contains(who) { identities.append(who) }
                for score in scorer.scores {
                    let column = Column(identity: scorer.identity, scorer: scorer.scorer, talkType: score.talkType, name: score.name)
                    if !columns.contains(column) { columns.append(column) }
                }
            }
        }
        // Talk types in the Challenge's order, each scorer's scores together.
        let talkOrder = ["st", "dt", "nst"]
        columns = columns.enumerated().sorted { a, b in
            let ka = (scorers.firstIndex(of: a.element.scorer)!, talkOrder.firstIndex(of: a.element.talkType) ?? 3, a.offset)
            let kb = (scorers.firstIndex(of: b.element.scorer)!, talkOrder.firstIndex(of: b.element.talkType) ?? 3, b.offset)
            return ka < kb
        }.map(\.element)
        // The scorer's name in a header only where two scorers share the table; where one scorer
        // answered as two (two versions, or AECMOS' 16 and 48 kHz models for a corpus of both
        // rates) what tells them apart (the paragraph names them in full).
        let labels = Dictionary(grouping: columns, by: \.scorer).values.reduce(into: [ModeSummary.ScorerStatistics.Identity: String]()) { all, same in
            all.merge(ModeSummary.ScorerStatistics.labels(telling: same.map(\.identity))) { first, _ in first }
        }
        let namesScorer = Set(columns.map(\.scorer)).count > 1
        let header = ["mode"] + columns.map { column in
            let prefix = (namesScorer ? "\(column.scorer) " : "") + (labels[column.identity].map { "\($0) " } ?? "")
            return "\(prefix)\(column.name) \(column.talkType): mean / p10"
        }
            + scorers.map { scorers.count > 1 ? "unscored runs (\($0))" : "unscored runs" }
        let rows: [[ReportDocument.Cell]] = modes.compactMap { mode in
            guard let summary = summaries.first(where: { $0.mode == mode }) else { return nil }
            let entries = summary.scores ?? []
            return [.init([.code(mode)])] + columns.map { column in
                let entry = entries.first { $0.identity == column.identity }
                let statistics = entry?.scores.first { $0.talkType == column.talkType && $0.name == column.name }?.statistics
                guard let statistics, let mean = statistics.mean else { return .init("—") }
                // Over fewer runs than the mode ran (no stretch of that talk type, or unscored
                // runs), the cell says over how many, as the Modes table's means do.
                return EvalReportDocument.counted(.init("\(F.number(mean)) / \(F.number(statistics.p10))", value: mean),
                                                  count: statistics.count, runs: summary.ran)
            } + scorers.map { name in .init("\(entries.filter { $0.scorer == name }.map(\.unscoredRuns).reduce(0, +))") }
        }
        var text = "Per mode, each score's mean and 10th percentile (the worse tenth) over the runs that have it, with how many where that is not all the mode's runs (\"3 of 5\"); a run's score is the length-weighted mean of its stretches of one talk type: st far-end single talk, dt double talk, nst near-end single talk. Unscored runs: left without scores, the reason in each run's report."
        if !identities.isEmpty { text += " Scored by " + identities.joined(separator: "; ") + "." }
        return [.heading("Scores", level: 2, id: "scores"), .paragraph([.text(text)]),
                .table(.init(header: header, rows: rows, isSortable: isSortable))]
    }

    /// AECMOS' echo score against its other-degradation score in double talk, one point per mode
    /// (means; Evaluation's `EvalVerdicts.aecmosDoubleTalk`): upper right removes echo and keeps
    /// the near talker. Nothing without them.
    static func aecmosChart(_ means: [EvalVerdicts.AECMOSPoint], modes: [String]) -> [ReportDocument.Block] {
        guard !means.isEmpty else { return [] }
        let points = means.map { point in
            ReportDocument.ScatterChart.Point(name: point.model.map { "\(point.mode) (\($0))" } ?? point.mode, x: point.other, y: point.echo,
                                              isHighlighted: point.isUnbeaten,
                                              colour: ModeColours.colour(for: point.mode, among: modes))
        }
        // Where two models scored the corpus, each mode has a point per model, named after it; a
        // ring compares only points of one model.
        let perModel = means.contains { $0.model != nil }
        var chart = ReportDocument.ScatterChart(title: "AECMOS in double talk, one point per mode" + (perModel ? " and model" : "")
                                                    + " (means over its runs)",
                                                xLabel: "other-degradation MOS: right keeps more of the near talker",
                                                yLabel: "echo MOS: up leaves less echo", points: points,
                                                highlightLabel: perModel ? "no mode better on both by the same model" : "no mode better on both",
                                                emptyNote: "No mode has AECMOS scores in double talk to plot")
        // The MOS scale itself, so that two evals' plots read alike.
        chart.xRange = 1...5
        chart.yRange = 1...5
        chart.valueNames = ("other", "echo")
        return [.scatterChart(chart)]
    }
}
