import XCTest
@testable import Simulation

/// `BlockReplay` as a unit, on a process whose every output depends on all the input before it
/// (a running sum): a follower must get the record's outputs and states without running the
/// process, and where its input leaves the record, the outputs and states of a process that
/// computed all along.
final class BlockReplayTests: XCTestCase {
    private let n = 4

    /// A process with state: each sample out is the sum of every sample in so far; its state is
    /// that sum and how many blocks it ran.
    private final class RunningSum {
        struct State: Sendable, Equatable { var sum: Float = 0; var blocks = 0 }
        var state = State()
        func process(_ block: [Float], into output: inout [Float]) {
            for i in block.indices {
                state.sum += block[i]
                output[i] = state.sum
            }
            state.blocks += 1
        }
    }

    private func input(blocks: Int, seed: Float) -> [[Float]] {
        (0..<blocks).map { b in (0..<n).map { Float(b * n + $0) * 0.25 + seed } }
    }

    /// Runs `blocks` through a process with `replay`, as `HardwareStream` does: follow, or catch up
    /// and compute, and note.
    private func run(_ blocks: [[Float]], replay: BlockReplay<RunningSum.State>,
                     process: RunningSum) -> (outputs: [[Float]], states: [RunningSum.State]) {
        var outputs: [[Float]] = [], states: [RunningSum.State] = []
        for block in blocks {
            var output = [Float](repeating: .nan, count: block.count)
            var state = process.state
            if replay.follow(block, into: &output, count: block.count, state: &state) {
                process.state = state
            } else {
                if replay.hasLeftRecord {
                    process.state = RunningSum.State()
                    replay.catchUp { process.process($0, into: &$1) }
                }
                process.process(block, into: &output)
                replay.note(block, output: output, count: block.count, state: process.state)
            }
            outputs.append(output)
            states.append(process.state)
        }
        return (outputs, states)
    }

    /// The outputs of a process that ran every block itself.
    private func computed(_ blocks: [[Float]]) -> [[Float]] {
        let process = RunningSum()
        return blocks.map { block in
            var output = [Float](repeating: 0, count: n)
            process.process(block, into: &output)
            return output
        }
    }

    private func record(of blocks: [[Float]]) -> BlockRecord<RunningSum.State>? {
        let replay = BlockReplay<RunningSum.State>(following: nil, blockSize: n, capacityBlocks: blocks.count)
        _ = run(blocks, replay: replay, process: RunningSum())
        return replay.finish()
    }

    func testAFollowerTakesTheRecordWithoutRunningTheProcess() throws {
        let blocks = input(blocks: 6, seed: 1)
        let record = try XCTUnwrap(record(of: blocks))
        XCTAssertEqual(record.blockCount, 6)
        XCTAssertEqual(record.input, blocks.flatMap { $0 })

        let follower = RunningSum()
        let replay = BlockReplay(following: record, blockSize: n, capacityBlocks: 6)
        let followed = run(blocks, replay: replay, process: follower)
        XCTAssertEqual(followed.outputs, computed(blocks))
        XCTAssertEqual(followed.states.map(\.blocks), Array(1...6), "each block's state is the record's")
        XCTAssertNil(replay.finish(), "a follower that never left the record makes none")
    }

    func testAnInputThatLeavesTheRecordIsComputedAsIfItHadRunAllAlong() throws {
        let blocks = input(blocks: 6, seed: 1)
        let record = try XCTUnwrap(record(of: blocks))
        var other = blocks
        other[3][2] += 1   // leaves the record in its fourth block

        let replay = BlockReplay(following: record, blockSize: n, capacityBlocks: 6)
        let result = run(other, replay: replay, process: RunningSum())
        let expected = computed(other)
        XCTAssertEqual(result.outputs, expected)
        XCTAssertEqual(result.states.map(\.sum), expected.map { $0[n - 1] })
        XCTAssertEqual(result.states.last?.blocks, 6)
        let own = try XCTUnwrap(replay.finish(), "the blocks it shared with the record are its own too")
        XCTAssertEqual(own.input, other.flatMap { $0 })
        XCTAssertEqual(own.output, expected.flatMap { $0 })
    }

    func testACallLongerThanItsReservationOrOfAnotherBlockSizeRecordsNothing() {
        let blocks = input(blocks: 6, seed: 1)
        let short = BlockReplay<RunningSum.State>(following: nil, blockSize: n, capacityBlocks: 5)
        _ = run(blocks, replay: short, process: RunningSum())
        XCTAssertNil(short.finish())

        let none = BlockReplay<RunningSum.State>(following: nil, blockSize: n, capacityBlocks: 0)
        _ = run(blocks, replay: none, process: RunningSum())
        XCTAssertNil(none.finish())

        // A block of another size stops the record; a record of another block size is not followed.
        let shorter = BlockReplay<RunningSum.State>(following: nil, blockSize: n, capacityBlocks: 6)
        shorter.note(blocks[0], output: blocks[0], count: n, state: RunningSum.State(sum: 1, blocks: 1))
        shorter.note(blocks[1], output: blocks[1], count: n - 1, state: RunningSum.State(sum: 2, blocks: 2))
        XCTAssertNil(shorter.finish())
        let other = BlockReplay<RunningSum.State>(following: nil, blockSize: 2 * n, capacityBlocks: 3)
        _ = run(stride(from: 0, to: 6, by: 2).map { blocks[$0] + blocks[$0 + 1] }, replay: other, process: RunningSum())
        let otherRecord = other.finish()
        XCTAssertEqual(otherRecord?.blockSize, 2 * n)
        let follower = BlockReplay(following: otherRecord, blockSize: n, capacityBlocks: 6)
        var output = [Float](repeating: 0, count: n), state = RunningSum.State()
        XCTAssertFalse(follower.follow(blocks[0], into: &output, count: n, state: &state))
        XCTAssertFalse(follower.hasLeftRecord, "nothing was followed, so nothing to catch up")
    }

    func testARecordCutShortIsCopiedToItsLength() throws {
        let blocks = input(blocks: 3, seed: 2)
        let replay = BlockReplay<RunningSum.State>(following: nil, blockSize: n, capacityBlocks: 10)
        _ = run(blocks, replay: replay, process: RunningSum())
        let record = try XCTUnwrap(replay.finish())
        XCTAssertEqual(record.blockCount, 3)
        XCTAssertEqual(record.bytes, BlockRecord<RunningSum.State>.bytes(blocks: 3, blockSize: n))
        XCTAssertLessThan(record.input.capacity, 10 * n, "not the whole reservation")
    }
}
