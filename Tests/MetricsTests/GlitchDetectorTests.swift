import Foundation
import Metrics
import XCTest

final class GlitchDetectorTests: XCTestCase {
    let sampleRate = 48_000
    let omega = 2 * Double.pi * 440 / 48_000

    /// A 0.5-amplitude 440 Hz sine whose phase jumps by π/2 at each of `jumps`.
    private func sine(count: Int, phaseJumpsAt jumps: [Int] = []) -> [Float] {
        (0..<count).map { index in
            let phase = Double(jumps.filter { $0 <= index }.count) * Double.pi / 2
            return Float(0.5 * sin(omega * Double(index) + phase))
        }
    }

    func testCleanSineHasNoClicks() {
        let detector = GlitchDetector(sampleRate: sampleRate)
        XCTAssertEqual(detector.analyze(sine(count: sampleRate)), GlitchReport(events: [], gaps: []))
    }

    func testPhaseJumpsAreFoundExactlyWhereTheyAre() throws {
        let jumps = [10_000, 25_000, 40_000]
        let signal = sine(count: sampleRate, phaseJumpsAt: jumps)
        for jump in jumps {
            // The splice must be a real step, not a lucky near-continuous one.
            XCTAssertGreaterThan(abs(signal[jump] - signal[jump - 1]), 0.05)
        }
        let detector = GlitchDetector(sampleRate: sampleRate)
        let events = detector.clicks(in: signal)
        XCTAssertEqual(events.count, jumps.count)
        for (event, jump) in zip(events, jumps) {
            XCTAssertLessThanOrEqual(abs(event.sampleIndex - jump), 1)
            XCTAssertGreaterThan(event.strengthDB, 20 * log10(8))
        }
        // ±10 ms around an instant.
        XCTAssertEqual(detector.analyze(signal).count(in: (25_000 - 480)..<(25_000 + 481)), 1)
        XCTAssertEqual(detector.analyze(signal).count(in: 30_000..<35_000), 0)
        XCTAssertEqual(detector.analyze(signal).count(in: 0..<sampleRate), 3)
    }

    func testQuietClicksBelowTheFloorAreIgnored() {
        // A −80 dBFS sine with a splice: relative jump is large but under the −60 dBFS floor.
        let quiet = sine(count: 9_600, phaseJumpsAt: [4_000]).map { $0 * 2e-4 }
        XCTAssertTrue(GlitchDetector(sampleRate: sampleRate).clicks(in: quiet).isEmpty)
    }

    func testDropoutIsReportedAsAGap() throws {
        var signal = sine(count: sampleRate)
        for index in 20_000..<20_960 { signal[index] = 0 }   // 20 ms
        let gaps = GlitchDetector(sampleRate: sampleRate).gaps(in: signal)
        XCTAssertEqual(gaps.count, 1)
        let gap = try XCTUnwrap(gaps.first)
        XCTAssertLessThanOrEqual(abs(gap.lowerBound - 20_000), 1)
        XCTAssertLessThanOrEqual(abs(gap.upperBound - 20_960), 1)
    }

    func testLeadingSilenceAndShortRunsAreNotGaps() {
        var signal = sine(count: sampleRate)
        for index in 0..<4_800 { signal[index] = 0 }          // 100 ms before the audio starts
        for index in 30_000..<30_100 { signal[index] = 0 }    // 2 ms: shorter than the minimum
        XCTAssertTrue(GlitchDetector(sampleRate: sampleRate).gaps(in: signal).isEmpty)
    }
}
