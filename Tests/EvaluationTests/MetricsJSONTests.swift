import EchoLabJSON
import Metrics
import Reporting
import XCTest

/// The metric types' report JSON is their `Codable` conformance: these hold its keys to the
/// report schema (docs/metrics.md) and check that a report's `metrics` decodes back to the value.
final class MetricsJSONTests: XCTestCase {
    static let metrics = EchoMetrics(
        erlDB: 6.25, erleDB: nil, erleSteadyDB: -3.5, erleSteadyIsLowerBound: true, erleSteadyFrames: 3, convergenceSeconds: 1.5,
        delayMilliseconds: 40,
        erleSeries: [ERLEPoint(timeSeconds: 0, erleDB: nil), ERLEPoint(timeSeconds: 0.5, erleDB: -2.25, isLowerBound: true, frames: 4)],
        erleBands: [BandERLE(lowHz: 125, highHz: 250, erleDB: nil), BandERLE(lowHz: 250, highHz: 500, erleDB: 11, isLowerBound: true)],
        gate: ActivityGateSummary(method: .micMinusEcho, frames: 10, farEndActiveFrames: 8, singleTalkFrames: 6, doubleTalkFrames: 2),
        nearEnd: NearEndPreservation(attenuationDB: 0.5, attenuationIsLowerBound: true, distortionDB: nil, doubleTalkFrames: 3,
                                     singleTalkAttenuationDB: nil, singleTalkDistortionDB: -20, singleTalkFrames: 0),
        telephony: TelephonyMeasures(
            echoLoss: WeightedEchoLoss(tclwDB: 47.5, isLowerBound: true, bands: [.init(centreHz: 1000, lossDB: 47.5, isLowerBound: true)],
                                       analysisFrames: 30, leftOutHz: [2000]),
            echoLossUnmeasuredReason: nil,
            doubleTalk: DoubleTalkReport(doubleTalkFrames: 2, doubleTalkShare: 0.2, levelDifferenceDB: 1.5, levelDifferenceIsLowerBound: false,
                                         attenuationRangeDB: 7.25, attenuationRangeIsLowerBound: false, attenuationRangeFrames: 2,
                                         singleTalkAttenuationDB: nil, aroundFrames: 4, aroundShare: 0.4, aroundLevelDifferenceDB: 20,
                                         aroundLevelDifferenceIsLowerBound: true),
            doubleTalkUnmeasuredReason: nil))

    func testTheReportKeysAreTheSchemas() throws {
        XCTAssertEqual(Self.metrics.json, .object([
            "erl_db": .number(6.25), "erl_analysis_frames": .number(6), "erl_is_lower_bound": .bool(false), "erle_db": .null, "erle_is_lower_bound": .bool(false), "erle_steady_db": .number(-3.5),
            "erle_steady_is_lower_bound": .bool(true), "erle_steady_analysis_frames": .number(3),
            "convergence_s": .number(1.5), "convergence_is_lower_bound": .bool(false), "delay_ms": .number(40),
            "erle_series": .array([.object(["t_s": .number(0), "erle_db": .null, "is_lower_bound": .bool(false), "analysis_frames": .number(0)]),
                                   .object(["t_s": .number(0.5), "erle_db": .number(-2.25), "is_lower_bound": .bool(true), "analysis_frames": .number(4)])]),
            "erle_bands": .array([.object(["low_hz": .number(125), "high_hz": .number(250), "erle_db": .null, "is_lower_bound": .bool(false)]),
                                  .object(["low_hz": .number(250), "high_hz": .number(500), "erle_db": .number(11), "is_lower_bound": .bool(true)])]),
            "gate": .object(["method": .string("mic_minus_echo"), "analysis_frames": .number(10),
                             "far_end_active_analysis_frames": .number(8), "single_talk_analysis_frames": .number(6),
                             "double_talk_analysis_frames": .number(2), "limitation": .null]),
            "near_end": .object(["attenuation_db": .number(0.5), "attenuation_is_lower_bound": .bool(true), "distortion_db": .null,
                                 "double_talk_analysis_frames": .number(3), "single_talk_attenuation_db": .null,
                                 "single_talk_attenuation_is_lower_bound": .bool(false), "single_talk_distortion_db": .number(-20),
                                 "single_talk_analysis_frames": .number(0)]),
            "near_end_estimate": .null,
            "telephony": .object([
                "echo_loss": .object(["tclw_db": .number(47.5), "is_lower_bound": .bool(true), "tclw_at_most_db": .null, "meets_ts26131_46db": .bool(true),
                                      "analysis_frames": .number(30), "band_coverage": .object(["measured": .number(1), "reached": .number(2)]),
                                      "bands": .array([.object(["centre_hz": .number(1000), "loss_db": .number(47.5), "is_lower_bound": .bool(true)])])]),
                "echo_loss_unmeasured_reason": .null,
                "double_talk": .object(["double_talk_analysis_frames": .number(2), "double_talk_share": .number(0.2),
                                        "level_difference_db": .number(1.5), "level_difference_is_lower_bound": .bool(false),
                                        "attenuation_range_db": .number(7.25), "attenuation_range_is_lower_bound": .bool(false),
                                        "attenuation_range_analysis_frames": .number(2), "p340_category": .string("2b"),
                                        "near_end_single_talk_attenuation_db": .null,
                                        "near_end_single_talk_attenuation_is_lower_bound": .bool(false), "around_analysis_frames": .number(4),
                                        "around_share": .number(0.4), "around_level_difference_db": .number(20),
                                        "around_level_difference_is_lower_bound": .bool(true)]),
                "double_talk_unmeasured_reason": .null,
            ]),
        ]))
        let estimate = NearEndEstimate(outputDropDB: 24.5, outputDropIsLowerBound: false, frames: 40, lostFrames: 30, isLost: true,
                                       singleTalkOutputDropDB: 0.5, singleTalkFrames: 60, singleTalkLostFrames: 1)
        XCTAssertEqual(JSONValue(encoding: estimate), .object(["output_drop_db": .number(24.5), "output_drop_is_lower_bound": .bool(false),
                                                              "analysis_frames": .number(40), "lost_analysis_frames": .number(30),
                                                              "near_end_lost": .bool(true), "single_talk_output_drop_db": .number(0.5),
                                                              "single_talk_output_drop_is_lower_bound": .bool(false),
                                                              "single_talk_analysis_frames": .number(60),
                                                              "single_talk_lost_analysis_frames": .number(1),
                                                              "single_talk_near_end_lost": .bool(false)]))
        // A report written before the lone talker was measured apart reads back without it.
        let older: JSONValue = .object(["output_drop_db": .number(24.5), "output_drop_is_lower_bound": .bool(false),
                                        "analysis_frames": .number(40), "lost_analysis_frames": .number(30), "near_end_lost": .bool(true)])
        let read = try JSONDecoder().decode(NearEndEstimate.self, from: Data(older.canonicalText().utf8))
        XCTAssertEqual(read, NearEndEstimate(outputDropDB: 24.5, outputDropIsLowerBound: false, frames: 40, lostFrames: 30, isLost: true))
        var withoutNearEnd = Self.metrics
        withoutNearEnd.nearEnd = nil
        XCTAssertEqual(withoutNearEnd.json["near_end"], .null, "a measure that does not apply keeps its key, as null")
        let segment = SegmentMetrics(startSample: 48_000, endSample: 96_000, erlDB: nil, erleDB: 3, erleIsLowerBound: true,
                                     erleSteadyDB: 4, convergenceSeconds: nil, singleTalkFrames: 7, erleSteadyFrames: 4)
        XCTAssertEqual(segment.json, ["start_sample": .number(48_000), "end_sample": .number(96_000), "erl_db": .null,
                                      "erl_analysis_frames": .number(7), "erl_is_lower_bound": .bool(false),
                                      "erle_db": .number(3), "erle_is_lower_bound": .bool(true), "erle_steady_db": .number(4),
                                      "erle_steady_is_lower_bound": .bool(false), "convergence_s": .null, "convergence_is_lower_bound": .bool(false),
                                      "single_talk_analysis_frames": .number(7), "erle_steady_analysis_frames": .number(4)])
        let mismatch = LengthMismatch(analysedSamples: 100, files: [.init(file: "a.wav", samples: 100), .init(file: "b.wav", samples: 120)])
        XCTAssertEqual(mismatch.json, .object(["analysed_samples": .number(100), "files": .array([
            .object(["file": .string("a.wav"), "samples": .number(100)]), .object(["file": .string("b.wav"), "samples": .number(120)]),
        ])]))
    }

    func testAReportsMetricsDecodeBackToTheValue() throws {
        XCTAssertEqual(try JSONValueDecoder().decode(EchoMetrics.self, from: Self.metrics.json), Self.metrics)
        var withoutNearEnd = Self.metrics
        withoutNearEnd.nearEnd = nil
        XCTAssertEqual(try JSONValueDecoder().decode(EchoMetrics.self, from: withoutNearEnd.json), withoutNearEnd)
    }
}
