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

    /// A call that changed route: TCLw is the whole call's, over the steady half of its far-end
    /// single talk, and the finding says where that lies. Behind a wired headset the echo stays
    /// under the mic's noise (no single talk), so all of it lies on the speaker after the change at
    /// 3 s, its steady half from past the middle of the speaker's 5 s; changed at 5 s from the
    /// receiver, whose echo stands over the noise, the steady half starts before the change.
    func testAnEchoLossFindingOfARouteChangeCallSaysWhichRoutesItsFramesLieOn() throws {
        func finding(from route: String, atMilliseconds change: Int) throws -> RunReport.Finding {
            let path = try writeScenario("""
                {"name": "tclw-\(route)", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
                 "noise": {"level_dbfs": -65, "seed": 2}, "route": "\(route)", "audio_session": {}, "aec": {"mode": "disabled"},
                 "duration_s": 8, "timeline": [{"at_ms": \(change), "action": "route_change", "route": "speaker"}]}
                """, named: "tclw-\(route).json", in: folder)
            let report = try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent(route).path,
                                       taps: .none, renderer: nil).run()
            return try XCTUnwrap(report.findings.first { $0.rule == RequirementFindings.echoLossRule })
        }
        func from(_ finding: RunReport.Finding) throws -> Double {
            let match = try XCTUnwrap(finding.consequence.firstMatch(of: #/\(from ([0-9.]+) s, /#), finding.consequence)
            return try XCTUnwrap(Double(match.1))
        }
        let headset = try finding(from: "wired_headset", atMilliseconds: 3000)
        XCTAssertTrue(headset.consequence.contains(" s, on the speaker route), "), headset.consequence)
        XCTAssertTrue((4.0...6.5).contains(try from(headset)), headset.consequence)
        let receiver = try finding(from: "receiver", atMilliseconds: 5000)
        XCTAssertTrue(receiver.consequence.contains(" s, across the routes receiver, speaker), "), receiver.consequence)
        XCTAssertLessThan(try from(receiver), 5, receiver.consequence)
        // One route all call long: nothing to say.
        XCTAssertFalse(try run(gainDB: -6).findings.first { $0.rule == RequirementFindings.echoLossRule }?.consequence.contains("route") ?? true)
    }
}
