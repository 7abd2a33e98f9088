import EchoLabTestSupport
import Foundation
import XCTest

/// A mode asked for on the command line is the whole `aec`: a scenario's own `filter_ms` is
/// replaced with it. A CI engineer set 60 ms, ran `eval --modes`, and `compare` showed no change:
/// only report.json's `aec` said the run was 200 ms. Now stderr says so, once per scenario.
final class ModeReplacesFilterTests: XCTestCase {
    func testAReplacedFilterLengthIsSaid() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let corpus = root.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        func scenario(_ name: String, filter: String) throws {
            _ = try writeScenario("""
                {"name": "\(name)", "duration_s": 1, "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
                 "echo_path": {"delay_ms": 20, "gain_db": -6}, "aec": {"backend": "speex", "mode": "intensityRecommended"\(filter)}}
                """, named: "\(name).json", in: corpus)
        }
        try scenario("short", filter: #", "filter_ms": 60"#)
        try scenario("plain", filter: "")
        let eval = try runEchoLab(["eval", "corpus", "--modes", "speex:intensityRecommended,webrtc:intensityRecommended",
                                   "--no-taps", "--out", "out"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        XCTAssertEqual(eval.standardError.split(separator: "\n").filter { $0.contains("filter_ms") },
                       ["echolab eval: warning: --modes replaces each scenario's aec, its filter_ms too: corpus/short.json sets 60 ms, not used; eval without --modes runs a scenario as written"])
        let report = try loadJSON(root.appendingPathComponent("out/short/speex-intensityRecommended/report.json").path)
        XCTAssertEqual((report["aec"] as? [String: Any])?["filter_ms"] as? Int, 200, "\(report["aec"] ?? "")")
        // A length the mode runs anyway, or a canceller that takes none, replaces nothing.
        try scenario("long", filter: #", "filter_ms": 200"#)
        let kept = try runEchoLab(["eval", "corpus/long.json", "corpus/plain.json", "--modes", "speex:intensityRecommended,webrtc:intensityRecommended",
                                   "--no-taps", "--out", "kept"], in: root)
        XCTAssertEqual(kept.status, 0, kept.standardError)
        XCTAssertFalse(kept.standardError.contains("filter_ms"), kept.standardError)
        let asWritten = try runEchoLab(["eval", "corpus", "--no-taps", "--out", "own"], in: root)
        XCTAssertEqual(asWritten.status, 0, asWritten.standardError)
        XCTAssertFalse(asWritten.standardError.contains("filter_ms"), asWritten.standardError)
        let run = try runEchoLab(["run", "corpus/short.json", "--aec", "speex:intensityMax", "--no-taps", "--out", "run"], in: root)
        XCTAssertEqual(run.status, 0, run.standardError)
        XCTAssertTrue(run.standardError.contains("echolab run: warning: --aec replaces the scenario's aec, its filter_ms too: corpus/short.json's 60 ms is not used"),
                      run.standardError)
    }
}
