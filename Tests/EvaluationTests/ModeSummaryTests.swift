import EchoLabJSON
@testable import Evaluation
import Metrics
import XCTest

/// eval.json's per-mode statistics as values: what they compute, and that their encoding is the
/// `mode_summary` entry eval.json has always had (keys, nulls kept, counts).
final class ModeSummaryTests: XCTestCase {
    func testStatisticsAreMeanMedianAndTenthPercentile() {
        let statistics = ModeSummary.Statistics((1...10).map(Double.init).reversed())
        XCTAssertEqual(statistics.count, 10)
        XCTAssertEqual(statistics.mean, 5.5)
        XCTAssertEqual(statistics.median, 5.5)
        // Rank 0.9 of 0…9: between 1 and 2.
        XCTAssertEqual(try XCTUnwrap(statistics.p10), 1.9, accuracy: 1e-12)
        XCTAssertEqual(ModeSummary.Statistics([7]).p10, 7)
    }

    /// A statistic is a lower bound only where a bound can move it: the mean with any bound, a
    /// percentile where a bound lies at or under its upper neighbour. A mode's TCLw median read
    /// "≥ 7.3 dB" over measured runs 5.99, 5.99, 6.48, 8.15, 11.99 and one bound at 8.68.
    func testAPercentileIsABoundOnlyWhereABoundCanMoveIt() {
        let tclw = ModeSummary.Statistics([(5.99, false), (5.99, false), (6.48, false), (8.15, false), (11.99, false), (8.68, true)])
        XCTAssertEqual(tclw.lowerBounds, 1)
        XCTAssertTrue(tclw.meanIsLowerBound)
        // Median between ranks 2 and 3 (6.48 and 8.15), p10 between ranks 0 and 1: 8.68 is over both.
        XCTAssertEqual(tclw.median, (6.48 + 8.15) / 2)
        XCTAssertFalse(tclw.medianIsLowerBound)
        XCTAssertFalse(tclw.p10IsLowerBound)
        // A bound at the median's upper neighbour, or under it, can move it.
        let low = ModeSummary.Statistics([(5.99, false), (5.99, false), (6.48, false), (8.15, true), (11.99, false), (8.68, false)])
        XCTAssertTrue(low.medianIsLowerBound)
        XCTAssertFalse(low.p10IsLowerBound)
        // Raising the bound past every value moves the median by exactly what the flag says it may.
        let raised = ModeSummary.Statistics([5.99, 5.99, 6.48, 20, 11.99, 8.68])
        XCTAssertGreaterThan(try XCTUnwrap(raised.median), try XCTUnwrap(low.median))
        // With the counts alone (scores), every statistic is a bound where any value is.
        let counted = ModeSummary.Statistics([1, 2, 3], lowerBounds: 1)
        XCTAssertTrue(counted.medianIsLowerBound && counted.p10IsLowerBound && counted.meanIsLowerBound)
    }

    func testNoValueIsNullWithACountOfZero() throws {
        let none = ModeSummary.Statistics([])
        XCTAssertEqual(none.count, 0)
        XCTAssertNil(none.mean)
        XCTAssertEqual(JSONValue(encoding: none).canonicalText(), JSONValue.object(["mean": .null, "median": .null, "p10": .null, "count": .number(0),
                                                                                   "lower_bounds": .number(0), "low_confidence_left_out": .number(0)]).canonicalText())
    }

    func testItsEncodingIsEvalJSONsModeSummaryEntry() throws {
        let one = ModeSummary.Statistics([3])
        let summary = ModeSummary(mode: "speex:intensityMax", ran: 2, failed: 1, wins: 1, erleSteadyDB: one, erleDB: one,
                                  convergenceSeconds: one, nearEndAttenuationDB: ModeSummary.Statistics([]), nearEndDistortionDB: one)
        let json = try XCTUnwrap(JSONValue(encoding: summary).objectValue)
        XCTAssertEqual(json.keys.sorted(), ["convergence_s", "double_talk_attenuation_range_db", "erle_db", "erle_steady_db", "failed", "mode",
                                            "near_end_attenuation_db", "near_end_distortion_db", "near_end_lost", "ran", "tclw_db", "wins"])
        XCTAssertEqual(json["tclw_db"]?["count"]?.doubleValue, 0)
        XCTAssertEqual(json["near_end_attenuation_db"]?["mean"], .null)
        XCTAssertEqual(json["erle_steady_db"]?["p10"]?.doubleValue, 3)
        XCTAssertEqual(try JSONValueDecoder().decode(ModeSummary.self, from: .object(json)), summary)
        // With scores, they are one more key, and read back.
        var scored = summary
        scored.scores = [.init(scorer: "aecmos", unscoredRuns: 1, scores: [])]
        let withScores = JSONValue(encoding: scored)
        XCTAssertEqual(withScores["scores"]?.arrayValue?.first?["unscored_runs"]?.doubleValue, 1)
        XCTAssertEqual(try JSONValueDecoder().decode(ModeSummary.self, from: withScores), scored)
    }

    /// A near end lost entirely counts at its bound in the attenuation and, having no distortion
    /// to measure, is left out of the distortion statistic: counted in `near_end_lost`, not gone.
    func testARunThatLostTheNearEndIsCountedNotDropped() throws {
        func run(attenuation: Double, lost: Bool, distortion: Double?) -> EvalDocument.Run {
            HandBuiltRuns.run("webrtc-mobile:intensityMax", metrics: HandBuiltRuns.metrics(
                nearEnd: HandBuiltRuns.nearEnd(attenuation: attenuation, lost: lost, distortion: distortion, frames: 80)))
        }
        let items = HandBuiltRuns.items([[run(attenuation: 9.9, lost: true, distortion: nil)], [run(attenuation: 3, lost: false, distortion: -12)]])
        let summary = EvalDocument.summary(for: "webrtc-mobile:intensityMax", items: items)
        XCTAssertEqual(summary.nearEndLostRuns, 1)
        XCTAssertEqual(summary.nearEndAttenuationDB.count, 2)
        XCTAssertEqual(summary.nearEndAttenuationDB.lowerBounds, 1)
        XCTAssertEqual(summary.nearEndDistortionDB.count, 1)
        XCTAssertEqual(summary.nearEndDistortionDB.median, -12)
        XCTAssertEqual(JSONValue(encoding: summary)["near_end_lost"]?.doubleValue, 1)
    }

    /// Each summarised figure is read from the typed metrics, and `compare` reads the same figure
    /// from eval.json's `metrics` object by its path: the two must name one number, one frame
    /// count and one bound.
    func testEachFiguresPathInTheFileNamesItsValueInTheModel() throws {
        var metrics = HandBuiltRuns.metrics(erleSteady: 31.5, erleSteadyBound: true, erleSteadyFrames: 123, singleTalkFrames: 456,
                                            doubleTalkFrames: 78,
                                            nearEnd: HandBuiltRuns.nearEnd(attenuation: 4.25, lost: true, distortion: -13.5, frames: 77),
                                            estimate: NearEndEstimate(outputDropDB: 2.5, outputDropIsLowerBound: true, frames: 91, lostFrames: 3,
                                                                      isLost: false),
                                            telephony: HandBuiltRuns.doubleTalkRange(7.75, isLowerBound: true, frames: 66))
        metrics.erleDB = 22.5
        metrics.erleIsLowerBound = true
        metrics.convergenceSeconds = 1.75
        metrics.convergenceIsLowerBound = true
        metrics.telephony?.echoLoss = WeightedEchoLoss(tclwDB: 48.5, isLowerBound: true, bands: [], analysisFrames: 55)
        let json = JSONValue(encoding: metrics)
        let figures = EvalDocument.summarisedMetrics.map(\.figure) + [.nearEndEstimate]
        XCTAssertEqual(figures.count, 8)
        for figure in figures {
            let typed = figure.read(metrics)
            let keys = figure.keys
            XCTAssertNotNil(typed.value, keys.path)
            XCTAssertEqual(json.value(at: keys.path)?.doubleValue, typed.value, keys.path)
            XCTAssertEqual(json.value(at: keys.frames)?.doubleValue, Double(typed.frames), keys.frames)
            XCTAssertEqual(keys.bound.flatMap { json.value(at: $0)?.boolValue } ?? false, typed.isLowerBound, keys.path)
        }
        // Every bound this run holds is read as one somewhere: none of the paths misses its flag.
        XCTAssertEqual(figures.filter { $0.read(metrics).isLowerBound }.count, 7)
    }

    /// A mode's near-end statistics and its corpus mean count each run's departure, either way:
    /// an automatic gain control's 2.93 dB boost on one item cancelled a 5.7 dB cut on another,
    /// and the mode read 1.4 dB where its runs moved the talker 4.3 dB on average.
    func testANearEndBoostDoesNotCancelACut() throws {
        func run(_ mode: String, erle: Double, nearEnd: Double) -> EvalDocument.Run {
            HandBuiltRuns.run(mode, metrics: HandBuiltRuns.metrics(erleSteady: erle, nearEnd: HandBuiltRuns.nearEnd(attenuation: nearEnd)))
        }
        let items = HandBuiltRuns.items([
            [run("speex:intensityMax", erle: 20, nearEnd: 5.7), run("echolab:intensityMax", erle: 20, nearEnd: 1)],
            [run("speex:intensityMax", erle: 20, nearEnd: -2.93), run("echolab:intensityMax", erle: 20, nearEnd: 1)],
        ])
        let summary = EvalDocument.summary(for: "speex:intensityMax", items: items)
        XCTAssertEqual(try XCTUnwrap(summary.nearEndAttenuationDB.mean), (5.7 + 2.93) / 2, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(summary.nearEndAttenuationDB.median), (5.7 + 2.93) / 2, accuracy: 1e-12)
        let means = try XCTUnwrap(BestModes.comparedMeans(items.map { EvalDocument.points($0) }))
        let speex = try XCTUnwrap(means.points.first { $0.mode == "speex:intensityMax" })
        // The trade-off plot's point too (signed, it read 1.4 dB).
        XCTAssertEqual(try XCTUnwrap(speex.nearEndAttenuationDB), (5.7 + 2.93) / 2, accuracy: 1e-12)
    }
}
