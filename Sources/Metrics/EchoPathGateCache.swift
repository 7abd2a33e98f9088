import AudioCore
import Foundation
import Synchronization

/// The tap-free gate's fit of recordings, shared by the runs that are handed the cache: `echolab
/// eval` scores a recording in every mode, and the gate reads only the loopback and the mic —
/// never the canceller's output — yet each run fitted the same echo path again (conjugate
/// gradients over FFTs: most of a recording run's time). A recording's fit is computed once and
/// kept; a second run of the same files, rate, channel, length and configuration takes it: the
/// same values a fit of its own would give, whatever ran first.
///
/// The runner of a corpus makes one and passes it down (`EchoAnalyzer.gateFits`); nothing
/// outlives it. It keeps the newest `capacity` fits: runs go item by item.
public final class EchoPathGateCache: Sendable {
    /// What the gate concluded of a recording.
    struct Fit: Sendable {
        var activity: FrameBits
        var limitation: ActivityGateLimitation?
        var talkerLevels: EchoPathGate.TalkerLevels
    }

    /// A file as it is now (one rewritten between runs is fitted again).
    struct FileState: Equatable, Sendable {
        var path: String
        var size: UInt64
        var modified: Double

        init?(path: String) {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  let size = (attributes[.size] as? NSNumber)?.uint64Value,
                  let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSinceReferenceDate else { return nil }
            self.path = path
            self.size = size
            self.modified = modified
        }
    }

    /// Everything a fit depends on.
    struct Key: Equatable, Sendable {
        var reference: FileState
        var mic: FileState
        var referenceChannel: ChannelSelection
        var micChannel: ChannelSelection
        var sampleRate: Int
        /// How many samples the gate reads (the shortest input's length, the output's included).
        var samples: Int
        var configuration: EchoMetricsConfiguration
    }

    /// One recording's slot: its lock is held while the fit is computed, so a second run that
    /// wants the same fit waits for it instead of computing it too.
    private final class Slot: Sendable {
        let fit = Mutex<Fit?>(nil)
    }

    private let slots = Mutex<[(key: Key, slot: Slot)]>([])
    /// How many fits are kept.
    public let capacity: Int

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The fit for `key`: kept, or computed by `compute` and kept.
    func fit(for key: Key, compute: () throws -> Fit) throws -> Fit {
        let slot = slots.withLock { slots in
            if let found = slots.first(where: { $0.key == key }) { return found.slot }
            let slot = Slot()
            slots.append((key, slot))
            if slots.count > capacity { slots.removeFirst(slots.count - capacity) }
            return slot
        }
        return try slot.fit.withLock { fit throws -> Fit in
            if let fit { return fit }
            let computed = try compute()
            fit = computed
            return computed
        }
    }
}
