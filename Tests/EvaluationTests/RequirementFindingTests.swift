import EchoLabTestSupport
import Foundation
import Metrics
import Evaluation
import ScenarioFiles
import XCTest

/// TS 26.131's 46 dB echo loss, judged as a finding: a pure delay and gain has TCLw equal to the
/// gain, so its miss and its shortfall are known exactly; a weak enough echo meets it.
final class RequirementFindingTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws { folder = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func run(gainDB: Int, noiseDBFS: Int = -60) throws -> RunReport {
        let path = try writeScenario("""
            {"name": "gain\(-gainDB)", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": \(noiseDBFS), "seed": 7}, "echo_path": {"delay_ms": 40, "gain_db": \(gainDB)},
             "aec": {"mode": "disabled"}, "duration_s": 6}
            """, named: "gain\(-gainDB).json", in: folder)
        return try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent("out\(-gainDB)").path,
                             taps: .none, renderer: nil).run()
    }

    func testAnEchoLossUnderFortySixDecibelsIsARequirementFindingWithItsShortfall() throws {
        let report = try run(gainDB: -6)
        let loss = try XCTUnwrap(report.metrics.telephony?.echoLoss)
        XCTAssertEqual(loss.tclwDB, 6, accuracy: 0.1)
        let finding = try XCTUnwrap(report.findings.first { $0.rule == RequirementFindings.echoLossRule })
        XCTAssertEqual(finding.kind, .requirement)
        XCTAssertEqual(try XCTUnwrap(finding.consequenceDB), loss.tclwDB)
        XCTAssertEqual(finding.consequenceMetric, "tclw_db")
        XCTAssertTrue(finding.consequence.contains("40.0 dB short"), finding.consequence)
        XCTAssertEqual(finding.untilSeconds, 6)
        // The lint's own finding beside it keeps its kind.
        XCTAssertEqual(report.findings.first { $0.rule == "aec-disabled-with-real-devices" }?.kind, .lint)
        let json = try XCTUnwrap(report.json()["findings"]?.arrayValue?.first { $0["rule"]?.stringValue == RequirementFindings.echoLossRule })
        XCTAssertEqual(json["kind"]?.stringValue, "requirement")
    }

    func testAnEchoLossOverFortySixDecibelsHasNoFinding() throws {
        let report = try run(gainDB: -50, noiseDBFS: -120)
        let loss = try XCTUnwrap(report.metrics.telephony?.echoLoss)
        XCTAssertEqual(loss.tclwDB, 50, accuracy: 0.1)
        XCTAssertEqual(loss.meetsRequirement, true)
        XCTAssertFalse(report.findings.contains { $0.rule == RequirementFindings.echoLossRule })
    }

    func testAKindIsReadFromTheRuleName() {
        XCTAssertEqual(RunReport.Finding.Kind(rule: RequirementFindings.echoLossRule), .requirement)
        XCTAssertEqual(RunReport.Finding.Kind(rule: "mic-clipping"), .lint)
        // An echo leak while the canceller learns a new route is no app mistake: `run --strict`
        // failed a correct app on every speaker-button test.
        XCTAssertEqual(RunReport.Finding.Kind(rule: HardwareFindings.echoLeakRule), .canceller)
    }
}
