/// A handle to a scheduled event, for cancellation.
public struct ScheduledEventID: Hashable, Sendable {
    public let sequence: UInt64
}

/// A deterministic discrete-event scheduler on virtual time, in the spirit of SwiftNIO's
/// `EmbeddedEventLoop`: nothing runs until the clock is advanced; `advance(to:)` sets `now`
/// to each event's deadline before calling it; events are ordered by `(time, phase, sequence)`,
/// so same-instant work runs in phase order and, within a phase, in scheduling order; an event
/// that schedules more work at `now` sees it run in the same pass.
///
/// Single-threaded by design (one simulation, one scheduler); parallelism lives a level up.
public final class Scheduler {
    public private(set) var now: VirtualInstant
    /// Pending events only: a cancelled one leaves the heap at once.
    private var queue = EventHeap()
    private var nextSequence: UInt64 = 0
    /// Events run so far, for diagnostics and tests.
    public private(set) var executedCount: Int64 = 0

    public init(start: VirtualInstant = .zero) {
        now = start
    }

    /// Events still waiting (a cancelled one is no longer held, so it is not counted).
    public var pendingCount: Int { queue.count }

    /// The deadline of the next event that will run, if any.
    public var nextDeadline: VirtualInstant? { queue.peek()?.deadline }

    /// Schedules `action` at `deadline`. Scheduling in the past is a programming error.
    @discardableResult
    public func schedule(at deadline: VirtualInstant, phase: SchedulerPhase = .process,
                         _ action: @escaping () -> Void) -> ScheduledEventID {
        precondition(deadline >= now, "scheduled at \(deadline), which is before now (\(now))")
        let sequence = nextSequence
        nextSequence += 1
        queue.push(ScheduledEvent(deadline: deadline, phase: phase, sequence: sequence, action: action))
        return ScheduledEventID(sequence: sequence)
    }

    @discardableResult
    public func schedule(after delay: VirtualDuration, phase: SchedulerPhase = .process,
                         _ action: @escaping () -> Void) -> ScheduledEventID {
        schedule(at: now + delay, phase: phase, action)
    }

    /// Cancels a pending event, taking it out of the queue at once (its action, and what it
    /// captures, is released now); cancelling one that already ran or was cancelled does nothing.
    public func cancel(_ id: ScheduledEventID) {
        queue.remove(sequence: id.sequence)
    }

    /// Runs every event with a deadline ≤ `deadline`, in order, then sets `now` to `deadline`.
    public func advance(to deadline: VirtualInstant) {
        precondition(deadline >= now, "cannot advance backwards from \(now) to \(deadline)")
        runEvents(through: deadline)
        now = deadline
    }

    public func advance(by duration: VirtualDuration) {
        advance(to: now + duration)
    }

    /// Runs every event with a deadline strictly before `limit`, in order, then sets `now` to
    /// `limit`: the half-open interval `[now, limit)`. Events due exactly at `limit` stay for the
    /// next call, so consecutive `run(before:)` calls tile time without overlap or gap (where
    /// `advance(to:)` includes its end instant).
    public func run(before limit: VirtualInstant) {
        precondition(limit >= now, "cannot run backwards from \(now) to \(limit)")
        runEvents(before: limit)
        now = limit
    }

    /// Runs events until the queue is empty or the next event is past `limit`; `now` stays at
    /// the last event run (unlike `advance(to:)`, which moves the clock to its argument).
    public func run(until limit: VirtualInstant) {
        runEvents(through: limit)
    }

    /// The one event loop: pops in (time, phase, sequence) order and sets `now` to each deadline
    /// before its action (which may schedule more at `now`, or cancel pending events).
    private func runEvents(through limit: VirtualInstant) {
        runEvents { $0 <= limit }
    }

    private func runEvents(before limit: VirtualInstant) {
        runEvents { $0 < limit }
    }

    private func runEvents(while isDue: (VirtualInstant) -> Bool) {
        while let next = queue.peek(), isDue(next.deadline) {
            let event = queue.pop()!
            now = event.deadline
            executedCount += 1
            event.action()
        }
    }

    /// Drops every pending event and returns how many there were, so that a teardown can report
    /// leftovers instead of silently leaking scheduled work.
    @discardableResult
    public func drain() -> Int {
        let leftovers = queue.count
        queue.removeAll()
        return leftovers
    }
}
