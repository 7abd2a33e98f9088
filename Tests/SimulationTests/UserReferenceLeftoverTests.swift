import Foundation
import ScenarioFiles
import XCTest
@testable import Simulation

/// What the user AEC reference's buffer holds when the call ends is buffered, as the
/// loudspeaker's is; what a stop clears mid-call is dropped. (The mixing speaker stops the
/// reference it put when the runner lets it go after the call: its leftover read as dropped
/// samples, so fixing a missing reference failed `compare` on `user_reference.dropped`.)
final class UserReferenceLeftoverTests: XCTestCase {
    private func run(_ timeline: String) throws -> PipelineCounters {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = """
            {"name": "mixing-reference", "duration_s": 3, "aec": {"mode": "intensityRecommended"},
             "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1}, "echo_path": {"delay_ms": 40, "gain_db": -10},
             "speaker": {"device": "mixing", "music": {"generator": "music", "level_dbfs": -20}, "aec_reference": true, "period_ms": 20},
             "timeline": [\(timeline)]}
            """
        let path = folder.appendingPathComponent("scenario.json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        let scenario = try ScenarioLoader.parse(data: Data(json.utf8), file: path)
        return try ScenarioRunner(scenario: scenario, outputDirectory: folder.appendingPathComponent("out").path).run().counters
    }

    func testTheLeftoverAtTheEndIsBuffered() throws {
        let reference = try run("").userReference
        XCTAssertEqual(reference.dropped, 0)
        XCTAssertGreaterThan(reference.buffered, 0)
        XCTAssertEqual(reference.buffered, reference.primingSamples, "a period of priming is what stays unread")
        XCTAssertTrue(reference.isConserved)
    }

    /// Reset to the default speaker at 1.5 s: the mixing speaker stops its reference then, and
    /// what it had put and the canceller had not read is gone from the call.
    func testAStopMidCallDrops() throws {
        let reference = try run(#"{"at_ms": 1500, "action": "reset_custom_speaker"}"#).userReference
        XCTAssertGreaterThan(reference.dropped, 0)
        XCTAssertEqual(reference.buffered, 0)
        XCTAssertTrue(reference.isConserved)
    }
}
