import EchoLabTestSupport
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest

/// The gate judges what the lint and the segments see, through the binary: a run that gained a
/// finding fails and the rule is named, a finding that went away is an improvement, a segment that
/// lost echo removal fails even when the call's average hides it; `--junit` writes the verdict as
/// JUnit XML, one test case per item × mode.
final class GateSeesLintAndSegmentsTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// One scenario named `app-call` in folder `name`, evaluated into `name-out`: a device-mic call
    /// with AEC on; `mic` replaces its microphone from the start.
    private func eval(_ name: String, mic: String? = nil, timeline: String = "[]") throws -> String {
        let corpus = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        _ = try writeScenario("""
            {"name": "app-call", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "noise": {"level_dbfs": -65, "seed": 2}, "echo_path": {"delay_ms": 30, "gain_db": -6},
             \(mic.map { "\"mic\": \($0)," } ?? "")
             "aec": {"mode": "intensityRecommended", "backend": "speex"}, "timeline": \(timeline), "duration_s": 6}
            """, in: corpus)
        let result = try runEchoLab(["eval", name, "--out", "\(name)-out", "--no-taps"], in: root)
        XCTAssertEqual(result.status, 0, result.standardError)
        return "\(name)-out/eval.json"
    }

    func testARunThatGainedALintFindingFailsAndTheRuleIsNamed() throws {
        let baseline = try eval("device-mic")
        // The app's own mistake: a generated source as the mic with the canceller on.
        let current = try eval("generator-mic", mic: #"{"device": "generator", "signal": "tone", "level_dbfs": -20, "frequency_hz": 440}"#)
        let findings = try XCTUnwrap(((loadJSON(path(current))["items"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])?.first?["findings"] as? [String])
        XCTAssertEqual(findings, ["aec-on-non-microphone-source"])

        let failing = try runEchoLab(["compare", baseline, current, "--junit", "gate.xml"], in: root)
        XCTAssertEqual(failing.status, 1, failing.standardOutput + failing.standardError)
        XCTAssertTrue(failing.standardOutput.contains("| app-call | speex:intensityRecommended | finding aec-on-non-microphone-source | 0 | 1 | +1 |"),
                      failing.standardOutput)
        let junit = try String(contentsOfFile: path("gate.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains("finding aec-on-non-microphone-source: 0 → 1 (+1)"), junit)
        XCTAssertTrue(junit.contains(#"failures="1""#), junit)

        // Fixed the other way round: an improvement, and the gate passes.
        let fixed = try runEchoLab(["compare", current, baseline], in: root)
        XCTAssertEqual(fixed.status, 0, fixed.standardOutput)
        XCTAssertTrue(fixed.standardOutput.contains("## Improvements"), fixed.standardOutput)
        XCTAssertTrue(fixed.standardOutput.contains("finding aec-on-non-microphone-source | 1 | 0 | -1 |"), fixed.standardOutput)
    }

    func testASegmentThatLostEchoRemovalFailsWhileTheCallsAverageHolds() throws {
        // AEC off for one second in the middle: a segment of its own.
        let baseline = try eval("calls", timeline: #"[{"at_ms": 2000, "action": "set_aec", "mode": "disabled"}, {"at_ms": 3000, "action": "set_aec", "mode": "intensityRecommended"}]"#)
        var document = try loadJSON(path(baseline))
        var items = document["items"] as! [[String: Any]]
        var results = items[0]["results"] as! [[String: Any]]
        var segments = try XCTUnwrap(results[0]["segments"] as? [[String: Any]])
        XCTAssertEqual(segments.map { $0["start_s"] as? Double }, [0, 2, 3])
        XCTAssertEqual(segments[1]["events"] as? [String], ["set_aec disabled"])
        XCTAssertNotNil(segments[2]["single_talk_analysis_frames"] as? Int)
        let steady = try XCTUnwrap(segments[2]["erle_steady_db"] as? Double)
        segments[2]["erle_steady_db"] = steady - 3
        results[0]["segments"] = segments
        items[0]["results"] = results
        document["items"] = items
        try JSONSerialization.data(withJSONObject: document).write(to: root.appendingPathComponent("worse.json"))

        let failing = try runEchoLab(["compare", baseline, "worse.json", "--max-regression-db", "1"], in: root)
        XCTAssertEqual(failing.status, 1, failing.standardOutput + failing.standardError)
        XCTAssertTrue(failing.standardOutput.contains("| segment 3 at 3.00 s (set_aec intensityRecommended): erle_steady_db | \(String(format: "%.2f dB", steady))"),
                      failing.standardOutput)
        XCTAssertTrue(failing.standardOutput.contains("**1 regression.**"), failing.standardOutput)
        XCTAssertEqual(try runEchoLab(["compare", baseline, "worse.json", "--max-regression-db", "3.5"], in: root).status, 0)

        // A stretch the current call no longer has fails: the gate must not pass on less work.
        segments.removeLast()
        results[0]["segments"] = segments
        items[0]["results"] = results
        document["items"] = items
        try JSONSerialization.data(withJSONObject: document).write(to: root.appendingPathComponent("fewer.json"))
        let fewer = try runEchoLab(["compare", baseline, "fewer.json"], in: root)
        XCTAssertEqual(fewer.status, 1, fewer.standardOutput)
        XCTAssertTrue(fewer.standardOutput.contains("| segment 3 at 3.00 s (set_aec intensityRecommended) | ran | missing | — |"), fewer.standardOutput)
    }

    /// Every run is a test case; a missing one fails, a new one is skipped; names from the files
    /// compared are escaped so the XML stays well-formed.
    func testJUnitListsEveryRunAndStaysWellFormed() throws {
        let baseline = try eval("plain")
        var document = try loadJSON(path(baseline))
        var items = document["items"] as! [[String: Any]]
        var renamed = items[0]
        renamed["name"] = #"odd <&> "name""#
        renamed["index"] = 1
        var results = renamed["results"] as! [[String: Any]]
        results[0]["folder"] = "odd/speex-intensityRecommended"
        renamed["results"] = results
        items.append(renamed)
        document["items"] = items
        document["planned"] = 2
        try JSONSerialization.data(withJSONObject: document).write(to: root.appendingPathComponent("more.json"))

        let added = try runEchoLab(["compare", baseline, "more.json", "--junit", "added.xml"], in: root)
        XCTAssertEqual(added.status, 0, added.standardOutput + added.standardError)
        let parsed = try JUnitCounts(path("added.xml"))
        XCTAssertEqual(parsed.cases, [#"app-call speex:intensityRecommended"#, #"odd <&> "name" speex:intensityRecommended"#])
        XCTAssertEqual(parsed.failures, 0)
        XCTAssertEqual(parsed.skipped, 1)

        let missing = try runEchoLab(["compare", "more.json", baseline, "--junit", "missing.xml"], in: root)
        XCTAssertEqual(missing.status, 1, missing.standardOutput)
        let failed = try JUnitCounts(path("missing.xml"))
        XCTAssertEqual(failed.failures, 1)
        XCTAssertEqual(failed.failureMessages, [#"1 regression: run: ran → missing"#])

        let same = try runEchoLab(["compare", baseline, baseline, "--junit", "x.md", "--markdown", "./x.md"], in: root)
        XCTAssertEqual(same.status, 64, same.standardOutput)
        XCTAssertTrue(same.standardError.contains("given to both --markdown and --junit"), same.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.md")))
    }
}

/// A JUnit file read back with Foundation's XML parser: its test cases (class and name) and
/// the failures and skips in them.
private final class JUnitCounts: NSObject, XMLParserDelegate {
    var cases: [String] = []
    var failures = 0
    var skipped = 0
    var failureMessages: [String] = []

    init(_ path: String) throws {
        super.init()
        let parser = try XCTUnwrap(XMLParser(contentsOf: URL(fileURLWithPath: path)))
        parser.delegate = self
        XCTAssertTrue(parser.parse(), "\(path): \(parser.parserError.map { "\($0)" } ?? "not well-formed")")
    }

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch element {
        case "testcase": cases.append("\(attributes["classname"] ?? "") \(attributes["name"] ?? "")")
        case "failure": failures += 1; failureMessages.append(attributes["message"] ?? "")
        case "skipped": skipped += 1
        default: break
        }
    }
}
