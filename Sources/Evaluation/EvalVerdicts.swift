/// What an eval judged, for the pages rendered beside its eval.json: every verdict is computed
/// here once, from the items as eval.json prints them, with the same rule that counts the wins
/// (`EvalDocument.points`: low-confidence figures do not count, a near end lost is a bound).
/// Reporting only shows these — were it to judge again, eval.md's bold cells could disagree
/// with eval.json's wins.
public struct EvalVerdicts: Sendable, Equatable {
    /// The corpus's front (eval.json's `best_modes`); nil without one (scenarios as written,
    /// fewer than two modes, no item every mode has its values on).
    public var corpusFront: BestModes.Verdict?
    /// Each item's front, in eval.json's item order (`EvalReport.items`); nil where an item has
    /// no verdict. A mode's wins are the items whose front it is on.
    public var itemFronts: [BestModes.Verdict?]
    /// The modes' means over the items every mode has its values on: the trade-off plot.
    public var comparedMeans: BestModes.ComparedMeans?
    /// AECMOS in double talk, one point per mode that has both scores (per model, where the
    /// corpus was scored by more than one), in mode order.
    public var aecmosDoubleTalk: [AECMOSPoint]

    /// One mode's AECMOS means in double talk (over its runs that have them), and whether no
    /// other mode scores at least as well on both and better on one by the same model.
    public struct AECMOSPoint: Sendable, Equatable {
        public var mode: String
        /// The model the means are of, by what tells it apart from the others
        /// (`ScorerStatistics.labels(telling:)`), where the corpus was scored by more than one —
        /// its 16 and 48 kHz models on a corpus of both rates; nil where there is one. Two models'
        /// means are never compared.
        public var model: String?
        public var echo: Double
        public var other: Double
        public var isUnbeaten: Bool

        public init(mode: String, model: String? = nil, echo: Double, other: Double, isUnbeaten: Bool) {
            self.mode = mode
            self.model = model
            self.echo = echo
            self.other = other
            self.isUnbeaten = isUnbeaten
        }
    }

    public init(corpusFront: BestModes.Verdict?, itemFronts: [BestModes.Verdict?], comparedMeans: BestModes.ComparedMeans?,
                aecmosDoubleTalk: [AECMOSPoint] = []) {
        self.corpusFront = corpusFront
        self.itemFronts = itemFronts
        self.comparedMeans = comparedMeans
        self.aecmosDoubleTalk = aecmosDoubleTalk
    }

    /// The AECMOS double-talk points of `modes` from their summaries. A mode that muted in any
    /// run (`muting`: it sent silence in far-end single talk, or lost the near end in double
    /// talk) is plotted but never ringed, and beats no other mode: AECMOS scores silence well
    /// (a mute scores 4.90 and 4.98, and would be the only ring on its plot), and the echo verdicts
    /// leave such runs off their front too.
    static func aecmosDoubleTalk(_ modes: [String], summaries: [ModeSummary], muting: Set<String> = []) -> [AECMOSPoint] {
        // Each AECMOS identity (name, version, model file) is its own set of points: on a corpus
        // of two rates its 16 and 48 kHz models each score some runs, and a plot of the first
        // entry would show one model's means under the mode's name alone.
        typealias Identity = ModeSummary.ScorerStatistics.Identity
        func mean(_ entry: ModeSummary.ScorerStatistics, _ name: String) -> Double? {
            entry.scores.first { $0.talkType == "dt" && $0.name == name }?.statistics.mean
        }
        var means: [(mode: String, identity: Identity, echo: Double, other: Double)] = []
        for mode in modes {
            guard let summary = summaries.first(where: { $0.mode == mode }) else { continue }
            for entry in summary.scores ?? [] where entry.scorer == "aecmos" {
                guard let echo = mean(entry, "aecmos_echo"), let other = mean(entry, "aecmos_other") else { continue }
                means.append((mode, entry.identity, echo, other))
            }
        }
        let identities = Set(means.map(\.identity))
        // Named as the Scores table names them.
        let labels = ModeSummary.ScorerStatistics.labels(telling: Array(identities))
        // The same front as the echo verdicts' (`BestModes.unbeaten`), on the two MOS axes, among
        // one model's points.
        var unbeaten = Set<Int>()
        for one in identities {
            let ranked = means.indices.filter { means[$0].identity == one && !muting.contains(means[$0].mode) }
            unbeaten.formUnion(BestModes.unbeaten(ranked.count) { a, b in
                let (winner, loser) = (means[ranked[a]], means[ranked[b]])
                return winner.echo >= loser.echo && winner.other >= loser.other && (winner.echo > loser.echo || winner.other > loser.other)
            }.map { ranked[$0] })
        }
        return means.indices.map {
            AECMOSPoint(mode: means[$0].mode, model: labels[means[$0].identity], echo: means[$0].echo, other: means[$0].other,
                        isUnbeaten: unbeaten.contains($0))
        }
    }

    /// The front of the item at `index` in eval.json's order; nil without one.
    public func front(ofItemAt index: Int) -> BestModes.Verdict? {
        itemFronts.indices.contains(index) ? itemFronts[index] : nil
    }
}
