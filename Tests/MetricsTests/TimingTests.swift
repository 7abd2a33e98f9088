import Foundation
import Metrics
import XCTest

/// Prints how long a 60 s, 48 kHz call takes to analyse as the simulation streams it: reference,
/// mic, processed and near end appended in 10 ms ticks (480 samples), with processed == mic (AEC
/// off: the mic's spectrum is reused) and with a canceller; and the glitch stream over 60 s. It
/// asserts nothing because timings depend on the machine. Skipped unless ECHOLAB_METRICS_TIMING
/// is set:
///     ECHOLAB_METRICS_TIMING=1 swift test -c release --filter MetricsTests.TimingTests
final class TimingTests: XCTestCase {
    private let tick = 480

    private func bestOf(_ runs: Int, _ body: () -> Void) -> Double {
        body()   // warm-up (FFTW plans, page faults)
        var best = Double.infinity
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return best
    }

    /// The signals cut into ticks up front, so the timing holds the analysis only.
    private func ticks(_ signal: [Float]) -> [[Float]] {
        stride(from: 0, to: signal.count, by: tick).map { Array(signal[$0..<min(signal.count, $0 + tick)]) }
    }

    func testSixtySecondStreamTiming() throws {
        try XCTSkipIf(ProcessInfo.processInfo.environment["ECHOLAB_METRICS_TIMING"] == nil,
                      "set ECHOLAB_METRICS_TIMING=1 to time a 60 s analysis")
        let (reference, echo) = TestSignals.farEndScene(seconds: 60)
        let nearEnd = [Float](repeating: 0, count: echo.count)
        let mic = TestSignals.sum(echo, TestSignals.noise(count: echo.count, dbfs: -60, seed: 9))
        let processed = TestSignals.scaled(mic, gainDB: -25)
        let referenceTicks = ticks(reference), micTicks = ticks(mic), processedTicks = ticks(processed)
        let nearEndTicks = ticks(nearEnd)
        for (label, outputTicks) in [("processed == mic", micTicks), ("processed != mic", processedTicks)] {
            let milliseconds = bestOf(5) {
                let stream = EchoAnalysisStream(sampleRate: 48_000, includesEcho: false, includesNearEnd: true)
                for index in referenceTicks.indices {
                    stream.append(reference: referenceTicks[index], mic: micTicks[index], processed: outputTicks[index],
                                  echo: nil, nearEnd: nearEndTicks[index], count: referenceTicks[index].count)
                }
                let analysis = stream.finish(segments: [0..<1_440_000, 1_440_000..<2_880_000])
                XCTAssertNotNil(analysis.whole.erleDB)
            }
            print(String(format: "60 s stream at 48 kHz in 480-sample ticks, %@: best of 5 = %.1f ms", label, milliseconds))
        }

        let glitchMilliseconds = bestOf(5) {
            let stream = GlitchStream(detector: GlitchDetector(sampleRate: 48_000))
            for block in processedTicks { stream.append(block, count: block.count) }
            XCTAssertTrue(stream.finish().events.isEmpty)
        }
        print(String(format: "60 s glitch stream at 48 kHz in 480-sample ticks: best of 5 = %.1f ms", glitchMilliseconds))
    }
}
