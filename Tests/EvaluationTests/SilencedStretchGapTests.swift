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

    /// A capture restart's priming owns the silence inside it, and with it the input's own
    /// silence right after (a talker's pause): a gap within those is no dropout. One that starts
    /// in the input's sound before it, or runs on into the input's sound after, still is.
    func testAPrimingOwnsOnlyTheSilenceItAndTheInputHold() {
        // The input: sound, then a pause over 2_990..<3_500 (the priming's 2_000..<2_960 is
        // sound as the input is tracked: the capture was broken there).
        var input = InputSilence(detector: GlitchDetector(sampleRate: 48_000))
        input.append([Float](repeating: 0.1, count: 2_990), count: 2_990)
        input.append([Float](repeating: 0, count: 510), count: 510)
        input.append([Float](repeating: 0.1, count: 1_500), count: 1_500)
        input.finish()
        XCTAssertEqual(input.runs, [2_990..<3_500])
        let priming = [2_000..<2_960]
        // One report per gap: a report's gaps are in time order, and these overlap.
        func kept(_ gap: Range<Int>, alsoSilent: [Range<Int>]) -> Bool {
            !GlitchReport(events: [], gaps: [gap]).discounting(input, inputClicks: [], margin: 240, alsoSilent: alsoSilent).gaps.isEmpty
        }
        XCTAssertFalse(kept(2_100..<2_400, alsoSilent: priming), "inside the priming: the restart's")
        XCTAssertFalse(kept(2_000..<3_500, alsoSilent: priming), "the priming with the pause after it: the restart's and the room's")
        XCTAssertTrue(kept(1_700..<2_300, alsoSilent: priming), "starts in the input's sound before the priming")
        XCTAssertTrue(kept(2_000..<3_800, alsoSilent: priming), "runs on into the input's sound after the pause")
        XCTAssertTrue(kept(4_500..<4_800, alsoSilent: priming), "in the input's sound")
        for gap in [2_100..<2_400, 2_000..<3_500, 1_700..<2_300, 2_000..<3_800, 4_500..<4_800] {
            XCTAssertTrue(kept(gap, alsoSilent: []), "without the priming, \(gap) is a dropout")
        }
        // In one report, in time order, with a second pause further on: each judged as alone.
        let report = GlitchReport(events: [], gaps: [1_700..<1_900, 2_000..<3_500, 4_500..<4_800])
        XCTAssertEqual(report.discounting(input, inputClicks: [], margin: 240, alsoSilent: priming).gaps, [1_700..<1_900, 4_500..<4_800])
    }
}
