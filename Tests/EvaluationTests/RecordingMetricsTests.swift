import AudioCore
import AudioInterop
import Foundation
import EchoLabJSON
import Evaluation
import Metrics
import XCTest

/// `echolab metrics`' result: the echo metrics of the files with the fields the command adds,
/// built once as a value (the command assembled the JSON by hand before).
final class RecordingMetricsTests: XCTestCase {
    /// A pure 30 ms delay at −12 dB with the output 20 dB under the mic: ERL 12.04 dB
    /// (20·log10 4), ERLE 20 dB, the delay found, nothing unmeasured, and the lag as given.
    func testAPureDelayAndGainReadsItsKnownFigures() throws {
        let rate = 16_000, delay = 480
        let reference = SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: rate, count: 8 * rate, seed: 5)
        let mic = [Float](repeating: 0, count: delay) + reference.dropLast(delay).map { $0 * 0.25 }
        let processed = mic.map { $0 * 0.1 }
        let analysis = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: processed, echo: mic))
        let result = RecordingMetrics(analysis: analysis, processedLag: ProcessedLag(samples: 0, sampleRate: rate, source: .given))

        let json = result.json()
        XCTAssertEqual(try XCTUnwrap(json["erl_db"]?.doubleValue), 20 * log10(4), accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(json["erle_db"]?.doubleValue), 20, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(json["delay_ms"]?.doubleValue), 30, accuracy: 0.1)
        XCTAssertEqual(json["echo_unmeasured"], .null)
        XCTAssertEqual(json["delay_unmeasured"], .null)
        XCTAssertEqual(json["processed_lag_ms"], .number(0))
        XCTAssertEqual(json["processed_lag_source"], .string("given"))
        XCTAssertNil(json["scores"], "no scorer asked for: no scores key")
        XCTAssertNil(json["length_mismatch"])
        XCTAssertEqual(json["erl_db"], analysis.whole.json["erl_db"], "the metrics are the analysis's own")
    }

    /// What was corrected in the files before they were measured is in the JSON, every key null
    /// where nothing was: a mic offset of −34 dBFS taken off, no loopback offset, no drift.
    func testTheCorrectionsMadeToTheFilesAreReported() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("recording-metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let rate = 16_000, delay = 480
        let reference = SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: rate, count: 8 * rate, seed: 5)
        let echo = [Float](repeating: 0, count: delay) + reference.dropLast(delay).map { $0 * 0.25 }
        func write(_ samples: [Float], _ name: String) throws -> String {
            let path = folder.appendingPathComponent(name).path
            try SoundFileWriter.write(samples, to: path, sampleRate: rate)
            return path
        }
        let analysis = try EchoAnalyzer().analyzeFiles(reference: write(reference, "ref.wav"), mic: write(echo.map { $0 + 0.02 }, "mic.wav"),
                                                       processed: write(echo.map { $0 * 0.1 }, "out.wav"))
        let json = RecordingMetrics(analysis: analysis, processedLag: ProcessedLag(samples: 0, sampleRate: rate, source: .given)).json()
        let corrections = try XCTUnwrap(json["input_corrections"])
        // The median of the blocks' means: the noise's own means move it by hundredths of a dB.
        XCTAssertEqual(try XCTUnwrap(corrections["mic_dc_offset_dbfs"]?.doubleValue), 20 * log10(0.02), accuracy: 0.1)
        XCTAssertEqual(corrections["loopback_dc_offset_dbfs"], .null)
        XCTAssertEqual(corrections["clock_drift_ppm"], .null)
        XCTAssertEqual(try XCTUnwrap(json["erle_db"]?.doubleValue), 20, accuracy: 0.01)
    }
}
