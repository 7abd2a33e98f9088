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
    /// Floats are kept as bit patterns (−0 and +0 are equal floats and give zeros of different
    /// signs).
    struct Identity: Hashable, Sendable {
        var blockSize: Int
        var delayFrames: Int
        var gain: UInt32
        var clipLevel: UInt32?
        var impulseResponse: [UInt32]?

        init(blockSize: Int, delayFrames: Int, gain: Float, clipLevel: Float?, impulseResponse: [Float]?) {
            self.blockSize = blockSize
            self.delayFrames = delayFrames
            self.gain = gain.bitPattern
            self.clipLevel = clipLevel?.bitPattern
            self.impulseResponse = impulseResponse?.map(\.bitPattern)
        }

        /// What the identity holds in memory beside its record.
        var bytes: Int { (impulseResponse?.count ?? 0) * MemoryLayout<UInt32>.stride }
    }

    /// One call's drive (input) and the echo the path made of it (output), block for block from
    /// the call's start.
    typealias Record = BlockRecord<Void>

    private let records: NewestRecords<Identity, Record>
    /// What the records may take in memory, in bytes.
    public var budgetBytes: Int { records.budgetBytes }

    public init(budgetBytes: Int) {
        records = NewestRecords(budgetBytes: budgetBytes)
    }

    /// Whether a call of `samples` samples is worth recording: its record fits the budget.
    func accepts(samples: Int) -> Bool {
        samples > 0 && 2 * samples * MemoryLayout<Float>.stride <= budgetBytes
    }

    /// The record of a path with this identity.
    func record(for identity: Identity) -> Record? { records.record(for: identity) }

    /// Keeps `record` in place of an older record of the same path (which another item of the
    /// corpus, with another far end, made: runs go item by item), dropping the oldest records
    /// over the budget.
    func keep(_ record: Record, for identity: Identity) {
        records.keep(record, for: identity, bytes: record.bytes + identity.bytes)
    }

    /// How many records are kept (for the tests).
    var count: Int { records.count }
}
