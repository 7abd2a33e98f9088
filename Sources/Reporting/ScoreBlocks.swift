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

    /// eval's per-mode "Scores" table (nothing when no run was scored): one row per mode,
    /// scorer, talk type and score.
    static func modes(_ modes: [String], summaries: [ModeSummary], isSortable: Bool) -> [ReportDocument.Block] {
        guard summaries.contains(where: { $0.scores != nil }) else { return [] }
        var rows: [[ReportDocument.Cell]] = []
        var identities: [String] = []
        for mode in modes {
            guard let summary = summaries.first(where: { $0.mode == mode }) else { continue }
            for scorer in summary.scores ?? [] {
                let who = identity(scorer: scorer.scorer, reportedName: scorer.reportedName, version: scorer.version, modelSHA256: scorer.modelSHA256)
                if !scorer.scores.isEmpty, !identities.contains(who) { identities.append(who) }
                if scorer.scores.isEmpty {
                    rows.append([.init([.code(mode)]), .init(scorer.scorer), .init("—"), .init("—"), .init("—"), .init("—"), .init("—"), .init("0"),
                                 .init("\(scorer.unscoredRuns)")])
                }
                for score in scorer.scores {
                    let s = score.statistics
                    rows.append([.init([.code(mode)]), .init(scorer.scorer), .init(talkName(score.talkType)), .init([.code(score.name)]),
                                 .init(F.number(s.mean), value: s.mean), .init(F.number(s.median), value: s.median),
                                 .init(F.number(s.p10), value: s.p10), .init("\(s.count)"), .init("\(scorer.unscoredRuns)")])
                }
            }
        }
        var text = "Each run's score is the length-weighted mean over its stretches of one talk type; per mode, the mean, median and 10th percentile over the runs that have it. Unscored: runs the scorer left without scores (the reason is in the run's report)."
        if !identities.isEmpty { text += " Scored by " + identities.joined(separator: "; ") + "." }
        return [.heading("Scores", level: 2, id: "scores"), .paragraph([.text(text)]),
                .table(.init(header: ["mode", "scorer", "talk type", "score", "mean", "median", "p10", "runs", "unscored"], rows: rows,
                             isSortable: isSortable))]
    }

    /// AECMOS' echo score against its other-degradation score in double talk, one point per mode
    /// (means): upper right removes echo and keeps the near talker. Nothing without them.
    static func aecmosChart(_ modes: [String], summaries: [ModeSummary]) -> [ReportDocument.Block] {
        func mean(_ summary: ModeSummary, _ talkType: String, _ name: String) -> Double? {
            summary.scores?.first { $0.scorer == "aecmos" }?.scores
                .first { $0.talkType == talkType && $0.name == name }?.statistics.mean
        }
        let means = modes.compactMap { mode -> (mode: String, echo: Double, other: Double)? in
            guard let summary = summaries.first(where: { $0.mode == mode }),
                  let echo = mean(summary, "dt", "aecmos_echo"), let other = mean(summary, "dt", "aecmos_other") else { return nil }
            return (mode, echo, other)
        }
        guard !means.isEmpty else { return [] }
        // The modes no other mode beats on both.
        let points = means.map { point in
            let beaten = means.contains { $0.echo >= point.echo && $0.other >= point.other && ($0.echo > point.echo || $0.other > point.other) }
            return ReportDocument.ScatterChart.Point(name: point.mode, x: point.other, y: point.echo, isHighlighted: !beaten,
                                                     colour: ModeColours.colour(for: point.mode))
        }
        return [.scatterChart(.init(title: "AECMOS in double talk, one point per mode (means over its runs)",
                                    xLabel: "other-degradation MOS: right keeps more of the near talker",
                                    yLabel: "echo MOS: up leaves less echo", points: points, highlightLabel: "no mode better on both",
                                    emptyNote: "No mode has AECMOS scores in double talk to plot"))]
    }
}
