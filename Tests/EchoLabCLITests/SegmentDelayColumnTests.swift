import EchoLabTestSupport
import Foundation
import Evaluation
import Reporting
import ScenarioFiles
import XCTest

/// report.html's Segments table has a "bulk delay" column only for a call that searched the delay
/// again (an echo-path change: a route, the input data source, formats granted anew, a switch to or from a pass-through mic), and the
/// Echo table's delay row then says what it holds: the first route's delay above, each segment's
/// below. A call searched once has one delay, the call's: no column, and nothing said of one.
final class SegmentDelayColumnTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws { folder = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    /// An 8 s speech call on the receiver with speex and `timeline`, run with the pages written:
    /// its report and report.html.
    private func run(_ timeline: String, named name: String) throws -> (report: RunReport, html: String) {
        let path = try writeScenario("""
            {"name": "\(name)", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -65, "seed": 2}, "route": "receiver", "audio_session": {},
             "aec": {"backend": "speex", "mode": "intensityRecommended"}, "duration_s": 8, "timeline": \(timeline)}
            """, named: "\(name).json", in: folder)
        let out = folder.appendingPathComponent(name)
        let report = try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: out.path, taps: .none,
                                   renderer: ReportPages()).run()
        return (report, try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8))
    }

    /// The Segments table of `html` (the one whose header starts "from", "to", "opened by"): its
    /// header and its rows' cells, as the page prints them.
    private func segmentTable(_ html: String) throws -> (header: [String], rows: [[String]]) {
        let start = try XCTUnwrap(html.range(of: "<table><thead><tr><th>from</th><th>to</th><th>opened by</th>"), "no segment table")
        let end = try XCTUnwrap(html[start.lowerBound...].range(of: "</table>"))
        let table = html[start.lowerBound..<end.lowerBound]
        let header = table.matches(of: #/<th>([^<]*)</th>/#).map { String($0.1) }
        let rows = table.matches(of: #/<tr>(.*?)</tr>/#).dropFirst().map { row in
            row.1.matches(of: #/<td[^>]*>(.*?)</td>/#).map { String($0.1) }
        }
        return (header, rows)
    }

    /// The Echo table's delay row's label.
    private func delayLabel(_ html: String) throws -> String {
        try XCTUnwrap(html.firstMatch(of: #/<tr><td>(bulk delay reference→mic[^<]*)</td>/#).map { String($0.1) }, "no delay row")
    }

    /// Receiver → speaker at 4 s: the delay is searched again, each segment has its own — the
    /// route's path (receiver 1 ms, speaker 2 ms) behind the hardware's 40 ms — and the page has
    /// a column of them, last in the table, and says above that they are each segment's.
    func testACallThatSearchedTheDelayAgainHasTheColumnAndSaysWhatItHolds() throws {
        let (report, html) = try run(#"[{"at_ms": 4000, "action": "route_change", "route": "speaker"}]"#, named: "searched-again")
        XCTAssertEqual(report.segments.map(\.metrics.hasOwnDelay), [true, true])
        let delays = try report.segments.map { try XCTUnwrap($0.metrics.delayMilliseconds) }
        XCTAssertEqual(delays[0], 41, accuracy: 0.05)
        XCTAssertEqual(delays[1], 42, accuracy: 0.05)
        let table = try segmentTable(html)
        XCTAssertEqual(table.header.last, "bulk delay")
        XCTAssertEqual(table.header.dropLast().last, "clicks at start")
        XCTAssertEqual(table.rows.count, 2)
        XCTAssertEqual(table.rows.map(\.count), [table.header.count, table.header.count])
        XCTAssertEqual(table.rows.map { $0.last }, ["41.00 ms", "42.00 ms"])
        XCTAssertEqual(try delayLabel(html),
                       "bulk delay reference→mic (the first that has one; searched again after each change of route, input or formats and each switch to or from a pass-through mic: each segment's below)")
    }

    /// Searched once: a "change" to the route in use changes no path, and an interruption on one
    /// route rebuilds the streams but not the room. Each call still has segments, but one delay:
    /// no column, and the delay row says nothing of segments.
    func testACallSearchedOnceHasNoColumn() throws {
        for (name, timeline) in [("same-route", #"[{"at_ms": 4000, "action": "route_change", "route": "receiver"}]"#),
                                 ("interrupted", #"[{"at_ms": 3000, "action": "interruption_begin"}, {"at_ms": 4000, "action": "interruption_end"}]"#)] {
            let (report, html) = try run(timeline, named: name)
            XCTAssertGreaterThan(report.segments.count, 1, name)
            XCTAssertFalse(report.segments.contains { $0.metrics.hasOwnDelay }, name)
            XCTAssertEqual(try XCTUnwrap(report.metrics.delayMilliseconds), 41, accuracy: 0.05, name)
            let table = try segmentTable(html)
            XCTAssertFalse(table.header.contains("bulk delay"), "\(name): \(table.header)")
            XCTAssertEqual(table.header.last, "clicks at start", name)
            XCTAssertTrue(table.rows.allSatisfy { $0.count == table.header.count }, name)
            XCTAssertEqual(try delayLabel(html), "bulk delay reference→mic", name)
        }
    }
}
