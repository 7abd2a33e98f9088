import EchoLabTestSupport
import Foundation
import XCTest

/// `eval --modes all`: every backend and intensity (21 modes) over a two-item corpus, with one
/// job and with two, gives the same eval.json but for timing. Long: 42 runs, twice.
final class EveryModeTests: XCTestCase {
    func testEveryModeGivesTheSameReportWithOneJobAndTwo() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try writeTwoItemCorpus(in: root.appendingPathComponent("corpus"))
        var reports: [String] = []
        for jobs in ["1", "2"] {
            let all = try runEchoLab(["eval", "corpus", "--modes", "all", "--out", "all\(jobs)", "--jobs", jobs, "--no-taps"], in: root)
            XCTAssertEqual(all.status, 0, all.standardError)
            XCTAssertTrue(all.standardOutput.hasPrefix("42 of 42 runs succeeded"), all.standardOutput)
            var eval = try loadJSON(root.appendingPathComponent("all\(jobs)/eval.json").path)
            XCTAssertNotNil(eval.removeValue(forKey: "timing"))
            reports.append(String(decoding: try JSONSerialization.data(withJSONObject: eval, options: [.sortedKeys]), as: UTF8.self))
        }
        XCTAssertEqual(reports[0], reports[1])
    }
}
