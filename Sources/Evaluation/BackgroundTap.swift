import AudioCore
import Foundation
import Simulation

/// Runs taps on threads of their own: the call copies each tick into a batch, and worker
/// threads — one per group of taps, all reading the same copy — feed the batches to their taps
/// in tick order, so measuring a call (the streaming metrics and glitch detection, the larger
/// half of an AEC-disabled call's time) overlaps with simulating it. A tap sees exactly the ticks
/// it would have seen inline, in the same order: its results are the same bits. Up to
/// `queueDepth` batches of `batchTicks` ticks wait for the workers (4 × 64 ticks, 2.5 MB: the call
/// runs on while a worker is behind, and the other way round); each batch's storage is allocated
/// the first time it is filled, so the call allocates nothing per tick after its first batches.
///
/// The wrapped taps are only touched by their worker until `finish()` returns (then by the
/// caller). An error of a tap is thrown by a later `record` (the call stops within a batch) or by
/// `finish()`.
final class BackgroundTap: CallTap {
    private let worker: BatchThread<[TickCopy]>
    private var batch: [TickCopy]
    private var filled = 0
    private var finished = false

    /// Each group of `taps` runs on a worker thread of its own; the taps of a group see each
    /// tick in their order, as they would inline. Only the `copying` signals are copied (the
    /// others read as silence), so name every signal the taps read. Taps of different groups must
    /// share no state until `finish()`.
    init(_ taps: [[CallTap]], copying signals: Set<TickSignals.Signal>, batchTicks: Int = 64, queueDepth: Int = 4) {
        func makeBatch() -> [TickCopy] { (0..<max(1, batchTicks)).map { _ in TickCopy(copying: signals) } }
        batch = makeBatch()
        worker = BatchThread(name: "echolab-measure", spares: (0..<max(1, queueDepth)).map { _ in makeBatch() },
                             process: taps.map { group in
                                 { batch, count in
                                     for index in 0..<count {
                                         let signals = batch[index].signals
                                         for tap in group { try tap.record(signals) }
                                     }
                                 }
                             })
    }

    /// One worker thread for all `taps`.
    convenience init(_ taps: [CallTap], copying signals: Set<TickSignals.Signal>, batchTicks: Int = 64, queueDepth: Int = 4) {
        self.init([taps], copying: signals, batchTicks: batchTicks, queueDepth: queueDepth)
    }

    deinit { worker.stop() }

    /// Ends the workers after the batch in flight, without the queued ones, and waits for them:
    /// afterwards no tap is touched by them. For a call that stops early.
    func stop() { worker.stop() }

    func record(_ tick: TickSignals) throws {
        batch[filled].copy(tick)
        filled += 1
        if filled == batch.count { try flush() }
    }

    /// Hands over what is left, waits until the taps have taken every tick and reports their
    /// error (again on every later call).
    func finish() throws {
        if !finished {
            finished = true
            do {
                try flush()
                try worker.finish()
            } catch {
                finishError = error
            }
        }
        if let finishError { throw finishError }
    }

    private var finishError: (any Error)?

    private func flush() throws {
        guard filled > 0 else { return }
        try worker.submit(&batch, count: filled)
        filled = 0
    }
}

/// One tick's signals, copied into arrays this copy owns: the signals it was made `copying`; the
/// others read as silence of the tick's length.
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

    /// Which signals `copy` copies, as flags (read once per tick instead of hashing six times).
    private let copies: (mic: Bool, reference: Bool, echo: Bool, nearEnd: Bool, played: Bool, sent: Bool)

    init(copying copied: Set<TickSignals.Signal> = [.mic, .reference, .echo, .nearEnd, .played, .sent]) {
        copies = (copied.contains(.mic), copied.contains(.reference), copied.contains(.echo), copied.contains(.nearEnd),
                  copied.contains(.played), copied.contains(.sent))
    }

    mutating func copy(_ tick: TickSignals) {
        let n = tick.count
        if mic.count != n {
            // Storage of its own for each copied signal; the others share one silent array,
            // which nothing writes.
            let silence = [Float](repeating: 0, count: n)
            func storage(_ copied: Bool) -> [Float] { copied ? [Float](repeating: 0, count: n) : silence }
            mic = storage(copies.mic); reference = storage(copies.reference); echo = storage(copies.echo)
            nearEnd = storage(copies.nearEnd); played = storage(copies.played); sent = storage(copies.sent)
        }
        frame = tick.frame
        count = n
        sendLatency = tick.sendLatency
        nearEndInMic = tick.nearEndInMic
        if copies.mic { VectorMath.copy(tick.mic, into: &mic, count: n) }
        if copies.reference { VectorMath.copy(tick.reference, into: &reference, count: n) }
        if copies.echo { VectorMath.copy(tick.echo, into: &echo, count: n) }
        if copies.nearEnd { VectorMath.copy(tick.nearEnd, into: &nearEnd, count: n) }
        if copies.played { VectorMath.copy(tick.played, into: &played, count: n) }
        if copies.sent { VectorMath.copy(tick.sent, into: &sent, count: n) }
    }

    var signals: TickSignals {
        TickSignals(frame: frame, count: count, mic: mic, reference: reference, echo: echo, nearEnd: nearEnd,
                    played: played, sent: sent, sendLatency: sendLatency, nearEndInMic: nearEndInMic)
    }
}
