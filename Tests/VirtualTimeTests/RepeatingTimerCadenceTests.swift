import XCTest
@testable import VirtualTime

/// Long-run cadence of `RepeatingTimer`: exact counts, no drift, fractional periods.
final class RepeatingTimerCadenceTests: XCTestCase {
    func testTenMillisecondTimerOverTwoHoursFiresExactlyAndWithoutDrift() {
        let scheduler = Scheduler()
        let start = VirtualInstant(nanoseconds: 1_234_567)
        scheduler.advance(to: start)
        let timer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(10))
        var fired: Int64 = 0
        var offCadence = 0
        var last = VirtualInstant.zero
        timer.setEventHandler {
            if scheduler.now != start + .milliseconds(10) * fired { offCadence += 1 }
            last = scheduler.now
            fired += 1
        }
        timer.schedule()     // first tick at `now` = start
        let end = start + .seconds(2 * 3600)
        scheduler.advance(to: end)

        // Ticks at start, start+10 ms, …, start+7200 s inclusive: 720 000 periods, 720 001 ticks.
        XCTAssertEqual(fired, 720_001)
        XCTAssertEqual(timer.fireCount, 720_001)
        XCTAssertEqual(offCadence, 0)
        XCTAssertEqual(last, start + .milliseconds(10) * 720_000)
        XCTAssertEqual(last, end)
        XCTAssertTrue(timer.isActive)
        XCTAssertEqual(scheduler.nextDeadline, end + .milliseconds(10))
        XCTAssertEqual(scheduler.pendingCount, 1)
    }

    func testExplicitDeadlineInTheFutureDelaysTheFirstTick() {
        let scheduler = Scheduler()
        let timer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(20))
        var times: [Int64] = []
        timer.setEventHandler { times.append(scheduler.now.nanoseconds / 1_000_000) }
        timer.schedule(deadline: VirtualInstant(nanoseconds: 5_000_000))
        scheduler.advance(to: VirtualInstant(nanoseconds: 70_000_000))
        XCTAssertEqual(times, [5, 25, 45, 65])
    }

    func testFramePeriodDeadlinesAreExactFloorsForAMillionTicks() {
        let scheduler = Scheduler()
        let timer = RepeatingTimer(scheduler: scheduler, periodFrames: 1024, sampleRate: 44_100)
        timer.schedule()
        var mismatches = 0
        var firstMismatch: Int64?
        for k in Int64(0)...1_000_000 {
            let expected = k * 1_024 * 1_000_000_000 / 44_100      // fits in Int64 up to k ≈ 9·10^6
            if timer.nominalDeadline(ofTick: k).nanoseconds != expected {
                mismatches += 1
                if firstMismatch == nil { firstMismatch = k }
            }
        }
        XCTAssertEqual(mismatches, 0, "first mismatch at tick \(firstMismatch ?? -1)")
        // After 44 100 ticks exactly 1024 s of audio have gone by: no accumulated rounding.
        XCTAssertEqual(timer.nominalDeadline(ofTick: 44_100).nanoseconds, 1_024_000_000_000)
        // A naive sum of the rounded-down period would have lost 44 100 · 0.7… ns by then.
        XCTAssertNotEqual(VirtualDuration.frames(1024, sampleRate: 44_100).nanoseconds * 44_100, 1_024_000_000_000)
    }

    func testFramePeriodTimerFiresOnTheExactFloors() {
        let scheduler = Scheduler()
        let timer = RepeatingTimer(scheduler: scheduler, periodFrames: 1024, sampleRate: 44_100, phase: .render)
        var k: Int64 = 0
        var mismatches = 0
        timer.setEventHandler {
            if scheduler.now.nanoseconds != k * 1_024_000_000_000 / 44_100 { mismatches += 1 }
            k += 1
        }
        timer.schedule()
        scheduler.advance(to: VirtualInstant(nanoseconds: 1_024_000_000_000 / 10))   // 102.4 s: 4 411 ticks
        XCTAssertEqual(k, 4_411)
        XCTAssertEqual(mismatches, 0)
    }

    func testTwoTimersForAnHourInterleaveCorrectly() {
        let scheduler = Scheduler()
        let engine = RepeatingTimer(scheduler: scheduler, period: .milliseconds(10), phase: .process)
        let device = RepeatingTimer(scheduler: scheduler, period: .milliseconds(20), phase: .capture)
        var engineTicks = 0, deviceTicks = 0
        var orderViolations = 0
        var lastDeviceTime = VirtualInstant(nanoseconds: -1)
        device.setEventHandler { deviceTicks += 1; lastDeviceTime = scheduler.now }
        engine.setEventHandler {
            engineTicks += 1
            // On every 20 ms boundary the capture push must already have happened this instant.
            if scheduler.now.nanoseconds % 20_000_000 == 0 && lastDeviceTime != scheduler.now { orderViolations += 1 }
        }
        engine.schedule()   // registered first, yet runs after capture at shared instants
        device.schedule()
        scheduler.advance(to: VirtualInstant.zero + .seconds(3600))
        XCTAssertEqual(engineTicks, 360_001)
        XCTAssertEqual(deviceTicks, 180_001)
        XCTAssertEqual(orderViolations, 0)
        XCTAssertEqual(scheduler.pendingCount, 2)
    }
}

extension RepeatingTimerCadenceTests {
    func testLongFramePeriodsAtHighRatesDoNotOverflow() {
        let scheduler = Scheduler()
        // 2 s at 96 kHz: the remainder product rest·(frames·10⁹) exceeds Int64 if formed naively.
        let timer = RepeatingTimer(scheduler: scheduler, periodFrames: 192_000, sampleRate: 96_000)
        timer.schedule()
        XCTAssertEqual(timer.nominalDeadline(ofTick: 95_999).nanoseconds, 95_999 * 2_000_000_000)
        XCTAssertEqual(timer.nominalDeadline(ofTick: 96_001).nanoseconds, 96_001 * 2_000_000_000)
        let odd = RepeatingTimer(scheduler: scheduler, periodFrames: 100_003, sampleRate: 96_000)
        odd.schedule()
        for k: Int64 in [1, 95_999, 96_000, 1_000_001] {
            let product = k.multipliedFullWidth(by: 100_003 * 1_000_000_000)
            let expected = Int64(96_000).dividingFullWidth(product).quotient
            XCTAssertEqual(odd.nominalDeadline(ofTick: k).nanoseconds, expected, "tick \(k)")
        }
    }
}
