import Metrics
import XCTest

final class DelayEstimationTests: XCTestCase {
    private func estimatedDelay(samples: Int, sampleRate: Int = 48_000, seconds: Double = 2,
                                configuration: EchoMetricsConfiguration = .default) throws -> Double {
        try XCTUnwrap(reportedDelay(samples: samples, sampleRate: sampleRate, seconds: seconds, configuration: configuration))
    }

    private func reportedDelay(samples: Int, sampleRate: Int = 48_000, seconds: Double = 2,
                               configuration: EchoMetricsConfiguration = .default) -> Double? {
        let (reference, echo) = TestSignals.farEndScene(seconds: seconds, sampleRate: sampleRate,
                                                         delaySamples: samples, erlDB: 10, seed: 11)
        let mic = TestSignals.sum(echo, TestSignals.noise(count: echo.count, dbfs: -50, seed: 12))
        return EchoAnalyzer(configuration: configuration)
            .analyze(EchoSignals(sampleRate: sampleRate, reference: reference, mic: mic, processed: mic)).whole.delayMilliseconds
    }

    func testIntegerDelaysAt48kHz() throws {
        for samples in [0, 240, 123, 14_400] {
            let expected = Double(samples) / 48
            XCTAssertEqual(try estimatedDelay(samples: samples), expected, accuracy: 0.05, "\(samples) samples")
        }
    }

    func testDelayAt16kHz() throws {
        for samples in [0, 123, 800, 4_000] {
            let expected = Double(samples) / 16
            XCTAssertEqual(try estimatedDelay(samples: samples, sampleRate: 16_000), expected, accuracy: 0.1,
                           "\(samples) samples")
        }
    }

    func testMicShorterThanABlockUsesOneZeroPaddedBlock() throws {
        // 0.2 s is far shorter than the 16384-sample block.
        XCTAssertEqual(try estimatedDelay(samples: 100, seconds: 0.2), 100.0 / 48, accuracy: 0.05)
    }

    func testDelayBeyondTheSearchRangeIsNotReported() throws {
        // Searching only 0…100 ms, a 300 ms echo leaves no significant peak: null, not a made-up lag.
        let configuration = EchoMetricsConfiguration(maxDelayMilliseconds: 100)
        XCTAssertNil(reportedDelay(samples: 14_400, configuration: configuration))
        // The same echo inside the range is found.
        XCTAssertEqual(try estimatedDelay(samples: 14_400), 300, accuracy: 0.05)
    }

    func testUnrelatedSignalsHaveNoDelay() {
        let reference = TestSignals.noise(count: 96_000, dbfs: -20, seed: 21)
        let mic = TestSignals.noise(count: 96_000, dbfs: -20, seed: 22)
        let whole = EchoAnalyzer().analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: mic, processed: mic)).whole
        XCTAssertNil(whole.delayMilliseconds)
    }
}
