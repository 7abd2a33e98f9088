import EchoLabJSON
@testable import Evaluation
import Metrics
import XCTest

/// The verdicts eval.md and eval.html show are Evaluation's, judged once from the runs' values
/// with the rule that counts the wins: each item's front, the trade-off plot's compared means
/// (with the items they are over) and a mode's P.340 category. Reporting only reads them.
final class EvalVerdictsTests: XCTestCase {
    /// A simulated run: steady ERLE and near-end attenuation in double talk.
    private static func result(_ mode: String, erle: Double?, erleBound: Bool = false, erleFrames: Int = 400,
                               attenuation: Double?, lost: Bool = false, doubleTalkFrames: Int = 300, range: Double? = nil,
                               rangeBound: Bool = false) -> EvalDocument.Run {
        HandBuiltRuns.run(mode, metrics: HandBuiltRuns.metrics(
            erleSteady: erle, erleSteadyBound: erleBound, erleSteadyFrames: erleFrames, doubleTalkFrames: doubleTalkFrames,
            nearEnd: HandBuiltRuns.nearEnd(attenuation: attenuation, lost: lost, frames: doubleTalkFrames),
            telephony: range.map { HandBuiltRuns.doubleTalkRange($0, isLowerBound: rangeBound, frames: doubleTalkFrames) }))
    }

    private static func make(_ items: [[EvalDocument.Run]], modes: [String]) throws -> (summaries: [ModeSummary], verdicts: EvalVerdicts) {
        let made = try EvalDocument.make(items: HandBuiltRuns.items(items), modes: modes, modesAsked: true, planned: items.joined().count,
                                         isComplete: true, shard: nil, wallSeconds: 1)
        return (made.modeSummaries, made.verdicts)
    }

    func testEachItemsFrontIsJudgedOnceWithTheRuleThatCountsTheWins() throws {
        let (summaries, verdicts) = try Self.make([
            // A trade-off: `strong` removes more echo, `gentle` keeps more of the talker; `beaten` is worse than `gentle` on both.
            [Self.result("disabled", erle: 0.1, attenuation: 0), Self.result("strong", erle: 30, attenuation: 6),
             Self.result("gentle", erle: 20, attenuation: 1), Self.result("beaten", erle: 19, attenuation: 2)],
            // `strong`'s ERLE stands on 12 frames: it does not count, so `strong` is off this item's front.
            [Self.result("disabled", erle: 0.1, attenuation: 0), Self.result("strong", erle: 40, erleFrames: 12, attenuation: 1),
             Self.result("gentle", erle: 20, attenuation: 2), Self.result("beaten", erle: 10, attenuation: 3)],
        ], modes: ["disabled", "strong", "gentle", "beaten"])
        XCTAssertEqual(verdicts.itemFronts.count, 2)
        XCTAssertEqual(verdicts.front(ofItemAt: 0)?.modes, ["strong", "gentle"])
        XCTAssertEqual(verdicts.front(ofItemAt: 0)?.axes, .both)
        XCTAssertEqual(verdicts.front(ofItemAt: 1)?.modes, ["gentle"], "a low-confidence figure does not count")
        XCTAssertNil(verdicts.front(ofItemAt: 2), "no such item")
        // The wins are these fronts counted: eval.md's bold cells and eval.json's wins cannot disagree.
        XCTAssertEqual(summaries.map(\.wins), [0, 1, 2, 0])
        for summary in summaries {
            XCTAssertEqual(verdicts.itemFronts.filter { $0?.modes.contains(summary.mode) == true }.count, summary.wins)
        }
        // The corpus compares the modes on ERLE where every mode has one (the first item: strong's
        // second stood on too few frames), on the near end where every mode has it (both).
        XCTAssertEqual(verdicts.corpusFront?.modes, ["strong", "gentle"])
        XCTAssertEqual(verdicts.corpusFront?.comparedItems, 2)
        XCTAssertEqual(verdicts.corpusFront?.erleComparedItems, 1)
        XCTAssertEqual(verdicts.corpusFront?.nearEndComparedItems, 2)
    }

    /// Each axis is compared over the items where every mode has its value on it: an item with
    /// no far-end single talk for one mode still judges the near end, and one without double
    /// talk (a 300 ms echo, far end alone) still judges echo removal — over both at once, the
    /// corpus verdict left out every item without double talk.
    func testTheComparedMeansAreOverTheItemsEveryModeHasAValueOnEachAxis() throws {
        let (_, verdicts) = try Self.make([
            [Self.result("a", erle: 20, attenuation: 2), Self.result("b", erle: 15.44, erleBound: true, attenuation: 1.94)],
            [Self.result("a", erle: 30, attenuation: 4), Self.result("b", erle: 25, attenuation: 1)],
            // `b` has no ERLE here: the ERLE means leave the item out, the near end's keep it.
            [Self.result("a", erle: 50, attenuation: 2), Self.result("b", erle: nil, attenuation: 1)],
            // No double talk: the near end's means leave it out, the ERLE means keep it.
            [Self.result("a", erle: 10, attenuation: nil, doubleTalkFrames: 0), Self.result("b", erle: 40, attenuation: nil, doubleTalkFrames: 0)],
        ], modes: ["a", "b"])
        let means = try XCTUnwrap(verdicts.comparedMeans)
        XCTAssertEqual(means.comparedItems, 4)
        XCTAssertEqual(means.erleComparedItems, 3)
        XCTAssertEqual(means.nearEndComparedItems, 3)
        XCTAssertEqual(means.items, 4)
        XCTAssertEqual(means.points.map(\.mode), ["a", "b"])
        XCTAssertEqual(means.points[0].erleSteadyDB ?? .nan, 20, accuracy: 1e-9)
        XCTAssertEqual(means.points[1].erleSteadyDB ?? .nan, (15.44 + 25 + 40) / 3, accuracy: 1e-9)
        XCTAssertEqual(means.points.map(\.erleSteadyIsLowerBound), [false, true], "a mean over a bound is one")
        XCTAssertEqual(means.points[0].nearEndAttenuationDB ?? .nan, 8.0 / 3, accuracy: 1e-9)
        XCTAssertEqual(means.points[1].nearEndAttenuationDB ?? .nan, 3.94 / 3, accuracy: 1e-9)
        // Pair by pair: b's ERLE is above a's on the items where both are certain (25 − 30 and
        // 40 − 10; the bound ties), and it keeps more of the near end: b alone.
        XCTAssertEqual(verdicts.corpusFront?.modes, ["b"])
        XCTAssertEqual(verdicts.corpusFront?.erleComparedItems, 3)
        XCTAssertEqual(verdicts.corpusFront?.nearEndComparedItems, 3)
        XCTAssertEqual(verdicts.corpusFront?.comparedItems, 4)
    }

    func testAModesDoubleTalkCategoryIsRatedInTheModel() throws {
        let (summaries, _) = try Self.make([
            [Self.result("measured", erle: 20, attenuation: 2, range: 7.5), Self.result("bounded", erle: 20, attenuation: 2, range: 4, rangeBound: true),
             Self.result("past12", erle: 20, attenuation: 2, range: 14, rangeBound: true), Self.result("none", erle: 20, attenuation: 2)],
        ], modes: ["measured", "bounded", "past12", "none"])
        XCTAssertEqual(summaries[0].doubleTalkRating, .init(category: .partialDuplexB, isBestCase: false))
        XCTAssertEqual(summaries[1].doubleTalkRating, .init(category: .partialDuplexA, isBestCase: true), "a bound: that category at best")
        XCTAssertEqual(summaries[2].doubleTalkRating, .init(category: .noDuplex, isBestCase: false), "past 12 dB a bound is certainly 3")
        XCTAssertNil(summaries[3].doubleTalkRating)
    }
}
