import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// `metrics` aligns a canceller's output with the mic before scoring it: a run's own sent.wav
/// (speexdsp's preprocessor adds a frame) and the same output delayed further score as the run's
/// report scores them; a lag beyond any canceller's latency is an error naming the file.
final class MetricsAlignmentTests: XCTestCase {
    private var folder: URL!
    private var out: URL!
    private var inputs: [String: Data] = [:]

    /// A double-talk call through speex, all taps kept.
    override func setUpWithError() throws {
        folder = try temporaryDirectory()
        out = folder.appendingPathComponent("out")
        let scenario = try writeScenario("""
            {"name": "double-talk", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "near_end": {"generator": "speech", "level_dbfs": -26, "pitch_hz": 210, "seed": 9}, "noise": {"level_dbfs": -65, "seed": 2},
             "echo_path": {"delay_ms": 30, "gain_db": -6, "synthetic_room": {"rt60_ms": 200, "seed": 1}},
             "aec": {"mode": "intensityRecommended", "backend": "speex"}, "duration_s": 8}
            """, in: folder)
        let run = try runEchoLab(["run", scenario, "--out", out.path, "--all-taps"])
        XCTAssertEqual(run.status, 0, run.standardError)
        inputs = try snapshot(out)
    }

    override func tearDownWithError() throws {
        XCTAssertEqual(try snapshot(out), inputs, "the scored files are untouched")
        try? FileManager.default.removeItem(at: folder)
    }

    private func tap(_ name: String) -> String { out.appendingPathComponent("\(name).wav").path }

    private func metrics(_ processed: String, _ extra: [String] = []) throws -> (result: CommandResult, json: [String: Any]) {
        let result = try runEchoLab(["metrics", "--reference", tap("reference"), "--mic", tap("mic"), "--processed", processed,
                                     "--near-end", tap("near"), "--echo", tap("echo")] + extra)
        let json = (try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]) ?? [:]
        return (result, json)
    }

    /// `sent` delayed by `samples` more, the same length (its tail cut), written beside the taps' folder.
    private func delayed(by samples: Int) throws -> String {
        let sent = try AudioFileStream.readAll(path: tap("sent")).samples
        let path = folder.appendingPathComponent("sent-\(samples).wav").path
        try SoundFileWriter.write([Float](repeating: 0, count: samples) + sent.prefix(sent.count - samples), to: path, sampleRate: 48_000)
        return path
    }

    private func nearEndAttenuation(_ json: [String: Any]) -> Double? { (json["near_end"] as? [String: Any])?["attenuation_db"] as? Double }

    func testARunsOwnSentTapScoresAsItsReport() throws {
        let report = try loadJSON(out.appendingPathComponent("report.json").path)
        let expected = try XCTUnwrap(nearEndAttenuation(report["metrics"] as! [String: Any]))
        let (result, json) = try metrics(tap("sent"))
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(result.standardError, "echolab metrics: \(tap("sent")) lags the mic by 10.0 ms (480 samples): aligned before scoring\n")
        XCTAssertEqual(json["processed_lag_ms"] as? Double, 10)
        XCTAssertEqual(json["processed_lag_source"] as? String, "estimated")
        XCTAssertEqual(try XCTUnwrap(nearEndAttenuation(json)), expected, accuracy: 0.1)
        XCTAssertLessThan(expected, 6, "the near talker is kept in double talk")
    }

    func testAnOutputLaterStillIsAlignedAndAGivenLagIsTakenAsGiven() throws {
        let expected = try XCTUnwrap(nearEndAttenuation(try metrics(tap("sent")).json))
        let late = try delayed(by: 5_280)      // 110 ms more: 120 ms behind the mic
        let (result, json) = try metrics(late)
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(json["processed_lag_ms"] as? Double, 120)
        XCTAssertEqual(try XCTUnwrap(nearEndAttenuation(json)), expected, accuracy: 0.3)

        let given = try metrics(late, ["--processed-lag-ms", "120"])
        XCTAssertEqual(given.json["processed_lag_source"] as? String, "given")
        XCTAssertEqual(given.result.standardError, "")
        XCTAssertEqual(try XCTUnwrap(nearEndAttenuation(given.json)), try XCTUnwrap(nearEndAttenuation(json)), accuracy: 1e-9)
        let unaligned = try metrics(late, ["--processed-lag-ms", "0"])
        XCTAssertGreaterThan(try XCTUnwrap(nearEndAttenuation(unaligned.json)), expected + 10, "scored unaligned, the near talker reads as removed")
        // A given lag the files clearly contradict is still taken, and said.
        XCTAssertEqual(unaligned.json["processed_lag_source"] as? String, "given")
        XCTAssertEqual(unaligned.result.standardError, "echolab metrics: warning: \(late) lags the mic by 120.0 ms by the files' own estimate, "
                       + "not the 0.0 ms given (--processed-lag-ms): scored as given\n")

        let refused = try runEchoLab(["metrics", "--reference", tap("reference"), "--mic", tap("mic"), "--processed", late, "--processed-lag-ms", "600"])
        XCTAssertEqual(refused.status, 64, refused.standardError)
        XCTAssertTrue(refused.standardError.contains("--processed-lag-ms must be a number from 0 to 500 (got 600.0)"), refused.standardError)
    }

    func testALagBeyondAnyCancellersLatencyIsAnError() throws {
        let far = try delayed(by: 33_120)      // 690 ms more: 700 ms behind the mic
        let (result, _) = try metrics(far)
        XCTAssertEqual(result.status, 1, result.standardOutput)
        XCTAssertEqual(result.standardOutput, "")
        XCTAssertEqual(result.standardError, "echolab: \(far): lags the mic by 700.0 ms, outside the 0–500 ms a canceller's latency takes; "
                       + "align it with the mic first, or give --processed-lag-ms\n")
    }

    /// An output that leads the mic (its own sent tap, 10 ms late, moved 100 ms earlier) is still
    /// an error: its peak in range is nowhere near the one where it lies.
    func testAnOutputThatLeadsTheMicIsAnError() throws {
        let sent = try AudioFileStream.readAll(path: tap("sent")).samples
        let early = folder.appendingPathComponent("sent-early.wav").path
        try SoundFileWriter.write(Array(sent.dropFirst(4_800)) + [Float](repeating: 0, count: 4_800), to: early, sampleRate: 48_000)
        let (result, _) = try metrics(early)
        XCTAssertEqual(result.status, 1, result.standardOutput)
        XCTAssertEqual(result.standardError, "echolab: \(early): leads the mic by 90.0 ms, outside the 0–500 ms a canceller's latency takes; "
                       + "align it with the mic first, or give --processed-lag-ms\n")
    }

    /// Under a second, unrelated signals correlate by chance: no lag is taken from them.
    func testFilesUnderASecondAreScoredUnshifted() throws {
        func cut(_ name: String) throws -> String {
            let samples = try AudioFileStream.readAll(path: tap(name)).samples
            let path = folder.appendingPathComponent("\(name)-short.wav").path
            try SoundFileWriter.write(Array(samples.prefix(24_000)), to: path, sampleRate: 48_000)
            return path
        }
        let result = try runEchoLab(["metrics", "--reference", try cut("reference"), "--mic", try cut("mic"), "--processed", try cut("sent")])
        XCTAssertEqual(result.status, 0, result.standardError)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(json["processed_lag_source"] as? String, "not_found")
        XCTAssertEqual(json["processed_lag_ms"] as? Double, 0)
        // The warning gives that reason, not the one of an output that shares too little.
        let sent = folder.appendingPathComponent("sent-short.wav").path
        XCTAssertTrue(result.standardError.contains("warning: cannot tell how far \(sent) lags the mic (the files are under a second)"),
                      result.standardError)
    }

    func testASilentOutputCannotBeAlignedAndSaysSo() throws {
        let silent = folder.appendingPathComponent("silent.wav").path
        try SoundFileWriter.write([Float](repeating: 0, count: 8 * 48_000), to: silent, sampleRate: 48_000)
        let (result, json) = try metrics(silent)
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(json["processed_lag_ms"] as? Double, 0)
        XCTAssertEqual(json["processed_lag_source"] as? String, "not_found")
        XCTAssertTrue(result.standardError.contains("warning: cannot tell how far \(silent) lags the mic (it is digital silence over its first minute, "
                                                    + "all the estimate reads)"),
                      result.standardError)
    }
}
