import Synchronization

/// The echo of whole calls, shared by the runs that are handed the cache: `echolab eval` runs
/// every item in several modes, and the echo at the mic does not depend on the canceller, yet
/// each run convolved the same loudspeaker drive with the same room again. A run records what it
/// fed its echo path and what came out; a later run of the same path takes the echo from that
/// record for as long as its own drive is the same, sample for sample, and computes from where
/// it differs. So the bits are the same as a run without the cache, whatever ran first.
///
/// The runner of a corpus makes one and passes it down (`ScenarioRunner.echoPaths`); nothing
/// outlives it. It keeps the newest records within its byte budget: runs go item by item, so
/// the record a run can use is a recent one.
public final class EchoPathCache: Sendable {
    /// A path as it transforms the drive: equal identities give equal echo for equal drive.
    struct Identity: Hashable, Sendable {
        var delayFrames: Int
        var gain: Float
        var clipLevel: Float?
        /// The response's bit patterns: −0 and +0 convolve to zeros of different signs.
        var impulseResponse: [UInt32]?
    }

    /// One call's drive and the echo the path made of it, block for block from the call's start.
    final class Record: Sendable {
        let drive: [Float]
        let echo: [Float]

        init(drive: [Float], echo: [Float]) {
            precondition(drive.count == echo.count)
            self.drive = drive
            self.echo = echo
        }

        var bytes: Int { 2 * drive.count * MemoryLayout<Float>.stride }
    }

    private struct State {
        var records: [(identity: Identity, record: Record)] = []
        var usedBytes = 0
    }

    private let state = Mutex(State())
    /// What the records may take in memory, in bytes.
    public let budgetBytes: Int

    public init(budgetBytes: Int) {
        self.budgetBytes = budgetBytes
    }

    /// Whether a call of `samples` samples is worth recording: its record fits the budget.
    func accepts(samples: Int) -> Bool {
        samples > 0 && 2 * samples * MemoryLayout<Float>.stride <= budgetBytes
    }

    /// The record of a path with this identity.
    func record(for identity: Identity) -> Record? {
        state.withLock { state in state.records.last(where: { $0.identity == identity })?.record }
    }

    /// Keeps `record` in place of an older record of the same path (which another item of the
    /// corpus, with another far end, made: runs go item by item), dropping the oldest records
    /// over the budget.
    func keep(_ record: Record, for identity: Identity) {
        guard record.bytes <= budgetBytes else { return }
        state.withLock { state in
            if let older = state.records.firstIndex(where: { $0.identity == identity }) {
                state.usedBytes -= state.records[older].record.bytes
                state.records.remove(at: older)
            }
            state.records.append((identity, record))
            state.usedBytes += record.bytes
            while state.usedBytes > budgetBytes, let oldest = state.records.first {
                state.usedBytes -= oldest.record.bytes
                state.records.removeFirst()
            }
        }
    }

    /// How many records are kept (for the tests).
    var count: Int { state.withLock { $0.records.count } }
}
