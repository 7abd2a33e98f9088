import Metrics

/// The "Telephony standards" section of a run's or a recording's report: TCLw against TS
/// 26.131's 46 dB, and double talk in P.340's category and TS 26.131's terms — each with the
/// frames it stands on, or why it is missing.
enum TelephonyBlocks {
    /// Where a lower bound comes from and its other side: the bands that are bounds, with how far
    /// the far end stands over the floor in them (the most they can show), and the most the
    /// measured bands let the loss be. The weighting, led by the band that leaks most, makes a
    /// band bounded near the floor the figure: "≥ 17 dB" alone reads the same for a canceller
    /// whose other bands measured 20 dB and one whose other bands are bounds at 40.
    static func boundText(_ loss: WeightedEchoLoss) -> String {
        guard loss.isLowerBound else { return "" }
        let bounds = loss.bands.filter(\.isLowerBound)
        func span(_ values: [Double], digits: Int) -> String {
            let low = ReportFormatting.number(values.min(), digits: digits), high = ReportFormatting.number(values.max(), digits: digits)
            return low == high ? low : "\(low)–\(high)"
        }
        // On too few bands the most counts the bands left out too: said with them (`narrowText`).
        let most = loss.narrowCoverage != nil ? nil
            : loss.atMostDB.map { "; at most \(ReportFormatting.db($0)), what its measured bands leak whatever the others do" }
        return "; \(bounds.count) of \(loss.bands.count) bands are bounds, the far end standing \(span(bounds.map(\.lossDB), digits: 1)) dB "
            + "over the floor in them (\(span(bounds.map(\.centreHz), digits: 0)) Hz)" + (most ?? "")
    }

    /// Beside a TCLw on too few of the bands the far end reaches: the loss of those bands alone,
    /// and over all the reached ones at most what it is with the others losing all of their echo
    /// (`tclw_at_most_db`), which can lie under the figure (the left-out bands widen its span);
    /// a verdict on 46 dB only where that is under it. Empty for a figure on enough bands.
    static func narrowText(_ loss: WeightedEchoLoss) -> String {
        guard let coverage = loss.narrowCoverage else { return "" }
        return "; the bands left out hold echo under the noise: over the \(coverage.reached) the far end reaches it is "
            + (loss.atMostDB.map { "at most \(ReportFormatting.db($0)) whatever they lose" } ?? "unbounded above")
            + (loss.meetsRequirement == nil ? ": not judged against TS 26.131's 46 dB" : "")
    }

    /// "2 of the 14 third octaves the far end reaches": the bands a TCLw stands on.
    static func coverageText(_ coverage: WeightedEchoLoss.BandCoverage) -> String {
        "\(coverage.measured) of the \(coverage.reached) third octaves the far end reaches"
    }

    /// The send attenuation range where its P.340 category stands beside it: two decimals, the
    /// 0.01 dB the range is measured to (`DoubleTalkMeter`), so the page prints the value its
    /// category judges. One decimal rounds the binary value of x.x5 either way: 6.049999…
    /// would print "6.0 dB: category 2b" (more than 6 dB).
    static func rangeText(_ value: Double?, isLowerBound: Bool = false, frames: Int? = nil) -> String {
        guard value != nil else { return ReportFormatting.db(nil) }
        let text = (isLowerBound ? "≥ " : "") + ReportFormatting.number(value, digits: 2, unit: " dB")
        guard let frames, FigureConfidence.isLow(frames: frames) else { return text }
        return text + " (\(FigureConfidence.mark(frames: frames)))"
    }

    /// P.340's category of a send attenuation range, as the run pages write it: "category 2a,
    /// partial duplex" for a measured range. A lower bound's category is only the best the
    /// canceller can be in, so it carries no duplex label ("≥ 1.8 dB: category 1 or worse, full
    /// duplex" read as a full-duplex verdict, also for a run with no canceller): "category 1 at
    /// best, not determined: …". Over 12 dB a bound is certainly category 3.
    static func categoryText(_ category: DoubleTalkCategory?, isLowerBound: Bool) -> String {
        guard let category else { return "no category" }
        guard isLowerBound, category != .noDuplex else { return "category \(category.rawValue), \(category.title)" }
        return "category \(category.rawValue) at best, not determined: the range is a lower bound"
    }

    static func make(_ telephony: TelephonyMeasures?) -> [ReportDocument.Block] {
        typealias F = ReportFormatting
        guard let telephony else { return [] }
        var rows: [[ReportDocument.Cell]] = []
        var findings: [[ReportDocument.Span]] = []
        if let loss = telephony.echoLoss {
            let bands = "\(F.number(loss.bands.first?.centreHz, digits: 0))–\(F.number(loss.bands.last?.centreHz, digits: 0)) Hz"
            let counted = if let coverage = loss.coverage, coverage.measured < coverage.reached {
                Self.coverageText(coverage) + ","
            } else {
                "\(loss.bands.count) third octaves"
            }
            rows.append([.init("TCLw (TS 26.132 §8.7.1, \(counted) \(bands), steady far-end single talk)"),
                         .init(F.figure(loss.tclwDB, isLowerBound: loss.isLowerBound)
                               + (FigureConfidence.isLow(frames: loss.analysisFrames) ? " (low confidence: " : " (")
                               + "\(F.analysisFrames(loss.analysisFrames)))" + Self.boundText(loss) + Self.narrowText(loss), value: loss.tclwDB)])
            if loss.missesRequirement {
                // A bound under 46 dB misses only by its upper side: "≥ 39.1 dB" alone did not show it.
                // On too few bands the most is over every band the far end reaches, not the figure's.
                let atMost = if let narrow = loss.narrowCoverage {
                    loss.atMostDB.map { " on its \(loss.bands.count) bands, at most \(F.db($0)) over the \(narrow.reached) the far end reaches," } ?? ""
                } else {
                    loss.isLowerBound ? loss.atMostDB.map { " and at most \(F.db($0))" } ?? "" : ""
                }
                findings.append([.strong("Echo loss below TS 26.131's requirement:"),
                                 .text(" TCLw \(F.figure(loss.tclwDB, isLowerBound: loss.isLowerBound))\(atMost) against \(F.db(WeightedEchoLoss.requirementDB)): the peer hears echo a certified terminal would not send.")])
            }
        } else {
            rows.append([.init("TCLw"), .init("not measured: \(telephony.echoLossUnmeasuredReason ?? "no far-end single talk")")])
        }
        if let dt = telephony.doubleTalk {
            let category = Self.categoryText(dt.category, isLowerBound: dt.attenuationRangeIsLowerBound)
            rows += [
                [.init("send attenuation range in double talk, A_H,S,dt (P.340 §8.1): the 95th percentile of the per-frame cut"),
                 .init(rangeText(dt.attenuationRangeDB, isLowerBound: dt.attenuationRangeIsLowerBound, frames: dt.attenuationRangeFrames)
                       + ": \(category) (\(dt.attenuationRangeFrames) of \(dt.doubleTalkFrames) double-talk analysis frames)",
                       value: dt.attenuationRangeDB)],
                [.init("double talk: share of the call, mean level of the near end over what is sent (below 0: more is sent than the talker said, the residual echo)"),
                 .init("\(F.number(100 * dt.doubleTalkShare, digits: 1)) %, "
                       + F.figure(dt.levelDifferenceDB, isLowerBound: dt.levelDifferenceIsLowerBound, frames: dt.doubleTalkFrames),
                       value: dt.levelDifferenceDB)],
                [.init("far-end single talk within 1 s of double talk: share, talker − sent"),
                 .init("\(F.number(100 * dt.aroundShare, digits: 1)) %, "
                       + F.figure(dt.aroundLevelDifferenceDB, isLowerBound: dt.aroundLevelDifferenceIsLowerBound, frames: dt.aroundFrames),
                       value: dt.aroundLevelDifferenceDB)],
                [.init("near-end attenuation alone, no far end: the median frame's cut, for context beside the range "
                       + "(not the Echo table's near-end single-talk figure, which pools all the frames)"),
                 .init(F.figure(dt.singleTalkAttenuationDB, isLowerBound: dt.singleTalkAttenuationIsLowerBound), value: dt.singleTalkAttenuationDB)],
            ]
        } else {
            rows.append([.init("double talk (P.340, TS 26.131)"), .init("not measured: \(telephony.doubleTalkUnmeasuredReason ?? "no double talk")")])
        }
        var blocks: [ReportDocument.Block] = [
            .heading("Telephony standards", level: 2, id: "telephony"),
            .table(.init(header: ["measure", "value"], rows: rows)),
        ]
        if !findings.isEmpty { blocks.append(.list(findings)) }
        if let loss = telephony.echoLoss {
            blocks.append(.bandChart(.init(title: "Terminal coupling loss per third octave", yLabel: "loss (dB)",
                                           bands: loss.bands.map(\.edgesHz),
                                           series: [.init(name: "TCL", values: loss.bands.map(\.lossDB), lowerBounds: loss.bands.map(\.isLowerBound))],
                                           emptyNote: "No band measured", xLabel: "third-octave band, nominal centre (Hz)",
                                           // Sixteen bands' edges ("1122–1414") ran into each other under 47 px
                                           // bands; the nominal centres are how TS 26.132 names them.
                                           bandLabels: loss.bands.map { ReportFormatting.number($0.centreHz, digits: 0) })))
        }
        return blocks
    }
}
