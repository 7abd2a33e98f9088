import XCTest
@testable import VirtualTime

/// Cancel, reschedule and deinit behaviour of `RepeatingTimer`.
final class RepeatingTimerLifecycleTests: XCTestCase {
    func testHandlerCancellingItsOwnTimerStopsIt() {
        let scheduler = Scheduler()
        let timer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(10))
        var fired = 0
        timer.setEventHandler { [unowned timer] in
            fired += 1
            if fired == 3 { timer.cancel() }
        }
        timer.schedule()
        scheduler.advance(to: VirtualInstant.zero + .seconds(1))
        XCTAssertEqual(fired, 3)
        XCTAssertEqual(timer.fireCount, 3)
        XCTAssertFalse(timer.isActive)
        XCTAssertEqual(scheduler.pendingCount, 0)
    }

    func testCancelFromOutsideStopsFurtherTicks() {
        let scheduler = Scheduler()
        let timer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(10))
        var fired = 0
        timer.setEventHandler { fired += 1 }
        timer.schedule()
        scheduler.advance(to: VirtualInstant.zero + .milliseconds(25))
        XCTAssertEqual(fired, 3)
        timer.cancel()
        timer.cancel()        // idempotent
        XCTAssertFalse(timer.isActive)
        XCTAssertEqual(scheduler.pendingCount, 0)
        scheduler.advance(to: VirtualInstant.zero + .seconds(1))
        XCTAssertEqual(fired, 3)
    }

    func testRescheduleFromTheHandlerRestartsTheCadence() {
        let scheduler = Scheduler()
        let timer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(10))
        var times: [Int64] = []
        timer.setEventHandler { [unowned timer] in
            times.append(scheduler.now.nanoseconds / 1_000_000)
            if times.count == 2 { timer.schedule(deadline: scheduler.now + .milliseconds(3)) }
        }
        timer.schedule()
        scheduler.advance(to: VirtualInstant.zero + .milliseconds(40))
        XCTAssertEqual(times, [0, 10, 13, 23, 33])
        XCTAssertEqual(scheduler.pendingCount, 1, "restarting must not leave the old tick behind")
    }

    func testRescheduleFromOutsideReplacesThePendingTick() {
        let scheduler = Scheduler()
        let timer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(10))
        var fired = 0
        timer.setEventHandler { fired += 1 }
        timer.schedule()
        timer.schedule()
        timer.schedule(deadline: VirtualInstant.zero + .milliseconds(5))
        XCTAssertEqual(scheduler.pendingCount, 1)
        scheduler.advance(to: VirtualInstant.zero + .milliseconds(5))
        XCTAssertEqual(fired, 1)
    }

    func testDroppedTimerCancelsItsPendingEvent() {
        let scheduler = Scheduler()
        var fired = 0
        do {
            let timer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(10))
            timer.setEventHandler { fired += 1 }
            timer.schedule()
            scheduler.advance(to: VirtualInstant.zero + .milliseconds(20))
            XCTAssertEqual(fired, 3)
            XCTAssertEqual(scheduler.pendingCount, 1)
        }
        XCTAssertEqual(scheduler.pendingCount, 0, "deinit must cancel the pending tick")
        XCTAssertNil(scheduler.nextDeadline)
        scheduler.advance(to: VirtualInstant.zero + .seconds(1))
        XCTAssertEqual(fired, 3)
    }

    func testTimerWithoutHandlerStillTicks() {
        let scheduler = Scheduler()
        let timer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(10))
        timer.schedule()
        scheduler.advance(to: VirtualInstant.zero + .milliseconds(95))
        XCTAssertEqual(timer.fireCount, 10)
    }
}
