import AudioCore

/// What a block process (an echo path, a hardware stream) did over a whole call: each block's
/// input and output, and the process's state after it, from the call's start.
final class BlockRecord<State: Sendable>: Sendable {
    let input: [Float]
    let output: [Float]
    let states: [State]
    let blockSize: Int

    init(input: [Float], output: [Float], states: [State], blockSize: Int) {
        precondition(input.count == output.count && input.count == states.count * blockSize)
        self.input = input
        self.output = output
        self.states = states
        self.blockSize = blockSize
    }

    var blockCount: Int { states.count }
    var bytes: Int { Self.bytes(blocks: blockCount, blockSize: blockSize) }

    /// What a record of `blocks` blocks takes (a stateless process's `Void` states take nothing).
    static func bytes(blocks: Int, blockSize: Int) -> Int {
        blocks * (2 * blockSize * MemoryLayout<Float>.stride + (MemoryLayout<State>.size == 0 ? 0 : MemoryLayout<State>.stride))
    }
}

/// One call's part in a store of records (`EchoPathCache`, `HardwareStreamRecords`): while the
/// process's input is a record's, block for block and bit for bit, the output and state are the
/// record's; at the first block that differs the process runs the record's input through itself
/// (`catchUp`) and computes from there, so the bits are those of a call that computed all along.
/// A process that computes records its blocks from its first, and `finish` hands the record over.
/// The buffers are reserved once, for the call's length, even to follow a record (an input that
/// leaves it starts recording in a block, which must not allocate); a call that runs longer than
/// its reservation stops recording.
final class BlockReplay<State: Sendable> {
    private let blockSize: Int
    /// The record being followed, and how many of its blocks were taken.
    private var followed: BlockRecord<State>?
    private var followedBlocks = 0
    /// The record the input left, until `catchUp` has run its blocks through the process.
    private var left: BlockRecord<State>?
    private var input: [Float] = [], output: [Float] = []
    private var states: [State] = []
    private var isRecording: Bool
    private let capacityBlocks: Int
    private var scratchInput: [Float], scratchOutput: [Float]
    /// Where `finish` hands the record: the store's `keep`, under this process's identity.
    private let keep: ((BlockRecord<State>) -> Void)?

    /// `record`: the store's record of this process, to follow; `capacityBlocks`: the call's
    /// length in blocks where the store accepts a record that long, else 0 (nothing recorded);
    /// `keep`: what `finish` hands the record it made to.
    init(following record: BlockRecord<State>?, blockSize: Int, capacityBlocks: Int,
         keep: ((BlockRecord<State>) -> Void)? = nil) {
        self.blockSize = blockSize
        self.keep = keep
        followed = record?.blockSize == blockSize ? record : nil
        self.capacityBlocks = capacityBlocks
        input.reserveCapacity(capacityBlocks * blockSize)
        output.reserveCapacity(capacityBlocks * blockSize)
        states.reserveCapacity(capacityBlocks)
        isRecording = followed == nil && capacityBlocks > 0
        scratchInput = [Float](repeating: 0, count: blockSize)
        scratchOutput = [Float](repeating: 0, count: blockSize)
    }

    /// Whether the input left a record it followed: the process must `catchUp` before it computes.
    var hasLeftRecord: Bool { left != nil }

    /// The record's next block, into `output` and `state`, where `block` is that block's input
    /// (true); false where there is no record to follow, or the input leaves it here.
    func follow(_ block: [Float], into output: inout [Float], count: Int, state: inout State) -> Bool {
        guard let record = followed else { return false }
        let start = followedBlocks * blockSize
        if count == blockSize, followedBlocks < record.blockCount,
           VectorMath.bitwiseEqual(block, from: 0, record.input, from: start, count: count) {
            VectorMath.copy(record.output, from: start, into: &output, at: 0, count: count)
            state = record.states[followedBlocks]
            followedBlocks += 1
            return true
        }
        followed = nil
        left = record
        return false
    }

    /// Runs the blocks taken from the record left through `process` (from the process's first
    /// state), so it stands where it would had it computed all along, and records from there:
    /// the blocks it shared with the record are its own too (another item's far end after the
    /// same leading silence, say, is worth a record of its own).
    func catchUp(_ process: (_ input: [Float], _ output: inout [Float]) throws -> Void) rethrows {
        guard let record = left else { return }
        left = nil
        for block in 0..<followedBlocks {
            VectorMath.copy(record.input, from: block * blockSize, into: &scratchInput, at: 0, count: blockSize)
            try process(scratchInput, &scratchOutput)
        }
        guard followedBlocks < capacityBlocks else { return }
        isRecording = true
        input.append(contentsOf: record.input[0..<(followedBlocks * blockSize)])
        output.append(contentsOf: record.output[0..<(followedBlocks * blockSize)])
        states.append(contentsOf: record.states[0..<followedBlocks])
    }

    /// Records a block the process computed.
    func note(_ block: [Float], output blockOutput: [Float], count: Int, state: State) {
        guard isRecording else { return }
        guard count == blockSize, states.count < capacityBlocks else {
            isRecording = false   // another block size, or longer than reserved: no record
            return
        }
        input.append(contentsOf: block[0..<count])
        output.append(contentsOf: blockOutput[0..<count])
        states.append(state)
    }

    /// What the process computed, handed to `keep` and returned (nil where it recorded nothing):
    /// the buffers themselves where the call filled its reservation, else copies cut to their
    /// length (a call that ran its process only until a route change, whose reservation would be
    /// kept whole).
    @discardableResult
    func finish() -> BlockRecord<State>? {
        guard isRecording, !states.isEmpty else { return nil }
        isRecording = false
        let filled = states.count == capacityBlocks
        let record = BlockRecord(input: filled ? input : Self.copy(input), output: filled ? output : Self.copy(output),
                                 states: filled ? states : Self.copy(states), blockSize: blockSize)
        (input, output, states) = ([], [], [])
        keep?(record)
        return record
    }

    /// A copy in storage of its own length (`Array(array[...])` would share the reservation).
    private static func copy<Element>(_ array: [Element]) -> [Element] {
        var copy: [Element] = []
        copy.reserveCapacity(array.count)
        copy.append(contentsOf: array)
        return copy
    }
}
