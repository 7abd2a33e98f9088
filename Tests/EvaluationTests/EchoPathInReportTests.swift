import AudioInterop
import EchoLabTestSupport
import Foundation
import Evaluation
@testable import Reporting
import ScenarioFiles
import Simulation
import XCTest

/// A run's report says the echo path its room applied: the ERL is read against it, and a reader
/// of report.json or report.md alone saw an ERL of 6 dB with nothing to hold it against.
final class EchoPathInReportTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws { folder = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func run(_ text: String, named name: String) throws -> RunReport {
        let path = try writeScenario(text, named: "\(name).json", in: folder)
        return try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent(name).path,
                             taps: .none, renderer: nil).run()
    }

    func testTheEchoPathIsInReportJSONAndOnThePage() throws {
        let report = try run("""
            {"name": "room", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "echo_path": {"delay_ms": 40, "gain_db": -6, "clip_dbfs": -12, "synthetic_room": {"rt60_ms": 300, "seed": 4}},
             "aec": {"mode": "disabled"}, "duration_s": 2}
            """, named: "room")
        // In the scenario's own format: what a scenario holds, it reads back.
        XCTAssertEqual(report.json()["echo_path"], .object(["delay_ms": .number(40), "gain_db": .number(-6), "clip_dbfs": .number(-12),
                                                              "synthetic_room": .object(["rt60_ms": .number(300), "seed": .number(4)])]))
        let header = RunReportDocument.echoPathSpans(report)
        XCTAssertEqual(header, [.text(" · echo path 40.0 ms, -6.0 dB, synthetic room RT60 300 ms, loudspeaker clipped at -12.0 dBFS")])
    }

    /// A response file is named relative to the scenario's folder, as the scenario names it: a
    /// report does not depend on where the corpus was checked out.
    func testAResponseFileIsNamedAsTheScenarioNamesIt() throws {
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("rooms"), withIntermediateDirectories: true)
        try SoundFileWriter.write([1, 0.5, 0.25], to: folder.appendingPathComponent("rooms/ir.wav").path, sampleRate: 48_000)
        let report = try run("""
            {"name": "file", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "echo_path": {"delay_ms": 20, "impulse_response": "rooms/ir.wav"}, "aec": {"mode": "disabled"}, "duration_s": 1}
            """, named: "file")
        XCTAssertEqual(report.json()["echo_path"], .object(["delay_ms": .number(20), "impulse_response": .string("rooms/ir.wav")]))
        XCTAssertEqual(RunReportDocument.echoPathSpans(report), [.text(" · echo path 20.0 ms, 0.0 dB, room response rooms/ir.wav")])
        // Reached through "..", as a manifest's "../scenes/x.json" reaches it: still relative (it
        // was the whole path).
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("other"), withIntermediateDirectories: true)
        let throughParent = folder.appendingPathComponent("other/../file.json").path
        let again = try RunOutput(scenario: ScenarioLoader.load(path: throughParent), outputDirectory: folder.appendingPathComponent("again").path,
                                  taps: .none, renderer: nil).run()
        XCTAssertEqual(again.json()["echo_path"]?["impulse_response"], .string("rooms/ir.wav"))
    }

    /// The first line of report.md says it, where a reader looks for the call's conditions.
    func testThePageSaysIt() throws {
        let path = try writeScenario("""
            {"name": "page", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "echo_path": {"delay_ms": 40, "gain_db": -6}, "aec": {"mode": "disabled"}, "duration_s": 1}
            """, named: "page.json", in: folder)
        _ = try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent("page").path,
                          taps: .none, renderer: ReportPages()).run()
        let page = try String(contentsOf: folder.appendingPathComponent("page/report.md"), encoding: .utf8)
        XCTAssertTrue(page.contains(" s at 48000 Hz · echo path 40.0 ms, -6.0 dB · AEC `disabled`"), String(page.prefix(400)))
    }

    /// A call app code drives by hand reports the room of its world (it reported 0 ms and 0 dB).
    func testAHandDrivenCallReportsItsWorldsPath() throws {
        let world = CallWorld(farEnd: .generator(.whiteNoise(levelDBFS: -20), seed: 1), echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -6))
        let call = try SimulatedCall(world: world, voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .disabled), recordsTaps: false)
        let meter = try CallMeter(call: call)
        try call.start()
        try call.run(for: .seconds(2))
        let report = try meter.finish()
        XCTAssertEqual(report.json()["echo_path"], .object(["delay_ms": .number(40), "gain_db": .number(-6)]))
        XCTAssertEqual(try XCTUnwrap(report.metrics.erlDB), 6, accuracy: 0.1)
    }

    /// A route brings its own path (the hardware section names it): null, and nothing on the page.
    func testARouteLeavesTheEchoPathNull() throws {
        let report = try run("""
            {"name": "routed", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "route": "speaker", "audio_session": {}, "aec": {"mode": "disabled"}, "duration_s": 1}
            """, named: "routed")
        XCTAssertNil(report.echoPath)
        XCTAssertEqual(report.json()["echo_path"], .null)
        XCTAssertEqual(RunReportDocument.echoPathSpans(report), [])
    }
}

/// The delay is searched again at a switch to or from a pass-through mic (whose buffering puts
/// the canceller's input later), as after a route change: the page says so beside the call's
/// delay, and each segment has its own; a call on one source throughout says nothing.
final class DelayCaveatTests: XCTestCase {
    private func delayRow(_ mic: String, timeline: String) throws -> String {
        let report = try runReport(ofScenario: """
            {"name": "switch", "duration_s": 8, "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -65, "seed": 3}, "echo_path": {"delay_ms": 40, "gain_db": -6},
             "aec": {"mode": "disabled"}\(mic), "timeline": \(timeline)}
            """)
        let markdown = MarkdownReport.render(report)
        return try XCTUnwrap(markdown.split(separator: "\n").first { $0.hasPrefix("| bulk delay reference→mic") }.map(String.init), markdown)
    }

    func testASwitchToOrFromAPassThroughMicIsSaidBesideTheDelay() throws {
        let caveat = "| bulk delay reference→mic (the first that has one; searched again after each change of route, input or formats and each switch to or from a pass-through mic: each segment's below) | 40.00 ms |"
        XCTAssertEqual(try delayRow("", timeline: #"[{"at_ms": 5000, "action": "set_custom_mic", "device": "passthrough"}]"#), caveat)
        XCTAssertEqual(try delayRow(#", "mic": {"device": "passthrough"}"#, timeline: #"[{"at_ms": 5000, "action": "reset_custom_mic"}]"#),
                       caveat.replacingOccurrences(of: "40.00", with: "90.00"))
        XCTAssertEqual(try delayRow(#", "mic": {"device": "passthrough"}"#, timeline: "[]"), "| bulk delay reference→mic | 90.00 ms |",
                       "one source throughout: its delay is the call's")
    }
}

/// The call's convergence counts from its start as sent: across a mic switch, whose canceller
/// converges again, it read 8.5 s beside segments settled in 1 and 2 s, and a new user took it for
/// the canceller's. Where the call has segments the row says whose it is and where theirs are.
final class ConvergencePointerTests: XCTestCase {
    private func convergenceRow(timeline: String) throws -> String {
        let report = try runReport(ofScenario: """
            {"name": "switch", "duration_s": 6, "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -65, "seed": 3}, "echo_path": {"delay_ms": 40, "gain_db": -6}, "timeline": \(timeline)}
            """)
        let markdown = MarkdownReport.render(report)
        return try XCTUnwrap(markdown.split(separator: "\n").first { $0.hasPrefix("| convergence") }.map(String.init), markdown)
    }

    func testTheRowSaysWhoseConvergenceItIsWhereSegmentsHaveTheirOwn() throws {
        XCTAssertTrue(try convergenceRow(timeline: #"[{"at_ms": 3000, "action": "set_custom_mic", "device": "passthrough"}]"#)
            .hasPrefix("| convergence (the whole call's, from its start; each segment's under Segments) |"))
        XCTAssertTrue(try convergenceRow(timeline: "[]").hasPrefix("| convergence | "))
    }
}
