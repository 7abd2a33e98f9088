import Evaluation
import Foundation
@testable import Reporting
import XCTest

/// eval's Scores table tells apart the entries one scorer answered as: AECMOS on a corpus of 16
/// and 48 kHz recordings answers with two models of one version, whose columns read alike
/// ("aecmos 0.0.1.1 aecmos_echo st" twice).
final class ScoreColumnsTests: XCTestCase {
    private func summary(models: [(name: String, version: String)]) throws -> ModeSummary {
        let statistics = #"{"count": 2, "low_confidence_left_out": 0, "lower_bounds": 0, "mean": 4.5, "median": 4.5, "p10": 4.4}"#
        let scores = models.map { model in
            #"{"scorer": "aecmos", "reported_name": "\#(model.name)", "version": "\#(model.version)", "model_sha256": null, "unscored_runs": 0, "#
                + #""scores": [{"talk_type": "st", "score": "aecmos_echo", "higher_is_better": true, "min": 1, "max": 5, "statistics": \#(statistics)}]}"#
        }.joined(separator: ", ")
        let json = #"{"mode": "speex:intensityMin", "ran": 2, "failed": 0, "wins": 0, "near_end_lost": 0, "convergence_s": \#(statistics), "#
            + #""double_talk_attenuation_range_db": \#(statistics), "erle_db": \#(statistics), "erle_steady_db": \#(statistics), "#
            + #""near_end_attenuation_db": \#(statistics), "near_end_distortion_db": \#(statistics), "tclw_db": \#(statistics), "scores": [\#(scores)]}"#
        return try JSONDecoder().decode(ModeSummary.self, from: Data(json.utf8))
    }

    private func header(_ models: [(name: String, version: String)]) throws -> [String] {
        let blocks = ScoreBlocks.modes(["speex:intensityMin"], summaries: [try summary(models: models)], isSortable: false)
        for case .table(let table) in blocks { return table.header }
        XCTFail("no table")
        return []
    }

    func testTwoModelsOfOneVersionAreNamedByModel() throws {
        XCTAssertEqual(try header([("speechmos aecmos_16kHz", "0.0.1.1"), ("speechmos aecmos_48kHz", "0.0.1.1")]),
                       ["mode", "speechmos aecmos_16kHz aecmos_echo st: mean / p10", "speechmos aecmos_48kHz aecmos_echo st: mean / p10",
                        "unscored runs"])
        XCTAssertEqual(try header([("speechmos aecmos_48kHz", "0.0.1"), ("speechmos aecmos_48kHz", "0.0.2")]),
                       ["mode", "0.0.1 aecmos_echo st: mean / p10", "0.0.2 aecmos_echo st: mean / p10", "unscored runs"])
        XCTAssertEqual(try header([("speechmos aecmos_48kHz", "0.0.1")]), ["mode", "aecmos_echo st: mean / p10", "unscored runs"])
    }

    /// The AECMOS plot names a point by its model where two scored the corpus, as the table does.
    func testTheAECMOSPlotNamesAPointByItsModel() throws {
        let points = [EvalVerdicts.AECMOSPoint(mode: "m", model: "speechmos aecmos_16kHz", echo: 4, other: 3, isUnbeaten: true),
                      EvalVerdicts.AECMOSPoint(mode: "m", model: "speechmos aecmos_48kHz", echo: 4.2, other: 3.1, isUnbeaten: true)]
        guard case .scatterChart(let chart)? = ScoreBlocks.aecmosChart(points, modes: ["m"]).first else { return XCTFail("no plot") }
        XCTAssertEqual(chart.points.map(\.name), ["m (speechmos aecmos_16kHz)", "m (speechmos aecmos_48kHz)"])
        XCTAssertEqual(chart.title, "AECMOS in double talk, one point per mode and model (means over its runs)")
        guard case .scatterChart(let single)? = ScoreBlocks.aecmosChart([EvalVerdicts.AECMOSPoint(mode: "m", echo: 4, other: 3, isUnbeaten: true)],
                                                                        modes: ["m"]).first else { return XCTFail("no plot") }
        XCTAssertEqual(single.points.map(\.name), ["m"])
    }
}
