import EchoLabTestSupport
import Foundation
import Evaluation
import Reporting
import ScenarioFiles
import Simulation
import XCTest

/// PlanetKit's Case 2: the app starts the user AEC reference after setting its custom speaker and
/// calls stopUserAcousticEchoCancellerReference() after resetting it. A reference the app started
/// stays started until the app stops it; a device with `aec_reference` stops only what it started.
final class UserReferenceLifetimeTests: XCTestCase {
    private func report(_ timeline: String) throws -> RunReport {
        try runReport(ofScenario: """
            {"name": "reference-lifetime", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -65, "seed": 7}, "echo_path": {"delay_ms": 40, "gain_db": -6},
             "aec": {"mode": "intensityRecommended"}, "duration_s": 6, "timeline": [\(timeline)]}
            """)
    }

    private let mixer = #"{"at_ms": 1000, "action": "set_custom_speaker", "device": "mixing", "music": {"generator": "music", "level_dbfs": -20}, "aec_reference": true, "period_ms": 50}"#

    private func lint(_ report: RunReport) -> [String] { report.findings.filter { $0.kind == .lint }.map(\.rule) }
    private func referenceEvents(_ report: RunReport) -> [String] {
        report.events.filter { $0.kind == "aec" }.map { "\($0.detail) @\(Double($0.frame) / 48_000)" }
    }

    /// The trial's c2-reset-nostop-explicit: the app starts the reference, resets the speaker and
    /// never stops the reference. It stays started (no stop the app never asked for) and the
    /// lint names the missing call over the stretch after the reset.
    func testAReferenceTheAppStartedOutlivesTheSpeakerAndIsFound() throws {
        let broken = try report(mixer + #", {"at_ms": 1000, "action": "start_user_reference"}, {"at_ms": 3000, "action": "reset_custom_speaker"}"#)
        XCTAssertEqual(referenceEvents(broken), ["start user AEC reference @1.0"])
        XCTAssertEqual(lint(broken), ["user-reference-not-stopped"])
        let finding = try XCTUnwrap(broken.findings.first { $0.rule == "user-reference-not-stopped" })
        XCTAssertEqual(finding.atSeconds, 3)
        XCTAssertEqual(finding.untilSeconds, 6)
        XCTAssertTrue(finding.message.hasSuffix("call stopUserAcousticEchoCancellerReference() after resetting the custom speaker (resetCustomSpeakerToDefaultSpeaker())"),
                      finding.message)
        XCTAssertEqual(finding.consequenceMetric, "erle_db")
        // Measured against what the loudspeaker played: the canceller, hearing silence, removes
        // next to nothing (its suppressor a little).
        XCTAssertEqual(try XCTUnwrap(finding.consequenceDB), 2.91, accuracy: 0.01)
        XCTAssertEqual(finding.consequence, "the canceller's reference was silence for 3.0 s after the custom speaker was reset: "
                       + "the default speaker's echo went to the peer uncancelled; echo reduced by only 2.9 dB (low confidence: 9 analysis frames)")
        // The page says beside ERL and ERLE that they stand on the rest of the call alone: a call
        // uncancelled for most of its length read "ERLE 8.6 dB" as if whole.
        XCTAssertEqual(RunReportDocument.silentReferenceNote(broken),
                       "The canceller's reference was silent for 3.00 s of the call: 3.00 s–6.00 s (user-reference-not-stopped). "
                       + "ERL and ERLE are measured against that reference, so they stand on the rest of the call alone; "
                       + "the echo there went to the peer uncancelled and unmeasured.")
        // The order of the two calls at 1 s does not matter: the app started it either way.
        let startFirst = try report(#"{"at_ms": 1000, "action": "start_user_reference"}, "# + mixer + #", {"at_ms": 3000, "action": "reset_custom_speaker"}"#)
        XCTAssertEqual(lint(startFirst), ["user-reference-not-stopped"])
        // Reset late (4 of the 5 s started were fed): still found; `user-reference-not-fed`'s
        // half-the-time test would pass this call.
        let late = try report(mixer + #", {"at_ms": 1000, "action": "start_user_reference"}, {"at_ms": 5000, "action": "reset_custom_speaker"}"#)
        XCTAssertEqual(lint(late), ["user-reference-not-stopped"])
        XCTAssertEqual(late.findings.first?.atSeconds, 5)
    }

    /// A reference started and never fed: its consequence is no ERLE. The frames that straddled
    /// the reference's stop (4, low confidence) read 14.1 dB beside "the echo went to the peer
    /// uncancelled", in the finding and nowhere marked.
    func testAReferenceNeverFedHasNoERLEForItsConsequence() throws {
        let starved = try report(#"{"at_ms": 500, "action": "set_custom_speaker", "device": "passthrough"}, "#
                                 + #"{"at_ms": 500, "action": "start_user_reference"}, {"at_ms": 2500, "action": "reset_custom_speaker"}"#)
        let finding = try XCTUnwrap(starved.findings.first { $0.rule == "user-reference-not-fed" })
        XCTAssertEqual(finding.consequenceMetric, "erle_db")
        XCTAssertNil(finding.consequenceDB)
        XCTAssertEqual(finding.consequence, "the canceller's reference was silence for most of 2.0 s: the echo went to the peer uncancelled "
                       + "(and no ERLE can be measured against a silent reference)")
    }

    /// The guide's disableCustomMixingSpeaker(): reset, then stop. No finding; and a device with
    /// `aec_reference` the app did not start the reference for stops it itself (the vectors'
    /// device-transitions and mixing-speaker-with-reference rely on it).
    func testStoppingAfterTheResetOrADeviceOwnReferenceIsClean() throws {
        let fixed = try report(mixer + #", {"at_ms": 1000, "action": "start_user_reference"}, {"at_ms": 3000, "action": "reset_custom_speaker"}, "#
                               + #"{"at_ms": 3000, "action": "stop_user_reference"}"#)
        XCTAssertEqual(referenceEvents(fixed), ["start user AEC reference @1.0", "stop user AEC reference @3.0"])
        XCTAssertEqual(lint(fixed), [])
        let deviceOwn = try report(mixer + #", {"at_ms": 3000, "action": "reset_custom_speaker"}"#)
        XCTAssertEqual(referenceEvents(deviceOwn), ["start user AEC reference @1.0", "stop user AEC reference @3.0"])
        XCTAssertEqual(lint(deviceOwn), [])
        XCTAssertNil(RunReportDocument.silentReferenceNote(fixed), "a reference fed throughout: nothing to say")
    }

    /// A reference started with the call and never fed: the segment after a mode change is said
    /// to be measured against that silent reference (it read "no far-end single-talk analysis
    /// frame in the segment (the far end silent or under −50 dBFS …)" while the far end played),
    /// and the page's note does not send the reader to a rest of the call there is none of.
    func testAReferenceSilentAllCallIsTheReasonItsSegmentsHaveNoFigures() throws {
        let silent = try report(#"{"at_ms": 0, "action": "start_user_reference"}, {"at_ms": 3000, "action": "set_aec", "mode": "intensityMax"}"#)
        XCTAssertEqual(lint(silent), ["user-reference-not-fed"])
        XCTAssertEqual(silent.segments.map(\.startSeconds), [0, 3])
        for segment in silent.segments {
            XCTAssertNil(segment.metrics.erleDB, "\(segment.startSeconds) s")
            XCTAssertEqual(segment.echoUnmeasuredReason, "the canceller's reference, the user AEC reference the app started, stays silent all "
                           + "through the segment (see the findings user-reference-not-fed and user-reference-not-stopped): the far end may "
                           + "play and echo, but ERL and ERLE are measured against that reference", "\(segment.startSeconds) s")
        }
        XCTAssertEqual(RunReportDocument.silentReferenceNote(silent),
                       "The canceller's reference was silent for 6.00 s of the call: 0.00 s–6.00 s (user-reference-not-fed). "
                       + "ERL and ERLE are measured against that reference, so they have nothing to stand on; "
                       + "the echo went to the peer uncancelled and unmeasured.")
    }
}
