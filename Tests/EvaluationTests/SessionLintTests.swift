import EchoLabTestSupport
import Foundation
import Evaluation
import Reporting
import ScenarioFiles
import Simulation
import XCTest

/// The session lifecycle: audio flows only while the session is active, not interrupted and (in
/// manual audio) enabled; each session lint rule fires on a scenario built to break it and stays
/// quiet on its fixed twin.
final class SessionLintTests: XCTestCase {
    private static let base = """
        "name": "session", "duration_s": 5, "near_end": {"generator": "speech", "level_dbfs": -20, "seed": 2},
        "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 3, "pitch_hz": 200}, "route": "speaker"
        """

    private func report(_ json: String) throws -> RunReport {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeScenario("{" + Self.base + ", " + json + "}", in: folder)
        return try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent("out").path,
                             taps: .none, renderer: nil).run()
    }

    private func meanSquare(_ x: ArraySlice<Float>) -> Double {
        x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, x.count))
    }

    private func rules(_ report: RunReport) -> [String] { report.findings.map(\.rule) }

    /// Sent audio is exact silence before activation and during an interruption, and the
    /// samples are counted by cause.
    func testSentIsSilentWhileInactiveOrInterrupted() throws {
        let scenario = try ScenarioLoader.parse(data: Data("""
            {\(Self.base), "audio_session": {"active_at_start": false, "manual_audio": true},
             "timeline": [{"at_ms": 1000, "action": "activate_session"}, {"at_ms": 1000, "action": "set_audio_enabled", "enabled": true},
                          {"at_ms": 3000, "action": "interruption_begin"}, {"at_ms": 4000, "action": "interruption_end"}]}
            """.utf8), file: "/tmp/session.json")
        let run = try ScenarioRunner(scenario: scenario).run()
        let sent = run.recording.sent
        XCTAssertTrue(sent[0..<48_000].allSatisfy { $0 == 0 })
        XCTAssertTrue(sent[144_000..<192_000].allSatisfy { $0 == 0 })
        XCTAssertGreaterThan(meanSquare(sent[60_000..<144_000]), 1e-5)   // audio flows in between
        XCTAssertGreaterThan(meanSquare(sent[200_000..<240_000]), 1e-5)  // and after the interruption
        let session = try XCTUnwrap(run.hardware?.session)
        XCTAssertEqual(session.captureSilenced[.inactive], 48_000)
        XCTAssertEqual(session.captureSilenced[.interrupted], 48_000)
        XCTAssertEqual(session.playoutDropped[.inactive], 48_000)
        XCTAssertEqual(session.playoutDropped[.interrupted], 48_000)
    }

    func testAudioBeforeActivation() throws {
        let broken = try report("""
            "audio_session": {"active_at_start": false}, "timeline": [{"at_ms": 2000, "action": "activate_session"}]
            """)
        let finding = try XCTUnwrap(broken.findings.first { $0.rule == "audio-before-activation" })
        XCTAssertEqual(finding.atSeconds, 0)
        XCTAssertEqual(finding.untilSeconds, 2)
        XCTAssertTrue(finding.consequence.hasPrefix("96000 samples (2.0 s)"), finding.consequence)
        XCTAssertEqual(broken.hardware?.session.captureSilenced[.inactive], 96_000)
        let fixed = try report("""
            "audio_session": {"active_at_start": false, "manual_audio": true},
            "timeline": [{"at_ms": 2000, "action": "activate_session"}, {"at_ms": 2000, "action": "set_audio_enabled", "enabled": true}]
            """)
        XCTAssertFalse(rules(fixed).contains("audio-before-activation"), "\(rules(fixed))")
    }

    func testPreferencesChangedWhileActive() throws {
        let broken = try report("""
            "audio_session": {"preferred_sample_rate": 48000, "preferred_io_buffer_duration_s": 0.01},
            "timeline": [{"at_ms": 1000, "action": "set_preferred", "sample_rate": 16000, "io_buffer_duration_s": 0.02}]
            """)
        let finding = try XCTUnwrap(broken.findings.first { $0.rule == "preferences-changed-while-active" })
        XCTAssertEqual(finding.atSeconds, 1)
        XCTAssertEqual(finding.untilSeconds, 5)
        XCTAssertEqual(broken.hardware?.segments.map(\.input), [HardwareFormat(sampleRate: 48_000, ioBufferFrames: 512)])
        let fixed = try report("""
            "audio_session": {"preferred_sample_rate": 48000, "preferred_io_buffer_duration_s": 0.01},
            "timeline": [{"at_ms": 1000, "action": "deactivate_session"},
                         {"at_ms": 1000, "action": "set_preferred", "sample_rate": 16000, "io_buffer_duration_s": 0.02},
                         {"at_ms": 1100, "action": "activate_session"}]
            """)
        XCTAssertFalse(rules(fixed).contains("preferences-changed-while-active"), "\(rules(fixed))")
        // Deactivate, prefer, activate: the new format is granted at the activation.
        XCTAssertEqual(fixed.hardware?.segments.map(\.input), [HardwareFormat(sampleRate: 48_000, ioBufferFrames: 512),
                                                               HardwareFormat(sampleRate: 16_000, ioBufferFrames: 256)])
        XCTAssertEqual(fixed.hardware?.segments.last?.startFrame, 52_800)
    }

    func testRouteResetAfterConnect() throws {
        let broken = try report("""
            "audio_session": {"active_at_start": false},
            "timeline": [{"at_ms": 500, "action": "route_change", "route": "speaker"}, {"at_ms": 1000, "action": "activate_session"}]
            """)
        let finding = try XCTUnwrap(broken.findings.first { $0.rule == "route-reset-after-connect" })
        XCTAssertEqual(finding.atSeconds, 1)
        XCTAssertEqual(broken.hardware?.segments.map(\.route), ["speaker", "speaker", "receiver"])
        // On the receiver the echo (about −55 dBFS) never stands above what else the mic holds
        // (the near talker's quiet tails, −50 dBFS and under): no ERL is claimed for it.
        XCTAssertNil(finding.consequenceDB)
        XCTAssertEqual(finding.consequence, "the call ran on the receiver for 4.0 s instead of the speaker the user chose")
        let fixed = try report("""
            "audio_session": {"active_at_start": false, "manual_audio": true},
            "timeline": [{"at_ms": 500, "action": "route_change", "route": "speaker"}, {"at_ms": 1000, "action": "activate_session"},
                         {"at_ms": 1000, "action": "set_audio_enabled", "enabled": true}]
            """)
        XCTAssertFalse(rules(fixed).contains("route-reset-after-connect"), "\(rules(fixed))")
        XCTAssertEqual(fixed.hardware?.segments.last?.route, "speaker")
    }

    func testDeactivatedWithCustomDevice() throws {
        let mic = #""mic": {"device": "generator", "signal": "tone", "level_dbfs": -20, "frequency_hz": 440}"#
        let broken = try report(mic + """
            , "aec": {"mode": "disabled"},
            "timeline": [{"at_ms": 2000, "action": "deactivate_session"}, {"at_ms": 3000, "action": "activate_session"}]
            """)
        let finding = try XCTUnwrap(broken.findings.first { $0.rule == "deactivated-with-custom-device" })
        XCTAssertEqual(finding.atSeconds, 2)
        XCTAssertEqual(finding.untilSeconds, 3)
        XCTAssertEqual(broken.hardware?.session.customMicFramesDiscarded, 48_000)
        let fixed = try report(mic + """
            , "aec": {"mode": "disabled"},
            "timeline": [{"at_ms": 2000, "action": "reset_custom_mic"}, {"at_ms": 2000, "action": "deactivate_session"},
                         {"at_ms": 3000, "action": "activate_session"}]
            """)
        XCTAssertFalse(rules(fixed).contains("deactivated-with-custom-device"), "\(rules(fixed))")
    }
}
