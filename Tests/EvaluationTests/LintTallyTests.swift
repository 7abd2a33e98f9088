@testable import Evaluation
import Simulation
import XCTest

/// The lint's findings as eval's lines and --strict count them.
final class LintTallyTests: XCTestCase {
    private func result(_ item: String, _ mode: String, findings: [String]) throws -> CorpusRun.Result {
        CorpusRun.Result(itemIndex: 0, item: item, file: "\(item).json", mode: try EchoControlMode(parsing: mode), folder: "\(item)/\(mode)",
                         summary: RunSummary(metrics: nil, findings: findings, scores: nil), error: nil)
    }

    /// `--modes` with `disabled` among them: that run's aec-disabled-with-real-devices is the
    /// reference the eval asked for, not the app's, so --strict does not count it; another rule
    /// in it, and the same rule where the scenario ran as written, count.
    func testStrictSparesTheReferenceRunsAecDisabledOnly() throws {
        let disabled = LintRule.aecDisabledWithRealDevices.rawValue, clipping = LintRule.micClipping.rawValue
        let results = [try result("a", "disabled", findings: [disabled]), try result("b", "disabled", findings: [disabled, clipping]),
                       try result("a", "speex:intensityRecommended", findings: [])]
        let modes = [try EchoControlMode(parsing: "disabled"), try EchoControlMode(parsing: "speex:intensityRecommended")]
        let strict = LintTally(strictlyJudging: CorpusRun.Outcome(results: results, plannedCount: 3, modes: modes, shard: nil))
        XCTAssertEqual(strict.runsWithFindings, 1)
        XCTAssertEqual(strict.rules.map(\.rule), [clipping])
        XCTAssertEqual(strict.rules.first?.runs.map(\.item), ["b"])
        // As written (no --modes), the finding is the app's.
        let asWritten = LintTally(strictlyJudging: CorpusRun.Outcome(results: results, plannedCount: 3, modes: nil, shard: nil))
        XCTAssertEqual(asWritten.runsWithFindings, 2)
        XCTAssertEqual(asWritten.rules.map(\.rule), [disabled, clipping])
        // The plain tally (eval's stdout line, eval.md's note) counts every run's.
        XCTAssertEqual(LintTally(results).runsWithFindings, 2)
    }
}
