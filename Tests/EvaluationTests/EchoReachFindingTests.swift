import AudioCore
import AudioInterop
import EchoLabTestSupport
import Evaluation
import Foundation
import ScenarioFiles
import XCTest

/// `echo-delay-beyond-filter` past a canceller's nominal reach: where it never settles, its filter
/// ends before the echo begins; where it settles there after all (WebRTC's AEC, which estimates
/// the delay, on Bluetooth A2DP's 220 ms), the consequence says so and how late, and no longer
/// that the filter ends before the echo (a trial read it beside the same page's steady ≥ 29.3 dB).
final class EchoReachFindingTests: XCTestCase {
    func testACancellerThatFindsTheEchoLateIsSaidToHaveFoundIt() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 30 s of the vectors' far-end speech: the recording three times.
        let speech = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../vectors/inputs/farend_speech_16k.wav")
            .standardized.path
        let once = try AudioFileStream.readAll(path: speech, targetRate: 16_000).samples
        try SoundFileWriter.write(once + once + once, to: folder.appendingPathComponent("far.wav").path, sampleRate: 16_000)
        func run(_ backend: String) throws -> (finding: RunReport.Finding, report: RunReport) {
            let path = try writeScenario("""
                {"name": "to-a2dp", "far_end": "far.wav", "noise": {"level_dbfs": -60, "seed": 3}, "duration_s": 30, "audio_session": {},
                 "aec": {"mode": "intensityRecommended", "backend": "\(backend)"},
                 "route": "receiver", "timeline": [{"at_ms": 8000, "action": "route_change", "route": "bluetooth_a2dp"}]}
                """, named: "\(backend).json", in: folder)
            let report = try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent(backend).path,
                                       taps: .none, renderer: nil).run()
            return (try XCTUnwrap(report.findings.first { $0.rule == "echo-delay-beyond-filter" }, "\(report.findings.map(\.rule))"), report)
        }
        let webrtc = try run("webrtc")
        let a2dp = try XCTUnwrap(webrtc.report.segments.last)
        XCTAssertEqual(a2dp.startSeconds, 8)
        let steady = try XCTUnwrap(a2dp.metrics.erleSteadyDB)
        XCTAssertGreaterThanOrEqual(steady, RunEvaluator.reachedSteadyERLEDB, "it settles on the A2DP route")
        let erle = try XCTUnwrap(webrtc.finding.consequenceDB)
        XCTAssertLessThan(erle, steady - 10, "the stretch's ERLE holds the time it took")
        XCTAssertTrue(webrtc.finding.consequence.hasPrefix("echo reduced by \(FixedDecimal.text(erle, fractionDigits: 1)) dB over the stretch, but by "),
                      webrtc.finding.consequence)
        XCTAssertTrue(webrtc.finding.consequence.contains(": it removed this echo after all, late (settled "), webrtc.finding.consequence)
        XCTAssertFalse(webrtc.finding.consequence.contains("the filter ends before the echo begins"), webrtc.finding.consequence)
        // speex never settles there: its filter ends before the echo.
        let speex = try run("speex")
        XCTAssertLessThan(try XCTUnwrap(speex.report.segments.last?.metrics.erleSteadyDB), RunEvaluator.reachedSteadyERLEDB)
        XCTAssertTrue(speex.finding.consequence.hasSuffix(": the filter ends before the echo begins"), speex.finding.consequence)
    }
}
