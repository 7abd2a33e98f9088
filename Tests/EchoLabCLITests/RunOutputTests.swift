import EchoLabJSON
import EchoLabTestSupport
import Foundation
@testable import Evaluation
import Reporting
import ScenarioFiles
import Simulation
import XCTest

/// `echolab run` as a process and `RunOutput` in this one write the same run; a re-run into the
/// same folder replaces it whole.
final class RunOutputTests: XCTestCase {
    private static let vectors = ["device-transitions", "speech-room-doubletalk", "recording-speaker"]

    private func scenario(_ name: String) throws -> Scenario {
        try ScenarioLoader.load(path: packageRoot.appendingPathComponent("vectors/scenarios/\(name).json").path)
    }

    /// The `run` process writes the report that `RunOutput` gives app code in this process,
    /// bit for bit (but for the wall time).
    func testTheRunProcessGivesTheLibrarysReport() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        for name in Self.vectors {
            let file = packageRoot.appendingPathComponent("vectors/scenarios/\(name).json").path
            let folder = root.appendingPathComponent("\(name)-process")
            let result = try runEchoLab(["run", file, "--out", folder.path, "--no-taps"])
            XCTAssertEqual(result.status, 0, "\(name): \(result.standardError)")
            let output = RunOutput(scenario: try scenario(name), outputDirectory: root.appendingPathComponent("\(name)-library").path,
                                   taps: .none, renderer: ReportPages())
            let library = try output.run()
            // Both as written, but for the wall time.
            func withoutWallTime(_ text: [UInt8]) throws -> String {
                var object = try XCTUnwrap(try JSONValue.parse(text, maximumBytes: 64 << 20).objectValue)
                XCTAssertNotNil(object.removeValue(forKey: "performance"), name)
                return JSONValue.object(object).canonicalText()
            }
            XCTAssertEqual(try withoutWallTime([UInt8](Data(contentsOf: folder.appendingPathComponent("report.json")))),
                           try withoutWallTime(Array(library.json().canonicalText().utf8)), "\(name): report.json")
            // The command wires Reporting's pages in as app code does: the same pages, but for the
            // line that says how long the run took.
            for page in ["report.md", "report.html"] {
                func withoutPerformance(_ url: URL) throws -> [Substring] {
                    try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.contains("Performance: ") }
                }
                XCTAssertEqual(try withoutPerformance(folder.appendingPathComponent(page)),
                               try withoutPerformance(root.appendingPathComponent("\(name)-library/\(page)")), "\(name): \(page)")
            }
        }
    }

    /// A re-run into its folder replaces the taps (the previous ones are deleted once the new
    /// ones are in place): afterwards the folder holds exactly the new run's
    /// taps and reports, nothing hidden (a leftover of a killed run included), and each tap is
    /// the new run's.
    func testARerunReplacesItsTapsAndLeavesNothingBehind() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        var taps: [[String: Data]] = []
        for aec in ["disabled", "intensityMax"] {
            if aec != "disabled" {
                // What a run killed between moving its taps in and deleting the old ones leaves
                // (near.wav is not among the taps this run writes).
                try Data("old".utf8).write(to: root.appendingPathComponent("out/.near.wav.replaced"))
            }
            let scenario = try writeScenario(delayScenario(aec: aec, seconds: 2), in: root)
            let result = try runEchoLab(["run", scenario, "--out", "out"], in: root)
            XCTAssertEqual(result.status, 0, result.standardError)
            let folder = root.appendingPathComponent("out")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(),
                           ["echo.wav", "mic.wav", "reference.wav", "report.html", "report.json", "report.md", "sent.wav"], aec)
            taps.append(try snapshot(folder).filter { $0.key.hasSuffix(".wav") })
        }
        XCTAssertNotEqual(taps[0]["/sent.wav"], taps[1]["/sent.wav"], "the second run's sent audio (speex on)")
        XCTAssertEqual(taps[0]["/mic.wav"], taps[1]["/mic.wav"], "the same mic either way")
    }
}
