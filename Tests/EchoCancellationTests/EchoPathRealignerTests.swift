import AudioCore
import AudioInterop
@testable import EchoCancellation
import XCTest

/// The jump search on its own, on signals whose lag is known, and the sample shift of a
/// partitioned filter's response it relies on.
final class EchoPathRealignerTests: XCTestCase {
    static let rate = 48_000, frame = 480

    /// Feeds `frames` frames of a mic that is an estimate `lag` samples later (plus `other`,
    /// scaled), the verdict `lost` from frame `lostFrom` on; when a search is due, matches the
    /// estimate over the kept frames. Returns the lag found (nil where it would not be taken, as
    /// the canceller judges it) and the frame it was searched at.
    static func search(lag: Int, other: Float = 0, frames: Int = 40, lostFrom: Int = 0) -> (lag: Int?, frame: Int?) {
        var realigner = EchoPathRealigner(frameSize: frame, sampleRate: rate)
        var random = SeededRandom(seed: 3), talker = SeededRandom(seed: 4)
        let estimate = (0..<(frames * frame + 5000)).map { _ in random.nextGaussian() }
        var mic = [Float](repeating: 0, count: frame)
        for f in 0..<frames {
            for i in 0..<frame { mic[i] = estimate[2500 + f * frame + i - lag] + other * talker.nextGaussian() }
            realigner.add(mic: mic)
            guard realigner.searchIsDue(lost: f >= lostFrom) else { continue }
            let kept = realigner.capacityFrames * frame, end = 2500 + (f + 1) * frame
            let (found, match, aligned) = realigner.bestLag(estimate: Array(estimate[(end - kept)..<end]))
            let taken = abs(found) >= 2 && match >= EchoPathRealigner.minimumMatch && match - aligned >= EchoPathRealigner.minimumGain
            return (taken ? found : nil, f)
        }
        return (nil, nil)
    }

    func testAJumpIsMeasuredToTheSample() {
        for lag in [720, -333, 1440, 5] {
            XCTAssertEqual(Self.search(lag: lag).lag, lag, "lag \(lag)")
        }
    }

    func testTheSearchWaitsUntilTheWindowIsAllAfterTheLoss() {
        let realigner = EchoPathRealigner(frameSize: Self.frame, sampleRate: Self.rate)
        let needed = (realigner.window + realigner.maxShift + Self.frame - 1) / Self.frame
        XCTAssertEqual(Self.search(lag: 720, lostFrom: 20).frame, 20 + needed - 1, "the first frame it may look")
        XCTAssertNil(Self.search(lag: 720, lostFrom: 100).frame, "never lost, never searched")
    }

    func testNoLagIsTakenWhereNothingMatches() {
        XCTAssertNil(Self.search(lag: 0).lag, "aligned already")
        XCTAssertNil(Self.search(lag: 1).lag, "a sample is the filter's own to follow")
        XCTAssertNil(Self.search(lag: 720, other: 1).lag, "a talker as loud as the echo: the match is 0.7, under 0.9")
        XCTAssertNil(Self.search(lag: 2000).lag, "beyond 30 ms: the bulk delay estimate's")
    }

    /// The response moved by a whole partition and a half, read back from the weights.
    func testAFilterResponseMovesBySamples() {
        let n = Self.frame, partitions = 6
        let fft = RealFFT(size: 2 * n, portable: true)
        var scratch = SpectralScratch(size: 2 * n)
        var filter = PartitionedFilter(partitions: partitions, bins: n + 1)
        var response = [Float](repeating: 0, count: partitions * n)
        for (i, value) in [(100, 1.0), (477, -0.5), (1000, 0.25)] as [(Int, Float)] { response[i] = value }
        for p in 0..<partitions {
            for i in 0..<n { scratch.time[i] = response[p * n + i]; scratch.time[n + i] = 0 }
            fft.forward(scratch.time, real: &scratch.re, imaginary: &scratch.im)
            for k in 0...n { filter.re[p * (n + 1) + k] = scratch.re[k]; filter.im[p * (n + 1) + k] = scratch.im[k] }
        }
        var taps = [Float](repeating: 0, count: partitions * n)
        filter.shift(samples: 720, fft: fft, scratch: &scratch, taps: &taps)
        filter.shift(samples: 0, fft: fft, scratch: &scratch, taps: &taps)   // read back, unmoved
        for i in 0..<partitions * n {
            let expected: Float = i >= 720 ? response[i - 720] : 0
            XCTAssertEqual(taps[i], expected, accuracy: 1e-5, "tap \(i)")
        }
        filter.shift(samples: -1000, fft: fft, scratch: &scratch, taps: &taps)
        filter.shift(samples: 0, fft: fft, scratch: &scratch, taps: &taps)
        XCTAssertEqual(taps[0], 0, accuracy: 1e-5, "the tap at 100 + 720 moved before the start")
        XCTAssertEqual(taps[197], -0.5, accuracy: 1e-5)
        XCTAssertEqual(taps[720], 0.25, accuracy: 1e-5)
    }
}
