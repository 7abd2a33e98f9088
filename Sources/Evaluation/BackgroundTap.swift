import Foundation
import Simulation

/// Runs a tap on a thread of its own: the call copies each tick into a batch, and a worker
/// thread feeds the batches to the tap in tick order, so measuring a call (the streaming metrics
/// and glitch detection, the larger half of an AEC-disabled call's time) overlaps with
/// simulating it. The tap sees exactly the ticks it would have seen inline, in the same order:
/// its results are the same bits. Double buffered, one batch in flight; the batches are
/// preallocated on the first tick, so the call allocates nothing per tick.
///
/// The wrapped tap is only touched by the worker until `finish()` returns (then by the caller).
/// An error of the tap is thrown by a later `record` (the call stops within a batch) or by
/// `finish()`.
final class BackgroundTap: CallTap {
    private let worker: BatchWorker
    private var batch: [TickCopy]
    private var filled = 0
    private var finished = false

    init(_ tap: CallTap, batchTicks: Int = 32) {
        batch = (0..<max(1, batchTicks)).map { _ in TickCopy() }
        worker = BatchWorker(tap: tap, spare: (0..<max(1, batchTicks)).map { _ in TickCopy() })
    }

    deinit { worker.stop() }

    func record(_ tick: TickSignals) throws {
        batch[filled].copy(tick)
        filled += 1
        if filled == batch.count { try flush() }
    }

    /// Hands over what is left, waits until the tap has taken every tick and reports its error.
    func finish() throws {
        guard !finished else { return }
        finished = true
        try flush()
        try worker.finish()
    }

    private func flush() throws {
        guard filled > 0 else { return }
        try worker.submit(&batch, count: filled)
        filled = 0
    }
}

/// One tick's signals, copied into arrays this copy owns.
struct TickCopy {
    var frame: Int64 = 0
    var count = 0
    var sendLatency = 0
    var nearEndInMic = true
    var mic: [Float] = []
    var reference: [Float] = []
    var echo: [Float] = []
    var nearEnd: [Float] = []
    var played: [Float] = []
    var sent: [Float] = []

    mutating func copy(_ tick: TickSignals) {
        let n = tick.count
        if mic.count != n {
            mic = [Float](repeating: 0, count: n)
            reference = mic; echo = mic; nearEnd = mic; played = mic; sent = mic
        }
        frame = tick.frame
        count = n
        sendLatency = tick.sendLatency
        nearEndInMic = tick.nearEndInMic
        mic[0..<n] = tick.mic[0..<n]
        reference[0..<n] = tick.reference[0..<n]
        echo[0..<n] = tick.echo[0..<n]
        nearEnd[0..<n] = tick.nearEnd[0..<n]
        played[0..<n] = tick.played[0..<n]
        sent[0..<n] = tick.sent[0..<n]
    }

    var signals: TickSignals {
        TickSignals(frame: frame, count: count, mic: mic, reference: reference, echo: echo, nearEnd: nearEnd,
                    played: played, sent: sent, sendLatency: sendLatency, nearEndInMic: nearEndInMic)
    }
}

/// The worker thread of a `BackgroundTap`. Between `submit` and the worker's next `idle` signal
/// the worker alone touches `tap`, `pending` and `failure`; the semaphores order every hand-over,
/// so the class is safe although the compiler cannot check it.
private final class BatchWorker: @unchecked Sendable {
    private let tap: CallTap
    private var pending: [TickCopy]
    private var pendingCount = 0
    private var failure: (any Error)?
    private var stopping = false
    private var running = true
    private var exitSeen = false
    private let work = DispatchSemaphore(value: 0)
    private let idle = DispatchSemaphore(value: 1)
    private let exited = DispatchSemaphore(value: 0)

    init(tap: CallTap, spare: [TickCopy]) {
        self.tap = tap
        pending = spare
        let thread = Thread { [unowned self] in loop() }
        thread.name = "echolab-measure"
        thread.start()
    }

    private func loop() {
        while true {
            work.wait()
            if stopping { break }
            if failure == nil {
                do {
                    for index in 0..<pendingCount { try tap.record(pending[index].signals) }
                } catch {
                    failure = error
                }
            }
            idle.signal()
        }
        exited.signal()
    }

    /// Waits for the batch in flight, reports its error if it failed, and hands `batch` over
    /// (its storage is swapped with the batch the worker has finished with).
    func submit(_ batch: inout [TickCopy], count: Int) throws {
        idle.wait()
        if let failure {
            idle.signal()
            throw failure
        }
        swap(&batch, &pending)
        pendingCount = count
        work.signal()
    }

    /// Waits for the batch in flight, ends the worker and reports the first error.
    func finish() throws {
        stop()
        if let failure { throw failure }
    }

    /// Ends the worker after the batch in flight (idempotent).
    func stop() {
        if running {
            running = false
            idle.wait()
            stopping = true
            work.signal()
        }
        guard !exitSeen else { return }
        exited.wait()
        // Given back: libdispatch traps when a semaphore is released holding less than its
        // initial value.
        idle.signal()
        exitSeen = true
    }
}
