import Foundation
import Metrics
import XCTest

/// Prints how long a 60 s, 48 kHz analysis (reference + mic + processed + echo) takes; it asserts
/// nothing because timings depend on the machine. Skipped unless ECHOLAB_METRICS_TIMING is set:
///     ECHOLAB_METRICS_TIMING=1 swift test -c release --filter MetricsTests.TimingTests
final class TimingTests: XCTestCase {
    func testSixtySecondAnalysisTiming() throws {
        try XCTSkipIf(ProcessInfo.processInfo.environment["ECHOLAB_METRICS_TIMING"] == nil,
                      "set ECHOLAB_METRICS_TIMING=1 to time a 60 s analysis")
        let (reference, echo) = TestSignals.farEndScene(seconds: 60)
        let mic = TestSignals.sum(echo, TestSignals.noise(count: echo.count, dbfs: -60, seed: 9))
        let processed = TestSignals.scaled(mic, gainDB: -25)
        let signals = EchoSignals(sampleRate: 48_000, reference: reference, mic: mic, processed: processed, echo: echo)
        let analyzer = EchoAnalyzer()
        _ = analyzer.analyze(signals)   // warm-up (FFTW plans, page faults)
        var best = Double.infinity
        for _ in 0..<5 {
            let start = DispatchTime.now().uptimeNanoseconds
            let analysis = analyzer.analyze(signals, segments: [0..<1_440_000, 1_440_000..<2_880_000])
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            XCTAssertNotNil(analysis.whole.erleDB)
        }
        print(String(format: "60 s analysis at 48 kHz: best of 5 = %.1f ms", best))
    }
}
