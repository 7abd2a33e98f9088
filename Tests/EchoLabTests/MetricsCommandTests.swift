import Foundation
import XCTest

final class MetricsCommandTests: XCTestCase {
    /// `echolab metrics` on the taps of a run prints the metrics object as JSON on stdout.
    func testMetricsCommandPrintsJSON() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let run = try runEchoLab(["run", try writeScenario(delayScenario(aec: "disabled", seconds: 4), in: folder), "--out", out.path])
        XCTAssertEqual(run.status, 0, run.standardError)
        let result = try runEchoLab(["metrics", "--reference", out.appendingPathComponent("reference.wav").path,
                                     "--mic", out.appendingPathComponent("mic.wav").path,
                                     "--processed", out.appendingPathComponent("sent.wav").path,
                                     "--echo", out.appendingPathComponent("echo.wav").path])
        XCTAssertEqual(result.status, 0, result.standardError)
        let metrics = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(metrics["erl_db"] as? Double), 6.0, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(metrics["delay_ms"] as? Double), 40.0, accuracy: 0.5)
        XCTAssertNotNil(metrics["erle_series"] as? [Any])
        XCTAssertEqual((metrics["erle_bands"] as? [Any])?.count, 7)
    }

    func testHelpIsComplete() throws {
        for command in [["--help"], ["run", "--help"], ["metrics", "--help"], ["eval", "--help"], ["vectors", "--help"]] {
            let result = try runEchoLab(command)
            XCTAssertEqual(result.status, 0)
            XCTAssertTrue(result.standardOutput.contains("USAGE"), "\(command): \(result.standardOutput)")
        }
    }
}
