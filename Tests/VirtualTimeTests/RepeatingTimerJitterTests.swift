import XCTest
@testable import VirtualTime

/// Seeded jitter: reproducible, bounded, monotonic.
final class RepeatingTimerJitterTests: XCTestCase {
    private func firingTimes(seed: UInt64, amplitude: VirtualDuration, leeway: VirtualDuration = .zero,
                             period: VirtualDuration = .milliseconds(10), seconds: Int64 = 10) -> [VirtualInstant] {
        let scheduler = Scheduler()
        let timer = RepeatingTimer(scheduler: scheduler, period: period, leeway: leeway,
                                   jitter: TimerJitter(amplitude: amplitude, seed: seed))
        var times: [VirtualInstant] = []
        timer.setEventHandler { times.append(scheduler.now) }
        timer.schedule(deadline: VirtualInstant.zero + .milliseconds(50))
        // End 5 ms after a nominal tick: that tick is always in (its window is −2…+3 ms at most
        // in these tests) and the next one never is, so the count does not depend on the draws.
        scheduler.advance(to: VirtualInstant.zero + .seconds(seconds) + .milliseconds(5))
        return times
    }

    func testSameSeedGivesIdenticalFiringTimes() {
        let a = firingTimes(seed: 7, amplitude: .milliseconds(2), leeway: .milliseconds(1))
        let b = firingTimes(seed: 7, amplitude: .milliseconds(2), leeway: .milliseconds(1))
        XCTAssertGreaterThan(a.count, 900)
        XCTAssertEqual(a, b)
    }

    func testDifferentSeedGivesDifferentFiringTimes() {
        let a = firingTimes(seed: 7, amplitude: .milliseconds(2))
        let b = firingTimes(seed: 8, amplitude: .milliseconds(2))
        XCTAssertNotEqual(a, b)
        let differing = zip(a, b).filter { $0 != $1 }.count
        XCTAssertGreaterThan(differing, a.count / 2)
    }

    func testEveryFiringStaysWithinTheJitterWindowAndInOrder() {
        let amplitude = VirtualDuration.milliseconds(2), leeway = VirtualDuration.milliseconds(1)
        for seed: UInt64 in [1, 2, 3, 0xDEAD_BEEF] {
            let times = firingTimes(seed: seed, amplitude: amplitude, leeway: leeway)
            let start = VirtualInstant.zero + .milliseconds(50)
            var minOffset = Int64.max, maxOffset = Int64.min
            for (k, t) in times.enumerated() {
                let nominal = start + .milliseconds(10) * Int64(k)
                let offset = (t - nominal).nanoseconds
                minOffset = min(minOffset, offset); maxOffset = max(maxOffset, offset)
                XCTAssertGreaterThanOrEqual(offset, -amplitude.nanoseconds, "seed \(seed) tick \(k)")
                XCTAssertLessThanOrEqual(offset, (amplitude + leeway).nanoseconds, "seed \(seed) tick \(k)")
                if k > 0 { XCTAssertGreaterThanOrEqual(t, times[k - 1], "seed \(seed) tick \(k)") }
            }
            // The jitter is real: offsets spread over most of the window.
            XCTAssertLessThan(minOffset, -amplitude.nanoseconds / 2)
            XCTAssertGreaterThan(maxOffset, amplitude.nanoseconds / 2 + leeway.nanoseconds)
            // Jitter never changes how many ticks there are over the run, or the mean cadence.
            XCTAssertEqual(times.count, 996, "ticks at 50 ms … 10 000 ms, ±jitter, none lost")
        }
    }

    func testJitterLargerThanHalfAPeriodNeverReordersTicks() {
        let times = firingTimes(seed: 99, amplitude: .milliseconds(9), period: .milliseconds(10), seconds: 5)
        XCTAssertFalse(times.isEmpty)
        for k in 1..<times.count { XCTAssertGreaterThanOrEqual(times[k], times[k - 1]) }
        let start = VirtualInstant.zero + .milliseconds(50)
        for (k, t) in times.enumerated() {
            let offset = (t - (start + .milliseconds(10) * Int64(k))).nanoseconds
            XCTAssertTrue((-9_000_000...9_000_000).contains(offset), "tick \(k) off by \(offset) ns")
        }
    }

    func testFirstTickJitteredBeforeNowIsClampedToNow() {
        let scheduler = Scheduler()
        let timer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(10),
                                   jitter: TimerJitter(amplitude: .milliseconds(3), seed: 5))
        var times: [VirtualInstant] = []
        timer.setEventHandler { times.append(scheduler.now) }
        timer.schedule()        // deadline = now = 0; a negative jitter draw cannot go before 0
        scheduler.advance(to: VirtualInstant.zero + .milliseconds(100))
        XCTAssertGreaterThanOrEqual(times.first ?? VirtualInstant(nanoseconds: -1), .zero)
        XCTAssertTrue(times.allSatisfy { $0 >= .zero })
    }

    func testLeewayWithoutJitterFiresExactlyOnDeadlines() {
        let scheduler = Scheduler()
        let timer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(10), leeway: .milliseconds(5))
        var times: [Int64] = []
        timer.setEventHandler { times.append(scheduler.now.nanoseconds) }
        timer.schedule()
        scheduler.advance(to: VirtualInstant.zero + .milliseconds(50))
        XCTAssertEqual(times, [0, 10, 20, 30, 40, 50].map { $0 * 1_000_000 })
    }
}
