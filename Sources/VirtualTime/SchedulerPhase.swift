/// Orders the kinds of work due at one instant, so that same-time events run in an order that
/// follows the audio flow rather than who registered first:
/// transitions first (a device swap at t applies to the audio of t), then the loudspeaker side
/// is rendered, then capture is pushed, then the engine processes its tick, then taps observe.
public enum SchedulerPhase: Int, Comparable, Sendable, CaseIterable, CustomStringConvertible {
    /// Device swaps, mode changes, timeline events.
    case transition = 0
    /// Playout pulls and render callbacks (custom speaker timers, the default speaker's I/O).
    case render = 1
    /// Capture pushes (custom mic timers, the default mic's I/O).
    case capture = 2
    /// The engine's 10 ms processing tick.
    case process = 3
    /// Observers: taps, metrics, progress.
    case observe = 4

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String {
        switch self {
        case .transition: "transition"
        case .render: "render"
        case .capture: "capture"
        case .process: "process"
        case .observe: "observe"
        }
    }
}
