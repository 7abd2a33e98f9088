import Foundation

/// A second thread that takes batches from its owner one at a time, double buffered: `submit`
/// waits for the batch in flight, swaps the owner's filled batch with the one the thread has
/// finished with (array references: no copy, no allocation) and lets the thread `process` it.
/// The streaming WAV taps (`WAVTapWriter`) and the measurement of `run` (`BackgroundTap`) use it.
///
/// Between `submit` and the thread's next `idle` signal the thread alone touches `pending` and
/// `failure` (and whatever `process` and `close` reach); the semaphores order every hand-over,
/// so the class is safe although the compiler cannot check it. The first error stops all later
/// work and is thrown by the next `submit` or by `finish`.
final class BatchThread<Batch>: @unchecked Sendable {
    private let process: (Batch, Int) throws -> Void
    private let close: () throws -> Void
    private var pending: Batch
    private var pendingCount = 0
    private var failure: (any Error)?
    private var stopping = false
    /// Set with `stopping` when the thread is to run `close` as it ends.
    private var closing = false
    private var running = true
    private var exitSeen = false
    private let work = DispatchSemaphore(value: 0)
    private let idle = DispatchSemaphore(value: 1)
    private let exited = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - spare: the batch the thread holds before the first `submit` (storage of its own).
    ///   - process: called on the thread with each submitted batch and its count.
    ///   - close: called on the thread as it ends through `beginClosing`/`finish`, unless an
    ///     error came first (`stop` ends without it).
    init(name: String, spare: Batch, process: @escaping (Batch, Int) throws -> Void, close: @escaping () throws -> Void = {}) {
        self.process = process
        self.close = close
        pending = spare
        let thread = Thread { [unowned self] in loop() }
        thread.name = name
        thread.start()
    }

    private func loop() {
        while true {
            work.wait()
            if stopping {
                if closing && failure == nil {
                    do { try close() } catch { failure = error }
                }
                break
            }
            if failure == nil {
                do { try process(pending, pendingCount) } catch { failure = error }
            }
            idle.signal()
        }
        exited.signal()
    }

    /// Waits for the batch in flight, reports its error if it failed, and hands `batch` over
    /// (its storage is swapped with the batch the thread has finished with).
    func submit(_ batch: inout Batch, count: Int) throws {
        idle.wait()
        if let failure {
            idle.signal()
            throw failure
        }
        swap(&batch, &pending)
        pendingCount = count
        work.signal()
    }

    /// Lets the thread finish the batch in flight, run `close` and end, without waiting.
    func beginClosing() {
        guard running else { return }
        running = false
        idle.wait()
        closing = true
        stopping = true
        work.signal()
    }

    /// Waits for the last batch and `close`, and reports the first error.
    func finish() throws {
        beginClosing()
        waitForExit()
        if let failure { throw failure }
    }

    /// Ends the thread after the batch in flight, without `close` (idempotent).
    func stop() {
        if running {
            running = false
            idle.wait()
            stopping = true
            work.signal()
        }
        waitForExit()
    }

    private func waitForExit() {
        guard !exitSeen else { return }
        exited.wait()
        // The semaphore taken before stopping is given back: libdispatch traps when a semaphore
        // is released holding less than its initial value.
        idle.signal()
        exitSeen = true
    }
}
