import XCTest
@testable import VirtualTime

/// Same-instant ordering: phase first, then scheduling order; the clock as callbacks see it.
final class SchedulerOrderingTests: XCTestCase {
    func testSameInstantEventsRunByPhaseThenBySchedulingOrder() {
        let scheduler = Scheduler()
        var log: [String] = []
        let t = VirtualInstant(nanoseconds: 5_000_000)
        // Registered in an order that is neither phase order nor its reverse.
        scheduler.schedule(at: t, phase: .observe) { log.append("observe-1") }
        scheduler.schedule(at: t, phase: .process) { log.append("process-1") }
        scheduler.schedule(at: t, phase: .capture) { log.append("capture-1") }
        scheduler.schedule(at: t, phase: .render) { log.append("render-1") }
        scheduler.schedule(at: t, phase: .transition) { log.append("transition-1") }
        scheduler.schedule(at: t, phase: .process) { log.append("process-2") }
        scheduler.schedule(at: t, phase: .render) { log.append("render-2") }
        scheduler.schedule(at: t, phase: .observe) { log.append("observe-2") }
        scheduler.schedule(at: t, phase: .transition) { log.append("transition-2") }
        scheduler.schedule(at: t, phase: .capture) { log.append("capture-2") }

        scheduler.advance(to: t)

        XCTAssertEqual(log, ["transition-1", "transition-2", "render-1", "render-2", "capture-1", "capture-2",
                             "process-1", "process-2", "observe-1", "observe-2"])
    }

    func testTimeOrderBeatsPhaseAndSchedulingOrder() {
        let scheduler = Scheduler()
        var log: [Int64] = []
        for ms: Int64 in [30, 10, 20, 0, 40] {
            scheduler.schedule(at: VirtualInstant(nanoseconds: ms * 1_000_000), phase: ms == 30 ? .transition : .observe) {
                log.append(ms)
            }
        }
        scheduler.advance(to: VirtualInstant(nanoseconds: 40_000_000))
        XCTAssertEqual(log, [0, 10, 20, 30, 40])
    }

    func testManySameInstantEventsKeepSchedulingOrderWithinAPhase() {
        // A heap is not stable by itself; the sequence number must make it so.
        let scheduler = Scheduler()
        var seen: [Int] = []
        let t = VirtualInstant(nanoseconds: 1)
        for i in 0..<500 {
            let phase = SchedulerPhase.allCases[(i * 7) % SchedulerPhase.allCases.count]
            scheduler.schedule(at: t, phase: phase) { seen.append(i) }
        }
        scheduler.advance(to: t)
        let expected = (0..<500).sorted { a, b in
            let pa = (a * 7) % 5, pb = (b * 7) % 5
            return pa != pb ? pa < pb : a < b
        }
        XCTAssertEqual(seen, expected)
    }

    func testNowEqualsEachEventsDeadlineInsideItsCallback() {
        let scheduler = Scheduler()
        var observed: [Int64] = []
        let deadlines: [Int64] = [7, 1_000, 1_000, 999_999_999, 3]
        for d in deadlines {
            scheduler.schedule(at: VirtualInstant(nanoseconds: d)) { observed.append(scheduler.now.nanoseconds) }
        }
        scheduler.advance(to: VirtualInstant(nanoseconds: 2_000_000_000))
        XCTAssertEqual(observed, deadlines.sorted())
        XCTAssertEqual(scheduler.now, VirtualInstant(nanoseconds: 2_000_000_000))
        XCTAssertEqual(scheduler.executedCount, 5)
    }

    func testAdvanceMovesTheClockToItsArgumentEvenWithNoEvents() {
        let scheduler = Scheduler(start: VirtualInstant(nanoseconds: 100))
        XCTAssertEqual(scheduler.now.nanoseconds, 100)
        scheduler.advance(to: VirtualInstant(nanoseconds: 250))
        XCTAssertEqual(scheduler.now.nanoseconds, 250)
        scheduler.advance(by: .milliseconds(2))
        XCTAssertEqual(scheduler.now.nanoseconds, 2_000_250)
        scheduler.advance(to: scheduler.now)   // zero-length advance is allowed
        XCTAssertEqual(scheduler.now.nanoseconds, 2_000_250)
    }

    func testEventsAfterTheAdvanceDeadlineStayPending() {
        let scheduler = Scheduler()
        var ran: [Int] = []
        scheduler.schedule(at: VirtualInstant(nanoseconds: 10)) { ran.append(10) }
        scheduler.schedule(at: VirtualInstant(nanoseconds: 11)) { ran.append(11) }
        scheduler.advance(to: VirtualInstant(nanoseconds: 10))
        XCTAssertEqual(ran, [10])
        XCTAssertEqual(scheduler.pendingCount, 1)
        XCTAssertEqual(scheduler.nextDeadline, VirtualInstant(nanoseconds: 11))
    }

    func testCallbackSchedulingAtNowRunsInTheSamePass() {
        let scheduler = Scheduler()
        var log: [String] = []
        let t = VirtualInstant(nanoseconds: 1_000)
        scheduler.schedule(at: t, phase: .process) {
            log.append("process")
            // Earlier phase, same instant: still runs in this pass (right after the current event).
            scheduler.schedule(at: scheduler.now, phase: .render) {
                log.append("render-late@\(scheduler.now.nanoseconds)")
                scheduler.schedule(after: .zero, phase: .observe) { log.append("chained@\(scheduler.now.nanoseconds)") }
            }
        }
        scheduler.schedule(at: t, phase: .observe) { log.append("observe") }
        scheduler.advance(to: t)
        XCTAssertEqual(log, ["process", "render-late@1000", "observe", "chained@1000"])
        XCTAssertEqual(scheduler.pendingCount, 0)
    }

    func testCallbackSchedulingWithinTheWindowRunsButBeyondItWaits() {
        let scheduler = Scheduler()
        var log: [Int64] = []
        scheduler.schedule(at: VirtualInstant(nanoseconds: 10)) {
            log.append(scheduler.now.nanoseconds)
            scheduler.schedule(after: .nanoseconds(5)) { log.append(scheduler.now.nanoseconds) }    // 15: inside
            scheduler.schedule(after: .nanoseconds(500)) { log.append(scheduler.now.nanoseconds) }  // 510: outside
        }
        scheduler.advance(to: VirtualInstant(nanoseconds: 100))
        XCTAssertEqual(log, [10, 15])
        XCTAssertEqual(scheduler.now.nanoseconds, 100)
        XCTAssertEqual(scheduler.nextDeadline?.nanoseconds, 510)
    }

    func testRunUntilStopsAtTheLastEventRunAndNotAtTheLimit() {
        let scheduler = Scheduler()
        var log: [Int64] = []
        for d: Int64 in [20, 40, 60] {
            scheduler.schedule(at: VirtualInstant(nanoseconds: d)) { log.append(scheduler.now.nanoseconds) }
        }
        scheduler.run(until: VirtualInstant(nanoseconds: 50))
        XCTAssertEqual(log, [20, 40])
        XCTAssertEqual(scheduler.now.nanoseconds, 40, "run(until:) leaves the clock at the last event run")
        XCTAssertEqual(scheduler.pendingCount, 1)

        scheduler.run(until: VirtualInstant(nanoseconds: 59))
        XCTAssertEqual(scheduler.now.nanoseconds, 40, "no event ran, so the clock did not move")

        scheduler.run(until: VirtualInstant(nanoseconds: 60))   // the limit is inclusive
        XCTAssertEqual(log, [20, 40, 60])
        XCTAssertEqual(scheduler.now.nanoseconds, 60)
        XCTAssertEqual(scheduler.pendingCount, 0)
    }

    func testRunUntilIncludesWorkScheduledByCallbacks() {
        let scheduler = Scheduler()
        var count = 0
        func chain() {
            count += 1
            scheduler.schedule(after: .milliseconds(1)) { chain() }
        }
        scheduler.schedule(at: .zero) { chain() }
        scheduler.run(until: VirtualInstant(nanoseconds: 9_500_000))
        XCTAssertEqual(count, 10)          // t = 0, 1, …, 9 ms
        XCTAssertEqual(scheduler.now.nanoseconds, 9_000_000)
        XCTAssertEqual(scheduler.drain(), 1)
    }

    func testPhasesAreOrderedAndNamed() {
        XCTAssertEqual(SchedulerPhase.allCases, [.transition, .render, .capture, .process, .observe])
        XCTAssertEqual(SchedulerPhase.allCases.sorted(), SchedulerPhase.allCases)
        XCTAssertTrue(SchedulerPhase.transition < .observe)
        XCTAssertFalse(SchedulerPhase.process < .capture)
        XCTAssertEqual(SchedulerPhase.allCases.map(\.description), ["transition", "render", "capture", "process", "observe"])
    }
}
