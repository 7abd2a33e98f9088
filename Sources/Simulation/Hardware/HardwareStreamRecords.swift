/// What the hardware streams of whole calls did, shared by the calls that are handed it:
/// `echolab eval` runs every item in several modes, and the device conversions of a call (a
/// 44.1 kHz or Bluetooth route, a drifting clock: libsamplerate both ways, on the loudspeaker
/// drive and on the room's sound at the mic) do not depend on the canceller, yet each run
/// converted the same audio again — a third of an AEC-disabled run of the default corpus. A
/// stream records each tick's input, output and counters; a later call's stream of the same
/// identity replays that record for as long as its own input is the same, bit for bit, and
/// from the first tick that differs runs the record's input through itself and computes on.
/// So the bits and the counters are the same as a call without the records, whatever ran first.
///
/// The runner of a corpus makes one and passes it down (`ScenarioRunner.hardwareStreams`);
/// nothing outlives it. It keeps the newest records within its byte budget.
public final class HardwareStreamRecords: Sendable {
    /// A stream as it transforms its input: equal identities give equal output and counters for
    /// equal input. `role` and `generation` (the streams a call built before this one in that
    /// role: a route change builds new ones) keep a call's streams, which share their formats,
    /// from replacing each other's records.
    struct Identity: Hashable, Sendable {
        var format: HardwareFormat
        var engineRate: Int
        var tickFrames: Int
        var clockDriftBits: UInt64
        var alwaysConverts: Bool
        var role: Role
        var generation: Int
    }

    /// Which of a call's streams.
    enum Role: Hashable, Sendable { case output, mic, echo, nearEnd }

    /// One stream's ticks from its start: input and output (`tickFrames` each) and the counters
    /// after each.
    typealias Record = BlockRecord<HardwareStream.State>

    private let records: NewestRecords<Identity, Record>
    /// What the records may take in memory, in bytes.
    public var budgetBytes: Int { records.budgetBytes }

    public init(budgetBytes: Int) {
        records = NewestRecords(budgetBytes: budgetBytes)
    }

    /// Whether a stream of `ticks` ticks is worth recording: its record fits an eighth of the
    /// budget, so that a call's four streams fit beside another job's (each stream reserves its
    /// record for the whole call as it starts: a long call is not recorded at all).
    func accepts(ticks: Int, tickFrames: Int) -> Bool {
        ticks > 0 && Record.bytes(blocks: ticks, blockSize: tickFrames) <= budgetBytes / 8
    }

    /// The record of a stream with this identity.
    func record(for identity: Identity) -> Record? { records.record(for: identity) }

    /// Keeps `record` in place of an older record of the same identity, dropping the oldest
    /// records over the budget.
    func keep(_ record: Record, for identity: Identity) { records.keep(record, for: identity, bytes: record.bytes) }

    /// How many records are kept (for the tests).
    var count: Int { records.count }
}
