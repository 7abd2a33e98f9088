import XCTest
@testable import AudioCore

/// FIFO order, underrun and overrun policies and their counters.
final class SampleFIFOPolicyTests: XCTestCase {
    private func ramp(_ range: Range<Int>) -> [Float] { range.map(Float.init) }

    private func readAll(_ fifo: inout SampleFIFO) -> [Float] {
        var out = [Float](repeating: -1, count: fifo.count)
        fifo.read(into: &out, count: out.count)
        return out
    }

    func testSamplesComeOutInTheOrderTheyWentIn() {
        var fifo = SampleFIFO(capacity: 64)
        fifo.write(ramp(0..<3), count: 3)
        fifo.write(ramp(3..<8), from: 1, count: 4)      // 4, 5, 6, 7
        XCTAssertEqual(fifo.count, 7)
        XCTAssertEqual(fifo.freeSpace, 57)
        var out = [Float](repeating: -1, count: 10)
        XCTAssertEqual(fifo.read(into: &out, at: 2, count: 5), 5)
        XCTAssertEqual(out, [-1, -1, 0, 1, 2, 4, 5, -1, -1, -1])
        // Wrap around the 64-sample ring (20 rounds put 60 samples through it).
        var next: Float = 100
        var expected: [Float] = [6, 7]
        for round in 0..<20 {
            let chunk = (0..<(round % 5 + 1)).map { _ -> Float in defer { next += 1 }; return next }
            fifo.write(chunk, count: chunk.count)
            expected += chunk
            var got = [Float](repeating: 0, count: 2)
            fifo.read(into: &got, count: 2)
            XCTAssertEqual(got, Array(expected.prefix(2)))
            expected.removeFirst(2)
        }
        XCTAssertEqual(readAll(&fifo), expected)
        XCTAssertEqual(fifo.underruns, 0)
        XCTAssertEqual(fifo.overruns, 0)
    }

    func testUnderrunFillsSilenceAndCounts() {
        var fifo = SampleFIFO(capacity: 16)
        fifo.write([0.5, -0.5, 0.25], count: 3)
        var out = [Float](repeating: 9, count: 8)
        XCTAssertEqual(fifo.read(into: &out, count: 8), 3)
        XCTAssertEqual(out, [0.5, -0.5, 0.25, 0, 0, 0, 0, 0])
        XCTAssertEqual(fifo.underruns, 1)
        XCTAssertEqual(fifo.missingSamples, 5)
        XCTAssertEqual(fifo.readSamples, 3)
        XCTAssertTrue(fifo.isEmpty)

        out = [Float](repeating: 9, count: 4)
        XCTAssertEqual(fifo.read(into: &out, count: 4), 0)
        XCTAssertEqual(out, [0, 0, 0, 0])
        XCTAssertEqual(fifo.underruns, 2)
        XCTAssertEqual(fifo.missingSamples, 9)

        XCTAssertEqual(fifo.read(into: &out, count: 0), 0)   // asking for nothing is not an underrun
        XCTAssertEqual(fifo.underruns, 2)
    }

    func testReadAvailableNeverCountsAnUnderrunOrTouchesTheRest() {
        var fifo = SampleFIFO(capacity: 4)
        fifo.write([1, 2], count: 2)
        var out = [Float](repeating: 9, count: 5)
        XCTAssertEqual(fifo.readAvailable(into: &out, at: 1, count: 4), 2)
        XCTAssertEqual(out, [9, 1, 2, 9, 9])
        XCTAssertEqual(fifo.underruns, 0)
        XCTAssertEqual(fifo.missingSamples, 0)
        XCTAssertEqual(fifo.readSamples, 2)
    }

    func testOverrunDropsTheOldestSamples() {
        var fifo = SampleFIFO(capacity: 5)
        fifo.write(ramp(0..<4), count: 4)               // 0 1 2 3
        fifo.write(ramp(10..<13), count: 3)             // needs 3, has 1 free: drop 0 and 1
        XCTAssertEqual(fifo.overruns, 1)
        XCTAssertEqual(fifo.droppedSamples, 2)
        XCTAssertEqual(fifo.count, 5)
        XCTAssertEqual(readAll(&fifo), [2, 3, 10, 11, 12])
        XCTAssertEqual(fifo.writtenSamples, 7)
        XCTAssertEqual(fifo.readSamples, 5)
    }

    func testOverrunAfterTheRingHasWrapped() {
        var fifo = SampleFIFO(capacity: 4)
        var sink = [Float](repeating: 0, count: 4)
        fifo.write(ramp(0..<3), count: 3)
        fifo.read(into: &sink, count: 2)                // head now at 2; holds 2
        fifo.write(ramp(3..<6), count: 3)               // holds 2 3 4 5 (wrapped)
        fifo.write(ramp(6..<8), count: 2)               // drops 2, 3
        XCTAssertEqual(readAll(&fifo), [4, 5, 6, 7])
        XCTAssertEqual(fifo.droppedSamples, 2)
        XCTAssertEqual(fifo.overruns, 1)
    }

    func testWriteLargerThanCapacityKeepsOnlyTheNewest() {
        var fifo = SampleFIFO(capacity: 4)
        fifo.write([100, 101], count: 2)
        fifo.write(ramp(0..<10), count: 10)
        XCTAssertEqual(fifo.count, 4)
        XCTAssertEqual(fifo.overruns, 1)
        XCTAssertEqual(fifo.droppedSamples, 8, "2 old ones plus the 6 oldest of the new block")
        XCTAssertEqual(readAll(&fifo), [6, 7, 8, 9])
        XCTAssertEqual(fifo.writtenSamples, 12)
    }

    func testWriteExactlyFillingCapacityIsNotAnOverrun() {
        var fifo = SampleFIFO(capacity: 4)
        fifo.write(ramp(0..<4), count: 4)
        XCTAssertEqual(fifo.overruns, 0)
        XCTAssertEqual(fifo.freeSpace, 0)
        fifo.write([], count: 0)
        XCTAssertEqual(fifo.overruns, 0)
        XCTAssertEqual(readAll(&fifo), [0, 1, 2, 3])
    }

    func testClearCountsTheBufferedSamplesAsDropped() {
        var fifo = SampleFIFO(capacity: 8)
        fifo.write(ramp(0..<5), count: 5)
        fifo.clear()
        XCTAssertTrue(fifo.isEmpty)
        XCTAssertEqual(fifo.droppedSamples, 5)
        XCTAssertEqual(fifo.overruns, 0)
        fifo.write([42], count: 1)
        XCTAssertEqual(readAll(&fifo), [42])
        XCTAssertEqual(fifo.writtenSamples, fifo.readSamples + fifo.droppedSamples + Int64(fifo.count))
    }

    func testWriteSilenceAppendsZerosWithTheSamePolicies() {
        var fifo = SampleFIFO(capacity: 4)
        fifo.write([1, 2, 3], count: 3)
        fifo.writeSilence(count: 2)                     // drops 1
        XCTAssertEqual(readAll(&fifo), [2, 3, 0, 0])
        XCTAssertEqual(fifo.overruns, 1)
        XCTAssertEqual(fifo.droppedSamples, 1)
        fifo.write([5], count: 1)
        fifo.writeSilence(count: 9)                     // larger than capacity
        XCTAssertEqual(readAll(&fifo), [0, 0, 0, 0])
        XCTAssertEqual(fifo.droppedSamples, 1 + 1 + 5)
        XCTAssertEqual(fifo.writtenSamples, 15)
        XCTAssertEqual(fifo.writtenSamples, fifo.readSamples + fifo.droppedSamples + Int64(fifo.count))
    }
}
