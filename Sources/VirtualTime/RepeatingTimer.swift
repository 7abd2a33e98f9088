/// Seeded timing noise for a `RepeatingTimer`: each firing moves by a uniform draw in
/// `[-amplitude, +amplitude]`, so a pipeline's tolerance to early and late ticks can be
/// tested, and the same seed gives the same ticks on every run.
public struct TimerJitter: Hashable, Sendable {
    public var amplitude: VirtualDuration
    public var seed: UInt64

    public init(amplitude: VirtualDuration, seed: UInt64) {
        precondition(amplitude.nanoseconds >= 0, "jitter amplitude must not be negative")
        self.amplitude = amplitude
        self.seed = seed
    }
}

/// The virtual-clock stand-in for `DispatchSourceTimer` (`schedule(deadline:repeating:leeway:)`,
/// `setEventHandler`, `resume`, `cancel`).
///
/// The k-th firing is due at `start + k·period` computed from the tick count, never by adding
/// periods up, so hours of ticks do not drift; fractional periods (1024 frames at 44.1 kHz) are
/// given as `frames/sampleRate` and stay exact. `leeway` is how late Dispatch may fire: with a
/// jitter the lateness is drawn from `[0, leeway]` on top of the symmetric jitter; without one the
/// timer fires exactly on its deadlines. A firing never goes before the previous one or before `now`.
public final class RepeatingTimer {
    private let scheduler: Scheduler
    private let phase: SchedulerPhase
    private let periodNumerator: Int64      // period = numerator / denominator nanoseconds
    private let periodDenominator: Int64
    public let leeway: VirtualDuration
    public let jitter: TimerJitter?
    private var random: SplitMix
    private var handler: (() -> Void)?
    private var start = VirtualInstant.zero
    private var tick: Int64 = 0
    private var pending: ScheduledEventID?
    private var lastFire: VirtualInstant?
    /// Made once and reused for every firing, so a running timer allocates nothing per tick.
    private lazy var fireAction: () -> Void = { [weak self] in self?.fire() }
    /// How many times the handler ran.
    public private(set) var fireCount: Int64 = 0

    /// A timer with a period in whole nanoseconds.
    public convenience init(scheduler: Scheduler, period: VirtualDuration, leeway: VirtualDuration = .zero,
                            jitter: TimerJitter? = nil, phase: SchedulerPhase = .process) {
        self.init(scheduler: scheduler, periodNanoseconds: period.nanoseconds, per: 1,
                  leeway: leeway, jitter: jitter, phase: phase)
    }

    /// A timer whose period is `frames` samples at `sampleRate` (exact, even when not whole nanoseconds).
    public convenience init(scheduler: Scheduler, periodFrames frames: Int64, sampleRate: Int,
                            leeway: VirtualDuration = .zero, jitter: TimerJitter? = nil,
                            phase: SchedulerPhase = .process) {
        self.init(scheduler: scheduler, periodNanoseconds: frames * 1_000_000_000, per: Int64(sampleRate),
                  leeway: leeway, jitter: jitter, phase: phase)
    }

    private init(scheduler: Scheduler, periodNanoseconds: Int64, per denominator: Int64,
                 leeway: VirtualDuration, jitter: TimerJitter?, phase: SchedulerPhase) {
        precondition(periodNanoseconds > 0 && denominator > 0, "timer period must be positive")
        precondition(leeway.nanoseconds >= 0, "timer leeway must not be negative")
        self.scheduler = scheduler
        self.periodNumerator = periodNanoseconds
        self.periodDenominator = denominator
        self.leeway = leeway
        self.jitter = jitter
        self.phase = phase
        self.random = SplitMix(seed: jitter?.seed ?? 0)
    }

    deinit {
        if let pending { scheduler.cancel(pending) }
    }

    public func setEventHandler(_ handler: @escaping () -> Void) {
        self.handler = handler
    }

    /// Starts firing at `deadline` (default: now), then every period. The first tick is at the
    /// deadline itself, so advancing the clock over n whole periods fires n + 1 times. Calling it
    /// again (also from the handler) restarts the cadence from the new deadline; a deadline in
    /// the past is clamped to now.
    public func schedule(deadline: VirtualInstant? = nil) {
        cancel()
        start = deadline ?? scheduler.now
        tick = 0
        lastFire = nil
        arm()
    }

    /// Stops the timer; safe to call from its own handler (the next tick, already armed, is withdrawn).
    public func cancel() {
        if let pending { scheduler.cancel(pending) }
        pending = nil
    }

    public var isActive: Bool { pending != nil }

    /// The nominal (jitter-free) deadline of tick `k`.
    public func nominalDeadline(ofTick k: Int64) -> VirtualInstant {
        // k·num may exceed Int64 after ~290 years at 1 ns; split to keep hours and days exact.
        // rest·num can itself overflow for long periods at high rates (2 s at 96 kHz), so that
        // product is formed in 128 bits; the quotient is < num and always fits.
        let whole = k / periodDenominator, rest = k % periodDenominator
        let fraction = periodDenominator.dividingFullWidth(rest.multipliedFullWidth(by: periodNumerator)).quotient
        return start + .nanoseconds(whole * periodNumerator + fraction)
    }

    private func arm() {
        var deadline = nominalDeadline(ofTick: tick)
        if let jitter {
            let amplitude = jitter.amplitude.nanoseconds
            let offset = random.nextInt(in: -amplitude...amplitude) + random.nextInt(in: 0...leeway.nanoseconds)
            deadline = deadline + .nanoseconds(offset)
        }
        if let lastFire, deadline < lastFire { deadline = lastFire }
        if deadline < scheduler.now { deadline = scheduler.now }
        pending = scheduler.schedule(at: deadline, phase: phase, fireAction)
    }

    private func fire() {
        pending = nil
        lastFire = scheduler.now
        tick += 1
        fireCount += 1
        arm()                 // re-arm first, so a handler that cancels the timer wins
        handler?()
    }
}

/// SplitMix64: enough for timer jitter, and keeps VirtualTime free of other modules.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func nextInt(in range: ClosedRange<Int64>) -> Int64 {
        let width = UInt64(bitPattern: range.upperBound &- range.lowerBound) &+ 1
        if width == 0 { return Int64(bitPattern: next()) }
        return range.lowerBound &+ Int64(bitPattern: next() % width)
    }
}
