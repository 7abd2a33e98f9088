/// A figure that is either measured or only a lower bound (the true value is at least `value`:
/// an output under the noise floor, a near end lost) — and how two such figures order. A bound's
/// truth may lie anywhere above it, so one figure is above another only when it is *certainly*
/// so: its least possible value over the other's greatest. `≥ 49.04` is not above `≥ 49.03`, nor
/// `49.04` above `≥ 49.03` (the bound's truth may exceed it); `≥ 49.04` is above `49.03`. Two
/// figures neither of which is certainly above the other are in an unknown order: the eval's
/// verdicts tie them, and `compare` does not judge the change.
public struct BoundedValue: Sendable, Equatable {
    public var value: Double
    public var isLowerBound: Bool

    public init(_ value: Double, isLowerBound: Bool = false) {
        self.value = value
        self.isLowerBound = isLowerBound
    }

    /// The mean of figures: a bound as soon as one of them is (a sum of bounds is a bound).
    public static func mean(_ values: [BoundedValue]) -> BoundedValue? {
        values.isEmpty ? nil : BoundedValue(values.map(\.value).reduce(0, +) / Double(values.count), isLowerBound: values.contains(where: \.isLowerBound))
    }
}
