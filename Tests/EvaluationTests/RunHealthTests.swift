@testable import Evaluation
import XCTest

/// What eval's pages count of a run's health: faults as issues (a buffer that lost audio and any
/// number of dropped samples as one each), the lint's findings by rule, and what is said but
/// counted as neither.
final class RunHealthTests: XCTestCase {
    func testFaultsCountAsIssuesAndDroppedSamplesAsOne() {
        var summary = RunSummary(metrics: nil, findings: [], scores: nil)
        summary.hardwareStreams = .init(underruns: 3, droppedSamples: 960, nearEndCuts: 2, nearEndLostSamples: 4_800)
        let health = RunHealth(summary)
        XCTAssertEqual(health.faults, [.hardwareStreamUnderruns(3), .nearEndCuts(2), .droppedSamples(960)])
        XCTAssertEqual(health.issues, 3 + 2 + 1)
        XCTAssertEqual(health.lintFindings, 0)
        XCTAssertFalse(health.isClean)
    }

    func testARecordingsClippingIsSaidNotCounted() {
        var summary = RunSummary(metrics: nil, findings: [], scores: nil)
        summary.recordingHealth = RecordingHealth(aecResets: 2, clippedMicSamples: 17, clippedLoopbackSamples: nil)
        let health = RunHealth(summary)
        XCTAssertEqual(health.faults, [.cancellerResets(2)])
        XCTAssertEqual(health.issues, 2)
        XCTAssertTrue(health.isClipped)
        XCTAssertEqual(health.clippedSamples.map(\.stage), ["mic"])
        XCTAssertEqual(health.clippedSamples.map(\.count), [17])
    }

    /// Lint rules once each in the order first found, with their counts; the canceller's own
    /// findings and a missed requirement are not the lint's.
    func testFindingsAreSortedByWhoseTheyAre() {
        let summary = RunSummary(metrics: nil, findings: ["aec-disabled-with-real-devices", "echo-leak-after-route-change",
                                                          "mic-clipping", "aec-disabled-with-real-devices",
                                                          "echo-loss-below-ts26131"], scores: nil)
        let health = RunHealth(summary)
        XCTAssertEqual(health.lintRules.map(\.rule), ["aec-disabled-with-real-devices", "mic-clipping"])
        XCTAssertEqual(health.lintRules.map(\.count), [2, 1])
        XCTAssertEqual(health.lintFindings, 3)
        XCTAssertEqual(health.cancellerFindings, ["echo-leak-after-route-change"])
        XCTAssertEqual(health.issues, 0)
    }

    func testAFailedRunCountsNothing() {
        XCTAssertTrue(RunHealth().isClean)
        XCTAssertTrue(RunHealth(RunSummary(metrics: nil, findings: [], scores: nil)).isClean)
    }
}
