import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import Metrics
import Evaluation
import Reporting
import ScenarioFiles
import Simulation
import XCTest

/// The analytic checks, end to end: scenario file → simulated call → taps → report.
final class AnalyticEchoTests: XCTestCase {
    func testPureDelayAndGainWithoutAECHasExactERL() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = try ScenarioLoader.load(path: writeScenario(delayScenario(aec: "disabled", seconds: 6), in: folder))
        let report = try RunOutput(scenario: scenario, outputDirectory: folder.appendingPathComponent("out").path, renderer: nil).run()
        let m = report.metrics
        XCTAssertEqual(try XCTUnwrap(m.erlDB), 6.0, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(m.erleDB), 0.0, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(m.delayMilliseconds), 40.0, accuracy: 0.5)

        // The same numbers from the WAV taps on disk, as any recording would be scored.
        let out = folder.appendingPathComponent("out")
        let fromFiles = try EchoAnalyzer().analyzeFiles(reference: out.appendingPathComponent("reference.wav").path,
                                                        mic: out.appendingPathComponent("mic.wav").path,
                                                        processed: out.appendingPathComponent("sent.wav").path,
                                                        echo: out.appendingPathComponent("echo.wav").path).whole
        XCTAssertEqual(try XCTUnwrap(fromFiles.erlDB), 6.0, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(fromFiles.erleDB), 0.0, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(fromFiles.delayMilliseconds), 40.0, accuracy: 0.5)
    }

    /// A room whose noise (−45 dBFS) is above the near-end silence level (−55): the noise is the
    /// near-end track's floor, not a talker, so the call's far-end single talk is measured — the
    /// pure delay and gain's ERL, 6 dB with the noise 19 dB under the echo — and a talker from
    /// 3 s on is double talk. (Before, every frame read as double talk and ERL and ERLE as null.)
    func testARoomNoiseAboveTheSilenceLevelLeavesTheEchoMeasured() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var talker = SignalGenerator.render(.speechLike(levelDBFS: -24, pitchHz: 180), sampleRate: 48_000, count: 6 * 48_000, seed: 3)
        for index in 0..<(3 * 48_000) { talker[index] = 0 }
        try SoundFileWriter.write(talker, to: folder.appendingPathComponent("talker.wav").path, sampleRate: 48_000)
        let path = try writeScenario("""
            {"name": "noisy-room", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "near_end": "talker.wav", "noise": {"level_dbfs": -45, "seed": 7}, "echo_path": {"delay_ms": 40, "gain_db": -6},
             "aec": {"mode": "disabled"}, "duration_s": 6}
            """, in: folder)
        let report = try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent("out").path,
                                   taps: .none, renderer: nil).run()
        let m = report.metrics
        XCTAssertEqual(try XCTUnwrap(m.erlDB), 6.0, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(m.erleDB), 0.0, accuracy: 0.1)
        XCTAssertNil(report.echoUnmeasuredReason)
        // 3 s of far-end single talk at 10.7 ms hops: about 280 frames, and more in the talker's
        // pauses; his syllables are double talk (about half of his 280 frames).
        XCTAssertGreaterThan(m.gate.singleTalkFrames, 250)
        XCTAssertGreaterThan(m.gate.doubleTalkFrames, 100)
    }

    func testSpeexReachesTwentyFiveDecibelsSteadyState() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = try ScenarioLoader.load(path: writeScenario(delayScenario(aec: "intensityRecommended", seconds: 10), in: folder))
        let report = try RunOutput(scenario: scenario, outputDirectory: folder.appendingPathComponent("out").path, taps: .none, renderer: nil).run()
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(report.metrics.erleSteadyDB), 25)
        XCTAssertEqual(try XCTUnwrap(report.metrics.erlDB), 6.0, accuracy: 0.1)
        XCTAssertNotNil(report.metrics.convergenceSeconds)
    }

    func testNearEndOnlyReportsNoERLE() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeScenario("""
            {"name": "near-only", "near_end": {"generator": "speech", "level_dbfs": -24, "seed": 3},
             "noise": {"level_dbfs": -60, "seed": 7}, "echo_path": {"delay_ms": 40, "gain_db": -6},
             "aec": {"mode": "intensityRecommended"}, "duration_s": 4}
            """, in: folder)
        let out = folder.appendingPathComponent("out")
        try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: out.path, taps: .none, renderer: nil).run()
        let metrics = try XCTUnwrap(loadJSON(out.appendingPathComponent("report.json").path)["metrics"] as? [String: Any])
        for key in ["erl_db", "erle_db", "erle_steady_db", "convergence_s", "delay_ms"] {
            XCTAssertTrue(metrics[key] is NSNull, "\(key) should be null, is \(String(describing: metrics[key]))")
        }
    }

    func testTwoRunsAreByteIdenticalButForPerformance() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeScenario("""
            {"name": "det", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "near_end": {"generator": "speech", "level_dbfs": -26, "pitch_hz": 220, "seed": 2},
             "noise": {"level_dbfs": -60, "seed": 7},
             "echo_path": {"delay_ms": 25, "gain_db": -8, "synthetic_room": {"rt60_ms": 200, "seed": 5}, "clip_dbfs": -6},
             "aec": {"mode": "intensityAdaptive"}, "noise_suppressor": "enabled", "duration_s": 3}
            """, in: folder)
        var reports: [[String: Any]] = []
        var sent: [Data] = []
        for run in ["a", "b"] {
            let out = folder.appendingPathComponent(run)
            try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: out.path, renderer: nil).run()
            var report = try loadJSON(out.appendingPathComponent("report.json").path)
            XCTAssertNotNil(report.removeValue(forKey: "performance"))
            reports.append(report)
            sent.append(try Data(contentsOf: out.appendingPathComponent("sent.wav")))
        }
        XCTAssertEqual(sent[0], sent[1])
        XCTAssertEqual(NSDictionary(dictionary: reports[0]), NSDictionary(dictionary: reports[1]))
    }
}
