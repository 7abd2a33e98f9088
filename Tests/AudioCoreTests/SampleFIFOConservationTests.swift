import XCTest
@testable import AudioCore

/// `written == read + dropped + count` and exact content, under a long seeded random workload.
final class SampleFIFOConservationTests: XCTestCase {
    func testConservationAndContentUnderRandomWritesAndReads() {
        var random = SeededRandom(seed: 2024)
        var fifo = SampleFIFO(capacity: 960)
        var model: [Float] = []            // reference model: a plain array
        var modelHead = 0
        var nextValue: Float = 1
        var expectedUnderruns = 0, expectedOverruns = 0
        var expectedMissing: Int64 = 0
        var source = [Float](repeating: 0, count: 3_000)
        var sink = [Float](repeating: 0, count: 3_000)

        for step in 0..<20_000 {
            let op = random.nextInt(in: 0...9)
            if op < 5 {
                let n = Int(random.nextInt(in: 0...Int64(op == 0 ? 2_500 : 700)))
                let offset = Int(random.nextInt(in: 0...Int64(source.count - n)))
                for i in 0..<n { source[offset + i] = nextValue; nextValue += 1 }
                let held = model.count - modelHead
                if n > 0 && held + n > 960 { expectedOverruns += 1 }
                fifo.write(source, from: offset, count: n)
                model += source[offset..<(offset + n)]
                let excess = model.count - modelHead - 960
                if excess > 0 { modelHead += excess }
            } else if op < 9 {
                let n = Int(random.nextInt(in: 0...700))
                let got = fifo.read(into: &sink, count: n)
                let held = model.count - modelHead
                XCTAssertEqual(got, min(n, held), "step \(step)")
                if n > held { expectedUnderruns += 1; expectedMissing += Int64(n - held) }
                let expected = Array(model[modelHead..<(modelHead + got)])
                if Array(sink[0..<got]) != expected { XCTFail("content differs at step \(step)"); return }
                if sink[got..<n].contains(where: { $0 != 0 }) { XCTFail("underrun not silent at step \(step)"); return }
                modelHead += got
            } else {
                if random.nextInt(in: 0...3) == 0 {
                    fifo.clear(); modelHead = model.count
                } else {
                    let n = Int(random.nextInt(in: 0...300))
                    let held = model.count - modelHead
                    if n > 0 && held + n > 960 { expectedOverruns += 1 }
                    fifo.writeSilence(count: n)
                    model += repeatElement(0, count: n)
                    let excess = model.count - modelHead - 960
                    if excess > 0 { modelHead += excess }
                }
            }
            XCTAssertEqual(fifo.writtenSamples, fifo.readSamples + fifo.droppedSamples + Int64(fifo.count), "step \(step)")
            XCTAssertEqual(fifo.count, model.count - modelHead, "step \(step)")
            if modelHead > 100_000 { model.removeFirst(modelHead); modelHead = 0 }
        }
        XCTAssertEqual(fifo.underruns, expectedUnderruns)
        XCTAssertEqual(fifo.overruns, expectedOverruns)
        XCTAssertEqual(fifo.missingSamples, expectedMissing)
        XCTAssertGreaterThan(fifo.underruns, 100)
        XCTAssertGreaterThan(fifo.overruns, 100)
        XCTAssertGreaterThan(fifo.droppedSamples, 10_000)
    }
}
