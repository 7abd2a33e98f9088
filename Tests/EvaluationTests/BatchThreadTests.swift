@testable import Evaluation
import Foundation
import Synchronization
import XCTest

/// `BatchThread` hands batches to its workers through a queue: every worker sees every batch,
/// in order, with its count; the owner gets spare storage back; the first error reaches the
/// owner; `stop` skips what is queued; `close` runs once, after the last batch.
final class BatchThreadTests: XCTestCase {
    /// What a worker saw: (first value of the batch, count) per batch.
    private final class Log: @unchecked Sendable {
        private let entries = Mutex<[[Int]]>([])
        func append(_ entry: [Int]) { entries.withLock { $0.append(entry) } }
        var all: [[Int]] { entries.withLock { $0 } }
    }

    func testEveryWorkerSeesEveryBatchInOrderThroughAShortQueue() throws {
        let logs = [Log(), Log()], closed = Log()
        let thread = BatchThread<[Int]>(name: "test", spares: [[0, 0, 0], [0, 0, 0], [0, 0, 0]], process: logs.map { log in
            { batch, count in
                // A slow worker: the owner runs ahead until the queue is full.
                if log === logs[1] { usleep(200) }
                log.append(Array(batch[0..<count]))
            }
        }, close: {
            // After every batch of every worker, the slow one's too.
            XCTAssertEqual(logs[0].all.count, 50)
            XCTAssertEqual(logs[1].all.count, 50)
            closed.append([1])
        })
        var batch = [0, 0, 0]
        var expected: [[Int]] = []
        for index in 0..<50 {
            let count = 1 + index % 3
            for i in 0..<count { batch[i] = 100 * index + i }
            expected.append(Array(batch[0..<count]))
            try thread.submit(&batch, count: count)
            XCTAssertEqual(batch.count, 3, "the owner gets a spare batch of the same size back")
        }
        try thread.finish()
        XCTAssertEqual(logs[0].all, expected)
        XCTAssertEqual(logs[1].all, expected)
        XCTAssertEqual(closed.all, [[1]], "close runs once, after the last batch")
    }

    struct Failure: Error, Equatable { let batch: Int }

    func testTheFirstErrorStopsTheWorkAndReachesTheOwner() throws {
        let seen = Log()
        let thread = BatchThread<[Int]>(name: "test", spares: [[0], [0]], process: [{ batch, _ in
            seen.append(batch)
            if batch[0] == 3 { throw Failure(batch: 3) }
        }, { batch, _ in
            if batch[0] == 5 { throw Failure(batch: 5) }
        }], close: { XCTFail("close after an error") })
        var batch = [0]
        var thrown: (any Error)?
        for index in 0..<200 {
            batch[0] = index
            do { try thread.submit(&batch, count: 1) } catch { thrown = error; break }
        }
        XCTAssertThrowsError(try thread.finish()) { XCTAssertEqual($0 as? Failure, Failure(batch: 3)) }
        // A ring of two slots: batch 5 waits for batch 3 to be done, so submit throws.
        XCTAssertEqual(try XCTUnwrap(thrown) as? Failure, Failure(batch: 3))
        XCTAssertEqual(seen.all.first, [0])
        XCTAssertFalse(seen.all.contains([4]), "nothing is processed after the error: \(seen.all)")
        thread.stop()   // idempotent after finish
    }

    func testStopSkipsTheQueuedBatchesAndDoesNotClose() throws {
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let seen = Log()
        let thread = BatchThread<[Int]>(name: "test", spares: [[0], [0], [0]], process: { batch, _ in
            seen.append(batch)
            if batch[0] == 0 {
                started.signal()
                release.wait()
            }
        }, close: { XCTFail("close after stop") })
        var batch = [0]
        for index in 0..<3 {
            batch[0] = index
            try thread.submit(&batch, count: 1)
        }
        started.wait()
        // Batch 0 is in flight, 1 and 2 are queued: stop must not process them.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { release.signal() }
        thread.stop()
        XCTAssertEqual(seen.all, [[0]])
    }

    /// `stop` after `beginClosing` (an owner dropping its writer on an error path) skips `close`.
    func testStopAfterBeginClosingSkipsClose() throws {
        let release = DispatchSemaphore(value: 0)
        let thread = BatchThread<[Int]>(name: "test", spares: [[0], [0]], process: { _, _ in release.wait() },
                                        close: { XCTFail("close after stop") })
        var batch = [0]
        try thread.submit(&batch, count: 1)
        thread.beginClosing()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { release.signal() }
        thread.stop()
    }

    /// `waitUntilClosed` returns once `close` ran, while `afterClose` may still be running;
    /// `finish` waits for it. When `close` is skipped (an error came first), `afterClose` still
    /// runs and the owner gets the error, not a hang.
    func testTheOwnerGoesOnAfterCloseWhileAfterCloseRuns() throws {
        let events = Log()
        let release = DispatchSemaphore(value: 0)
        let thread = BatchThread<[Int]>(name: "test", spares: [[0]], process: { _, _ in },
                                        close: { events.append([1]) },
                                        afterClose: {
                                            release.wait()   // held until the owner went on
                                            events.append([2])
                                        })
        var batch = [0]
        try thread.submit(&batch, count: 1)
        try thread.waitUntilClosed()
        XCTAssertEqual(events.all, [[1]], "close ran; afterClose has not finished")
        try thread.waitUntilClosed()    // again: returns at once
        release.signal()
        try thread.finish()
        XCTAssertEqual(events.all, [[1], [2]])

        let failing = BatchThread<[Int]>(name: "test", spares: [[0]], process: { _, _ in throw Failure(batch: 7) },
                                         close: { XCTFail("close is skipped after an error") },
                                         afterClose: { events.append([3]) })
        try failing.submit(&batch, count: 1)
        XCTAssertThrowsError(try failing.waitUntilClosed()) { XCTAssertEqual($0 as? Failure, Failure(batch: 7)) }
        XCTAssertThrowsError(try failing.finish())
        XCTAssertEqual(events.all.last, [3])
    }
}
