/// The modes no other mode beats on both axes of an echo canceller's trade-off: steady-state ERLE
/// (higher removes more echo) and near-end attenuation in double talk (lower keeps more of the
/// near talker). One number cannot rank cancellers: the mode with the most ERLE is often the one
/// that cuts the near talker most.
///
/// A mode is on the front when no other mode has at least its ERLE and at most its attenuation,
/// and better on one of them (equal points are on it together). A lower bound is better than
/// another value only where it certainly is (`BoundedValue`): two values in an unknown order
/// (`≥ 49.04` and `≥ 49.03`, or `49.04` and `≥ 49.03`) are tied on that axis. `disabled` is the
/// reference a canceller is judged against, never on the front. An axis counts where some mode
/// has a value on it, or lost the near end in double talk (an item without double talk is judged
/// on ERLE alone, one without echo on the near end alone). A near end lost entirely is the worst
/// case: that mode is off the front. A mode lacking a value on a counted axis is off it too. With
/// fewer than two modes to compare there is no verdict.
///
/// Where a run has no near-end track (a recording), its near-end axis is the tap-free estimate
/// (`NearEndEstimate`: the output's drop under the talker the gate hears, `isLost` its lost near
/// end); the verdict says on how many items it stood in.
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
        public var nearEndLost: Bool
        /// The near-end value is the tap-free estimate (no near-end track), not a measured attenuation.
        public var nearEndIsEstimate: Bool
        /// The double talk the run's gate heard (analysis frames): with no near-end value, whether
        /// there was double talk to judge the near end on.
        public var doubleTalkFrames: Int

        public init(mode: String, erleSteadyDB: Double?, erleSteadyIsLowerBound: Bool = false, nearEndAttenuationDB: Double?,
                    nearEndIsLowerBound: Bool = false, nearEndLost: Bool = false, nearEndIsEstimate: Bool = false, doubleTalkFrames: Int = 0) {
            self.mode = mode
            self.erleSteadyDB = erleSteadyDB
            self.erleSteadyIsLowerBound = erleSteadyIsLowerBound
            self.nearEndAttenuationDB = nearEndAttenuationDB
            self.nearEndIsLowerBound = nearEndIsLowerBound
            self.nearEndLost = nearEndLost
            self.nearEndIsEstimate = nearEndIsEstimate
            self.doubleTalkFrames = doubleTalkFrames
        }

        /// A run's point from its figures that count (low-confidence ones are nil): the near end
        /// is the attenuation a near-end track measured (a bound: the near end lost) or, without
        /// one, the tap-free estimate (`estimateLost`: its near end lost).
        public static func run(mode: String, erleSteady: BoundedValue?, nearEndAttenuation: BoundedValue?,
                               estimate: BoundedValue?, estimateLost: Bool, doubleTalkFrames: Int) -> Point {
            let nearEnd = nearEndAttenuation ?? estimate
            return Point(mode: mode, erleSteadyDB: erleSteady?.value, erleSteadyIsLowerBound: erleSteady?.isLowerBound ?? false,
                         nearEndAttenuationDB: nearEnd?.value, nearEndIsLowerBound: nearEnd?.isLowerBound ?? false,
                         nearEndLost: nearEndAttenuation.map(\.isLowerBound) ?? (estimate != nil && estimateLost),
                         nearEndIsEstimate: nearEndAttenuation == nil && estimate != nil, doubleTalkFrames: doubleTalkFrames)
        }

        var erle: BoundedValue? { erleSteadyDB.map { BoundedValue($0, isLowerBound: erleSteadyIsLowerBound) } }
        var nearEnd: BoundedValue? { nearEndAttenuationDB.map { BoundedValue($0, isLowerBound: nearEndIsLowerBound) } }
    }

    /// The axes a verdict was judged on.
    public enum Axes: String, Sendable, Equatable {
        case both, erleOnly, nearEndOnly
    }

    /// A verdict: the front's modes (in the order given) and the axes judged.
    public struct Verdict: Sendable, Equatable {
        public var modes: [String]
        public var axes: Axes
        /// For a corpus: the items the modes were compared on (those where every mode has its
        /// values, or lost the near end), and all items.
        public var comparedItems: Int
        public var items: Int
        /// Of the compared items, those whose near end was judged on the tap-free estimate.
        public var nearEndEstimatedItems = 0
        /// The double talk the gate heard: items with any, and their analysis frames (per item
        /// the most any mode's gate heard). Where the verdict is on ERLE alone, it tells "no
        /// double talk" from "double talk, but no near-end figure to judge it on".
        public var doubleTalkItems = 0
        public var doubleTalkFrames = 0
    }

    /// The front of one item's modes; nil without a verdict.
    public static func front(of points: [Point]) -> Verdict? {
        let candidates = points.filter { $0.mode != "disabled" }
        let axes = countedAxes(candidates)
        guard axes.erle || axes.nearEnd else { return nil }
        // Missing where the axis counts, or the near end lost: off the front. Absent axes compare equal.
        let comparable = candidates.compactMap { point -> (mode: String, erle: BoundedValue, nearEnd: BoundedValue)? in
            guard !point.nearEndLost, let e = axes.erle ? point.erle : BoundedValue(0),
                  let n = axes.nearEnd ? point.nearEnd : BoundedValue(0) else { return nil }
            return (point.mode, e, n)
        }
        let lost = candidates.filter(\.nearEndLost).count
        guard !comparable.isEmpty, comparable.count + lost >= 2 else { return nil }
        // Higher ERLE is better, lower attenuation is: `other` beats `point` where it is certainly
        // better on one axis and certainly worse on neither (an unknown order is a tie).
        let modes = comparable.filter { point in
            !comparable.contains { other in
                !point.erle.isCertainlyAbove(other.erle) && !other.nearEnd.isCertainlyAbove(point.nearEnd)
                    && (other.erle.isCertainlyAbove(point.erle) || point.nearEnd.isCertainlyAbove(other.nearEnd))
            }
        }.map(\.mode)
        let doubleTalk = candidates.map(\.doubleTalkFrames).max() ?? 0
        return Verdict(modes: modes, axes: axes.erle && axes.nearEnd ? .both : axes.erle ? .erleOnly : .nearEndOnly,
                       comparedItems: 1, items: 1,
                       nearEndEstimatedItems: axes.nearEnd && candidates.contains(where: \.nearEndIsEstimate) ? 1 : 0,
                       doubleTalkItems: doubleTalk > 0 ? 1 : 0, doubleTalkFrames: doubleTalk)
    }

    /// The front of a corpus: each mode's means over the items where every mode has its values on
    /// the counted axes (or lost the near end) — means over different items would compare a mode
    /// on easy items with another on hard ones. A mode that lost the near end on one of those
    /// items is off the front. nil without such items or without a verdict.
    public static func front(ofItems items: [[Point]]) -> Verdict? {
        guard let (points, compared) = comparedMeansAndItems(items), var verdict = front(of: points) else { return nil }
        verdict.comparedItems = compared.count
        verdict.items = items.count
        let candidates = items.map { $0.filter { $0.mode != "disabled" } }
        verdict.nearEndEstimatedItems = verdict.axes == .erleOnly ? 0 : compared.filter { $0.contains(where: \.nearEndIsEstimate) }.count
        let doubleTalk = candidates.map { $0.map(\.doubleTalkFrames).max() ?? 0 }
        verdict.doubleTalkItems = doubleTalk.filter { $0 > 0 }.count
        verdict.doubleTalkFrames = doubleTalk.reduce(0, +)
        return verdict
    }

    /// Each mode's means over the items where every mode has its values on the counted axes (or
    /// lost the near end; a mode that lost it on one of them is a lost point), and how many such
    /// items there are; nil without any.
    public static func comparedMeans(_ items: [[Point]]) -> (points: [Point], comparedItems: Int)? {
        comparedMeansAndItems(items).map { ($0.points, $0.compared.count) }
    }

    /// `comparedMeans`, with the items compared. A mean over values one of which is a lower
    /// bound is a bound itself (`BoundedValue.mean`), and orders as one: two modes' means are in
    /// a known order only where the one shown lower is over measured values alone.
    static func comparedMeansAndItems(_ items: [[Point]]) -> (points: [Point], compared: [[Point]])? {
        var modes: [String] = []
        for point in items.joined() where point.mode != "disabled" && !modes.contains(point.mode) { modes.append(point.mode) }
        let axes = countedAxes(Array(items.joined()).filter { $0.mode != "disabled" })
        guard modes.count >= 2, axes.erle || axes.nearEnd else { return nil }
        func usable(_ point: Point) -> Bool {
            point.nearEndLost || ((!axes.erle || point.erleSteadyDB != nil) && (!axes.nearEnd || point.nearEndAttenuationDB != nil))
        }
        let compared = items.filter { item in modes.allSatisfy { mode in item.contains { $0.mode == mode && usable($0) } } }
        guard !compared.isEmpty else { return nil }
        let points = modes.map { mode -> Point in
            let own = compared.compactMap { item in item.first { $0.mode == mode } }
            if own.contains(where: \.nearEndLost) { return Point(mode: mode, erleSteadyDB: nil, nearEndAttenuationDB: nil, nearEndLost: true) }
            let erle = BoundedValue.mean(own.compactMap(\.erle)), nearEnd = BoundedValue.mean(own.compactMap(\.nearEnd))
            return Point(mode: mode, erleSteadyDB: erle?.value, erleSteadyIsLowerBound: erle?.isLowerBound ?? false,
                         nearEndAttenuationDB: nearEnd?.value, nearEndIsLowerBound: nearEnd?.isLowerBound ?? false,
                         nearEndIsEstimate: own.contains(where: \.nearEndIsEstimate))
        }
        return (points, compared)
    }

    private static func countedAxes(_ candidates: [Point]) -> (erle: Bool, nearEnd: Bool) {
        (candidates.contains { $0.erleSteadyDB != nil }, candidates.contains { $0.nearEndAttenuationDB != nil || $0.nearEndLost })
    }
}
