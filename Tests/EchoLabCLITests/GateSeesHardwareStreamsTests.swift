import EchoLabTestSupport
import Foundation
import XCTest

/// The gate judges the hardware model's streams as it judges the pipeline's buffers, through the
/// binary: a capture device whose clock drifts far enough to slip samples past the engine fails
/// `compare`, and eval.md counts the run among those with pipeline issues. eval.json did not
/// carry `hardware.streams`: 352 dropped samples and a lost delay passed as "No regression".
final class GateSeesHardwareStreamsTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    /// One scenario named `drift` in folder `name`, evaluated into `name-out`: a pure echo path,
    /// AEC off, the capture device's clock `ppm` off the output's, 20 s.
    private func eval(_ name: String, ppm: Int) throws -> URL {
        let corpus = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        _ = try writeScenario("""
            {"name": "drift", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "echo_path": {"delay_ms": 40, "gain_db": -6}, "aec": {"mode": "disabled"},
             "clock_drift_ppm": \(ppm), "duration_s": 20}
            """, in: corpus)
        let result = try runEchoLab(["eval", name, "--out", "\(name)-out", "--no-taps"], in: root)
        XCTAssertEqual(result.status, 0, result.standardError)
        return root.appendingPathComponent("\(name)-out")
    }

    func testSamplesTheDriftDroppedFailTheGate() throws {
        let baseline = try eval("steady", ppm: 0)
        let current = try eval("drifting", ppm: 1000)
        func streams(_ folder: URL) throws -> [String: Any] {
            let items = try XCTUnwrap(loadJSON(folder.appendingPathComponent("eval.json").path)["items"] as? [[String: Any]])
            let result = try XCTUnwrap((items.first?["results"] as? [[String: Any]])?.first)
            return try XCTUnwrap(result["hardware_streams"] as? [String: Any])
        }
        // 20 s at 1000 ppm is 960 samples, less the slack the capture buffer absorbs first.
        XCTAssertEqual(try streams(baseline)["dropped_samples"] as? Double, 0)
        let dropped = try XCTUnwrap(try streams(current)["dropped_samples"] as? Double)
        XCTAssertGreaterThan(dropped, 0)
        XCTAssertLessThan(dropped, 960)

        let failing = try runEchoLab(["compare", "steady-out/eval.json", "drifting-out/eval.json"], in: root)
        XCTAssertEqual(failing.status, 1, failing.standardOutput + failing.standardError)
        XCTAssertTrue(failing.standardOutput.contains("| drift | disabled | hardware_streams.dropped_samples | 0 | \(Int(dropped)) | +\(Int(dropped)) |"),
                      failing.standardOutput)
        // Counted among the runs with pipeline issues, and named in the run's health.
        let page = try String(contentsOf: current.appendingPathComponent("eval.md"), encoding: .utf8)
        XCTAssertTrue(page.contains("| `disabled` | 1 | 0.0 dB | 0.0 dB | 0.0 dB | — | 0 | 1 |"), page)
        let html = try String(contentsOf: current.appendingPathComponent("eval.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("\(Int(dropped)) samples dropped by a hardware stream"), html)
    }
}
