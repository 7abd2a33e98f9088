import EchoLabJSON
@testable import Evaluation
import XCTest

/// eval.json's per-mode scores (`ModeSummary.scores`): statistics over the runs' values, one
/// entry per scorer version and model (a score is never taken for another's), unscored runs
/// counted, and no `scores` key at all where no run was scored.
final class ScoreStatisticsTests: XCTestCase {
    /// A run's scores: `values` per talk type of one score `mos`.
    func result(_ scorer: String, version: String? = "1", values: [String: Double]?, reason: String? = nil,
                higherIsBetter: Bool = true) -> [ScorerResult] {
        let talkTypes = values.map { values in
            values.keys.sorted().map { talk in
                TalkTypeScores(talkType: talk, stretches: 1, seconds: 2,
                               scores: ["mos": ScoreValue(value: values[talk]!, higherIsBetter: higherIsBetter, minimum: 1, maximum: 5)])
            }
        }
        return [ScorerResult(name: scorer, reportedName: "model", version: version, modelSHA256: nil, talkTypes: talkTypes, unscoredReason: reason)]
    }

    func testEachScoreIsSummarisedOverTheRunsThatHaveIt() throws {
        let results = [result("a", values: ["st": 4, "dt": 2]), result("a", values: ["st": 3]), result("a", values: ["st": 5, "dt": 3]),
                       result("a", values: nil, reason: "hung")]
        let entries = try XCTUnwrap(EvalDocument.scoreStatistics(results, scoredAnywhere: true))
        XCTAssertEqual(entries.count, 1)
        XCTAssertEqual(entries[0].unscoredRuns, 1)
        XCTAssertEqual(entries[0].scores.map(\.talkType), ["dt", "st"], "in the order first met (talk types sorted in a run)")
        let st = try XCTUnwrap(entries[0].scores.first { $0.talkType == "st" }).statistics
        XCTAssertEqual(st.count, 3)
        XCTAssertEqual(st.mean, 4)
        XCTAssertEqual(st.median, 4)
        XCTAssertEqual(try XCTUnwrap(st.p10), 3.2, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(entries[0].scores.first { $0.talkType == "dt" }).statistics.mean, 2.5)
    }

    /// Where lower is better, the hard runs are the high ones: p10 is the 90th percentile.
    func testP10IsTheWorstTenthWhicheverWayIsBetter() throws {
        let results = [3.0, 4, 5].map { result("a", values: ["st": $0], higherIsBetter: false) }
        let statistics = try XCTUnwrap(EvalDocument.scoreStatistics(results, scoredAnywhere: true)?.first?.scores.first).statistics
        XCTAssertEqual(try XCTUnwrap(statistics.p10), 4.8, accuracy: 1e-12)
        XCTAssertEqual(statistics.median, 4)
    }

    func testAnotherVersionIsAnotherEntryAndAScorerThatScoredNothingIsStillSaid() throws {
        let results = [result("a", version: "1", values: ["st": 4]), result("a", version: "2", values: ["st": 2]),
                       result("a", values: nil, reason: "hung"), result("b", values: nil, reason: "crashed")]
        let entries = try XCTUnwrap(EvalDocument.scoreStatistics(results, scoredAnywhere: true))
        XCTAssertEqual(entries.map(\.scorer), ["a", "a", "b"])
        XCTAssertEqual(entries.map(\.version), ["1", "2", nil])
        XCTAssertEqual(entries.map { $0.scores.first?.statistics.mean }, [4, 2, nil])
        XCTAssertEqual(entries.map(\.unscoredRuns), [1, 0, 1], "an unscored run is counted once, in its scorer's first entry")
        XCTAssertTrue(entries[2].scores.isEmpty)
    }

    /// Runs that declare one score with opposite directions are two scores: each keeps its own
    /// statistics (p10 the worst tenth in its own direction), where one entry took the first's.
    func testAScoreDeclaredTheOtherWayIsAnotherScore() throws {
        let results = [result("a", values: ["st": 3]), result("a", values: ["st": 4]), result("a", values: ["st": 5], higherIsBetter: false)]
        let scores = try XCTUnwrap(EvalDocument.scoreStatistics(results, scoredAnywhere: true)?.first?.scores)
        XCTAssertEqual(scores.map(\.higherIsBetter), [true, false])
        XCTAssertEqual(scores.map(\.statistics.mean), [3.5, 5])
        XCTAssertEqual(scores.map(\.statistics.count), [2, 1])
    }

    /// The AECMOS plot's points are judged here, once: each mode's double-talk means, and
    /// whether another mode scores at least as well on both and better on one, a mode that muted
    /// left out of that.
    func testTheAECMOSDoubleTalkPointsAreJudgedInEvaluation() throws {
        func aecmos(_ mode: String, echo: Double?, other: Double, findings: [String] = []) -> EvalDocument.Run {
            var scores: [String: ScoreValue] = ["aecmos_other": ScoreValue(value: other, higherIsBetter: true, minimum: 1, maximum: 5)]
            if let echo { scores["aecmos_echo"] = ScoreValue(value: echo, higherIsBetter: true, minimum: 1, maximum: 5) }
            let result = [ScorerResult(name: "aecmos", reportedName: "AECMOS", version: "1", modelSHA256: nil,
                                       talkTypes: [TalkTypeScores(talkType: "dt", stretches: 1, seconds: 2, scores: scores)], unscoredReason: nil)]
            return HandBuiltRuns.run(mode, findings: findings, scores: result)
        }
        // A mute: AECMOS scores its silence best on both axes (a new user's plugin read 4.90 and
        // 4.98, the plot's only ring); it is plotted, never ringed, and beats no one.
        let items = HandBuiltRuns.items([[
            aecmos("strong", echo: 4.6, other: 3.0), aecmos("gentle", echo: 4.0, other: 4.0), aecmos("beaten", echo: 4.0, other: 3.9),
            aecmos("tied", echo: 4.6, other: 3.0), aecmos("half", echo: nil, other: 4.5),
            aecmos("mute", echo: 4.9, other: 4.98, findings: [RequirementFindings.silentSendRule]),
        ]])
        let modes = ["strong", "gentle", "beaten", "tied", "half", "mute"]
        let made = try EvalDocument.make(items: items, modes: modes, modesAsked: true, planned: 6, isComplete: true, shard: nil, wallSeconds: 0)
        let points = made.verdicts.aecmosDoubleTalk
        XCTAssertEqual(points.map(\.mode), ["strong", "gentle", "beaten", "tied", "mute"], "a mode without both scores has no point")
        XCTAssertEqual(points.map(\.isUnbeaten), [true, true, false, true, false], "a tie beats neither; a mute is never ringed")
        XCTAssertEqual(points[1].echo, 4.0)
        XCTAssertEqual(points[1].other, 4.0)
    }

    /// A corpus of two rates is scored by AECMOS' 16 and 48 kHz models: each mode has a point
    /// per model, named after it, and a point is ringed against its own model's only. The plot
    /// showed the first model's means under the mode's name, the other model's dropped.
    func testTwoAECMOSModelsPlotAPointPerModeAndModel() throws {
        func aecmos(_ mode: String, model: String, echo: Double, other: Double) -> EvalDocument.Run {
            let scores = ["aecmos_echo": ScoreValue(value: echo, higherIsBetter: true, minimum: 1, maximum: 5),
                          "aecmos_other": ScoreValue(value: other, higherIsBetter: true, minimum: 1, maximum: 5)]
            let result = [ScorerResult(name: "aecmos", reportedName: model, version: "1", modelSHA256: nil,
                                       talkTypes: [TalkTypeScores(talkType: "dt", stretches: 1, seconds: 2, scores: scores)], unscoredReason: nil)]
            return HandBuiltRuns.run(mode, scores: result)
        }
        // "a" beats "b" by the 16 kHz model; "b" beats "a" by the 48 kHz one, by less than the
        // two models differ: compared across models, "a" at 16 kHz would beat "b" at 48 kHz.
        let items = HandBuiltRuns.items([
            [aecmos("a", model: "AECMOS 16k", echo: 4.6, other: 4.0), aecmos("b", model: "AECMOS 16k", echo: 4.2, other: 3.6)],
            [aecmos("a", model: "AECMOS 48k", echo: 4.0, other: 3.4), aecmos("b", model: "AECMOS 48k", echo: 4.1, other: 3.5)],
        ])
        let made = try EvalDocument.make(items: items, modes: ["a", "b"], modesAsked: true, planned: 4, isComplete: true, shard: nil, wallSeconds: 0)
        let points = made.verdicts.aecmosDoubleTalk
        XCTAssertEqual(points.map(\.mode), ["a", "a", "b", "b"])
        XCTAssertEqual(points.map(\.model), ["AECMOS 16k", "AECMOS 48k", "AECMOS 16k", "AECMOS 48k"])
        XCTAssertEqual(points.map(\.echo), [4.6, 4.0, 4.2, 4.1])
        XCTAssertEqual(points.map(\.isUnbeaten), [true, false, false, true], "each model's front of its own points")
        // One model: no model named, as before.
        let one = try EvalDocument.make(items: [items[0]], modes: ["a", "b"], modesAsked: true, planned: 2, isComplete: true, shard: nil, wallSeconds: 0)
        XCTAssertEqual(one.verdicts.aecmosDoubleTalk.map(\.model), [nil, nil])
    }

    /// The labels that tell one scorer's identities apart always differ: by the name reported,
    /// then the version, then the model file, as many as it takes. Names alone called two
    /// versions of one name "A" twice; versions alone called two model files "1" twice.
    func testIdentityLabelsAlwaysDiffer() {
        typealias Identity = ModeSummary.ScorerStatistics.Identity
        func labels(_ identities: [(String?, String?, String?)]) -> [String?] {
            let made = identities.map { Identity(scorer: "aecmos", reportedName: $0.0, version: $0.1, modelSHA256: $0.2) }
            let labels = ModeSummary.ScorerStatistics.labels(telling: made)
            return made.map { labels[$0] }
        }
        XCTAssertEqual(labels([("a16", "1", nil), ("a48", "1", nil)]), ["a16", "a48"])
        XCTAssertEqual(labels([("a", "1", nil), ("a", "2", nil)]), ["1", "2"])
        XCTAssertEqual(labels([("a", "1", "0123456789abcdef"), ("a", "1", "fedcba9876543210")]), ["model 0123456789ab", "model fedcba987654"])
        XCTAssertEqual(labels([("A", "1", nil), ("A", "2", nil), ("B", "1", nil)]), ["A 1", "A 2", "B 1"])
        XCTAssertEqual(labels([("a", "1", nil), ("a", "1", nil)]), [nil, nil], "one identity: nothing to tell apart")
    }

    func testACorpusWithoutScoresHasNoScoresKey() throws {
        let document = try EvalDocument.make(items: HandBuiltRuns.items([[HandBuiltRuns.run("m")]]), modes: ["m"], modesAsked: true, planned: 1, isComplete: true, shard: nil, wallSeconds: 0)
        XCTAssertNil(document.modeSummaries[0].scores)
        XCTAssertNil(document.document["mode_summary"]?.arrayValue?.first?["scores"], "no key, not null: eval.json keeps its bytes")
        let scored = HandBuiltRuns.items([[HandBuiltRuns.run("m", scores: result("a", values: ["st": 4]))]])
        let withScores = try EvalDocument.make(items: scored, modes: ["m"], modesAsked: true, planned: 1, isComplete: true, shard: nil, wallSeconds: 0)
        XCTAssertEqual(withScores.document["mode_summary"]?.arrayValue?.first?["scores"]?.arrayValue?.count, 1)
    }
}
