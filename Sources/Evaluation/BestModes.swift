/// The modes no other mode beats on both axes of an echo canceller's trade-off: steady-state ERLE
/// (higher removes more echo) and near-end attenuation in double talk (lower keeps more of the
/// near talker). One number cannot rank cancellers: the mode with the most ERLE is often the one
/// that cuts the near talker most.
///
/// A mode is on the front when no other mode has at least its ERLE and at most its attenuation,
/// and better on one of them (equal points are on it together). `disabled` is the reference a
/// canceller is judged against, never on the front. An axis counts where some mode has a value on
/// it, or lost the near end in double talk (an item without double talk is judged on ERLE alone,
/// one without echo on the near end alone). A near end lost entirely is the worst case: that mode
/// is off the front. A mode lacking a value on a counted axis is off it too. With fewer than two
/// modes to compare there is no verdict.
public enum BestModes {
    /// One mode's values on the two axes.
    public struct Point: Sendable, Equatable {
        public var mode: String
        public var erleSteadyDB: Double?
        public var nearEndAttenuationDB: Double?
        /// The near end talked over the far end but nothing of it was sent (its attenuation, if
        /// any, is only a lower bound).
        public var nearEndLost: Bool

        public init(mode: String, erleSteadyDB: Double?, nearEndAttenuationDB: Double?, nearEndLost: Bool = false) {
            self.mode = mode
            self.erleSteadyDB = erleSteadyDB
            self.nearEndAttenuationDB = nearEndAttenuationDB
            self.nearEndLost = nearEndLost
        }
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
    }

    /// The front of one item's modes; nil without a verdict.
    public static func front(of points: [Point]) -> Verdict? {
        let candidates = points.filter { $0.mode != "disabled" }
        let axes = countedAxes(candidates)
        guard axes.erle || axes.nearEnd else { return nil }
        // Missing where the axis counts, or the near end lost: off the front. Absent axes compare equal.
        let comparable = candidates.compactMap { point -> (mode: String, erle: Double, nearEnd: Double)? in
            guard !point.nearEndLost, let e = axes.erle ? point.erleSteadyDB : 0, let n = axes.nearEnd ? point.nearEndAttenuationDB : 0 else { return nil }
            return (point.mode, e, n)
        }
        let lost = candidates.filter(\.nearEndLost).count
        guard !comparable.isEmpty, comparable.count + lost >= 2 else { return nil }
        let modes = comparable.filter { point in
            !comparable.contains { other in
                other.erle >= point.erle && other.nearEnd <= point.nearEnd && (other.erle > point.erle || other.nearEnd < point.nearEnd)
            }
        }.map(\.mode)
        return Verdict(modes: modes, axes: axes.erle && axes.nearEnd ? .both : axes.erle ? .erleOnly : .nearEndOnly,
                       comparedItems: 1, items: 1)
    }

    /// The front of a corpus: each mode's means over the items where every mode has its values on
    /// the counted axes (or lost the near end) — means over different items would compare a mode
    /// on easy items with another on hard ones. A mode that lost the near end on one of those
    /// items is off the front. nil without such items or without a verdict.
    public static func front(ofItems items: [[Point]]) -> Verdict? {
        guard let (points, compared) = comparedMeans(items), var verdict = front(of: points) else { return nil }
        verdict.comparedItems = compared
        verdict.items = items.count
        return verdict
    }

    /// Each mode's means over the items where every mode has its values on the counted axes (or
    /// lost the near end; a mode that lost it on one of them is a lost point), and how many such
    /// items there are; nil without any.
    public static func comparedMeans(_ items: [[Point]]) -> (points: [Point], comparedItems: Int)? {
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
            func mean(_ values: [Double?]) -> Double? {
                let present = values.compactMap { $0 }
                return present.isEmpty ? nil : present.reduce(0, +) / Double(present.count)
            }
            return Point(mode: mode, erleSteadyDB: mean(own.map(\.erleSteadyDB)), nearEndAttenuationDB: mean(own.map(\.nearEndAttenuationDB)))
        }
        return (points, compared.count)
    }

    private static func countedAxes(_ candidates: [Point]) -> (erle: Bool, nearEnd: Bool) {
        (candidates.contains { $0.erleSteadyDB != nil }, candidates.contains { $0.nearEndAttenuationDB != nil || $0.nearEndLost })
    }
}
