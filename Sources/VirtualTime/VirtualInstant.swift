/// A point on the virtual clock: integer nanoseconds since the simulation started.
/// Integer time keeps hours of 10 ms ticks free of floating-point drift; milliseconds and
/// seconds exist only at the edges (scenario files, reports).
public struct VirtualInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = VirtualInstant(nanoseconds: 0)

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    public static func + (lhs: Self, rhs: VirtualDuration) -> Self { Self(nanoseconds: lhs.nanoseconds + rhs.nanoseconds) }
    public static func - (lhs: Self, rhs: VirtualDuration) -> Self { Self(nanoseconds: lhs.nanoseconds - rhs.nanoseconds) }
    public static func - (lhs: Self, rhs: Self) -> VirtualDuration { VirtualDuration(nanoseconds: lhs.nanoseconds - rhs.nanoseconds) }
    public static func += (lhs: inout Self, rhs: VirtualDuration) { lhs.nanoseconds += rhs.nanoseconds }

    /// Seconds as a Double, for reports only.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public var description: String { "t=\(VirtualDuration(nanoseconds: nanoseconds))" }
}

/// A span of virtual time in integer nanoseconds.
public struct VirtualDuration: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = VirtualDuration(nanoseconds: 0)
    public static func nanoseconds(_ n: Int64) -> Self { Self(nanoseconds: n) }
    public static func microseconds(_ n: Int64) -> Self { Self(nanoseconds: n * 1_000) }
    public static func milliseconds(_ n: Int64) -> Self { Self(nanoseconds: n * 1_000_000) }
    public static func seconds(_ n: Int64) -> Self { Self(nanoseconds: n * 1_000_000_000) }
    /// The duration of `frames` samples at `sampleRate`, rounded down to a nanosecond
    /// (`floor(frames·10⁹/sampleRate)`, exact for any length that fits in nanoseconds).
    public static func frames(_ frames: Int64, sampleRate: Int) -> Self {
        precondition(sampleRate > 0, "sample rate must be positive")
        // frames·10⁹ overflows Int64 past ~53 h at 48 kHz; split into whole seconds and a remainder.
        let rate = Int64(sampleRate)
        let (seconds, rest) = frames.quotientAndRemainder(dividingBy: rate)
        var ns = seconds * 1_000_000_000 + rest * 1_000_000_000 / rate
        if rest < 0 && (rest * 1_000_000_000) % rate != 0 { ns -= 1 }   // floor, also for negative counts
        return Self(nanoseconds: ns)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    public static func + (lhs: Self, rhs: Self) -> Self { Self(nanoseconds: lhs.nanoseconds + rhs.nanoseconds) }
    public static func - (lhs: Self, rhs: Self) -> Self { Self(nanoseconds: lhs.nanoseconds - rhs.nanoseconds) }
    public static func * (lhs: Self, rhs: Int64) -> Self { Self(nanoseconds: lhs.nanoseconds * rhs) }
    public static prefix func - (value: Self) -> Self { Self(nanoseconds: -value.nanoseconds) }

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public var description: String {
        if nanoseconds % 1_000_000 == 0 { return "\(nanoseconds / 1_000_000) ms" }
        if nanoseconds % 1_000 == 0 { return "\(nanoseconds / 1_000) µs" }
        return "\(nanoseconds) ns"
    }
}
