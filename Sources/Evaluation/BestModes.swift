import AudioCore
import EchoLabJSON
import Metrics

/// The modes no other mode beats on both axes of an echo canceller's trade-off: steady-state ERLE
/// (higher removes more echo) and near-end attenuation in double talk (lower keeps more of the
/// near talker). One number cannot rank cancellers: the mode with the most ERLE is often the one
/// that cuts the near talker most.
///
/// A mode is on the front when no other mode has at least its ERLE and at most its attenuation,
/// and better on one of them — the attenuation read either way (a talker sent 6 dB louder is as
/// far from kept as one cut by 6 dB), values compared as the pages print them (to a tenth of a dB,
/// `resolutionDB`: points printed alike are on it together). A lower bound is better than
/// another value only where it certainly is (`BoundedValue`): two values in an unknown order
/// (`≥ 49.04` and `≥ 49.03`, or `49.04` and `≥ 49.03`) are tied on that axis. `disabled` is the
/// reference a canceller is judged against, never on the front; nor is a mode that is no
/// canceller there: one that removed no echo (a measured steady ERLE of 0 dB or less, where ERLE
/// counts: a pass-through, or worse; run below the call's rate, none in the band it runs in:
/// `removesNoEchoInItsBand`), or one that muted (`sendsSilence`: digital silence whenever only
/// the far end talked, or the room's own sound cut where neither side talked — a mute, which ERLE
/// alone would rank with a perfect canceller on an item without double talk). An axis counts where some mode
/// has a value on it, or lost the near end in double talk (an item without double talk is judged
/// on ERLE alone, one without echo on the near end alone). A near end lost entirely is the worst
/// case: that mode is off the front. A mode lacking a value on a counted axis is off it too. With
/// fewer than two modes to compare there is no verdict.
///
/// Where a run has no near-end track (a recording), its near-end axis is the tap-free estimate
/// (`NearEndEstimate`: the output's drop under the talker the gate hears, `isLost` its lost near
/// end); the verdict says on how many items it stood in.
///
/// An item whose far end never played — no echo to remove, no double talk: a near talker alone —
/// is judged on what each mode took off the near talker (`nearEndAlone`, lower is better, all of
/// it the worst case). A canceller should leave a lone talker whole, and
/// some cut it by several dB. A corpus's front leaves such items out: there that cut would be
/// averaged with attenuations in double talk, where a canceller trades the talker for echo.
public enum BestModes {
    /// One mode's values on the two axes.
    public struct Point: Sendable, Equatable {
        public var mode: String
        public var erleSteadyDB: Double?
        public var erleSteadyIsLowerBound: Bool
        public var nearEndAttenuationDB: Double?
        /// The near-end value is only a lower bound (the truth is that or worse).
        public var nearEndIsLowerBound: Bool
        /// The near end talked over the far end but nothing of it was sent (its attenuation, if
        /// any, is only a lower bound).
        public var isNearEndLost: Bool
        /// The near-end value is the tap-free estimate (no near-end track), not a measured attenuation.
        public var nearEndIsEstimate: Bool
        /// The double talk the run's gate heard (analysis frames): with no near-end value, whether
        /// there was double talk to judge the near end on.
        public var doubleTalkFrames: Int
        /// The run muted rather than cancelled (`RequirementFindings.mutingRules`: digital silence
        /// whenever only the far end talked, or the room's own sound cut where neither side
        /// talked), and is off the front.
        public var sendsSilence: Bool
        /// Where the far end never played: the near end's attenuation (it talked alone), and
        /// whether it is only a lower bound (nothing of the talker sent): the one axis of such an
        /// item.
        public var nearEndAloneDB: Double?
        public var nearEndAloneIsLowerBound: Bool
        /// The lone talker's figure is the tap-free estimate (no near-end track).
        public var nearEndAloneIsEstimate = false
        /// The far-end single talk the steady ERLE stands on (analysis frames): with no ERLE
        /// value, whether there were too few frames or none.
        public var steadyERLEFrames = 0
        /// The canceller runs below the call's rate and removed no echo in the band it runs in
        /// (`EvalDocument.removesNoEchoInItsBand`): its steady ERLE is the band above half its
        /// rate, which it never sends. No canceller there, as one whose ERLE reads 0 dB.
        public var removesNoEchoInItsBand = false
        /// Its measured steady ERLE is 6 dB or less: nothing converged, as its own report says
        /// (`EchoMetricsConfiguration.nothingConverged`). No canceller there: beside a
        /// pass-through's 0 dB, 5 dB removed with the near end whole stood best on both axes.
        public var convergedNothing = false

        public init(mode: String, erleSteadyDB: Double?, erleSteadyIsLowerBound: Bool = false, nearEndAttenuationDB: Double?,
                    nearEndIsLowerBound: Bool = false, isNearEndLost: Bool = false, nearEndIsEstimate: Bool = false, doubleTalkFrames: Int = 0,
                    sendsSilence: Bool = false, nearEndAloneDB: Double? = nil, nearEndAloneIsLowerBound: Bool = false) {
            self.mode = mode
            self.erleSteadyDB = erleSteadyDB
            self.erleSteadyIsLowerBound = erleSteadyIsLowerBound
            self.nearEndAttenuationDB = nearEndAttenuationDB
            self.nearEndIsLowerBound = nearEndIsLowerBound
            self.isNearEndLost = isNearEndLost
            self.nearEndIsEstimate = nearEndIsEstimate
            self.doubleTalkFrames = doubleTalkFrames
            self.sendsSilence = sendsSilence
            self.nearEndAloneDB = nearEndAloneDB
            self.nearEndAloneIsLowerBound = nearEndAloneIsLowerBound
        }

        /// A run's point from its figures that count (low-confidence ones are nil): the near end
        /// is the attenuation a near-end track measured (a bound: the near end lost) or, without
        /// one, the tap-free estimate (`estimateLost`: its near end lost); `nearEndAlone`, where
        /// the far end never played, its attenuation while it talked alone.
        public static func run(mode: String, erleSteady: BoundedValue?, nearEndAttenuation: BoundedValue?,
                               estimate: BoundedValue?, estimateLost: Bool, doubleTalkFrames: Int, sendsSilence: Bool = false,
                               nearEndAlone: BoundedValue? = nil) -> Point {
            let nearEnd = nearEndAttenuation ?? estimate
            var point = Point(mode: mode, erleSteadyDB: erleSteady?.value, erleSteadyIsLowerBound: erleSteady?.isLowerBound ?? false,
                              nearEndAttenuationDB: nearEnd?.value, nearEndIsLowerBound: nearEnd?.isLowerBound ?? false,
                              isNearEndLost: nearEndAttenuation.map(\.isLowerBound) ?? (estimate != nil && estimateLost),
                              nearEndIsEstimate: nearEndAttenuation == nil && estimate != nil, doubleTalkFrames: doubleTalkFrames,
                              sendsSilence: sendsSilence, nearEndAloneDB: nearEndAlone?.value, nearEndAloneIsLowerBound: nearEndAlone?.isLowerBound ?? false)
            point.convergedNothing = erleSteady.map { !$0.isLowerBound && EchoMetricsConfiguration.default.nothingConverged(steadyERLEDB: $0.value) } ?? false
            return point
        }

        var erle: BoundedValue? { erleSteadyDB.map { BoundedValue($0, isLowerBound: erleSteadyIsLowerBound) } }
        var nearEnd: BoundedValue? { nearEndAttenuationDB.map { BoundedValue($0, isLowerBound: nearEndIsLowerBound) } }
        /// What the verdicts rank the near end by: how far its level moved, either way. A talker
        /// sent louder than it spoke is not kept better: ranked by the signed attenuation, a plugin
        /// that doubles the mic would stand best on the near end at −6 dB.
        var nearEndDeparture: BoundedValue? { nearEndAttenuationDB.map { BoundedValue(abs($0), isLowerBound: nearEndIsLowerBound) } }
    }

    /// The axes a verdict was judged on. `nearEndAlone`: an item whose far end never played,
    /// judged on the near end's attenuation while it talked alone (an item's verdict only).
    public enum Axes: String, Sendable, Equatable {
        case both, erleOnly, nearEndOnly, nearEndAlone

        /// Steady ERLE was an axis.
        public var judgesERLE: Bool { self == .both || self == .erleOnly }
        /// The near end was an axis (in double talk, or talking alone).
        public var judgesNearEnd: Bool { self != .erleOnly }
    }

    /// A verdict: the front's modes (in the order given) and the axes judged.
    public struct Verdict: Sendable, Equatable {
        public var modes: [String]
        public var axes: Axes
        /// For a corpus: the items the modes were compared on (on either axis), and all items.
        public var comparedItems: Int
        public var items: Int
        /// For a corpus: the items each axis was compared on — steady ERLE where every mode has
        /// one, the near end where every mode has a figure for it or lost it (1 and 1 for an item
        /// judged on both; 0 for an axis not judged).
        public var erleComparedItems = 0
        public var nearEndComparedItems = 0
        /// Of the compared items, those whose near end was judged on the tap-free estimate.
        public var nearEndEstimatedItems = 0
        /// The double talk the gate heard: items with any, and their analysis frames (per item
        /// the most any mode's gate heard). Where the verdict is on ERLE alone, it tells "no
        /// double talk" from "double talk, but no near-end figure to judge it on".
        public var doubleTalkItems = 0
        public var doubleTalkFrames = 0
        /// The far-end single talk steady ERLE stands on: the items that have some, and the most
        /// frames of it in one item (three items of 16 frames are too little in each, not 48).
        /// Where the verdict is on the near end alone, it tells "no far-end single talk" from
        /// "too little to count".
        public var steadyERLEItems = 0
        public var steadyERLEFrames = 0
        /// The canceller runs below the call's rate and removed no echo in the band it runs in
        /// (`EvalDocument.removesNoEchoInItsBand`): its steady ERLE is the band above half its
        /// rate, which it never sends. No canceller there, as one whose ERLE reads 0 dB.
        public var removesNoEchoInItsBand = false
        /// For a corpus: per front mode (in `modes` order), the compared items where a lower bound
        /// left its order against another mode unknown, counted as no difference (empty for an item).
        public var ties: [Ties] = []

        /// The compared items (indices) where some front mode's steady ERLE, or near-end value, was
        /// in an unknown order against another mode's.
        public var erleTiedItems: [Int] { Array(Set(ties.flatMap(\.erleItems))).sorted() }
        public var nearEndTiedItems: [Int] { Array(Set(ties.flatMap(\.nearEndItems))).sorted() }
    }

    /// For a corpus verdict: a front mode's compared items (indices into the items given) on
    /// which its value on an axis was in an unknown order against another compared mode's (a
    /// lower bound: both bounds, or the bound not past the measured value), counted as no
    /// difference.
    public struct Ties: Sendable, Equatable {
        public var mode: String
        public var erleItems: [Int]
        public var nearEndItems: [Int]

        public init(mode: String, erleItems: [Int], nearEndItems: [Int]) {
            self.mode = mode
            self.erleItems = erleItems
            self.nearEndItems = nearEndItems
        }
    }

    /// The front of one item's modes; nil without a verdict. Where the far end never played (no
    /// echo, no double talk: no figure on either axis), the near end talking alone is the one axis.
    public static func front(of points: [Point]) -> Verdict? {
        let counted = countedAxes(points.filter { $0.mode != "disabled" })
        guard counted.erle || counted.nearEnd else { return frontOfNearEndAlone(points) }
        guard let (axes, comparable, candidates) = comparable(points) else { return nil }
        // Higher ERLE is better, lower attenuation is: `other` beats `point` where it is certainly
        // better on one axis and certainly worse on neither (an unknown order, or values printed
        // alike, is a tie).
        let modes = unbeaten(comparable.count) { a, b in
            let (winner, loser) = (comparable[a], comparable[b])
            return !isAbove(loser.erle, winner.erle) && !isAbove(winner.nearEnd, loser.nearEnd)
                && (isAbove(winner.erle, loser.erle) || isAbove(loser.nearEnd, winner.nearEnd))
        }.map { comparable[$0].mode }
        let doubleTalk = candidates.map(\.doubleTalkFrames).max() ?? 0, steady = candidates.map(\.steadyERLEFrames).max() ?? 0
        return Verdict(modes: modes, axes: verdictAxes(axes), comparedItems: 1, items: 1,
                       erleComparedItems: axes.erle ? 1 : 0, nearEndComparedItems: axes.nearEnd ? 1 : 0,
                       nearEndEstimatedItems: axes.nearEnd && candidates.contains(where: \.nearEndIsEstimate) ? 1 : 0,
                       doubleTalkItems: doubleTalk > 0 ? 1 : 0, doubleTalkFrames: doubleTalk,
                       steadyERLEItems: steady > 0 ? 1 : 0, steadyERLEFrames: steady)
    }

    /// An item's front on the near end talking alone: each point's lone-talker attenuation in
    /// place of its double-talk one (all of the talker cut: lost, the worst case), judged as a
    /// front on the near end alone; nil where no mode has a figure there.
    private static func frontOfNearEndAlone(_ points: [Point]) -> Verdict? {
        let alone = points.map { point in
            Point(mode: point.mode, erleSteadyDB: nil, nearEndAttenuationDB: point.nearEndAloneDB,
                  nearEndIsLowerBound: point.nearEndAloneIsLowerBound, isNearEndLost: point.nearEndAloneIsLowerBound,
                  nearEndIsEstimate: point.nearEndAloneIsEstimate, sendsSilence: point.sendsSilence)
        }
        let candidates = alone.filter { $0.mode != "disabled" }
        guard countedAxes(candidates).nearEnd, var verdict = front(of: alone) else { return nil }
        verdict.axes = .nearEndAlone
        return verdict
    }

    /// The front of a corpus, judged pair by pair, each axis on the items where every mode has
    /// its value on it: steady ERLE on the items with far-end single talk, the near end on those
    /// with double talk (where a mode lost it, that is its value) — an item without double talk
    /// still judges echo removal, and over different items a mode on easy items would be
    /// compared with another on hard ones. For two modes, each axis's per-item difference counts
    /// where its sign is certain (`certainDifference`) and as 0 where a lower bound leaves it
    /// unknown, as an item's front ties it; mode A beats B where its mean difference is at least
    /// 0 on both axes (higher ERLE, lower attenuation) and better on one. (Means of values, one a
    /// bound, would be bounds in an unknown order on nearly any corpus: one output under the noise
    /// floor would tie every mode on ERLE.) The front is the modes no other beats — where beating
    /// runs in a circle, the modes of the circle no mode outside it beats. A mode that lost the
    /// near end on one of the compared items is off the front. nil without such items or without a
    /// verdict.
    public static func front(ofItems items: [[Point]]) -> Verdict? {
        // The axes are those with items to compare on: a mode that lost the near end on an item
        // only ERLE compares is off the front, not a near-end axis of no items.
        guard let compared = comparedMeansAndItems(items),
              let (axes, comparable, _) = comparable(compared.points, axes: (!compared.erle.isEmpty, !compared.nearEnd.isEmpty))
        else { return nil }
        let modes = comparable.map(\.mode)
        // Each compared item's values of the comparable modes on one axis.
        func values(_ indices: [Int], _ value: (Point) -> BoundedValue?) -> [[BoundedValue?]] {
            indices.map { index in modes.map { mode in items[index].first { $0.mode == mode }.flatMap(value) } }
        }
        let erleValues = axes.erle ? values(compared.erle) { $0.erle } : []
        let nearEndValues = axes.nearEnd ? values(compared.nearEnd) { $0.nearEndDeparture } : []
        func mean(_ a: Int, _ b: Int, _ table: [[BoundedValue?]]) -> Double {
            guard !table.isEmpty else { return 0 }
            let differences = table.map { item in item[a].flatMap { va in item[b].flatMap { vb in certainDifference(va, vb) } } }
            let value = differences.map { $0 ?? 0 }.reduce(0, +) / Double(differences.count)
            // Under the resolution a mean difference is none (the figures have four decimals).
            return (abs(value) * 10_000).rounded() < resolutionDB * 10_000 ? 0 : value
        }
        let front = unbeaten(modes.count) { a, b in
            let erle = mean(a, b, erleValues), nearEnd = mean(a, b, nearEndValues)
            return erle >= 0 && nearEnd <= 0 && (erle > 0 || nearEnd < 0)
        }
        let candidates = items.map { $0.filter { $0.mode != "disabled" } }
        let doubleTalk = candidates.map { $0.map(\.doubleTalkFrames).max() ?? 0 }
        let steady = candidates.map { $0.map(\.steadyERLEFrames).max() ?? 0 }
        let erleItems = axes.erle ? compared.erle : [], nearEndItems = axes.nearEnd ? compared.nearEnd : []
        var verdict = Verdict(modes: front.map { modes[$0] }, axes: verdictAxes(axes), comparedItems: Set(erleItems + nearEndItems).count,
                              items: items.count, erleComparedItems: erleItems.count, nearEndComparedItems: nearEndItems.count,
                              doubleTalkItems: doubleTalk.filter { $0 > 0 }.count, doubleTalkFrames: doubleTalk.reduce(0, +),
                              steadyERLEItems: steady.filter { $0 > 0 }.count, steadyERLEFrames: steady.max() ?? 0)
        verdict.nearEndEstimatedItems = nearEndItems.filter { items[$0].contains(where: \.nearEndIsEstimate) }.count
        verdict.ties = front.map { m in
            func tied(_ table: [[BoundedValue?]], _ indices: [Int]) -> [Int] {
                table.indices.filter { i in modes.indices.contains { o in
                    o != m && table[i][m] != nil && table[i][o] != nil && certainDifference(table[i][m]!, table[i][o]!) == nil
                } }.map { indices[$0] }
            }
            return Ties(mode: modes[m], erleItems: tied(erleValues, erleItems), nearEndItems: tied(nearEndValues, nearEndItems))
        }
        return verdict
    }

    /// The modes (of `count`) no other beats — where beating runs in a circle (a lower bound
    /// ties with values either side of it, and a tenth of a dB is no difference), the modes of
    /// a circle no mode outside it beats: `beats(a, b)` closed over the modes between, so that
    /// a front is never empty.
    static func unbeaten(_ count: Int, beats: (Int, Int) -> Bool) -> [Int] {
        var reaches = (0..<count).map { a in (0..<count).map { b in a != b && beats(a, b) } }
        for k in 0..<count { for a in 0..<count where reaches[a][k] { for b in 0..<count where reaches[k][b] { reaches[a][b] = true } } }
        return (0..<count).filter { m in (0..<count).allSatisfy { other in !reaches[other][m] || reaches[m][other] } }
    }

    /// The least difference the verdicts count, in dB: a tenth, the pages' precision. Values are
    /// compared as the pages print them (`FixedDecimal`, one decimal): two modes whose near-end
    /// attenuations were 0.0569 and 0.0580 dB split an item's front over 0.001 dB, which no
    /// measurement here resolves (a frame's estimate moves by ±0.7 dB with what else was sent),
    /// and which both pages print as 0.1. Compared as printed, equal stays transitive.
    public static let resolutionDB = 0.1

    /// A value as the pages print it, in tenths of a dB.
    static func printed(_ value: Double) -> Int64 { FixedDecimal.scaled(value, fractionDigits: 1) }

    /// `a` certainly above `b` as printed.
    static func isAbove(_ a: BoundedValue, _ b: BoundedValue) -> Bool {
        !b.isLowerBound && printed(a.value) > printed(b.value)
    }

    /// `a − b` on one item where its sign is certain; nil where a lower bound leaves the order
    /// unknown (a tie). Both measured: `a − b`; `a` a bound over a measured `b`: at least `a − b`,
    /// so that (and the mirror); both bounds, or a bound not past the measured value: unknown. The
    /// same for ERLE (a bound: that much echo removed or more) and for near-end attenuation (a
    /// bound: that much of the talker cut or more, the worst case), read with the axis's sense.
    public static func certainDifference(_ a: BoundedValue, _ b: BoundedValue) -> Double? {
        // As printed: values the pages print alike differ by nothing, as the item's front ties them.
        isAbove(a, b) || isAbove(b, a) || (!a.isLowerBound && !b.isLowerBound) ? Double(printed(a.value) - printed(b.value)) / 10 : nil
    }

    /// Each mode's means, each axis over the items where every mode has its value on it (steady
    /// ERLE; the near end, or lost it: a mode that lost it on one of them is a lost point), with
    /// how many such items there are of how many: what the trade-off plot shows, judged here once
    /// so a page only draws it.
    public struct ComparedMeans: Sendable, Equatable {
        /// One point per mode (`disabled` aside), in the order the modes are first met.
        public var points: [Point]
        /// The items the means are over (on either axis), and all items.
        public var comparedItems: Int
        public var items: Int
        /// The items each axis's means are over.
        public var erleComparedItems: Int
        public var nearEndComparedItems: Int

        public init(points: [Point], comparedItems: Int, items: Int, erleComparedItems: Int, nearEndComparedItems: Int) {
            self.points = points
            self.comparedItems = comparedItems
            self.items = items
            self.erleComparedItems = erleComparedItems
            self.nearEndComparedItems = nearEndComparedItems
        }
    }

    /// The compared means of `items` (see `ComparedMeans`); nil without an item every mode has
    /// a value on, on either axis.
    public static func comparedMeans(_ items: [[Point]]) -> ComparedMeans? {
        comparedMeansAndItems(items).map {
            ComparedMeans(points: $0.points, comparedItems: Set($0.erle + $0.nearEnd).count, items: items.count,
                          erleComparedItems: $0.erle.count, nearEndComparedItems: $0.nearEnd.count)
        }
    }

    /// `comparedMeans`, with each axis's compared items' indices. A mean over values one of which
    /// is a lower bound is a bound itself (`BoundedValue.mean`), shown "≥"; the corpus's front
    /// does not order these means but compares modes pair by pair (`front(ofItems:)`).
    static func comparedMeansAndItems(_ items: [[Point]]) -> (points: [Point], erle: [Int], nearEnd: [Int])? {
        var modes: [String] = []
        for point in items.joined() where point.mode != "disabled" && !modes.contains(point.mode) { modes.append(point.mode) }
        let axes = countedAxes(Array(items.joined()).filter { $0.mode != "disabled" })
        guard modes.count >= 2, axes.erle || axes.nearEnd else { return nil }
        func everyMode(_ has: (Point) -> Bool) -> [Int] {
            items.indices.filter { index in modes.allSatisfy { mode in items[index].contains { $0.mode == mode && has($0) } } }
        }
        // A mode that lost the near end is off the front whatever its ERLE: its missing value
        // does not take the item off the ERLE axis for the others.
        let erle = axes.erle ? everyMode { $0.erleSteadyDB != nil || $0.isNearEndLost } : []
        let nearEnd = axes.nearEnd ? everyMode { $0.nearEndAttenuationDB != nil || $0.isNearEndLost } : []
        guard !erle.isEmpty || !nearEnd.isEmpty else { return nil }
        let compared = Set(erle + nearEnd).sorted()
        let points = modes.map { mode -> Point in
            func own(_ indices: [Int]) -> [Point] { indices.compactMap { index in items[index].first { $0.mode == mode } } }
            if own(compared).contains(where: \.isNearEndLost) { return Point(mode: mode, erleSteadyDB: nil, nearEndAttenuationDB: nil, isNearEndLost: true) }
            // The near end by its departure on each item: a boost on one item does not cancel a
            // cut on another (the mean is then of departures, and ranks as one).
            let erleMean = BoundedValue.mean(own(erle).compactMap(\.erle)), nearEndMean = BoundedValue.mean(own(nearEnd).compactMap(\.nearEndDeparture))
            var point = Point(mode: mode, erleSteadyDB: erleMean?.value, erleSteadyIsLowerBound: erleMean?.isLowerBound ?? false,
                              nearEndAttenuationDB: nearEndMean?.value, nearEndIsLowerBound: nearEndMean?.isLowerBound ?? false,
                              nearEndIsEstimate: own(nearEnd).contains(where: \.nearEndIsEstimate), sendsSilence: own(compared).contains(where: \.sendsSilence))
            // Over the corpus as on an item: a canceller that removed nothing in its band on any
            // item compared on ERLE is none, whatever the band it never sent adds to its mean.
            point.removesNoEchoInItsBand = !own(erle).isEmpty && own(erle).allSatisfy(\.removesNoEchoInItsBand)
            point.convergedNothing = !own(erle).isEmpty && own(erle).allSatisfy(\.convergedNothing)
            return point
        }
        return (points, erle, nearEnd)
    }

    /// The modes a verdict compares: the counted axes, each mode's values on them (an absent axis
    /// compares equal) — missing where the axis counts, the near end lost, no echo removed or
    /// nothing sent: off the front — and the candidates (all but `disabled`); nil without a verdict.
    /// `axes`: the axes a corpus compared items on (else those some point has a value on).
    private static func comparable(_ points: [Point], axes counted: (erle: Bool, nearEnd: Bool)? = nil)
        -> (axes: (erle: Bool, nearEnd: Bool), comparable: [(mode: String, erle: BoundedValue, nearEnd: BoundedValue)], candidates: [Point])? {
        let candidates = points.filter { $0.mode != "disabled" }
        let axes = counted ?? countedAxes(candidates)
        guard axes.erle || axes.nearEnd else { return nil }
        let comparable = candidates.compactMap { point -> (mode: String, erle: BoundedValue, nearEnd: BoundedValue)? in
            guard !point.isNearEndLost, !point.sendsSilence, let e = axes.erle ? point.erle : BoundedValue(0),
                  let n = axes.nearEnd ? point.nearEndDeparture : BoundedValue(0) else { return nil }
            if axes.erle, removesNoEcho(e) || point.removesNoEchoInItsBand || point.convergedNothing { return nil }
            return (point.mode, e, n)
        }
        // A mode that lost the near end was a canceller that lost: it counts towards the two a
        // verdict needs. One that is no canceller (none removed, nothing sent) does not, as
        // `disabled` does not: beside it alone, a canceller has nothing to be best against.
        let lost = candidates.filter(\.isNearEndLost).count
        guard !comparable.isEmpty, comparable.count + lost >= 2 else { return nil }
        return (axes, comparable, candidates)
    }

    /// A steady ERLE measured at 0 dB or less as the pages print it: no echo removed (a
    /// pass-through, or worse), so no canceller there, whatever it kept of the near end. A lower
    /// bound says only "at least". As printed: a pass-through plugin run at 16 kHz reads 0.0042 dB
    /// (the resampling's round trip), printed "0.0", and would otherwise stand on the front beside
    /// speexdsp.
    public static func removesNoEcho(_ erleSteady: BoundedValue) -> Bool {
        !erleSteady.isLowerBound && printed(erleSteady.value) <= 0
    }

    /// One mode's values on one item, on the counted axes.
    private typealias Values = (erle: BoundedValue, nearEnd: BoundedValue)

    private static func verdictAxes(_ axes: (erle: Bool, nearEnd: Bool)) -> Axes {
        axes.erle && axes.nearEnd ? .both : axes.erle ? .erleOnly : .nearEndOnly
    }

    private static func countedAxes(_ candidates: [Point]) -> (erle: Bool, nearEnd: Bool) {
        (candidates.contains { $0.erleSteadyDB != nil }, candidates.contains { $0.nearEndAttenuationDB != nil || $0.isNearEndLost })
    }
}
