import EchoLabJSON
import Evaluation
import XCTest

/// The front of `BestModes` on hand-made points whose answer is known.
final class BestModesTests: XCTestCase {
    private func point(_ mode: String, _ erle: Double?, _ nearEnd: Double?) -> BestModes.Point {
        .init(mode: mode, erleSteadyDB: erle, nearEndAttenuationDB: nearEnd)
    }

    func testATradeOffKeepsBothEndsAndDropsWhatIsBeatenOnBoth() throws {
        let front = try XCTUnwrap(BestModes.front(of: [
            point("gentle", 10, 1), point("strong", 25, 11), point("beaten", 9, 2), point("middle", 18, 4),
            point("beaten-by-middle", 17, 5),
        ]))
        XCTAssertEqual(front.modes, ["gentle", "strong", "middle"])
        XCTAssertEqual(front.axes, .both)
    }

    func testEqualPointsShareTheFrontAndBetterOnOneAxisOnlyIsEnough() throws {
        // Same ERLE, less attenuation: `b` beats `a`; `c` equals `b`.
        let front = try XCTUnwrap(BestModes.front(of: [point("a", 20, 3), point("b", 20, 2), point("c", 20, 2)]))
        XCTAssertEqual(front.modes, ["b", "c"])
    }

    func testDisabledIsTheReferenceNeverOnTheFront() throws {
        // disabled keeps the near end whole (0 dB) but removes no echo.
        let front = try XCTUnwrap(BestModes.front(of: [point("disabled", 0, 0), point("x", 20, 3), point("y", 15, 3)]))
        XCTAssertEqual(front.modes, ["x"])
    }

    func testAnAxisNoModeHasIsNotJudgedAndAModeLackingACountedAxisIsOff() throws {
        let erleOnly = try XCTUnwrap(BestModes.front(of: [point("x", 20, nil), point("y", 25, nil), point("z", 25, nil)]))
        XCTAssertEqual(erleOnly.modes, ["y", "z"])
        XCTAssertEqual(erleOnly.axes, .erleOnly)
        let nearEndOnly = try XCTUnwrap(BestModes.front(of: [point("x", nil, 4), point("y", nil, 1)]))
        XCTAssertEqual(nearEndOnly.modes, ["y"])
        XCTAssertEqual(nearEndOnly.axes, .nearEndOnly)
        // `lost` has no near-end value where the others have one: it cannot be on the front.
        let lacking = try XCTUnwrap(BestModes.front(of: [point("lost", 40, nil), point("x", 20, 3), point("y", 15, 2)]))
        XCTAssertEqual(lacking.modes, ["x", "y"])
    }

    func testFewerThanTwoModesToCompareIsNoVerdict() {
        XCTAssertNil(BestModes.front(of: [point("x", 20, 3)]))
        XCTAssertNil(BestModes.front(of: [point("disabled", 0, 0), point("x", 20, 3)]))
        XCTAssertNil(BestModes.front(of: [point("x", nil, nil), point("y", nil, nil)]))
        XCTAssertNil(BestModes.front(of: [point("x", 20, 3), point("y", 30, nil)]), "only one mode has both values")
    }
}

/// The corpus's verdict: means over the items every mode has its values on, a lost near end the
/// worst case.
final class CorpusBestModesTests: XCTestCase {
    private func point(_ mode: String, _ erle: Double?, _ nearEnd: Double?, lost: Bool = false) -> BestModes.Point {
        .init(mode: mode, erleSteadyDB: erle, nearEndAttenuationDB: nearEnd, nearEndLost: lost)
    }

    func testModesAreComparedOnTheItemsTheyAllHaveValuesOn() throws {
        // `b` failed on the hard item: its mean over its one easy item would flatter it.
        let items = [[point("a", 30, 2), point("b", 31, 2)], [point("a", 10, 6)]]
        let verdict = try XCTUnwrap(BestModes.front(ofItems: items))
        XCTAssertEqual(verdict.modes, ["b"])
        XCTAssertEqual(verdict.comparedItems, 1)
        XCTAssertEqual(verdict.items, 2)
        let means = try XCTUnwrap(BestModes.comparedMeans([[point("a", 30, 2), point("b", 20, 1)], [point("a", 10, 4), point("b", 12, 3)]]))
        XCTAssertEqual(means.points.map(\.erleSteadyDB), [20, 16])
        XCTAssertEqual(means.points.map(\.nearEndAttenuationDB), [3, 2])
        XCTAssertNil(BestModes.front(ofItems: [[point("a", 30, 2)], [point("b", 31, 2)]]), "no item both ran on")
    }

    func testANearEndLostIsTheWorstCaseNotAMissingValue() throws {
        // `max` removed the near end in the second item: it is off the front, though its mean
        // attenuation over the items where it kept some would look fine.
        let items = [[point("min", 20, 2), point("max", 30, 4)], [point("min", 18, 3), point("max", 35, nil, lost: true)]]
        let verdict = try XCTUnwrap(BestModes.front(ofItems: items))
        XCTAssertEqual(verdict.modes, ["min"])
        XCTAssertEqual(verdict.comparedItems, 2)
        // On one item: every canceller but one lost the near end, so that one is best; when all
        // lost it there is no verdict, not an ERLE-only one.
        XCTAssertEqual(BestModes.front(of: [point("keeps", 10, 5), point("wipes", 40, nil, lost: true)])?.modes, ["keeps"])
        XCTAssertEqual(BestModes.front(of: [point("keeps", 10, 5), point("wipes", 40, nil, lost: true)])?.axes, .both)
        XCTAssertNil(BestModes.front(of: [point("x", 40, nil, lost: true), point("y", 30, nil, lost: true)]))
    }
}

/// A lower bound beats another value only where it certainly does (`BoundedValue`): values whose
/// order a bound leaves unknown tie on that axis — a front decided by hundredths of a dB between
/// bounds (three modes at "≥ 49.0 dB", one named best) decided nothing.
final class BoundedBestModesTests: XCTestCase {
    private func point(_ mode: String, _ erle: Double?, bound: Bool = false, _ nearEnd: Double? = nil) -> BestModes.Point {
        .init(mode: mode, erleSteadyDB: erle, erleSteadyIsLowerBound: bound, nearEndAttenuationDB: nearEnd)
    }

    func testBoundsInAnUnknownOrderTie() throws {
        // A far-end single-talk item under room noise: three outputs under the noise floor (the
        // values eval.json printed), one measured far under them.
        let front = try XCTUnwrap(BestModes.front(of: [
            point("speex", 28.0209), point("webrtc", 49.0429, bound: true), point("aec3", 49.0358, bound: true),
            point("echolab", 49.0362, bound: true),
        ]))
        XCTAssertEqual(front.modes, ["webrtc", "aec3", "echolab"])
        XCTAssertEqual(front.axes, .erleOnly)
        // An earpiece item: ERLE bounds tie, so the near end decides.
        XCTAssertEqual(BestModes.front(of: [point("webrtc", 11.4142, bound: true, 7.1), point("aec3", 11.3863, bound: true, 1.8)])?.modes,
                       ["aec3"])
    }

    func testABoundIsAboveOnlyAMeasuredValueUnderIt() throws {
        // ≥ 49.0 may be more than 49.05: unknown, tied. ≥ 49.0 is certainly more than 48.
        XCTAssertEqual(BestModes.front(of: [point("measured", 49.05), point("bound", 49.0, bound: true)])?.modes, ["measured", "bound"])
        XCTAssertEqual(BestModes.front(of: [point("measured", 48), point("bound", 49.0, bound: true)])?.modes, ["bound"])
        XCTAssertTrue(BoundedValue(49, isLowerBound: true).isCertainlyAbove(BoundedValue(48)))
        XCTAssertFalse(BoundedValue(49).isCertainlyAbove(BoundedValue(48, isLowerBound: true)))
        XCTAssertFalse(BoundedValue(49, isLowerBound: true).isCertainlyAbove(BoundedValue(48, isLowerBound: true)))
    }

    func testAMeanOverABoundIsABoundAndOrdersAsOne() throws {
        // `a`'s mean (25.0) holds a bound, `b`'s (25.5) does not: `a` may well be higher — a tie.
        let tie = [[point("a", 40, bound: true, 1), point("b", 39, 1)], [point("a", 10, 1), point("b", 12, 1)]]
        let means = try XCTUnwrap(BestModes.comparedMeans(tie))
        XCTAssertEqual(means.points.map(\.erleSteadyDB), [25, 25.5])
        XCTAssertEqual(means.points.map(\.erleSteadyIsLowerBound), [true, false])
        XCTAssertEqual(BestModes.front(ofItems: tie)?.modes, ["a", "b"])
        // Shown higher, over a bound, against measured values alone: certainly higher.
        let known = [[point("a", 41, bound: true, 1), point("b", 39, 1)], [point("a", 10, 1), point("b", 11, 1)]]
        XCTAssertEqual(BestModes.front(ofItems: known)?.modes, ["a"])
    }
}

/// A recording without a near-end track: its near-end axis is the tap-free estimate, said so;
/// a verdict on ERLE alone says whether there was no double talk or no near-end figure for it.
final class EstimatedNearEndBestModesTests: XCTestCase {
    /// A run of eval.json as a recording writes it: no `near_end`, the estimate and the gate's double talk.
    private static func result(_ mode: String, erle: Double, drop: Double?, lost: Int = 0, frames: Int = 301) -> JSONValue {
        var metrics: [String: JSONValue] = [
            "erle_steady_db": .number(erle), "erle_steady_is_lower_bound": .bool(false), "erle_steady_analysis_frames": .number(135),
            "gate": .object(["method": .string("echo_path_fit"), "single_talk_analysis_frames": .number(270),
                             "double_talk_analysis_frames": .number(441)]),
            "near_end": .null,
        ]
        metrics["near_end_estimate"] = drop.map { drop in
            .object(["output_drop_db": .number(drop), "output_drop_is_lower_bound": .bool(false), "analysis_frames": .number(Double(frames)),
                     "lost_analysis_frames": .number(Double(lost)), "near_end_lost": .bool(false)])
        } ?? .null
        return .object(["mode": .string(mode), "folder": .string("rec/\(mode)"), "error": .null, "metrics": .object(metrics)])
    }

    private static func document(_ results: [JSONValue]) throws -> (document: JSONValue, modeSummaries: [ModeSummary], best: BestModes.Verdict?) {
        try EvalDocument.make(items: [.object(["index": .number(0), "name": .string("bbb2_doubletalk"), "file": .string("rec"),
                                               "results": .array(results)])],
                              modes: results.compactMap { $0["mode"]?.stringValue }, modesAsked: true, planned: results.count,
                              complete: true, shard: nil, wallSeconds: 1)
    }

    func testTheEstimateIsTheNearEndAxisWithoutANearEndTrack() throws {
        // The trial's recording (a talker from 4 s over a 50 ms echo): webrtc:intensityMax has
        // the most ERLE and drops the talker most; the others keep it.
        let (document, summaries, best) = try Self.document([
            Self.result("speex", erle: 24.2478, drop: 0.5593, lost: 8), Self.result("aec3", erle: 31.5631, drop: 1.5857, lost: 24),
            Self.result("echolab", erle: 21.0211, drop: 0.3177, lost: 2), Self.result("webrtcMax", erle: 42.9849, drop: 5.5161, lost: 90),
        ])
        let verdict = try XCTUnwrap(best)
        XCTAssertEqual(verdict.axes, .both)
        XCTAssertEqual(verdict.modes, ["speex", "aec3", "echolab", "webrtcMax"])
        XCTAssertEqual(verdict.nearEndEstimatedItems, 1)
        XCTAssertEqual(document["best_modes"]?["judged_on"]?.stringValue, "both")
        XCTAssertEqual(document["best_modes"]?["near_end_estimated_items"]?.doubleValue, 1)
        XCTAssertEqual(summaries.first { $0.mode == "webrtcMax" }?.nearEndEstimateDropDB?.mean, 5.5161)
        // Were webrtcMax's ERLE no higher, it would be off the front on the estimate alone.
        let beaten = try XCTUnwrap(Self.document([Self.result("aec3", erle: 31.5631, drop: 1.5857), Self.result("webrtcMax", erle: 30, drop: 5.5161)]).best)
        XCTAssertEqual(beaten.modes, ["aec3"])
        XCTAssertEqual(beaten.axes, .both)
    }

    func testDoubleTalkWithoutANearEndFigureIsNotNoDoubleTalk() throws {
        // The estimate on too few frames counts nowhere: the gate heard 441 double-talk frames,
        // but nothing judges the near end.
        let (document, _, best) = try Self.document([Self.result("speex", erle: 24.2478, drop: 0.5593, frames: 10),
                                                     Self.result("webrtcMax", erle: 42.9849, drop: 5.5161, frames: 10)])
        let verdict = try XCTUnwrap(best)
        XCTAssertEqual(verdict.axes, .erleOnly)
        XCTAssertEqual(verdict.modes, ["webrtcMax"])
        XCTAssertEqual(verdict.doubleTalkItems, 1)
        XCTAssertEqual(verdict.doubleTalkFrames, 441)
        XCTAssertEqual(document["best_modes"]?["near_end_not_judged"]?.stringValue, "no_near_end_figure")
        XCTAssertEqual(document["best_modes"]?["double_talk_analysis_frames"]?.doubleValue, 441)
        // Without double talk, that is what it says.
        let quiet = try XCTUnwrap(BestModes.front(of: [.init(mode: "a", erleSteadyDB: 20, nearEndAttenuationDB: nil),
                                                       .init(mode: "b", erleSteadyDB: 30, nearEndAttenuationDB: nil)]))
        XCTAssertEqual(quiet.doubleTalkItems, 0)
    }
}
