import AudioInterop
import EchoLabJSON
import Foundation
import Metrics
import Evaluation
import Simulation

/// The verdict in words and in a plot: which modes no other beats on both axes, over which
/// items, where a bound leaves their order unknown, and the trade-off chart of the modes' means.
extension EvalReportDocument {
    /// Where the tap-free estimate stands and which way it errs, after "the talker the gate
    /// hears,": a user read it as exact, where a 6.1 dB cut in double talk reads 3.7 dB.
    static let estimateScope = " in double talk: it errs towards kept, the more the harder a canceller cut the talker (docs/metrics.md)."

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
                ? " The near end is the estimate from mic and loopback (no near-end track): the output's drop under the talker the gate hears,"
                    + Self.estimateScope
                : " On \(front.nearEndEstimatedItems) of the \(front.nearEndComparedItems) items (no near-end track) the near end is the estimate from mic and loopback: "
                    + "the output's drop under the talker the gate hears," + Self.estimateScope
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
            // Far-end single talk too short to count is not none: say how short. Enough of it
            // with no steady ERLE (an output at the mic's floor) is not too little.
            let frames = RunReportDocument.count(front.steadyERLEFrames, "analysis frame")
            let minimum = FigureConfidence.minimumAnalysisFrames
            let tooLittle = FigureConfidence.isLow(frames: front.steadyERLEFrames)
            let counts = tooLittle ? "; a steady ERLE counts from \(minimum))" : ")"
            let reason = front.steadyERLEItems == 0 ? "no far-end single talk to judge ERLE on"
                : isCorpus ? "no item where every mode has a steady ERLE that counts (far-end single talk in \(RunReportDocument.count(front.steadyERLEItems, "item")), at most \(frames) in one\(counts)"
                : tooLittle ? "too little far-end single talk to judge ERLE on (\(frames)\(counts)"
                : "no mode has a steady ERLE to judge it on (far-end single talk: \(frames))"
            why = " — judged on the near end alone: \(reason) (\(scope))\(marked).\(estimated)"
        case .nearEndAlone:
            lead = "Best with the near end alone:"
            let alone = front.nearEndEstimatedItems == 0 ? ""
                : " What each took off is the estimate from mic and loopback (no near-end track): the output's drop under the talker the gate hears."
            why = " — the far end never played (no echo, no double talk), so judged on what each mode took off the near talker, which it should leave whole (\(scope))\(marked).\(alone)"
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
        // `disabled` named only where it ran: beside a lone canceller it read as a mode of the eval.
        case 1 where modes.contains("disabled"):
            [.text(" one canceller ran, "), .code(cancellers[0]), .text(", and ")] + reference
                + [.text(": there is no other to rank it against, so every mode's wins are 0.")]
        case 1: [.text(" one canceller ran, "), .code(cancellers[0]), .text(": there is no other to rank it against, so its wins are 0.")]
        default: [.text(" no item gave two cancellers a steady ERLE or a near-end figure in double talk that counts to compare (or all but one removed 6 dB of echo or less, where nothing converged, or muted the send), \(wins).")]
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
                               + "on which every mode plotted has one, and its mean near-end departure (the attenuation either way: a talker "
                               + "sent louder counts as far off as one cut as much) over the "
                               + "\(items(means.nearEndComparedItems)) on which every mode plotted has one"
                               + (all ? "" : ", while the Modes table's means are over each mode's own runs: "
                                  + "its order can differ from the table's")
                               + (points.contains { $0.xIsLowerBound || $0.yIsLowerBound }
                                  ? ". ≥ marks a mean over a lower bound (an arrow the way the truth may lie). " : ". ")
                               + "The rings follow the corpus front (★ in the Modes table), which compares modes pair by pair, item by item, "
                               + "not these means: a ringed point may sit below or right of an unringed one.")])]
        } ?? []
        var chart = ReportDocument.ScatterChart(title: "Echo removed against near end kept, one point per mode (\(over))",
                                   xLabel: (estimated ? "near-end departure in double talk, or its estimate from mic and loopback without a near-end track (dB)"
                                                      : "near-end departure in double talk (dB)") + ": 0 keeps the near talker whole, either way is off",
                                   yLabel: "steady ERLE (dB)", points: points, highlightLabel: "best on both axes",
                                   emptyNote: "No mode has both a steady ERLE and a near-end attenuation in double talk to plot")
        // A tooltip names its axes ("1.9, ≥ 15.4" left the reader to guess which was which).
        chart.valueNames = (estimated ? "near-end departure or its estimate" : "near-end departure", "steady ERLE")
        return caption + [.scatterChart(chart)]
    }
}
