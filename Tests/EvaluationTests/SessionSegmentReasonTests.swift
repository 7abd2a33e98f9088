import EchoLabTestSupport
import Foundation
import Evaluation
import ScenarioFiles
import Simulation
import XCTest

/// A segment in which no audio flowed (the session inactive or interrupted) says so as its reason,
/// not the generic "no far-end single talk … the far end silent or under −50 dBFS".
final class SessionSegmentReasonTests: XCTestCase {
    func testASegmentWithoutAudioSaysSo() throws {
        let report = try runReport(ofScenario: """
            {"name": "session", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -70, "seed": 7}, "duration_s": 6, "route": "speaker",
             "audio_session": {"active_at_start": false},
             "timeline": [{"at_ms": 1000, "action": "activate_session"}, {"at_ms": 3000, "action": "interruption_begin"},
                          {"at_ms": 4000, "action": "interruption_end"}]}
            """)
        XCTAssertEqual(report.segments.map(\.startSeconds), [0, 1, 3, 4])
        let silent = "no audio flowed in the segment (the session inactive or interrupted, or its audio disabled): nothing was played or captured"
        XCTAssertEqual(report.segments[0].echoUnmeasuredReason, silent)
        XCTAssertEqual(report.segments[2].echoUnmeasuredReason, silent)
        for index in [1, 3] {
            XCTAssertNil(report.segments[index].echoUnmeasuredReason, "segment \(index) has its figures")
            XCTAssertNotNil(report.segments[index].metrics.erlDB)
        }
    }
}
