import AudioCore
@testable import Evaluation
import Simulation
import XCTest

/// The level plot's windows: past `maximumWindows`, neighbours merge in place and the window
/// doubles, each merged window the sum of its two; the last, unpaired, goes on as the current
/// window to the doubled length (kept as it was, it was one 0.5 s window among 1 s ones).
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
        // The unpaired window is the current one: half a second more completes it as a 1 s
        // window, and a second after that is one more.
        let one = [Float](repeating: 1, count: 100)
        func tick(_ index: Int) throws {
            try meter.record(TickSignals(frame: Int64(index * 100), count: 100, mic: one, reference: one, echo: one,
                                         nearEnd: one, played: one, sent: one))
        }
        try tick(windows)
        let completed = try XCTUnwrap(meter.points.last)
        let unpaired = Double((windows - 1) % 7 + 1)
        XCTAssertEqual(meter.points.count, (windows + 1) / 2)
        XCTAssertEqual(completed.timeSeconds, Double((windows + 1) / 2 - 1))
        XCTAssertEqual(try XCTUnwrap(completed.farEndDBFS), 10 * log10((unpaired * unpaired + 1) / 2), accuracy: 1e-9)
        for index in (windows + 1)...(windows + 2) { try tick(index) }
        let spacing = zip(meter.points, meter.points.dropFirst()).map { $1.timeSeconds - $0.timeSeconds }
        XCTAssertEqual(meter.points.count, (windows + 1) / 2 + 1)
        XCTAssertTrue(spacing.allSatisfy { $0 == 1 }, "every window 1 s long")
    }
}
