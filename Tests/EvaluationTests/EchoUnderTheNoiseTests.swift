import AudioCore
import EchoLabTestSupport
import Evaluation
import Metrics
import Reporting
import XCTest

/// A wired headset's echo path (60 dB of loss) leaves its echo under the mic's noise wherever the
/// far end plays alone: no far-end single talk, but the path's loss is the route's verdict. It
/// read `null`, with "no far-end single talk to measure" as TCLw's reason (a QA engineer's trial).
final class EchoUnderTheNoiseTests: XCTestCase {
    private let far = #""far_end": {"generator": "speech", "level_dbfs": -20, "seed": 3}, "noise": {"level_dbfs": -60, "seed": 7}"#

    /// A whole call on the headset: ERL is a lower bound at the path's own loss (the echo track
    /// holds the echo alone here), on the frames the far end played alone; ERLE and TCLw are
    /// null, and their reasons say the echo stays under the noise.
    func testAWiredHeadsetHasItsPathsLossAsABound() throws {
        let report = try runReport(ofScenario: #"{"name": "headset", \#(far), "duration_s": 6, "route": "wired_headset"}"#)
        let metrics = report.metrics
        XCTAssertEqual(metrics.gate.singleTalkFrames, 0)
        XCTAssertGreaterThanOrEqual(metrics.erlFrames, FigureConfidence.minimumAnalysisFrames)
        XCTAssertEqual(metrics.erlFrames, metrics.gate.echoUnderNoiseFrames)
        XCTAssertTrue(metrics.erlIsLowerBound)
        // The route's −60 dB path through its short room: Σreference² / Σecho² over the whole
        // call's taps is 60.06 dB.
        XCTAssertEqual(try XCTUnwrap(metrics.erlDB), 60.06, accuracy: 0.1)
        XCTAssertNil(metrics.erleDB)
        XCTAssertEqual(metrics.telephony?.echoLossUnmeasuredReason, TelephonyMeasures.echoUnderNoiseReason)
        XCTAssertTrue(metrics.erleBands.allSatisfy { $0.erleDB == nil })
        // The page says "≥" and why, beside the frames it stands on.
        let page = MarkdownReport.render(report)
        XCTAssertTrue(page.contains("| ERL | ≥ \(FixedDecimal.text(try XCTUnwrap(metrics.erlDB), fractionDigits: 1)) dB (\(metrics.erlFrames) analysis frames) |"), page)
        XCTAssertTrue(page.contains("≥: the echo stayed under the mic's noise, where what stands for it (the mic, or an echo track's own noise) "
                                    + "holds at least as much; ERL is at least the far end's level over that."), page)
        let reason = try XCTUnwrap(report.echoUnmeasuredReason)
        XCTAssertTrue(reason.hasPrefix("the echo stays under the mic's noise wherever the far end plays alone (\(metrics.erlFrames) analysis frames"), reason)
        XCTAssertTrue(reason.hasSuffix("there is no echo to cancel, so no ERLE (ERL stands on those frames)"), reason)
    }

    /// A pure delay and gain under the noise: the bound is the path's loss, never over it. Lined
    /// up at lag 0 (the mic's search finds no echo), a talk spurt's first frames hold its
    /// reference but not yet its echo, and −60 dB read "≥ 60.5".
    func testABoundNeverExceedsThePathsLoss() throws {
        for gain in [60.0, 80.0] {
            let report = try runReport(ofScenario: """
                {"name": "deep", \(far), "echo_path": {"delay_ms": 40, "gain_db": -\(Int(gain))}, "duration_s": 8}
                """.replacingOccurrences(of: "\"level_dbfs\": -60", with: "\"level_dbfs\": -40"))
            XCTAssertEqual(report.metrics.gate.singleTalkFrames, 0)
            XCTAssertTrue(report.metrics.erlIsLowerBound)
            XCTAssertNil(report.metrics.delayMilliseconds, "the mic holds no echo to measure a delay on")
            let erl = try XCTUnwrap(report.metrics.erlDB)
            XCTAssertLessThanOrEqual(erl, gain + 0.005)
            XCTAssertGreaterThan(erl, gain - 0.1)
        }
    }

    /// The speaker, then the headset: the speaker's segment keeps its ERL on its single talk (no
    /// bound), the headset's has its own bound and says why it has no ERLE.
    func testASegmentOnTheHeadsetHasItsOwnBound() throws {
        let report = try runReport(ofScenario: #"""
            {"name": "to-headset", \#(far), "duration_s": 10, "route": "speaker",
             "timeline": [{"at_ms": 5000, "action": "route_change", "route": "wired_headset"}]}
            """#)
        XCTAssertEqual(report.segments.count, 2)
        let speaker = report.segments[0].metrics, headset = report.segments[1].metrics
        XCTAssertGreaterThan(speaker.singleTalkFrames, 100)
        XCTAssertEqual(speaker.erlFrames, speaker.singleTalkFrames)
        XCTAssertFalse(speaker.erlIsLowerBound)
        XCTAssertLessThan(try XCTUnwrap(speaker.erlDB), 20)
        XCTAssertEqual(headset.singleTalkFrames, 0)
        XCTAssertGreaterThanOrEqual(headset.erlFrames, FigureConfidence.minimumAnalysisFrames)
        XCTAssertTrue(headset.erlIsLowerBound)
        XCTAssertGreaterThan(try XCTUnwrap(headset.erlDB), 55)
        XCTAssertEqual(report.segments[1].echoUnmeasuredReason,
                       "the echo stays under the mic's noise wherever the far end plays alone in the segment (\(headset.erlFrames) analysis frames): there is no echo to cancel, so no ERLE (ERL stands on those frames)")
        // The whole call stands on the speaker's single talk, as it always did.
        XCTAssertFalse(report.metrics.erlIsLowerBound)
        XCTAssertEqual(report.metrics.erlFrames, report.metrics.gate.singleTalkFrames)
    }

    /// A call that starts on the headset and changes to the speaker: the first search, over the
    /// headset's seconds, finds no lag (the headset left no echo above the noise), and the one after
    /// the change finds the speaker's 42 ms. Searched once, this call read no delay ("no lag stands
    /// out … over the first 12 s") and scored the speaker's ERL unshifted, 11.85 dB for 10.0.
    func testADelaySearchedAgainAfterAnEchoFreeFirstRouteIsTheSecondRoutes() throws {
        // The speech file's far end talks from the start: its first blocks fall on the headset.
        let file = packageRoot.appendingPathComponent("vectors/inputs/farend_speech_16k.wav").path
        let report = try runReport(ofScenario: #"""
            {"name": "headset-to-speaker", "far_end": "\#(file)", "noise": {"level_dbfs": -60, "seed": 7},
             "duration_s": 10, "route": "wired_headset",
             "timeline": [{"at_ms": 5000, "action": "route_change", "route": "speaker"}]}
            """#)
        XCTAssertGreaterThan(report.segments[1].metrics.singleTalkFrames, 100)
        XCTAssertNil(report.segments[0].metrics.delayMilliseconds)
        XCTAssertEqual(try XCTUnwrap(report.segments[1].metrics.delayMilliseconds), 42, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(report.metrics.delayMilliseconds), 42, accuracy: 0.05)
        XCTAssertNil(report.delayUnmeasuredReason)
        XCTAssertLessThan(try XCTUnwrap(report.segments[1].metrics.erlDB), 10.5)
    }

    /// A finding's consequence says "at least" of a bound ERL, as the page says "≥": AEC disabled
    /// on the headset, whose peer hears itself at least the path's loss down.
    func testAFindingSaysAtLeastOfABoundERL() throws {
        let report = try runReport(ofScenario: #"{"name": "headset-off", \#(far), "duration_s": 6, "route": "wired_headset", "aec": {"mode": "disabled"}}"#)
        XCTAssertTrue(report.metrics.erlIsLowerBound)
        let finding = try XCTUnwrap(report.findings.first { $0.rule == "aec-disabled-with-real-devices" })
        let erl = try XCTUnwrap(finding.consequenceDB)
        XCTAssertGreaterThan(erl, 55)
        XCTAssertEqual(finding.consequence, "nothing removes the echo: the peer hears itself at least \(FixedDecimal.text(erl, fractionDigits: 1)) dB down")
    }
}
