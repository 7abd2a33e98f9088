import AudioCore
@testable import Evaluation
import Simulation
import XCTest

/// The level plot's windows: past `maximumWindows`, neighbours merge in place and the window
/// doubles, each merged window the sum of its two (the last, unpaired, kept as it is).
final class LevelMeterTests: XCTestCase {
    func testWindowsPastTheMaximumMergeInPairsAndTheWindowDoubles() throws {
        // 200 Hz: a 0.5 s window is 100 samples, one tick of 100 samples each.
        let meter = LevelMeter(sampleRate: 200)
        let windows = LevelMeter.maximumWindows + 1
        for window in 0..<windows {
            // Window w holds (w mod 7 + 1)² per sample on the far end, so merged pairs are known.
            let far = [Float](repeating: Float(window % 7 + 1), count: 100)
            let silent = [Float](repeating: 0, count: 100)
            try meter.record(TickSignals(frame: Int64(window * 100), count: 100, mic: silent, reference: far, echo: silent,
                                         nearEnd: silent, played: silent, sent: silent))
        }
        let points = meter.points
        XCTAssertEqual(points.count, (windows + 1) / 2)
        for (index, point) in points.enumerated() {
            XCTAssertEqual(point.timeSeconds, Double(index), "windows are 1 s now")
            let first = Double(2 * index % 7 + 1), second = Double((2 * index + 1) % 7 + 1)
            let meanSquare = 2 * index + 1 < windows ? (first * first + second * second) / 2 : first * first
            XCTAssertEqual(try XCTUnwrap(point.farEndDBFS), 10 * log10(meanSquare), accuracy: 1e-9, "window \(index)")
            XCTAssertNil(point.sentDBFS)
        }
        // Another second after the merge is one more 1 s window.
        let one = [Float](repeating: 1, count: 100)
        for tick in 0..<2 {
            try meter.record(TickSignals(frame: Int64((windows + tick) * 100), count: 100, mic: one, reference: one, echo: one,
                                         nearEnd: one, played: one, sent: one))
        }
        XCTAssertEqual(meter.points.count, (windows + 1) / 2 + 1)
    }
}
