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
        try runReport(ofScenario: "{" + Self.base + ", " + json + "}")
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
        XCTAssertTrue(finding.consequence.hasPrefix("the engine ran 2.0 s (96000 samples) on a session not yet activated"), finding.consequence)
        XCTAssertEqual(broken.hardware?.session.captureSilenced[.inactive], 96_000)
        XCTAssertTrue(finding.message.hasSuffix(": use manual audio (useManualAudio = true) and set isAudioEnabled only in provider(_:didActivate:)"),
                      finding.message)
        let fixed = try report("""
            "audio_session": {"active_at_start": false, "manual_audio": true},
            "timeline": [{"at_ms": 2000, "action": "activate_session"}, {"at_ms": 2000, "action": "set_audio_enabled", "enabled": true}]
            """)
        XCTAssertFalse(rules(fixed).contains("audio-before-activation"), "\(rules(fixed))")
    }

    /// The trial's s-aba-enabled-early: manual audio already, isAudioEnabled set before the
    /// activation. The advice is only what applies: enable audio in didActivate.
    func testAudioEnabledBeforeActivationWithManualAudio() throws {
        let broken = try report("""
            "audio_session": {"active_at_start": false, "manual_audio": true},
            "timeline": [{"at_ms": 0, "action": "set_audio_enabled", "enabled": true}, {"at_ms": 1000, "action": "activate_session"}]
            """)
        let finding = try XCTUnwrap(broken.findings.first { $0.rule == "audio-before-activation" })
        XCTAssertEqual(finding.atSeconds, 0)
        XCTAssertEqual(finding.untilSeconds, 1)
        XCTAssertEqual(finding.message, "isAudioEnabled was set before the session was activated: the engine ran audio, and capture and playout "
                       + "were silence: set isAudioEnabled only in provider(_:didActivate:)")
        // The silence is the right order's too: said as such, not as the mistake's measured cost.
        XCTAssertEqual(finding.consequence, "the engine ran 1.0 s (48000 samples) on a session not yet activated, capturing and playing "
                       + "silence, as the right order waits in silence for the activation; the risk is on a device, which this model does not "
                       + "simulate: an audio unit started before the activation can fail to start, or lose the session's route (the CallKit + "
                       + "WebRTC article's speaker reset)")
        XCTAssertEqual(finding.consequenceMetric, "capture_silenced_samples")
    }

    /// The trial's s-manual-never-enabled: manual audio, the session activated, isAudioEnabled
    /// never set. The whole call is silent; the rule says where and what to call. The correct
    /// pattern (enabled in didActivate, or a moment after) is clean.
    func testAudioDisabledWhileActive() throws {
        let broken = try report("""
            "audio_session": {"active_at_start": false, "manual_audio": true}, "timeline": [{"at_ms": 1000, "action": "activate_session"}]
            """)
        XCTAssertEqual(broken.hardware?.session.captureSilenced[.audioDisabled], 192_000)
        XCTAssertEqual(rules(broken), ["audio-disabled-while-active"])
        let finding = try XCTUnwrap(broken.findings.first)
        XCTAssertEqual(finding.kind, .lint)
        XCTAssertEqual(finding.atSeconds, 1)
        XCTAssertEqual(finding.untilSeconds, 5)
        XCTAssertEqual(finding.message, "the session was activated but isAudioEnabled was not set with it (manual audio): no audio flowed either way: "
                       + "set rtcAudioSession.isAudioEnabled = true in provider(_:didActivate:), with setActive(true) (isAudioEnabled = active)")
        XCTAssertEqual(finding.consequenceMetric, "capture_silenced_samples")
        XCTAssertEqual(finding.consequence, "192000 samples (4.0 s) of capture were silence and the peer's audio was not played while the session was active")

        let late = try report("""
            "audio_session": {"active_at_start": false, "manual_audio": true},
            "timeline": [{"at_ms": 1000, "action": "activate_session"}, {"at_ms": 2000, "action": "set_audio_enabled", "enabled": true},
                         {"at_ms": 3000, "action": "set_audio_enabled", "enabled": false}, {"at_ms": 4000, "action": "set_audio_enabled", "enabled": true}]
            """)
        let stretches = late.findings.filter { $0.rule == "audio-disabled-while-active" }
        XCTAssertEqual(stretches.map(\.atSeconds), [1, 3])
        XCTAssertEqual(stretches.map(\.untilSeconds), [2, 4])
        XCTAssertTrue(stretches[0].message.hasPrefix("the session was activated but isAudioEnabled was not set with it"), stretches[0].message)
        XCTAssertTrue(stretches[1].message.hasPrefix("isAudioEnabled was set to false while the session stayed active"), stretches[1].message)

        for enabledAt in [1000, 1200] {   // at the activation, or within the grace
            let fixed = try report("""
                "audio_session": {"active_at_start": false, "manual_audio": true},
                "timeline": [{"at_ms": 1000, "action": "activate_session"}, {"at_ms": \(enabledAt), "action": "set_audio_enabled", "enabled": true}]
                """)
            XCTAssertEqual(rules(fixed).filter { $0 != "echo-loss-below-ts26131" }, [], "enabled at \(enabledAt) ms")
        }
        // An interruption is the OS's: not the app's disabled audio.
        let interrupted = try report("""
            "audio_session": {"manual_audio": true},
            "timeline": [{"at_ms": 0, "action": "set_audio_enabled", "enabled": true}, {"at_ms": 2000, "action": "interruption_begin"},
                         {"at_ms": 3000, "action": "interruption_end"}]
            """)
        XCTAssertFalse(rules(interrupted).contains("audio-disabled-while-active"), "\(rules(interrupted))")
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
        XCTAssertEqual(finding.consequenceMetric, "custom_mic_samples_discarded")
        XCTAssertEqual(finding.consequence, "48000 samples the custom mic delivered in 1.0 s were discarded")
        XCTAssertTrue(finding.message.hasPrefix("the session was deactivated while a custom device was still set (custom mic): "
                                                + "when provider(_:didDeactivate:) fires, reset the custom mic (resetCustomMicToDefaultMic())"), finding.message)
    }

    /// An interruption (the OS's, no mistake of the app's) while a custom mic that is no
    /// microphone keeps delivering: the engine discards what it plays, and nothing said so (a QA
    /// engineer's trial: a TTS mic lost a second of speech, counted only in the session's
    /// counters). A pass-through mic, the room itself, loses no content; an app that sets its mic
    /// aside for the interruption loses nothing.
    func testAnInterruptionWithAFileLikeMicLosesItsAudio() throws {
        let tone = #""device": "generator", "signal": "tone", "level_dbfs": -20, "frequency_hz": 440"#
        let mic = #""mic": {\#(tone)}, "aec": {"mode": "disabled"}"#
        let interruption = #"{"at_ms": 2000, "action": "interruption_begin"}, {"at_ms": 3000, "action": "interruption_end"}"#
        let broken = try report(mic + #", "timeline": [\#(interruption)]"#)
        let finding = try XCTUnwrap(broken.findings.first { $0.rule == "interrupted-with-custom-mic" })
        XCTAssertEqual(finding.atSeconds, 2)
        XCTAssertEqual(finding.untilSeconds, 3)
        XCTAssertEqual(broken.hardware?.session.customMicFramesDiscarded, 48_000)
        XCTAssertEqual(finding.consequenceMetric, "custom_mic_samples_discarded")
        XCTAssertEqual(finding.consequence, "48000 samples the custom mic delivered in 1.0 s were discarded: the peer never heard them")
        XCTAssertEqual(finding.message, "an interruption held the session while the custom mic, no microphone, kept delivering its audio: "
                       + "pause the custom mic's source when the interruption begins (AVAudioSession.interruptionNotification, .began) "
                       + "and resume it when it ends (.ended), so what it plays is not lost")
        XCTAssertFalse(rules(broken).contains("deactivated-with-custom-device"), "\(rules(broken))")
        // The interrupted segment had no audio at all: that is its reason, not the mic it had (a
        // trial read "no echo reached the sent path: custom mic" of a stretch where nothing flowed).
        XCTAssertEqual(broken.segments.map(\.startSeconds), [0, 2, 3])
        XCTAssertEqual(broken.segments[1].echoUnmeasuredReason,
                       "no audio flowed in the segment (the session inactive or interrupted, or its audio disabled): nothing was played or captured")
        XCTAssertTrue(broken.segments[2].echoUnmeasuredReason?.hasPrefix("no echo reached the sent path: custom mic") ?? false,
                      "\(broken.segments[2].echoUnmeasuredReason ?? "nil")")

        let room = try report(#""mic": {"device": "passthrough"}, "timeline": [\#(interruption)]"#)
        XCTAssertGreaterThan(room.hardware?.session.customMicFramesDiscarded ?? 0, 0)
        XCTAssertFalse(rules(room).contains("interrupted-with-custom-mic"), "\(rules(room))")

        let setAside = try report(mic + #", "timeline": [{"at_ms": 2000, "action": "reset_custom_mic"}, \#(interruption), "#
                                  + #"{"at_ms": 3000, "action": "set_custom_mic", \#(tone)}]"#)
        XCTAssertFalse(rules(setAside).contains("interrupted-with-custom-mic"), "\(rules(setAside))")
    }

    /// The trial's s-deact-spk-wrong: only a custom speaker is set. The consequence is the
    /// speaker's (the peer's audio it was handed as silence), not a custom mic's; the advice is
    /// what an app can do when didDeactivate arrives (after the deactivation), as 003 resets there.
    func testDeactivatedWithACustomSpeakerOnly() throws {
        let speaker = #""speaker": {"device": "recording"}, "aec": {"mode": "disabled"}"#
        let broken = try report(speaker + """
            , "timeline": [{"at_ms": 3000, "action": "deactivate_session"}]
            """)
        XCTAssertEqual(rules(broken), ["deactivated-with-custom-device"])
        let finding = try XCTUnwrap(broken.findings.first)
        XCTAssertEqual(finding.atSeconds, 3)
        XCTAssertEqual(finding.untilSeconds, 5)
        XCTAssertEqual(broken.hardware?.session.playoutDropped[.inactive], 96_000)
        XCTAssertEqual(finding.consequenceMetric, "playout_dropped_samples")
        XCTAssertEqual(finding.consequence, "the custom speaker was handed silence for 2.0 s: 96000 samples of the peer's audio were not given to it")
        XCTAssertEqual(finding.message, "the session was deactivated while a custom device was still set (custom speaker): "
                       + "when provider(_:didDeactivate:) fires, reset the custom speaker (resetCustomSpeakerToDefaultSpeaker()) where the "
                       + "CallKit + WebRTC article resets its audio configuration, and set it again in provider(_:didActivate:)")
        XCTAssertFalse(finding.message.contains("mic"), finding.message)
        // The advice followed: the reset comes in didDeactivate, after the deactivation.
        let fixed = try report(speaker + """
            , "timeline": [{"at_ms": 3000, "action": "deactivate_session"}, {"at_ms": 3000, "action": "reset_custom_speaker"}]
            """)
        XCTAssertFalse(rules(fixed).contains("deactivated-with-custom-device"), "\(rules(fixed))")
    }
}
