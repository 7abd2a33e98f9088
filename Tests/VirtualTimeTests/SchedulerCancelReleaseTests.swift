import XCTest
@testable import VirtualTime

/// Cancellation takes the event out of the queue at once (as SwiftNIO's `EmbeddedEventLoop`
/// does), rather than leaving a tombstone to be skipped when its deadline comes.
final class SchedulerCancelReleaseTests: XCTestCase {
    private final class Token {}

    func testCancelReleasesTheActionAtOnce() {
        let scheduler = Scheduler()
        weak var released: Token?
        let id: ScheduledEventID
        do {
            let token = Token()
            released = token
            id = scheduler.schedule(at: VirtualInstant(nanoseconds: 1_000)) { _ = token }
        }
        XCTAssertNotNil(released)
        scheduler.cancel(id)
        XCTAssertNil(released, "a cancelled event's action (and what it captures) is freed by cancel, not at its deadline")
        XCTAssertEqual(scheduler.pendingCount, 0)
    }

    /// Cancelling from inside an action, mixed with scheduling, keeps the exact order of what is
    /// left and an exact count at every step.
    func testCountIsExactWhileActionsCancelAndSchedule() {
        let scheduler = Scheduler()
        var ran: [Int] = []
        var ids: [Int: ScheduledEventID] = [:]
        for i in 0..<10 {
            ids[i] = scheduler.schedule(at: VirtualInstant(nanoseconds: Int64(i / 2)), phase: i % 2 == 0 ? .observe : .render) {
                ran.append(i)
                if i == 1 { scheduler.cancel(ids[0]!); scheduler.cancel(ids[9]!) }   // 0 is at the same instant, later phase
                if i == 3 {
                    ids[10] = scheduler.schedule(at: scheduler.now, phase: .transition) { ran.append(10) }
                    scheduler.cancel(ids[10]!)
                    scheduler.schedule(at: scheduler.now, phase: .observe) { ran.append(11) }
                }
            }
        }
        XCTAssertEqual(scheduler.pendingCount, 10)
        scheduler.advance(to: VirtualInstant(nanoseconds: 1))
        XCTAssertEqual(ran, [1, 3, 2, 11])
        XCTAssertEqual(scheduler.pendingCount, 5)          // 4, 5, 6, 7, 8 (9 was cancelled)
        XCTAssertEqual(scheduler.drain(), 5)
    }
}
