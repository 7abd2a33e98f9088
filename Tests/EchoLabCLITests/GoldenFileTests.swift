import EchoLabTestSupport
import Foundation
import XCTest

/// vectors/golden.json as people edit it: checked before anything runs.
final class GoldenFileTests: XCTestCase {
    /// A hand-edited golden.json is checked before anything runs: a string for a number, a
    /// negative tolerance or a misspelt key is an error naming the key (exit 1), not a
    /// difference (exit 3) or an expectation silently never read.
    func testAMalformedGoldenFileIsAnErrorNamingTheKey() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("scenarios"), withIntermediateDirectories: true)
        let cases: [(String, String)] = [
            (#"{"x": {"metrics": {"erl_db": {"value": "abc", "tolerance": 0.05}}}}"#, "scenarios.x.metrics.erl_db.value: expected a number or null, found a string"),
            (#"{"x": {"metrics": {"erl_db": {"value": 9.6, "tolerance": -1}}}}"#, "scenarios.x.metrics.erl_db.tolerance: -1.0 is negative"),
            (#"{"x": {"metrics": {"erl_dB": {"value": 9.6}}}}"#, "scenarios.x.metrics.erl_dB: unknown metric (erl_db, erle_db, erle_steady_db, convergence_s, delay_ms)"),
            (#"{"x": {"finding": []}}"#, "scenarios.x.finding: unknown key (an entry has findings, hardware, metrics, pipeline, taps_sha256)"),
            (#"{"x": {"findings": "aec-on-custom-mic"}}"#, "scenarios.x.findings: expected an array of rule names, found a string"),
        ]
        for (scenarios, problem) in cases {
            let golden = root.appendingPathComponent("golden.json")
            try Data(#"{"schema": "echolab.golden/1", "scenarios": \#(scenarios)}"#.utf8).write(to: golden)
            let result = try runEchoLab(["vectors", "verify", "--vectors", root.path])
            XCTAssertEqual(result.status, 1, scenarios)
            XCTAssertEqual(result.standardError, "echolab: \(golden.path): \(problem)\n")
        }
    }

    /// A finding list that differs is shown both ways, each on one line: what the run found and
    /// what golden.json expects (only the first was printed, with the JSON's indentation).
    func testDifferingFindingsShowWhatWasFoundAndWhatWasExpected() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let scenarios = root.appendingPathComponent("scenarios")
        try FileManager.default.createDirectory(at: scenarios, withIntermediateDirectories: true)
        try Data(#"{"name": "g", "far_end": {"generator": "speech"}, "duration_s": 1}"#.utf8)
            .write(to: scenarios.appendingPathComponent("g.json"))
        XCTAssertEqual(try runEchoLab(["vectors", "bless", "--vectors", root.path]).status, 0)
        let golden = root.appendingPathComponent("golden.json")
        var document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: golden)) as? [String: Any])
        var scenarioEntries = try XCTUnwrap(document["scenarios"] as? [String: Any])
        var entry = try XCTUnwrap(scenarioEntries["g"] as? [String: Any])
        let found = try XCTUnwrap(entry["findings"] as? [String])
        entry["findings"] = ["mic-clipping"]
        scenarioEntries["g"] = entry
        document["scenarios"] = scenarioEntries
        try JSONSerialization.data(withJSONObject: document).write(to: golden)
        let result = try runEchoLab(["vectors", "verify", "--vectors", root.path])
        XCTAssertEqual(result.status, 3)
        let got = "[ " + found.map { "\"\($0)\"" }.joined(separator: ", ") + " ]"
        XCTAssertTrue(result.standardError.contains("findings differ from golden: got \(got), golden has [ \"mic-clipping\" ]\n"),
                      result.standardError)
    }
}
