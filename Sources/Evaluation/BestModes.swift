/// The modes no other mode beats on both axes of an echo canceller's trade-off: steady-state ERLE
/// (higher removes more echo) and near-end attenuation in double talk (lower keeps more of the
/// near talker). One number cannot rank cancellers: the mode with the most ERLE is often the one
/// that cuts the near talker most.
///
/// A mode is on the front when no other mode has at least its ERLE and at most its attenuation,
/// and better on one of them (equal points are on it together). `disabled` is the reference a
/// canceller is judged against, never on the front. An axis counts where some mode has a value on
/// it (an item without double talk is judged on ERLE alone, one without echo on the near end
/// alone); a mode lacking a value on a counted axis is off the front. With fewer than two modes
/// to compare there is no verdict.
public enum BestModes {
    /// One mode's values on the two axes.
    public struct Point: Sendable, Equatable {
        public var mode: String
        public var erleSteadyDB: Double?
        public var nearEndAttenuationDB: Double?

        public init(mode: String, erleSteadyDB: Double?, nearEndAttenuationDB: Double?) {
            self.mode = mode
            self.erleSteadyDB = erleSteadyDB
            self.nearEndAttenuationDB = nearEndAttenuationDB
        }
    }

    /// The axes a verdict was judged on.
    public enum Axes: String, Sendable, Equatable {
        case both, erleOnly, nearEndOnly
    }

    /// The front: its modes in the order of `points`, and the axes judged; nil without a verdict.
    public static func front(of points: [Point]) -> (modes: [String], axes: Axes)? {
        let candidates = points.filter { $0.mode != "disabled" }
        let erle = candidates.contains { $0.erleSteadyDB != nil }, nearEnd = candidates.contains { $0.nearEndAttenuationDB != nil }
        guard erle || nearEnd else { return nil }
        // Missing where the axis counts: off the front. Absent axes compare equal.
        let comparable = candidates.compactMap { point -> (mode: String, erle: Double, nearEnd: Double)? in
            guard let e = erle ? point.erleSteadyDB : 0, let n = nearEnd ? point.nearEndAttenuationDB : 0 else { return nil }
            return (point.mode, e, n)
        }
        guard comparable.count >= 2 else { return nil }
        let modes = comparable.filter { point in
            !comparable.contains { other in
                other.erle >= point.erle && other.nearEnd <= point.nearEnd && (other.erle > point.erle || other.nearEnd < point.nearEnd)
            }
        }.map(\.mode)
        return (modes, erle && nearEnd ? .both : erle ? .erleOnly : .nearEndOnly)
    }
}
