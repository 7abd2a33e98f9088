import AudioCore

/// A `HardwareStream`'s part in `HardwareStreamRecords`: while the stream's input is a record's,
/// tick for tick, the output and counters are the record's; at the first tick that differs the
/// stream runs the record's input through itself (`catchUp`) and computes from there. A stream
/// that computes records its ticks from its first, and hands the record over at `finish`.
/// The buffers are reserved once, for the call's length: nothing is allocated per tick, and a
/// stream that runs longer than its reservation stops recording.
final class HardwareStreamReplay {
    private let records: HardwareStreamRecords
    private let identity: HardwareStreamRecords.Identity
    private let tickFrames: Int
    /// The record being followed, and how many of its ticks were taken.
    private var followed: HardwareStreamRecords.Record?
    private var followedTicks = 0
    /// The record the input left, until `catchUp` has run its ticks through the stream.
    private var left: HardwareStreamRecords.Record?
    private var input: [Float] = [], output: [Float] = []
    private var states: [HardwareStream.State] = []
    private var isRecording: Bool
    private let capacityTicks: Int
    private var scratchInput: [Float], scratchOutput: [Float]

    init(records: HardwareStreamRecords, identity: HardwareStreamRecords.Identity, expectedTicks: Int) {
        self.records = records
        self.identity = identity
        tickFrames = identity.tickFrames
        followed = records.record(for: identity)
        capacityTicks = records.accepts(ticks: expectedTicks, tickFrames: tickFrames) ? expectedTicks : 0
        // Reserved even to follow a record: an input that leaves it starts recording in a tick,
        // which must not allocate.
        input.reserveCapacity(capacityTicks * tickFrames)
        output.reserveCapacity(capacityTicks * tickFrames)
        states.reserveCapacity(capacityTicks)
        isRecording = followed == nil && capacityTicks > 0
        scratchInput = [Float](repeating: 0, count: tickFrames)
        scratchOutput = [Float](repeating: 0, count: tickFrames)
    }

    /// Whether the input left a record it followed: the stream must `catchUp` before it computes.
    var hasLeftRecord: Bool { left != nil }

    /// The record's next tick, into `output` and `state`, where `block` is that tick's input
    /// (true); false where there is no record to follow, or the input leaves it here.
    func follow(_ block: [Float], into output: inout [Float], count: Int, state: inout HardwareStream.State) -> Bool {
        guard let record = followed else { return false }
        let start = followedTicks * tickFrames
        if count == tickFrames, followedTicks < record.states.count,
           VectorMath.bitwiseEqual(block, from: 0, record.input, from: start, count: count) {
            VectorMath.copy(record.output, from: start, into: &output, at: 0, count: count)
            state = record.states[followedTicks]
            followedTicks += 1
            return true
        }
        followed = nil
        left = record
        return false
    }

    /// Runs the ticks taken from the record left through `convert` (the stream, from its first
    /// state), so the stream stands where it would had it computed all along, and records from
    /// there: the ticks it shared with the record are its own too.
    func catchUp(_ convert: (_ input: [Float], _ output: inout [Float]) throws -> Void) rethrows {
        guard let record = left else { return }
        left = nil
        for tick in 0..<followedTicks {
            VectorMath.copy(record.input, from: tick * tickFrames, into: &scratchInput, at: 0, count: tickFrames)
            try convert(scratchInput, &scratchOutput)
        }
        guard followedTicks < capacityTicks else { return }
        isRecording = true
        input.append(contentsOf: record.input[0..<(followedTicks * tickFrames)])
        output.append(contentsOf: record.output[0..<(followedTicks * tickFrames)])
        states.append(contentsOf: record.states[0..<followedTicks])
    }

    /// Records a tick the stream computed.
    func note(_ block: [Float], output tickOutput: [Float], count: Int, state: HardwareStream.State) {
        guard isRecording else { return }
        guard count == tickFrames, states.count < capacityTicks else {
            isRecording = false   // another tick size, or longer than reserved: no record
            return
        }
        input.append(contentsOf: block[0..<count])
        output.append(contentsOf: tickOutput[0..<count])
        states.append(state)
    }

    /// Hands what the stream computed to the records: the buffers themselves, not a copy (a
    /// stream that ran its call through fills its reservation).
    func finish() {
        guard isRecording, !states.isEmpty else { return }
        records.keep(HardwareStreamRecords.Record(input: input, output: output, states: states), for: identity)
        (input, output, states) = ([], [], [])
        isRecording = false
    }
}
