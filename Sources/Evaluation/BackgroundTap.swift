import Foundation
import Simulation

/// Runs taps on a thread of their own: the call copies each tick into a batch, and a worker
/// thread feeds the batches to the taps in tick order, so measuring a call (the streaming metrics
/// and glitch detection, the larger half of an AEC-disabled call's time) overlaps with
/// simulating it. The tap sees exactly the ticks it would have seen inline, in the same order:
/// its results are the same bits. Double buffered, one batch in flight; the batches are
/// preallocated on the first tick, so the call allocates nothing per tick.
///
/// The wrapped taps are only touched by the worker until `finish()` returns (then by the caller).
/// An error of a tap is thrown by a later `record` (the call stops within a batch) or by
/// `finish()`.
final class BackgroundTap: CallTap {
    private let worker: BatchThread<[TickCopy]>
    private var batch: [TickCopy]
    private var filled = 0
    private var finished = false

    /// `taps` see each tick in their order, as they would inline.
    init(_ taps: [CallTap], batchTicks: Int = 64) {
        batch = (0..<max(1, batchTicks)).map { _ in TickCopy() }
        worker = BatchThread(name: "echolab-measure", spare: (0..<max(1, batchTicks)).map { _ in TickCopy() }) { batch, count in
            for index in 0..<count {
                let signals = batch[index].signals
                for tap in taps { try tap.record(signals) }
            }
        }
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
