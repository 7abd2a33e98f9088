import EchoLabTestSupport
import Foundation
import Evaluation
import ScenarioFiles
import Simulation
import XCTest

/// intensityAdaptive set again after a mode change: its decisions are dated in the call's time and
/// the earlier stretch's are kept. Each controller counted from its own start, and the report held
/// the last one's alone: device-transitions listed "decisions" at 2.5 and 3.0 s, inside the
/// stretch where AEC was disabled, that were taken at 7.0 and 7.5 s.
final class AdaptiveDecisionTimesTests: XCTestCase {
    func testDecisionsAcrossAModeChangeAreDatedInTheCallsTime() throws {
        let report = try runReport(ofScenario: """
            {"name": "adaptive-twice", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -65, "seed": 7}, "echo_path": {"delay_ms": 40, "gain_db": -3},
             "aec": {"mode": "intensityAdaptive", "backend": "speex"}, "duration_s": 8,
             "timeline": [{"at_ms": 3000, "action": "set_aec", "mode": "disabled"},
                          {"at_ms": 5000, "action": "set_aec", "mode": "intensityAdaptive"}]}
            """)
        let times = report.adaptiveDecisions.map { Double($0.frame) / 48_000 }
        XCTAssertFalse(times.isEmpty)
        XCTAssertTrue(times.contains { $0 < 3 }, "the first stretch's decisions are kept: \(times)")
        XCTAssertTrue(times.contains { $0 > 5 }, "the second stretch's: \(times)")
        XCTAssertFalse(times.contains { $0 > 3.01 && $0 <= 5 }, "none while AEC was disabled: \(times)")
        XCTAssertEqual(times, times.sorted(), "in order")
    }
}
