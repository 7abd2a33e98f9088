import Foundation
import Synchronization

/// Worker threads that take batches from their owner in order, through a short queue: `submit`
/// swaps the owner's filled batch with one the workers have finished with (array references: no
/// copy, no allocation) and queues it; every worker runs its own `process` on every batch, in
/// order. The streaming WAV taps (`WAVTapWriter`, one worker) and the measurement of `run`
/// (`BackgroundTap`, one worker per group of taps) use it.
///
/// Why a queue and not one batch in flight: with one, each batch cost a wake-up on both sides —
/// the worker slept until the owner woke, swapped and signalled, and the owner slept until the
/// worker finished — and on two cores those waits added up to a tenth of a call. With a few
/// batches queued, the slower side runs on without waiting for the faster one.
///
/// The owner alone touches its batch and `tail`; each worker alone touches its own position; a
/// slot is the owner's from `free` until it is queued, then the workers' (read only) until the
/// last of them is done with it and signals `free`. The semaphores order every hand-over, so the
/// class is safe although the compiler cannot check it. The first error stops all later work
/// and is thrown by the next `submit` or by `finish` (with several workers, "first" is by the
/// clock: when taps on two workers fail in one run, either error may be the one reported).
final class BatchThread<Batch>: @unchecked Sendable {
    /// A batch, its number of items (`Self.endMarker`: the end of the stream) and how many
    /// workers have still to process it.
    private final class Slot {
        var batch: Batch
        var count = 0
        let pending = Atomic<Int>(0)
        init(_ batch: Batch) { self.batch = batch }
    }

    /// One worker thread: its `process` and the semaphore counting the slots queued for it.
    private struct Worker {
        let process: (Batch, Int) throws -> Void
        let queued = DispatchSemaphore(value: 0)
    }

    private let workers: [Worker]
    private let close: () throws -> Void
    private let afterClose: () -> Void
    /// The ring: queued slots from the slowest worker's position to `tail`, the others spare.
    private let slots: [Slot]
    private var tail = 0
    private static var endMarker: Int { -1 }
    private let failure = Mutex<(any Error)?>(nil)
    /// Set by `stop`: the workers skip what is still queued, and `close`.
    private let abandoned = Atomic<Bool>(false)
    /// Workers that reached the end marker.
    private let workersEnded = Atomic<Int>(0)
    /// Set with the end marker when the last worker to end is to run `close`.
    private var closing = false
    private var running = true
    private var exitSeen = false
    /// Slots the owner may fill: spare ones.
    private let free: DispatchSemaphore
    private let exited = DispatchSemaphore(value: 0)
    /// Signalled once `close` ran, or was skipped, on the last worker to end.
    private let closed = DispatchSemaphore(value: 0)
    private var closedSeen = false

    /// - Parameters:
    ///   - spares: the batches the workers hold before the first `submit` (storage of their own);
    ///     their number is how many batches may be queued at once.
    ///   - process: one closure per worker thread, called on it with each submitted batch and its
    ///     count. A batch is shared: workers only read it.
    ///   - close: called once, on the last worker to end through `beginClosing`/`finish` (after
    ///     every batch of every worker), unless an error came first or `stop` came before it.
    ///   - afterClose: called on the same worker once the owner may go on past `waitUntilClosed`
    ///     (whether `close` ran or not): work the owner need not wait for, which `finish` joins.
    init(name: String, spares: [Batch], process: [(Batch, Int) throws -> Void], close: @escaping () throws -> Void = {},
         afterClose: @escaping () -> Void = {}) {
        precondition(!spares.isEmpty && !process.isEmpty, "a BatchThread needs a spare batch and a worker")
        workers = process.map { Worker(process: $0) }
        self.close = close
        self.afterClose = afterClose
        slots = spares.map(Slot.init)
        free = DispatchSemaphore(value: spares.count)
        for index in workers.indices {
            let thread = Thread { [unowned self] in loop(worker: index) }
            thread.name = workers.count == 1 ? name : "\(name)-\(index + 1)"
            thread.start()
        }
    }

    /// One worker thread.
    convenience init(name: String, spares: [Batch], process: @escaping (Batch, Int) throws -> Void,
                     close: @escaping () throws -> Void = {}, afterClose: @escaping () -> Void = {}) {
        self.init(name: name, spares: spares, process: [process], close: close, afterClose: afterClose)
    }

    private var failed: Bool { failure.withLock { $0 != nil } }

    private func loop(worker index: Int) {
        work(index)
        // After `work` returned: the worker's references (its taps, through `process`) are
        // released on this thread before the owner can see it ended.
        exited.signal()
    }

    private func work(_ index: Int) {
        let worker = workers[index]
        var head = 0
        while true {
            worker.queued.wait()
            let slot = slots[head]
            if slot.count == Self.endMarker {
                // The last worker to reach the end runs `close`: after every batch of every worker.
                let last = workersEnded.add(1, ordering: .acquiringAndReleasing).newValue == workers.count
                if last {
                    if closing && !failed && !abandoned.load(ordering: .acquiring) {
                        do { try close() } catch { record(error) }
                    }
                    closed.signal()
                    afterClose()
                }
                return
            }
            if !failed && !abandoned.load(ordering: .acquiring) {
                do { try worker.process(slot.batch, slot.count) } catch { record(error) }
            }
            head = (head + 1) % slots.count
            // The last worker done with the slot hands it back.
            if slot.pending.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { free.signal() }
        }
    }

    private func record(_ error: any Error) {
        failure.withLock { if $0 == nil { $0 = error } }
    }

    /// Queues the slot at `tail` for every worker.
    private func queueTail() {
        slots[tail].pending.store(workers.count, ordering: .releasing)
        tail = (tail + 1) % slots.count
        for worker in workers { worker.queued.signal() }
    }

    /// Waits for a spare slot, reports a worker's error if one failed, and queues `batch` (its
    /// storage is swapped with the slot's, a batch the workers have finished with).
    func submit(_ batch: inout Batch, count: Int) throws {
        precondition(running, "submit after the end of the stream")
        free.wait()
        if let error = failure.withLock({ $0 }) {
            free.signal()
            throw error
        }
        let slot = slots[tail]
        swap(&batch, &slot.batch)
        slot.count = count
        queueTail()
    }

    /// Queues the end of the stream: each worker ends after the batches before it.
    private func end(closing: Bool) {
        free.wait()
        self.closing = closing
        slots[tail].count = Self.endMarker
        queueTail()
    }

    /// Lets the workers finish the queued batches, run `close` and end, without waiting.
    func beginClosing() {
        guard running else { return }
        running = false
        end(closing: true)
    }

    /// Waits for the last batch and `close` (not for `afterClose`), and reports the first error.
    func waitUntilClosed() throws {
        beginClosing()
        if !closedSeen {
            closed.wait()
            closedSeen = true
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Waits for the last batch, `close` and `afterClose`, and reports the first error.
    func finish() throws {
        beginClosing()
        waitForExit()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Ends the workers after the batches in flight, skipping the queued ones and `close` if it
    /// has not run yet, also after `beginClosing` (idempotent).
    func stop() {
        abandoned.store(true, ordering: .releasing)
        if running {
            running = false
            end(closing: false)
        }
        waitForExit()
    }

    private func waitForExit() {
        guard !exitSeen else { return }
        for _ in workers { exited.wait() }
        // The slot the end marker took is given back: libdispatch traps when a semaphore is
        // released holding less than its initial value.
        free.signal()
        exitSeen = true
    }
}
