import Evaluation
import Metrics
import XCTest

/// Why a call or a set of files has no ERL or ERLE: the first reason that holds, from the gate's
/// counts (files: no device states).
final class EchoUnmeasuredReasonTests: XCTestCase {
    private func metrics(frames: Int, farEndActive: Int, single: Int, limitation: ActivityGateLimitation? = nil,
                         echoUnderNoise: Int = 0) -> EchoMetrics {
        let gate = ActivityGateSummary(method: .echoPathFit, frames: frames, farEndActiveFrames: farEndActive, singleTalkFrames: single,
                                       doubleTalkFrames: farEndActive - single, limitation: limitation, echoUnderNoiseFrames: echoUnderNoise)
        return EchoMetrics(erlDB: nil, erleDB: nil, erleSteadyDB: nil, convergenceSeconds: nil, delayMilliseconds: nil,
                           erleSeries: [], erleBands: [], gate: gate)
    }

    private func reason(frames: Int, farEndActive: Int, single: Int, limitation: ActivityGateLimitation? = nil,
                        echoUnderNoise: Int = 0, referenceIsSilent: Bool = false) -> String? {
        RunEvaluator.echoUnmeasuredReason(metrics(frames: frames, farEndActive: farEndActive, single: single, limitation: limitation,
                                                  echoUnderNoise: echoUnderNoise),
                                          states: [], durationSeconds: 0.01, referenceIsSilent: referenceIsSilent)
    }

    func testTheFirstReasonThatHoldsIsGiven() {
        XCTAssertNil(reason(frames: 561, farEndActive: 449, single: 1, echoUnderNoise: 300))
        // Under a second, to the hundredth of a millisecond: a 15 ms file read "0.01 s".
        XCTAssertEqual(reason(frames: 0, farEndActive: 0, single: 0), "the recording (10.00 ms) is shorter than one analysis frame")
        XCTAssertEqual(RunEvaluator.echoUnmeasuredReason(metrics(frames: 0, farEndActive: 0, single: 0), states: [], durationSeconds: 0.015),
                       "the recording (15.00 ms) is shorter than one analysis frame")
        XCTAssertEqual(RunEvaluator.echoUnmeasuredReason(metrics(frames: 0, farEndActive: 0, single: 0), states: [], durationSeconds: 1.5),
                       "the recording (1.50 s) is shorter than one analysis frame")
        // A mic of digital silence is said as such (stderr says it too), not as a far end too quiet.
        XCTAssertEqual(RunEvaluator.echoUnmeasuredReason(metrics(frames: 561, farEndActive: 0, single: 0), states: [], durationSeconds: 5,
                                                         micIsSilent: true),
                       "the mic is digital silence throughout: nothing was recorded, so there is no echo to measure")
        XCTAssertEqual(reason(frames: 561, farEndActive: 0, single: 0, echoUnderNoise: 449),
                       "the far end never reached the mic: its reference stays below −50 dBFS, or its echo under the noise")
        // Nothing played at all is said as such, not as a far end too quiet to reach the mic.
        XCTAssertEqual(reason(frames: 561, farEndActive: 0, single: 0, referenceIsSilent: true),
                       "the loopback is digital silence throughout: nothing was played, so there is no echo to measure")
        XCTAssertEqual(reason(frames: 561, farEndActive: 381, single: 0, limitation: .echoNotExplained, echoUnderNoise: 68),
                       "the echo path fitted from mic and loopback does not explain the echo (a non-linear loudspeaker?): the gate cannot tell a near-end talker from its error")
        // A headset's recording: its mic holds the near talker and noise, no echo.
        XCTAssertEqual(reason(frames: 561, farEndActive: 381, single: 0, echoUnderNoise: 68),
                       "no echo above the mic's noise wherever the near end is silent (68 analysis frames where the far end played), and the near end talks over the other 381")
        XCTAssertEqual(reason(frames: 561, farEndActive: 381, single: 0),
                       "the near end talks over every far-end analysis frame (all 381 are double talk)")
        // An ERL without an ERLE: the echo stayed under the mic's floor in every single-talk frame.
        let gate = ActivityGateSummary(method: .nearEndTrack, frames: 467, farEndActiveFrames: 465, singleTalkFrames: 465,
                                       doubleTalkFrames: 0, limitation: nil, echoUnderNoiseFrames: 0)
        let quiet = EchoMetrics(erlDB: 85, erleDB: nil, erleSteadyDB: nil, convergenceSeconds: nil, delayMilliseconds: 40,
                                erleSeries: [], erleBands: [], gate: gate)
        XCTAssertEqual(RunEvaluator.echoUnmeasuredReason(quiet, states: [], durationSeconds: 5),
                       "the echo at the mic stays under its floor (its noise, or digital silence at −101.2 dBFS) in all 465 "
                       + "far-end single-talk analysis frames: there is no echo to cancel, so no ERLE")
    }

    /// A call with no far-end single talk for a reason of its own says that reason in every band
    /// and as TCLw's, not only "no far-end single talk to measure" (a trial read it as a call that
    /// never found its far end): a silent far end, and a generator mic that sends no room.
    func testTheBandsAndTCLwSayTheCallsOwnReason() throws {
        let quiet = try runReport(ofScenario: """
            {"name": "quiet", "near_end": {"generator": "speech", "level_dbfs": -26, "seed": 2}, "duration_s": 4,
             "noise": {"level_dbfs": -65, "seed": 1}, "echo_path": {"delay_ms": 40, "gain_db": -6}}
            """)
        let generator = try runReport(ofScenario: """
            {"name": "generator", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 3}, "duration_s": 4,
             "noise": {"level_dbfs": -65, "seed": 1}, "echo_path": {"delay_ms": 40, "gain_db": -6},
             "mic": {"device": "generator", "signal": "white_noise", "level_dbfs": -26, "period_ms": 10, "seed": 9}}
            """)
        for report in [quiet, generator] {
            let reason = try XCTUnwrap(report.echoUnmeasuredReason, report.scenarioName)
            XCTAssertNotEqual(reason, BandERLE.noSingleTalkReason)
            XCTAssertEqual(report.metrics.gate.singleTalkFrames, 0, report.scenarioName)
            XCTAssertFalse(report.metrics.erleBands.isEmpty)
            XCTAssertEqual(Set(report.metrics.erleBands.map(\.unmeasuredReason)), [reason], report.scenarioName)
            XCTAssertEqual(report.metrics.telephony?.echoLossUnmeasuredReason, reason, report.scenarioName)
        }
        XCTAssertTrue(try XCTUnwrap(quiet.echoUnmeasuredReason).hasPrefix("the far end is silent throughout"))
        XCTAssertTrue(try XCTUnwrap(generator.echoUnmeasuredReason).hasPrefix("no echo reached the sent path: custom mic"))
    }
}
