import AudioCore
import AudioInterop
import Synchronization

/// The tap-free gate's decisions on recordings, shared by the runs that are handed the cache:
/// `echolab eval` scores a recording in every mode, and the gate reads only the loopback and the
/// mic — never the canceller's output — yet each run fitted the same echo path again (conjugate
/// gradients over FFTs: most of a recording run's time). A recording's decisions are computed
/// once and kept; a run of the same files, rate, channels, length and configuration takes them:
/// the values a fit of its own gives, whatever ran first.
///
/// The runner of a corpus makes one and passes it down (`EchoAnalyzer.gateDecisions`); nothing
/// outlives it. It keeps the newest decisions within its byte budget (about 4.4 bytes a Welch
/// frame: 1.5 MB for an hour at 48 kHz); runs go item by item, so the ones a run can use are
/// recent. Decisions over the budget on their own are not kept: each run fits again.
public final class EchoPathGateCache: Sendable {
    /// What the gate concluded of a recording.
    struct Decisions: Sendable {
        var activity: FrameBits
        var limitation: ActivityGateLimitation?
        var talkerLevels: EchoPathGate.TalkerLevels
        /// The loopback's and the mic's clocks' drift the loopback was resampled by before these
        /// decisions (`ClockDriftFeed`), nil where it was not.
        var clockDriftPPM: Double?

        /// What they hold in memory: per frame two bits of activity and of the levels' rules,
        /// and two 16-bit levels.
        var bytes: Int { activity.count * 4 + (activity.count * 3 + 7) / 8 }
    }

    /// Everything the decisions depend on.
    struct Key: Equatable, Sendable {
        var reference: FileStamp
        var mic: FileStamp
        var referenceChannel: ChannelSelection
        var micChannel: ChannelSelection
        var sampleRate: Int
        /// How many samples the gate reads (the shortest input's length, the output's included).
        var samples: Int
        var configuration: EchoMetricsConfiguration
    }

    /// One recording's slot: its lock is held while the decisions are computed, so a second run
    /// that wants them waits instead of computing them too. A computation that throws leaves the
    /// slot empty: the next run computes (and meets the error) itself.
    final class Slot: Sendable {
        let decisions = Mutex<Decisions?>(nil)
    }

    private struct Entry {
        var key: Key
        var slot: Slot
        /// What its decisions take (0 while they are computed).
        var bytes: Int
    }

    private struct State {
        var entries: [Entry] = []
        var usedBytes = 0
    }

    private let state = Mutex(State())
    /// What the kept decisions may take in memory, in bytes.
    public let budgetBytes: Int

    public init(budgetBytes: Int) {
        self.budgetBytes = budgetBytes
    }

    /// The decisions for `key`: kept ones, or computed by `compute` and kept while the budget
    /// allows.
    func decisions(for key: Key, compute: () throws -> Decisions) throws -> Decisions {
        let slot = state.withLock { state in
            if let entry = state.entries.first(where: { $0.key == key }) { return entry.slot }
            let slot = Slot()
            state.entries.append(Entry(key: key, slot: slot, bytes: 0))
            return slot
        }
        return try slot.decisions.withLock { decisions throws -> Decisions in
            if let decisions { return decisions }
            let computed = try compute()
            decisions = computed
            keep(slot, bytes: computed.bytes)
            return computed
        }
    }

    /// Counts a slot's new decisions against the budget, dropping the oldest kept ones over it,
    /// or the slot itself when its decisions alone are over it. (Taken with the slot's lock held;
    /// `decisions(for:compute:)` never takes a slot's lock with the state's, so the order is
    /// always slot, then state.)
    private func keep(_ slot: Slot, bytes: Int) {
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.slot === slot }) else { return }
            guard bytes <= budgetBytes else {
                state.entries.remove(at: index)
                return
            }
            state.entries[index].bytes = bytes
            state.usedBytes += bytes
            while state.usedBytes > budgetBytes, let oldest = state.entries.firstIndex(where: { $0.bytes > 0 }) {
                state.usedBytes -= state.entries[oldest].bytes
                state.entries.remove(at: oldest)
            }
        }
    }

    /// How many decisions are kept, and what they take (tests).
    var kept: (count: Int, bytes: Int) {
        state.withLock { state in (state.entries.filter { $0.bytes > 0 }.count, state.usedBytes) }
    }
}
