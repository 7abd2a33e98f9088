import Synchronization

/// The newest records of a corpus's calls, one per identity, within a byte budget: what
/// `EchoPathCache` and `HardwareStreamRecords` keep. Runs go item by item, so the record a run
/// can use is a recent one; a record replaces an older one of the same identity (made by
/// another item), and the oldest go first when the budget is spent.
final class NewestRecords<Identity: Hashable & Sendable, Record: Sendable>: Sendable {
    private struct State {
        var records: [(identity: Identity, record: Record, bytes: Int)] = []
        var usedBytes = 0
    }

    private let state = Mutex(State())
    let budgetBytes: Int

    init(budgetBytes: Int) {
        self.budgetBytes = budgetBytes
    }

    /// The record kept for `identity`.
    func record(for identity: Identity) -> Record? {
        state.withLock { state in state.records.last(where: { $0.identity == identity })?.record }
    }

    /// Keeps `record`, which takes `bytes`, in place of an older record of the same identity,
    /// dropping the oldest records over the budget; a record larger than the budget is not kept.
    func keep(_ record: Record, for identity: Identity, bytes: Int) {
        guard bytes <= budgetBytes else { return }
        state.withLock { state in
            if let older = state.records.firstIndex(where: { $0.identity == identity }) {
                state.usedBytes -= state.records[older].bytes
                state.records.remove(at: older)
            }
            state.records.append((identity, record, bytes))
            state.usedBytes += bytes
            while state.usedBytes > budgetBytes, let oldest = state.records.first {
                state.usedBytes -= oldest.bytes
                state.records.removeFirst()
            }
        }
    }

    /// How many records are kept.
    var count: Int { state.withLock { $0.records.count } }
}
