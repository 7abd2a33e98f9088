import EchoLabJSON
import XCTest
@testable import Evaluation

/// `EvalComparison` decides and keeps values; it writes no words. A change carries what it
/// compares (its kind), each side as a typed value and, where it was not judged, why as a typed
/// reason: Reporting puts them into compare.md, the JUnit cases and compare's stdout.
final class ComparisonChangeValuesTests: XCTestCase {
    private static func eval(_ metrics: [String: JSONValue], findings: [String] = [], pipeline: JSONValue = .null) -> JSONValue {
        let result: JSONValue = .object(["mode": .string("speex:intensityMax"), "folder": .string("a/speex"), "error": .null,
                                         "metrics": .object(metrics), "findings": .array(findings.map(JSONValue.string)),
                                         "pipeline": pipeline, "duration_s": .number(4)])
        return .object(["schema": .string(EvalDocument.schema), "complete": .bool(true),
                        "items": .array([.object(["index": .number(0), "name": .string("a"), "file": .string("a.json"),
                                                  "results": .array([result])])])])
    }

    private static func erle(_ value: Double, bound: Bool) -> [String: JSONValue] {
        ["erle_steady_db": .number(value), "erle_steady_is_lower_bound": .bool(bound), "erle_steady_analysis_frames": .number(400)]
    }

    private let key = EvalComparison.RunKey(item: "a", mode: "speex:intensityMax")

    func testALevelsChangeCarriesBoundedValuesAndItsKind() throws {
        let fell = EvalComparison(baseline: Self.eval(Self.erle(40.48, bound: true)), current: Self.eval(Self.erle(15.57, bound: false)),
                                  maxRegressionDB: 0.5)
        let change = try XCTUnwrap(fell.regressions.first)
        XCTAssertEqual(change, EvalComparison.Change(run: key, subject: .level(metric: "erle_steady_db"),
                                                     baseline: .level(BoundedValue(40.48, isLowerBound: true)),
                                                     current: .level(BoundedValue(15.57)), delta: -24.91, threshold: 0.5))
        XCTAssertFalse(change.subject.isCount)
        XCTAssertFalse(change.subject.isScore)
        XCTAssertNil(change.notJudgedReason)
    }

    /// A change of exactly the threshold is no regression, whatever floating-point error makes of
    /// the difference (32.127 − 31.627 is 0.5000000000000036 in doubles; scores 0.1000 apart
    /// read as 6 regressions of 8).
    func testAChangeOfExactlyTheThresholdIsNone() throws {
        XCTAssertGreaterThan(32.127 - 31.627, 0.5, "the doubles' difference is over the threshold")
        let exact = EvalComparison(baseline: Self.eval(Self.erle(32.127, bound: false)), current: Self.eval(Self.erle(31.627, bound: false)),
                                   maxRegressionDB: 0.5)
        XCTAssertTrue(exact.regressions.isEmpty, "\(exact.regressions)")
        let over = EvalComparison(baseline: Self.eval(Self.erle(32.127, bound: false)), current: Self.eval(Self.erle(31.6269, bound: false)),
                                  maxRegressionDB: 0.5)
        XCTAssertEqual(over.regressions.first?.delta, -0.5001)
    }

    /// A run new to CURRENT that failed is a broken item, not a run to list: it fails the gate.
    /// An item that could not be loaded (no mode: "as written") is why each of its baseline
    /// runs is gone, and says so, rather than "missing" beside a new run.
    func testFailedNewRunsAndUnloadableItemsFailTheGateWithTheirErrors() throws {
        func document(_ items: [(name: String, mode: String?, error: String?)]) -> JSONValue {
            .object(["schema": .string(EvalDocument.schema), "complete": .bool(true), "items": .array(items.enumerated().map { index, item in
                .object(["index": .number(Double(index)), "name": .string(item.name), "file": .string("\(item.name).json"), "results": .array([
                    .object(["mode": item.mode.map(JSONValue.string) ?? .null, "folder": .string(item.name),
                             "error": item.error.map(JSONValue.string) ?? .null, "metrics": .object(Self.erle(20, bound: false))]),
                ])])
            })])
        }
        let baseline = document([("a", "speex:intensityMax", nil)])
        let new = EvalComparison(baseline: baseline, current: document([("a", "speex:intensityMax", nil), ("b", "speex:intensityMax", nil),
                                                                          ("c", nil, "c.json: not valid JSON")]), maxRegressionDB: 0.5)
        XCTAssertEqual(new.added, [EvalComparison.RunKey(item: "b", mode: "speex:intensityMax")], "a new run that ran is listed")
        XCTAssertEqual(new.regressions, [EvalComparison.Change(run: .init(item: "c", mode: "as written"), subject: .run, baseline: .notInBaseline,
                                                               current: .failed(error: "c.json: not valid JSON"), delta: nil)])
        XCTAssertTrue(new.hasRegression)

        let unloadable = EvalComparison(baseline: baseline, current: document([("a", nil, "a.json: far_end: gone.wav: no such file")]),
                                        maxRegressionDB: 0.5)
        XCTAssertEqual(unloadable.regressions, [EvalComparison.Change(run: key, subject: .run, baseline: .ran,
                                                                      current: .failed(error: "a.json: far_end: gone.wav: no such file"), delta: nil)])
        XCTAssertEqual(unloadable.added, [], "the item's failure is said once, under its baseline run")
        XCTAssertEqual(unloadable.runs, [key], "not as a passing case of its own (JUnit lists `runs`)")

        // The other way round: fixed, the item's runs in their modes are what became of the
        // baseline's failed one — an improvement where it ran, failed in both where it did not
        // (they read "failed → missing", a regression, beside new runs not judged).
        let broken = document([("a", nil, "a.json: duration_s: expected a number")])
        let fixed = EvalComparison(baseline: broken, current: document([("a", "speex:intensityMax", nil)]), maxRegressionDB: 0.5)
        XCTAssertEqual(fixed.regressions, [])
        XCTAssertEqual(fixed.improvements, [EvalComparison.Change(run: key, subject: .run, baseline: .failed(error: nil), current: .ran, delta: nil)])
        XCTAssertEqual(fixed.added, [])
        XCTAssertEqual(fixed.runs, [key])
        XCTAssertFalse(fixed.hasRegression)
        let stillBroken = EvalComparison(baseline: broken, current: document([("a", "speex:intensityMax", "a.json: far_end: gone.wav: no such file")]),
                                         maxRegressionDB: 0.5)
        XCTAssertEqual(stillBroken.regressions, [EvalComparison.Change(run: key, subject: .run, baseline: .failed(error: nil),
                                                                       current: .failed(error: "a.json: far_end: gone.wav: no such file"), delta: nil)])
    }

    /// A run that failed in the baseline and fails again measured nothing in either: the corpus is
    /// broken, and a baseline blessed while it was would otherwise pass it for good. Fixed, it is
    /// an improvement.
    func testARunFailedInBothFailsTheGateAndFixedIsAnImprovement() throws {
        func document(error: String?) -> JSONValue {
            .object(["schema": .string(EvalDocument.schema), "complete": .bool(true), "items": .array([
                .object(["index": .number(0), "name": .string("a"), "file": .string("a.json"), "results": .array([
                    .object(["mode": .string("speex:intensityMax"), "folder": .string("a/speex"), "error": error.map(JSONValue.string) ?? .null,
                             "metrics": .object(Self.erle(20, bound: false))]),
                ])]),
            ])])
        }
        let still = EvalComparison(baseline: document(error: "a.json: far_end: gone.wav: no such file"),
                                   current: document(error: "a.json: far_end: gone.wav: no such file"), maxRegressionDB: 0.5)
        XCTAssertEqual(still.regressions, [EvalComparison.Change(run: key, subject: .run, baseline: .failed(error: nil),
                                                                 current: .failed(error: "a.json: far_end: gone.wav: no such file"), delta: nil)])
        XCTAssertTrue(still.hasRegression)
        let fixed = EvalComparison(baseline: document(error: "a.json: far_end: gone.wav: no such file"), current: document(error: nil),
                                   maxRegressionDB: 0.5)
        XCTAssertTrue(fixed.regressions.isEmpty)
        XCTAssertEqual(fixed.improvements.map(\.current), [.ran])
    }

    /// A new run from the scenario file of a missing one is pointed at it: renamed (the same
    /// mode), or its mode changed (the same item). The missing run still fails the gate.
    func testANewRunFromAMissingRunsFileIsPointedAtIt() throws {
        func document(_ items: [(name: String, file: String, mode: String)]) -> JSONValue {
            .object(["schema": .string(EvalDocument.schema), "complete": .bool(true), "items": .array(items.enumerated().map { index, item in
                .object(["index": .number(Double(index)), "name": .string(item.name), "file": .string(item.file), "results": .array([
                    .object(["mode": .string(item.mode), "folder": .string(item.name), "error": .null, "metrics": .object(Self.erle(20, bound: false))]),
                ])])
            })])
        }
        let baseline = document([("room", "room.json", "speex:intensityMax"), ("other", "other.json", "speex:intensityMax")])
        // The corpus named by another path (the CI machine's): the file's name is what matches.
        let renamed = EvalComparison(baseline: baseline, current: document([("room-v2", "/data/corpus/room.json", "speex:intensityMax"),
                                                                            ("other", "/data/corpus/other.json", "speex:intensityMax")]),
                                     maxRegressionDB: 0.5)
        XCTAssertTrue(renamed.hasRegression)
        XCTAssertEqual(renamed.formerRuns, [EvalComparison.RunKey(item: "room-v2", mode: "speex:intensityMax"):
                                                EvalComparison.RunKey(item: "room", mode: "speex:intensityMax")])
        let remoded = EvalComparison(baseline: baseline, current: document([("room", "room.json", "speex:intensityMin"),
                                                                            ("other", "other.json", "speex:intensityMax")]), maxRegressionDB: 0.5)
        XCTAssertEqual(remoded.formerRuns, [EvalComparison.RunKey(item: "room", mode: "speex:intensityMin"):
                                                EvalComparison.RunKey(item: "room", mode: "speex:intensityMax")])
        // A new item of its own file is no one's former run.
        let added = EvalComparison(baseline: baseline, current: document([("room", "room.json", "speex:intensityMax"), ("other", "other.json", "speex:intensityMax"),
                                                                          ("new", "new.json", "speex:intensityMax")]), maxRegressionDB: 0.5)
        XCTAssertEqual(added.formerRuns, [:])
    }

    /// An item's modes changed: each new run is pointed at the missing run of its backend (a QA
    /// trial's speex:intensityMax was pointed at the item's aec3 run), each missing run once.
    func testANewModeIsPointedAtTheMissingRunOfItsBackend() throws {
        func document(_ modes: [String]) -> JSONValue {
            .object(["schema": .string(EvalDocument.schema), "complete": .bool(true), "items": .array([
                .object(["index": .number(0), "name": .string("room"), "file": .string("room.json"), "results": .array(modes.map { mode in
                    .object(["mode": .string(mode), "folder": .string("room/\(mode)"), "error": .null, "metrics": .object(Self.erle(20, bound: false))])
                })]),
            ])])
        }
        let comparison = EvalComparison(baseline: document(["aec3:intensityRecommended", "speex:intensityRecommended", "webrtc:intensityMax"]),
                                        current: document(["speex:intensityMax", "webrtc:intensityMax", "echolab:intensityRecommended"]),
                                        maxRegressionDB: 0.5)
        func key(_ mode: String) -> EvalComparison.RunKey { EvalComparison.RunKey(item: "room", mode: mode) }
        XCTAssertEqual(comparison.formerRuns, [key("speex:intensityMax"): key("speex:intensityRecommended"),
                                               key("echolab:intensityRecommended"): key("aec3:intensityRecommended")])
        // A run matched by intensity alone does not take the run another shares a backend with,
        // whichever comes first.
        let crossed = EvalComparison(baseline: document(["speex:intensityRecommended", "webrtc:intensityMax"]),
                                     current: document(["aec3:intensityRecommended", "speex:intensityMax"]), maxRegressionDB: 0.5)
        XCTAssertEqual(crossed.formerRuns, [key("speex:intensityMax"): key("speex:intensityRecommended"),
                                            key("aec3:intensityRecommended"): key("webrtc:intensityMax")])
    }

    func testANotJudgedLevelSaysWhichSideIsABound() throws {
        let both = EvalComparison(baseline: Self.eval(Self.erle(49.0358, bound: true)), current: Self.eval(Self.erle(39.0358, bound: true)),
                                  maxRegressionDB: 0.5)
        XCTAssertTrue(both.regressions.isEmpty)
        XCTAssertEqual(both.notJudged.map(\.notJudgedReason), [.lowerBound(.both)])
        XCTAssertEqual(both.notJudged.first?.current, .level(BoundedValue(39.0358, isLowerBound: true)))
        let current = EvalComparison(baseline: Self.eval(Self.erle(41.11, bound: false)), current: Self.eval(Self.erle(39.08, bound: true)),
                                     maxRegressionDB: 0.5)
        XCTAssertEqual(current.notJudged.map(\.notJudgedReason), [.lowerBound(.current)])
        // Measured before and gone now: a regression, the current side "not measured".
        let gone = EvalComparison(baseline: Self.eval(Self.erle(30, bound: false)), current: Self.eval([:]), maxRegressionDB: 0.5)
        XCTAssertEqual(gone.regressions.map(\.current), [.notMeasured])
        // On too few frames now: a regression, with the frames it stood on.
        var thin = Self.erle(30, bound: false)
        thin["erle_steady_analysis_frames"] = .number(12)
        let onThin = EvalComparison(baseline: Self.eval(Self.erle(30, bound: false)), current: Self.eval(thin), maxRegressionDB: 0.5)
        XCTAssertEqual(onThin.regressions.map(\.current), [.lowConfidence(frames: 12)])
    }

    func testAFindingOnAnUnjudgedFigureIsACountWithATypedReason() throws {
        let rule = RequirementFindings.echoLossRule
        func loss(_ tclw: Double, bound: Bool, meets: JSONValue) -> [String: JSONValue] {
            ["telephony": .object(["echo_loss": .object(["tclw_db": .number(tclw), "is_lower_bound": .bool(bound),
                                                         "analysis_frames": .number(400), "meets_ts26131_46db": meets])])]
        }
        let gained = EvalComparison(baseline: Self.eval(loss(25.23, bound: true, meets: .null)),
                                    current: Self.eval(loss(10.5, bound: true, meets: .bool(false)), findings: [rule]), maxRegressionDB: 0.5)
        let change = try XCTUnwrap(gained.notJudged.first { $0.subject == .finding(rule: rule) })
        XCTAssertEqual(change.baseline, .count(0))
        XCTAssertEqual(change.current, .count(1))
        XCTAssertEqual(change.delta, 1)
        XCTAssertTrue(change.subject.isCount)
        XCTAssertEqual(change.notJudgedReason, .finding(.echoLossBoundUnderRequirement(tclw: BoundedValue(25.23, isLowerBound: true)), on: .baseline))
        // A finding lost where the figure stands on too few of the bands the far end reaches: no
        // verdict, named by the bands (a measured 37.4 dB on 2 of 14 may be over 46 on all 14).
        var few = loss(37.4, bound: false, meets: .null)
        if case .object(var telephony)? = few["telephony"], case .object(var echoLoss)? = telephony["echo_loss"] {
            echoLoss["band_coverage"] = .object(["measured": .number(2), "reached": .number(14)])
            telephony["echo_loss"] = .object(echoLoss)
            few["telephony"] = .object(telephony)
        }
        let lostOnFewBands = EvalComparison(baseline: Self.eval(loss(37.4, bound: false, meets: .bool(false)), findings: [rule]),
                                            current: Self.eval(few), maxRegressionDB: 0.5)
        let unjudged = try XCTUnwrap(lostOnFewBands.notJudged.first { $0.subject == .finding(rule: rule) })
        XCTAssertEqual(unjudged.notJudgedReason, .finding(.echoLossOnFewBands(.init(measured: 2, reached: 14)), on: .current))
        // Without a measured echo delay the reach rule has no verdict on that side either.
        let delay = LintRule.echoDelayBeyondFilter.rawValue
        let lost = EvalComparison(baseline: Self.eval(["delay_ms": .number(300)], findings: [delay]), current: Self.eval([:]), maxRegressionDB: 0.5)
        XCTAssertEqual(lost.notJudged.map(\.notJudgedReason), [.finding(.noEchoDelay, on: .current)])
    }

    func testACounterAndAFailedRunAreTypedToo() throws {
        func pipeline(_ underruns: Int) -> JSONValue { .object(["underruns": .number(Double(underruns))]) }
        let rose = EvalComparison(baseline: Self.eval([:], pipeline: pipeline(0)), current: Self.eval([:], pipeline: pipeline(3)),
                                  maxRegressionDB: 0.5)
        XCTAssertEqual(rose.regressions, [EvalComparison.Change(run: key, subject: .counter(path: "pipeline.underruns"), baseline: .count(0),
                                                                current: .count(3), delta: 3)])
        var failed = Self.eval([:])
        if case .object(var root) = failed, case .array(var items)? = root["items"], case .object(var item) = items[0],
           case .array(var results)? = item["results"], case .object(var result) = results[0] {
            result["error"] = .string("the canceller would not start")
            results[0] = .object(result); item["results"] = .array(results); items[0] = .object(item); root["items"] = .array(items)
            failed = .object(root)
        }
        let broke = EvalComparison(baseline: Self.eval([:]), current: failed, maxRegressionDB: 0.5)
        XCTAssertEqual(broke.regressions.map(\.subject), [.run])
        XCTAssertEqual(broke.regressions.map(\.current), [.failed(error: "the canceller would not start")])
        XCTAssertEqual(broke.regressions.map(\.baseline), [.ran])
    }
}
