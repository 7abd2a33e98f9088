import EchoLabTestSupport
import Foundation
import Evaluation
import ScenarioFiles

/// The report of the scenario `json`, written to a temporary folder (removed after) and run as
/// `echolab run --no-taps` runs it, without pages: what the tests of one finding or figure need.
func runReport(ofScenario json: String) throws -> RunReport {
    let folder = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = try writeScenario(json, in: folder)
    return try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent("out").path,
                         taps: .none, renderer: nil).run()
}
