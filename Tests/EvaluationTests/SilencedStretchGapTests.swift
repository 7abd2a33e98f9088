import Evaluation
import Metrics
import XCTest

/// The silence the pipeline sends on purpose — muted, or the audio unit interrupted — is no gap:
/// the same interruption read a gap where the canceller's output around it was above −60 dBFS
/// (AEC off, aec3) and none where it was quieter (speex, webrtc, echolab), so a corpus's
/// "runs with pipeline issues" and `compare` moved with the canceller, not the pipeline.
final class SilencedStretchGapTests: XCTestCase {
    private func sentGaps(_ aec: String, timeline: String, session: Bool) throws -> [Range<Int>] {
        try runReport(ofScenario: """
            {"name": "silenced", "duration_s": 6, "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "near_end": {"generator": "speech", "level_dbfs": -24, "pitch_hz": 210, "seed": 2}, "noise": {"level_dbfs": -65, "seed": 3},
             \(session ? #""audio_session": {}, "route": "speaker","# : #""echo_path": {"delay_ms": 40, "gain_db": -6},"#)
             "aec": \(aec), "timeline": \(timeline)}
            """).sentGapRanges
    }

    func testAnInterruptionAndAMuteAreNoGapInAnyMode() throws {
        let interruption = #"[{"at_ms": 2000, "action": "interruption_begin"}, {"at_ms": 3500, "action": "interruption_end"}]"#
        let mute = #"[{"at_ms": 2000, "action": "mute"}, {"at_ms": 3500, "action": "unmute"}]"#
        for aec in [#"{"mode": "disabled"}"#, #"{"mode": "intensityRecommended", "backend": "speex"}"#,
                    #"{"mode": "intensityRecommended", "backend": "aec3"}"#, #"{"mode": "intensityRecommended", "backend": "echolab"}"#] {
            XCTAssertEqual(try sentGaps(aec, timeline: interruption, session: true), [], "interrupted, \(aec)")
            XCTAssertEqual(try sentGaps(aec, timeline: mute, session: false), [], "muted, \(aec)")
        }
    }

    /// What the leaving-out keeps: a gap that meets no silenced stretch, in time order.
    func testAGapThatMeetsNoSilencedStretchStays() {
        let report = GlitchReport(events: [], gaps: [100..<200, 1_000..<1_500, 3_000..<3_100, 5_000..<5_200])
        XCTAssertEqual(report.leavingOut(gapsMeeting: [950..<1_000, 3_050..<4_000]).gaps, [100..<200, 5_000..<5_200],
                       "met at its start, and overlapped")
        XCTAssertEqual(report.leavingOut(gapsMeeting: []).gaps, report.gaps)
        XCTAssertEqual(report.leavingOut(gapsMeeting: [201..<999]).gaps, report.gaps, "a stretch between gaps meets none")
    }

    /// A capture restart's priming owns only the silence inside it: a gap that starts before the
    /// priming, runs on past it or spans it is a dropout of its own and stays.
    func testOnlyAGapInsideAPrimingIsThePrimings() {
        let priming = [2_000..<2_960]
        let report = GlitchReport(events: [], gaps: [2_000..<2_960, 2_100..<2_400, 1_900..<2_300, 2_500..<3_000, 1_500..<4_000, 5_000..<5_100])
        XCTAssertEqual(report.leavingOut(gapsWithin: priming).gaps, [1_900..<2_300, 2_500..<3_000, 1_500..<4_000, 5_000..<5_100])
        XCTAssertEqual(report.leavingOut(gapsWithin: []).gaps, report.gaps)
    }
}
