import AudioCore
import EchoLabTestSupport
import Evaluation
import Foundation
import ScenarioFiles
import XCTest

/// AEC disabled over a call that moves from the earpiece to the loudspeaker: the peer hears
/// itself as loud as the loudspeaker's echo, not as a pooled ERL of both routes says.
final class AECOffFindingRouteTests: XCTestCase {
    func testTheFindingMeasuresTheRouteWhereTheEchoIsLoudest() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeScenario("""
            {"name": "routes", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1}, "route": "receiver",
             "noise": {"level_dbfs": -70, "seed": 3}, "aec": {"mode": "disabled"}, "duration_s": 8,
             "timeline": [{"at_ms": 4000, "action": "route_change", "route": "speaker"}]}
            """, in: folder)
        let report = try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent("out").path,
                                   taps: .none, renderer: nil).run()
        let finding = try XCTUnwrap(report.findings.first { $0.rule == "aec-disabled-with-real-devices" })
        let speaker = try XCTUnwrap(report.segments.last)
        XCTAssertEqual(speaker.startSeconds, 4)
        let speakerERL = try XCTUnwrap(speaker.metrics.erlDB), receiverERL = try XCTUnwrap(report.segments.first?.metrics.erlDB)
        XCTAssertLessThan(speakerERL + 10, receiverERL, "the loudspeaker's echo is far louder")
        XCTAssertEqual(try XCTUnwrap(finding.consequenceDB), speakerERL, accuracy: 1e-9)
        XCTAssertLessThan(speakerERL, try XCTUnwrap(report.metrics.erlDB), "the call's pooled ERL reads the echo quieter")
        XCTAssertEqual(finding.consequence, "nothing removes the echo: the peer hears itself \(FixedDecimal.text(speakerERL, fractionDigits: 1)) dB down "
                       + "on the speaker route (4.0–8.0 s)")
    }

    /// A finding within one route's stretch, after a route change, is that route's figure, unnamed
    /// (the routes before it are no part of it).
    func testAFindingOnOneRouteIsMeasuredThere() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeScenario("""
            {"name": "late", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1}, "route": "receiver",
             "noise": {"level_dbfs": -70, "seed": 3}, "aec": {"mode": "intensityRecommended", "backend": "speex"}, "duration_s": 10,
             "timeline": [{"at_ms": 3000, "action": "route_change", "route": "speaker"},
                          {"at_ms": 6000, "action": "set_aec", "mode": "disabled"}]}
            """, in: folder)
        let report = try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent("out").path,
                                   taps: .none, renderer: nil).run()
        let finding = try XCTUnwrap(report.findings.first { $0.rule == "aec-disabled-with-real-devices" })
        XCTAssertEqual(finding.atSeconds, 6)
        let off = try XCTUnwrap(report.segments.last)
        XCTAssertEqual(off.startSeconds, 6)
        XCTAssertEqual(try XCTUnwrap(finding.consequenceDB), try XCTUnwrap(off.metrics.erlDB), accuracy: 1e-9)
        XCTAssertFalse(finding.consequence.contains("route"), finding.consequence)
    }
}
