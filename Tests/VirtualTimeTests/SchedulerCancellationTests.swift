import XCTest
@testable import VirtualTime

/// Cancellation, `pendingCount`, `nextDeadline` and `drain()`.
final class SchedulerCancellationTests: XCTestCase {
    func testCancelledEventDoesNotRunAndLeavesTheCount() {
        let scheduler = Scheduler()
        var ran: [String] = []
        let a = scheduler.schedule(at: VirtualInstant(nanoseconds: 10)) { ran.append("a") }
        scheduler.schedule(at: VirtualInstant(nanoseconds: 20)) { ran.append("b") }
        XCTAssertEqual(scheduler.pendingCount, 2)
        scheduler.cancel(a)
        XCTAssertEqual(scheduler.pendingCount, 1)
        scheduler.cancel(a)                       // twice: still one fewer, not two
        XCTAssertEqual(scheduler.pendingCount, 1)
        scheduler.advance(to: VirtualInstant(nanoseconds: 100))
        XCTAssertEqual(ran, ["b"])
        XCTAssertEqual(scheduler.pendingCount, 0)
        XCTAssertEqual(scheduler.executedCount, 1)
    }

    func testCancellingAnEventThatAlreadyRanIsHarmless() {
        let scheduler = Scheduler()
        var ran = 0
        let id = scheduler.schedule(at: VirtualInstant(nanoseconds: 5)) { ran += 1 }
        scheduler.advance(to: VirtualInstant(nanoseconds: 5))
        XCTAssertEqual(ran, 1)
        scheduler.cancel(id)
        XCTAssertEqual(scheduler.pendingCount, 0)
        scheduler.schedule(at: VirtualInstant(nanoseconds: 9)) { ran += 10 }
        XCTAssertEqual(scheduler.pendingCount, 1, "a stale cancel must not hide a later event")
        scheduler.advance(to: VirtualInstant(nanoseconds: 9))
        XCTAssertEqual(ran, 11)
    }

    func testAnEventCancellingItselfOrALaterSameInstantEvent() {
        let scheduler = Scheduler()
        var ran: [String] = []
        let t = VirtualInstant(nanoseconds: 50)
        var selfID: ScheduledEventID?
        var victim: ScheduledEventID?
        selfID = scheduler.schedule(at: t, phase: .capture) {
            ran.append("first")
            scheduler.cancel(selfID!)      // already running: no effect
            scheduler.cancel(victim!)
        }
        victim = scheduler.schedule(at: t, phase: .observe) { ran.append("victim") }
        scheduler.schedule(at: t, phase: .observe) { ran.append("survivor") }
        scheduler.advance(to: t)
        XCTAssertEqual(ran, ["first", "survivor"])
        XCTAssertEqual(scheduler.pendingCount, 0)
    }

    func testNextDeadlineSkipsCancelledEvents() {
        let scheduler = Scheduler()
        let early = scheduler.schedule(at: VirtualInstant(nanoseconds: 1)) {}
        let middle = scheduler.schedule(at: VirtualInstant(nanoseconds: 2)) {}
        scheduler.schedule(at: VirtualInstant(nanoseconds: 3)) {}
        XCTAssertEqual(scheduler.nextDeadline?.nanoseconds, 1)
        scheduler.cancel(early)
        scheduler.cancel(middle)
        XCTAssertEqual(scheduler.nextDeadline?.nanoseconds, 3)
        XCTAssertEqual(scheduler.pendingCount, 1)
        scheduler.advance(to: VirtualInstant(nanoseconds: 3))
        XCTAssertNil(scheduler.nextDeadline)
    }

    func testPendingCountStaysRightUnderManyCancellations() {
        let scheduler = Scheduler()
        var ids: [ScheduledEventID] = []
        var ran = 0
        for i in 0..<1_000 {
            ids.append(scheduler.schedule(at: VirtualInstant(nanoseconds: Int64(i % 97))) { ran += 1 })
        }
        var cancelled = 0
        for (i, id) in ids.enumerated() where i % 3 == 0 {
            scheduler.cancel(id)
            scheduler.cancel(id)
            cancelled += 1
        }
        XCTAssertEqual(scheduler.pendingCount, 1_000 - cancelled)
        _ = scheduler.nextDeadline           // finds the next live event
        XCTAssertEqual(scheduler.pendingCount, 1_000 - cancelled)
        scheduler.advance(to: VirtualInstant(nanoseconds: 40))
        let expectedRan = (0..<1_000).filter { $0 % 3 != 0 && $0 % 97 <= 40 }.count
        XCTAssertEqual(ran, expectedRan)
        XCTAssertEqual(scheduler.pendingCount, 1_000 - cancelled - expectedRan)
        for id in ids { scheduler.cancel(id) }   // cancels the rest; stale ids are ignored
        XCTAssertEqual(scheduler.pendingCount, 0)
        XCTAssertNil(scheduler.nextDeadline)
    }

    func testDrainReportsLeftoversExcludingCancelledOnes() {
        let scheduler = Scheduler()
        var ran = 0
        let doomed = scheduler.schedule(at: VirtualInstant(nanoseconds: 100)) { ran += 1 }
        scheduler.schedule(at: VirtualInstant(nanoseconds: 200)) { ran += 1 }
        scheduler.schedule(at: VirtualInstant(nanoseconds: 300)) { ran += 1 }
        scheduler.cancel(doomed)
        XCTAssertEqual(scheduler.drain(), 2)
        XCTAssertEqual(scheduler.pendingCount, 0)
        XCTAssertNil(scheduler.nextDeadline)
        scheduler.advance(to: VirtualInstant(nanoseconds: 1_000))
        XCTAssertEqual(ran, 0)
        XCTAssertEqual(scheduler.drain(), 0)
        // The scheduler remains usable after a drain.
        scheduler.schedule(after: .nanoseconds(1)) { ran += 1 }
        scheduler.advance(by: .nanoseconds(1))
        XCTAssertEqual(ran, 1)
    }
}
