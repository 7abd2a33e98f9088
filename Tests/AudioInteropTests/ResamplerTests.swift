import XCTest
@testable import AudioInterop

/// libsamplerate through `Resampler`: round trips, streaming, argument checks.
final class ResamplerTests: XCTestCase {
    private func convert(_ input: [Float], from inRate: Int, to outRate: Int, chunk: Int? = nil) throws -> [Float] {
        let resampler = try Resampler(inputRate: inRate, outputRate: outRate)
        var output = [Float](repeating: 0, count: input.count * outRate / inRate + 1_024)
        var produced = 0, position = 0
        let step = chunk ?? input.count
        while true {
            let n = min(step, input.count - position)
            let end = position + n == input.count
            let (used, made) = try resampler.process(input, inputOffset: position, inputFrames: n,
                                                     into: &output, outputOffset: produced,
                                                     outputCapacity: min(512, output.count - produced), endOfInput: end)
            position += used; produced += made
            if end && used == 0 && made == 0 { break }
        }
        return Array(output.prefix(produced))
    }

    func testDownThenUpPreservesALowFrequencySine() throws {
        let input = Signals.sine(frequency: 200, sampleRate: 48_000, count: 48_000, amplitude: 0.8)
        let down = try convert(input, from: 48_000, to: 16_000)
        XCTAssertEqual(Double(down.count), 16_000, accuracy: 1)
        let back = try convert(down, from: 16_000, to: 48_000)
        XCTAssertEqual(Double(back.count), 48_000, accuracy: 2)
        // libsamplerate compensates its own filter delay; away from the edges the signal is kept.
        let skip = 2_400
        var worst: Float = 0
        for i in skip..<(min(back.count, input.count) - skip) { worst = max(worst, abs(back[i] - input[i])) }
        XCTAssertLessThan(worst, 0.001)
    }

    func testDownsamplingRemovesContentAboveTheNewNyquist() throws {
        // 10 kHz cannot exist at 16 kHz: it must be filtered out, not aliased to 6 kHz.
        let input = Signals.sine(frequency: 10_000, sampleRate: 48_000, count: 48_000)
        let down = try convert(input, from: 48_000, to: 16_000)
        XCTAssertLessThan(Signals.meanSquare(down[1_000..<15_000]), 1e-6)
    }

    func testStreamingInSmallChunksMatchesOneShot() throws {
        let input = Signals.noise(seed: 8, count: 20_000)
        let oneShot = try convert(input, from: 44_100, to: 48_000)
        let streamed = try convert(input, from: 44_100, to: 48_000, chunk: 37)
        XCTAssertEqual(oneShot.count, streamed.count)
        let worst = zip(oneShot, streamed).map { abs($0 - $1) }.max() ?? 0
        XCTAssertLessThan(worst, 1e-5)
    }

    func testResetStartsOver() throws {
        let resampler = try Resampler(inputRate: 48_000, outputRate: 16_000)
        let input = Signals.noise(seed: 1, count: 4_800)
        var a = [Float](repeating: 0, count: 2_000), b = a
        let first = try resampler.process(input, inputFrames: 4_800, into: &a, outputCapacity: 2_000)
        resampler.reset()
        let second = try resampler.process(input, inputFrames: 4_800, into: &b, outputCapacity: 2_000)
        XCTAssertEqual(first.consumed, second.consumed)
        XCTAssertEqual(first.produced, second.produced)
        XCTAssertEqual(a, b)
    }

    func testInvalidRatesThrow() {
        for (i, o) in [(48_000, 100), (100, 48_000), (0, 48_000), (48_000, 0), (-1, 8_000)] {
            XCTAssertThrowsError(try Resampler(inputRate: i, outputRate: o), "\(i) → \(o)") { error in
                guard case .resampler(let reason)? = error as? AudioIOError else { return XCTFail("\(error)") }
                XCTAssertFalse(reason.isEmpty)
            }
        }
        XCTAssertNoThrow(try Resampler(inputRate: 8_000, outputRate: 192_000))
    }

    func testInterleavedStereoKeepsChannelsApart() throws {
        let resampler = try Resampler(inputRate: 48_000, outputRate: 24_000, channelCount: 2)
        let left = Signals.sine(frequency: 500, sampleRate: 48_000, count: 9_600)
        var input = [Float](repeating: 0, count: 19_200)
        for i in 0..<9_600 { input[2 * i] = left[i] }          // right channel silent
        var output = [Float](repeating: 0, count: 2 * 5_000)
        let (used, made) = try resampler.process(input, inputFrames: 9_600, into: &output, outputCapacity: 5_000, endOfInput: true)
        XCTAssertEqual(used, 9_600)
        XCTAssertGreaterThan(made, 4_000)
        let l = (0..<made).map { output[2 * $0] }, r = (0..<made).map { output[2 * $0 + 1] }
        XCTAssertEqual(Signals.meanSquare(l[500..<4_000]), 0.125, accuracy: 0.005)
        XCTAssertLessThan(Signals.meanSquare(r), 1e-10)
    }
}
