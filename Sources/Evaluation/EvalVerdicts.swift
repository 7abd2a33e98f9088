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

    public init(corpusFront: BestModes.Verdict?, itemFronts: [BestModes.Verdict?], comparedMeans: BestModes.ComparedMeans?) {
        self.corpusFront = corpusFront
        self.itemFronts = itemFronts
        self.comparedMeans = comparedMeans
    }

    /// The front of the item at `index` in eval.json's order; nil without one.
    public func front(ofItemAt index: Int) -> BestModes.Verdict? {
        itemFronts.indices.contains(index) ? itemFronts[index] : nil
    }
}
