import AudioCore
import Foundation
import Metrics
import XCTest

/// The stream against the whole-signal algorithm it replaced (kept here, verbatim in its
/// arithmetic, as the reference): same events, strengths equal bit for bit, same gaps.
final class GlitchStreamTests: XCTestCase {
    private func legacyClicks(_ detector: GlitchDetector, _ signal: [Float]) -> [GlitchEvent] {
        let count = signal.count
        guard count >= 3 else { return [] }
        var prefix = [Double](repeating: 0, count: count + 1)
        var running = 0.0
        for index in 2..<count {
            let d = Double(signal[index]) - 2 * Double(signal[index - 1]) + Double(signal[index - 2])
            running += d * d
            prefix[index + 1] = running
        }
        let halfContext = max(4, Int((detector.contextSeconds * Double(detector.sampleRate) / 2).rounded()))
        let floor = pow(10, detector.floorDBFS / 20)
        let mergeDistance = max(1, Int((detector.mergeSeconds * Double(detector.sampleRate)).rounded()))
        var events: [GlitchEvent] = []
        var lastDetection: Int?
        for index in 2..<count {
            let d = Double(signal[index]) - 2 * Double(signal[index - 1]) + Double(signal[index - 2])
            guard d * d > floor * floor else { continue }
            let low = max(2, index - halfContext), high = min(count, index + halfContext + 1)
            let guardLow = max(low, index - 2), guardHigh = min(high, index + 3)
            let energy = (prefix[high] - prefix[low]) - (prefix[guardHigh] - prefix[guardLow])
            let samples = (high - low) - (guardHigh - guardLow)
            let localRMS = samples > 0 ? (max(0, energy) / Double(samples)).squareRoot() : 0
            guard abs(d) > detector.thresholdFactor * localRMS else { continue }
            let strength = 20 * log10(abs(d) / max(localRMS, 1e-12))
            if let lastDetection, index - lastDetection < mergeDistance, let last = events.last {
                if strength > last.strengthDB { events[events.count - 1] = GlitchEvent(sampleIndex: index, strengthDB: strength) }
            } else {
                events.append(GlitchEvent(sampleIndex: index, strengthDB: strength))
            }
            lastDetection = index
        }
        return events
    }

    private func legacyGaps(_ detector: GlitchDetector, _ signal: [Float]) -> [Range<Int>] {
        let minimumLength = max(1, Int((detector.minimumGapSeconds * Double(detector.sampleRate)).rounded()))
        let context = max(1, Int((detector.contextSeconds * Double(detector.sampleRate)).rounded()))
        func isActive(_ range: Range<Int>) -> Bool {
            guard !range.isEmpty else { return false }
            var sum = 0.0
            for index in range { sum += Double(signal[index]) * Double(signal[index]) }
            return sum / Double(range.count) >= pow(10, detector.floorDBFS / 10)
        }
        var gaps: [Range<Int>] = []
        var index = 0
        while index < signal.count {
            guard abs(signal[index]) < detector.silenceAmplitude else { index += 1; continue }
            let start = index
            while index < signal.count && abs(signal[index]) < detector.silenceAmplitude { index += 1 }
            guard index - start >= minimumLength, start > 0, index < signal.count else { continue }
            if isActive(max(0, start - context)..<start) && isActive(index..<min(signal.count, index + context)) {
                gaps.append(start..<index)
            }
        }
        return gaps
    }

    func testSameEventsAndGapsAsTheWholeSignalAlgorithm() {
        var random = SeededRandom(seed: 5)
        var signals: [[Float]] = [[], [0.5], [0, 1, 0]]
        // Speech-like: noise with a slow envelope, splices, dropouts (one 1 ms after another, one
        // at each end) and clicks everywhere, including in the last context.
        var speech = (0..<96_000).map { index -> Float in
            Float(0.3 * (1 + sin(Double(index) / 3000))) * random.nextGaussian() * 0.2
        }
        for start in [10_000, 10_400, 40_000, 95_600] { for index in start..<(start + 300) { speech[index] = 0 } }
        for index in 0..<200 { speech[index] = 0 }
        for index in stride(from: 500, to: 96_000, by: 7_777) { speech[index] += 0.8 }
        speech[95_999] = 0.9
        signals.append(speech)
        let sine = (0..<48_000).map { index in Float(0.5 * sin(2 * Double.pi * 440 * Double(index) / 48_000 + (index >= 20_000 ? 1.5 : 0))) }
        signals.append(sine)
        for detector in [GlitchDetector(sampleRate: 48_000), GlitchDetector(sampleRate: 16_000, contextSeconds: 0.02,
                                                                            minimumGapSeconds: 0.001)] {
            for signal in signals {
                let report = detector.analyze(signal)
                XCTAssertEqual(report.events, legacyClicks(detector, signal), "\(signal.count) samples")
                XCTAssertEqual(report.gaps, legacyGaps(detector, signal), "\(signal.count) samples")
            }
        }
        XCTAssertFalse(detector48kReportIsTrivial(speech))
    }

    private func detector48kReportIsTrivial(_ signal: [Float]) -> Bool {
        let report = GlitchDetector(sampleRate: 48_000).analyze(signal)
        return report.events.isEmpty || report.gaps.isEmpty
    }
}
