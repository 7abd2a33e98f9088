import EchoLabTestSupport
import Evaluation
import Foundation
import ScenarioFiles
import Simulation
import Synchronization
import XCTest

/// Evaluation renders nothing: a finished result's pages are what the renderer it was handed made
/// of that result, written beside its JSON; without one, the JSON alone.
final class ReportRendererTests: XCTestCase {
    /// A renderer of one page: the measured ERL, as text.
    private struct ERLPage: ReportRenderer {
        func pages(of report: RunReport) -> [ReportPage] {
            [ReportPage(name: "erl.txt") { report.metrics.erlDB.map { String(format: "%.1f dB", $0) } ?? "none" }]
        }

        func pages(of report: RecordingReport, folder: String) -> [ReportPage] { [] }

        func pages(of report: EvalReport, modeSummaries: [ModeSummary], verdicts: EvalVerdicts, directory: String) -> [ReportPage] { [] }
    }

    func testARunWritesItsRenderersPagesBesideItsJSON() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = try ScenarioLoader.load(path: writeScenario(delayScenario(aec: "disabled", seconds: 3), in: folder))
        let out = folder.appendingPathComponent("out")
        let report = try RunOutput(scenario: scenario, outputDirectory: out.path, taps: .none, renderer: ERLPage()).run()
        // A pure 6 dB loss: the page says what the run measured.
        XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("erl.txt"), encoding: .utf8), "6.0 dB")
        XCTAssertEqual(try XCTUnwrap(report.metrics.erlDB), 6, accuracy: 0.05)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(), ["erl.txt", "report.json"])
    }

    func testWithoutARendererARunWritesItsJSONAlone() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = try ScenarioLoader.load(path: writeScenario(delayScenario(aec: "disabled", seconds: 2), in: folder))
        let out = folder.appendingPathComponent("out")
        try RunOutput(scenario: scenario, outputDirectory: out.path, renderer: nil).run()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(),
                       ["echo.wav", "mic.wav", "reference.wav", "report.json", "sent.wav"])
    }

    /// A corpus hands every run to the renderer as the run finishes.
    func testACorpusRendersEachRunInItsFolder() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = try writeScenario(delayScenario(aec: "disabled", seconds: 2), in: folder)
        let modes = [EchoControlMode(backend: .speex, intensity: .intensityRecommended), EchoControlMode(backend: .webrtc, intensity: .intensityMax),
                     EchoControlMode(backend: .speex, intensity: .intensityMin), EchoControlMode(backend: .webrtc, intensity: .intensityMin),
                     EchoControlMode(backend: .webrtcMobile, intensity: .intensityMin), EchoControlMode(backend: .aec3, intensity: .intensityMin)]
        // Counts arrive in order, one at a time: a terminal's progress went 42/57, then 38/57.
        let counts = Mutex<[Int]>([])
        let outcome = CorpusRun(items: [.scenario(scenario)], outputDirectory: folder.appendingPathComponent("eval").path, modes: modes,
                                jobs: 2, taps: .none, renderer: ERLPage()).run { done, _, _ in counts.withLock { $0.append(done) } }
        XCTAssertEqual(outcome.failedCount, 0)
        XCTAssertEqual(counts.withLock { $0 }, Array(1...6))
        for result in outcome.results {
            let page = folder.appendingPathComponent("eval/\(result.folder)/erl.txt")
            XCTAssertEqual(try String(contentsOf: page, encoding: .utf8), "6.0 dB", result.folder)
        }
    }
}
