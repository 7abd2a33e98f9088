import EchoLabJSON
import Metrics
@testable import Evaluation
@testable import Reporting
import XCTest

/// compare.md's verdict: an interrupted current run cannot pass, and what it holds is said as
/// that ("No regression among the runs it holds"), not as a plain "No regression."; bounds keep
/// their mark in the mode means.
final class ComparisonMarkdownTests: XCTestCase {
    private static func eval(complete: Bool, erle: Double = 20, lowerBounds: Int = 0) -> JSONValue {
        let result: JSONValue = .object(["mode": .string("speex:intensityMax"), "folder": .string("a/speex-intensityMax"), "error": .null,
                                         "metrics": .object(["erle_steady_db": .number(erle), "erle_steady_analysis_frames": .number(400),
                                                             "erle_steady_is_lower_bound": .bool(lowerBounds > 0)]),
                                         "findings": .array([]), "duration_s": .number(4)])
        let summary: JSONValue = .object(["mode": .string("speex:intensityMax"),
                                          "erle_steady_db": .object(["mean": .number(erle), "lower_bounds": .number(Double(lowerBounds))])])
        return .object(["schema": .string(EvalDocument.schema), "complete": .bool(complete), "mode_summary": .array([summary]),
                        "items": .array([.object(["index": .number(0), "name": .string("a"), "file": .string("a.json"),
                                                  "results": .array([result])])])])
    }

    func testAnInterruptedRunIsNotSaidToHaveNoRegression() {
        let interrupted = ComparisonMarkdown.render(EvalComparison(baseline: Self.eval(complete: true), current: Self.eval(complete: false),
                                                                   maxRegressionDB: 0.5),
                                                    baselineName: "base.json", currentName: "cur.json")
        XCTAssertTrue(interrupted.contains("**The current run is incomplete** (interrupted): it cannot pass the gate.\n\n"
                                           + "**No regression among the runs it holds.** 0 improvements beyond the threshold.\n"), interrupted)
        XCTAssertFalse(interrupted.contains("**No regression.**"), interrupted)
        let complete = ComparisonMarkdown.render(EvalComparison(baseline: Self.eval(complete: true), current: Self.eval(complete: true),
                                                                maxRegressionDB: 0.5),
                                                 baselineName: "base.json", currentName: "cur.json")
        XCTAssertTrue(complete.contains("**No regression.** 0 improvements beyond the threshold.\n"), complete)
    }

    /// A scorer on one side only is one line past ten runs alike (a baseline scored with AECMOS
    /// against an eval without it listed 441 rows); fewer stay rows, in their order.
    /// A new run from a missing run's scenario file says so in its line.
    func testANewRunFromAMissingRunsFileSaysWhatItMayBe() {
        let line = ComparisonMarkdown.listItem(.init(item: "room-v2", mode: "disabled"), former: .init(item: "room", mode: "disabled"))
        XCTAssertEqual(line, "- room-v2 × disabled — from a file of the same name as the missing room × disabled: renamed?\n")
        XCTAssertEqual(ComparisonMarkdown.listItem(.init(item: "room", mode: "speex:intensityMin"), former: .init(item: "room", mode: "disabled")),
                       "- room × speex:intensityMin — from a file of the same name as the missing room × disabled: its mode changed?\n")
        XCTAssertEqual(ComparisonMarkdown.listItem(.init(item: "room", mode: "disabled")), "- room × disabled\n")
        // On the page, from two evals.
        func eval(_ name: String, _ file: String) -> JSONValue {
            .object(["schema": .string(EvalDocument.schema), "complete": .bool(true),
                     "items": .array([.object(["index": .number(0), "name": .string(name), "file": .string(file), "results": .array([
                         .object(["mode": .string("disabled"), "folder": .string("\(name)/disabled"), "error": .null,
                                  "metrics": .object(["erle_steady_db": .number(0), "erle_steady_analysis_frames": .number(400)]),
                                  "findings": .array([]), "duration_s": .number(4)]),
                     ])])])])
        }
        let page = ComparisonMarkdown.render(EvalComparison(baseline: eval("room", "corpus/room.json"), current: eval("room-v2", "/ci/corpus/room.json"),
                                                            maxRegressionDB: 0.5), baselineName: "base.json", currentName: "cur.json")
        XCTAssertTrue(page.contains("- room-v2 × disabled — from a file of the same name as the missing room × disabled: renamed?\n"), page)
    }

    /// The verdict line counts the new runs it did not judge (a CI engineer's trial: a new item's
    /// four runs passed under a bare "No regression."); a segment whose events the current
    /// timeline changed names both (it named the baseline's only: the event that moved the figure
    /// was nowhere in the diff); a cell's `<` stays text.
    func testTheVerdictCountsNewRunsAndASegmentNamesTheEventsThatChanged() {
        func eval(_ items: [(name: String, erle: Double, event: String)]) -> JSONValue {
            .object(["schema": .string(EvalDocument.schema), "complete": .bool(true),
                     "items": .array(items.enumerated().map { index, item in
                         .object(["index": .number(Double(index)), "name": .string(item.name), "file": .string("\(item.name).json"), "results": .array([
                             .object(["mode": .string("speex:intensityMax"), "folder": .string("\(item.name)/speex"), "error": .null,
                                      "metrics": .object(["erle_steady_db": .number(30), "erle_steady_analysis_frames": .number(400)]),
                                      "segments": .array([.object(["start_s": .number(18), "events": .array([.string(item.event)]),
                                                                   "erle_steady_db": .number(item.erle), "erle_steady_analysis_frames": .number(300)])]),
                                      "findings": .array([]), "duration_s": .number(30)]),
                         ])])
                     })])
        }
        let baseline = eval([("room <1>", 20, "reset_custom_mic")])
        let current = eval([("room <1>", 2, "set_aec disabled"), ("new-room", 20, "reset_custom_mic")])
        let page = ComparisonMarkdown.render(EvalComparison(baseline: baseline, current: current, maxRegressionDB: 0.5),
                                             baselineName: "base.json", currentName: "cur.json")
        XCTAssertTrue(page.contains("**1 regression.** 0 improvements beyond the threshold. 1 new run (not in the baseline) was not judged (listed below).\n"), page)
        XCTAssertTrue(page.contains("| room \\<1\\> | speex:intensityMax | segment 1 at 18.00 s (reset_custom_mic → set_aec disabled): erle_steady_db | 20.00 dB | 2.00 dB | -18.00 dB |\n"), page)
        // The same events are named once.
        let unchanged = ComparisonMarkdown.render(EvalComparison(baseline: baseline, current: eval([("room <1>", 2, "reset_custom_mic")]), maxRegressionDB: 0.5),
                                                  baselineName: "base.json", currentName: "cur.json")
        XCTAssertTrue(unchanged.contains("segment 1 at 18.00 s (reset_custom_mic): erle_steady_db"), unchanged)
        XCTAssertTrue(unchanged.contains("**1 regression.** 0 improvements beyond the threshold.\n"), unchanged)
    }

    /// A timeline event moved (4.0 → 4.5 s): the baseline's segment is missing, a regression, and
    /// the current one is listed as new and not judged (it was said nowhere).
    func testAMovedSegmentIsMissingAndItsNewPlaceListed() {
        func eval(segmentAt start: Double) -> JSONValue {
            .object(["schema": .string(EvalDocument.schema), "complete": .bool(true), "items": .array([
                .object(["index": .number(0), "name": .string("room"), "file": .string("room.json"), "results": .array([
                    .object(["mode": .string("speex:intensityMax"), "folder": .string("room/speex"), "error": .null,
                             "metrics": .object(["erle_steady_db": .number(30), "erle_steady_analysis_frames": .number(400)]),
                             "segments": .array([.object(["start_s": .number(0), "events": .array([]), "erle_steady_db": .number(30),
                                                          "erle_steady_analysis_frames": .number(150)]),
                                                 .object(["start_s": .number(start), "events": .array([.string("set_aec intensityMax")]),
                                                          "erle_steady_db": .number(30), "erle_steady_analysis_frames": .number(150)])]),
                             "findings": .array([]), "duration_s": .number(8)]),
                ])]),
            ])])
        }
        let comparison = EvalComparison(baseline: eval(segmentAt: 4), current: eval(segmentAt: 4.5), maxRegressionDB: 0.5)
        XCTAssertEqual(comparison.addedSegments.map(\.segment), [EvalComparison.Segment(number: 2, startSeconds: 4.5, events: ["set_aec intensityMax"])])
        let page = ComparisonMarkdown.render(comparison, baselineName: "base.json", currentName: "cur.json")
        XCTAssertTrue(page.contains("**1 regression.** 0 improvements beyond the threshold. 1 new segment (not in the baseline's call) was not judged (listed below).\n"), page)
        XCTAssertTrue(page.contains("segment 2 at 4.00 s (set_aec intensityMax) | ran | missing"), page)
        XCTAssertTrue(page.contains("## New segments (not in the baseline's call, not judged)\n\n- room × speex:intensityMax: segment 2 at 4.50 s (set\\_aec intensityMax)\n"), page)
        XCTAssertTrue(EvalComparison(baseline: eval(segmentAt: 4), current: eval(segmentAt: 4), maxRegressionDB: 0.5).addedSegments.isEmpty)
    }

    func testScoreNotesOfManyRunsAlikeAreOneLine() {
        var comparison = EvalComparison(baseline: Self.eval(complete: true), current: Self.eval(complete: true), maxRegressionDB: 0.5)
        func note(_ item: String, _ scorer: String) -> EvalComparison.Change {
            EvalComparison.Change(run: EvalComparison.RunKey(item: item, mode: "disabled"), subject: .scorer(name: scorer),
                                  baseline: .scored, current: .notRun, delta: nil)
        }
        comparison.scoreNotes = (1...11).map { note("item-\($0)", "aecmos") } + [note("b", "mine"), note("a", "mine")]
        let markdown = ComparisonMarkdown.render(comparison, baselineName: "base.json", currentName: "cur.json")
        XCTAssertTrue(markdown.contains("## Scores not compared (not judged)\n\n- scorer aecmos: scored in the baseline, not run now, in 11 runs\n\n"
                                        + "| item | mode | what | baseline | current | change |\n|---|---|---|---|---|---|\n"
                                        + "| b | disabled | scorer mine | scored | not run | — |\n| a | disabled | scorer mine | scored | not run | — |\n"),
                      markdown)
        comparison.scoreNotes.removeFirst()
        XCTAssertTrue(ComparisonMarkdown.render(comparison, baselineName: "base.json", currentName: "cur.json")
            .contains("| item-2 | disabled | scorer aecmos | scored | not run | — |\n"))
    }

    func testAModeMeanOverBoundsKeepsItsMark() {
        let markdown = ComparisonMarkdown.render(EvalComparison(baseline: Self.eval(complete: true, erle: 36.18, lowerBounds: 2),
                                                                current: Self.eval(complete: true, erle: 36.18), maxRegressionDB: 0.5),
                                                 baselineName: "base.json", currentName: "cur.json")
        // A bound's truth may lie above it: "+0.00 dB" claimed a change the tool does not know.
        XCTAssertTrue(markdown.contains("| speex:intensityMax | 1 | ≥ 36.18 dB | 36.18 dB | not judged (the baseline a lower bound) |"), markdown)
    }

    /// The trial's means: webrtc "≥ 18.49 → ≥ 13.77 dB" and aec3 "19.95 → ≥ 15.50 dB" printed
    /// -4.72 and -4.45 dB, a fall the regression section itself leaves unknown. A change is given
    /// as far as it is certain (a bound risen over a measured mean rose by at least that; a
    /// measured mean under a bounded one fell by at least that), else not judged.
    func testAModeMeansChangeIsOnlyAsCertainAsItsBounds() throws {
        func mean(_ was: Double, _ wasBound: Bool, _ now: Double, _ nowBound: Bool) -> (EvalComparison.ModeMean, String) {
            let comparison = EvalComparison(baseline: Self.eval(complete: true, erle: was, lowerBounds: wasBound ? 1 : 0),
                                            current: Self.eval(complete: true, erle: now, lowerBounds: nowBound ? 1 : 0), maxRegressionDB: 0.5)
            let md = ComparisonMarkdown.render(comparison, baselineName: "a.json", currentName: "b.json")
            let row = md.split(separator: "\n").first { $0.hasPrefix("| speex:intensityMax | 1 |") }.map(String.init) ?? md
            return (comparison.modeMeans[0], row)
        }
        let bothBounds = mean(18.49, true, 13.77, true)
        XCTAssertEqual(bothBounds.0.change, .unknown)
        XCTAssertEqual(bothBounds.1, "| speex:intensityMax | 1 | ≥ 18.49 dB | ≥ 13.77 dB | not judged (both lower bounds) |")
        let currentBound = mean(19.95, false, 15.50, true)
        XCTAssertEqual(currentBound.0.change, .unknown)
        XCTAssertEqual(currentBound.1, "| speex:intensityMax | 1 | 19.95 dB | ≥ 15.50 dB | not judged (current a lower bound) |")
        let roseToBound = mean(15.50, false, 19.95, true)
        XCTAssertEqual(roseToBound.1, "| speex:intensityMax | 1 | 15.50 dB | ≥ 19.95 dB | ≥ +4.45 dB |")
        let fellFromBound = mean(18.49, true, 13.77, false)
        XCTAssertEqual(fellFromBound.1, "| speex:intensityMax | 1 | ≥ 18.49 dB | 13.77 dB | ≤ -4.72 dB |")
        let measured = mean(18.49, false, 13.77, false)
        XCTAssertEqual(measured.1, "| speex:intensityMax | 1 | 18.49 dB | 13.77 dB | -4.72 dB |")
        // The same bounds in both files: the same numbers, no change to leave unjudged (make eval
        // against its own baseline listed every canceller's mean as not judged).
        let sameBounds = mean(18.49, true, 18.49, true)
        XCTAssertEqual(sameBounds.0.change, .exactly(0))
        XCTAssertEqual(sameBounds.1, "| speex:intensityMax | 1 | ≥ 18.49 dB | ≥ 18.49 dB | +0.00 dB |")
        // A fall too small for two decimals shows its sign with as many more as it needs.
        let tiny = mean(18.4912, false, 18.4882, false)
        XCTAssertEqual(tiny.1, "| speex:intensityMax | 1 | 18.49 dB | 18.49 dB | -0.003 dB |")
    }

    /// A finding gained over a baseline that could not judge it is said as not judged, with why,
    /// in compare.md (stdout prints the same text) and the JUnit XML, and fails nothing.
    func testAFindingOnAnUnjudgedBoundIsSaidNotFailed() {
        func eval(tclw: Double, meets: JSONValue, findings: [String]) -> JSONValue {
            let loss: JSONValue = .object(["tclw_db": .number(tclw), "is_lower_bound": .bool(true), "meets_ts26131_46db": meets,
                                           "analysis_frames": .number(400)])
            let result: JSONValue = .object(["mode": .string("webrtc:intensityRecommended"), "folder": .string("r/webrtc"), "error": .null,
                                             "metrics": .object(["telephony": .object(["echo_loss": loss])]),
                                             "findings": .array(findings.map(JSONValue.string)), "duration_s": .number(4)])
            return .object(["schema": .string(EvalDocument.schema), "complete": .bool(true),
                            "items": .array([.object(["index": .number(0), "name": .string("room"), "file": .string("room.json"),
                                                      "results": .array([result])])])])
        }
        let rule = RequirementFindings.echoLossRule
        let comparison = EvalComparison(baseline: eval(tclw: 25.23, meets: .null, findings: []),
                                        current: eval(tclw: 10.5, meets: .bool(false), findings: [rule]), maxRegressionDB: 0.5)
        let md = ComparisonMarkdown.render(comparison, baselineName: "a.json", currentName: "b.json")
        XCTAssertTrue(md.contains("**No regression.**"), md)
        let reason = "the baseline's TCLw ≥ 25.23 dB is a lower bound under 46 dB: it could not be judged against TS 26.131"
        XCTAssertTrue(md.contains("| room | webrtc:intensityRecommended | finding \(rule) | 0 | 1 | +1 | \(reason) |\n"), md)
        XCTAssertFalse(md.contains("## Regressions"), md)
        let xml = ComparisonJUnit.render(comparison, baselineName: "a.json", currentName: "b.json")
        XCTAssertTrue(xml.contains("failures=\"0\""), xml)
        XCTAssertTrue(xml.contains("not judged (the baseline&apos;s TCLw ≥ 25.23 dB is a lower bound under 46 dB: it could not be judged "
                                   + "against TS 26.131): finding \(rule): 0 → 1 (+1)"), xml)
    }

    /// A change a bound leaves in an unknown direction is said in compare.md and the JUnit XML,
    /// not dropped, and fails nothing.
    func testAChangeABoundLeavesUnknownIsListedNotJudged() {
        let comparison = EvalComparison(baseline: Self.eval(complete: true, erle: 49.0429, lowerBounds: 1),
                                        current: Self.eval(complete: true, erle: 39.0429, lowerBounds: 1), maxRegressionDB: 0.5)
        let md = ComparisonMarkdown.render(comparison, baselineName: "a.json", currentName: "b.json")
        XCTAssertTrue(md.contains("**No regression.** 0 improvements beyond the threshold. 1 change beyond it not judged: "
                                  + "a lower bound, or a figure that cannot be judged, leaves its direction unknown (listed below, with why).\n"), md)
        XCTAssertTrue(md.contains("| a | speex:intensityMax | erle_steady_db | ≥ 49.04 dB | ≥ 39.04 dB | -10.00 dB | both lower bounds |\n"), md)
        let xml = ComparisonJUnit.render(comparison, baselineName: "a.json", currentName: "b.json")
        XCTAssertTrue(xml.contains("failures=\"0\""), xml)
        XCTAssertTrue(xml.contains("<system-out>not judged (both lower bounds): erle_steady_db: ≥ 49.04 dB → ≥ 39.04 dB (-10.00 dB)</system-out>"), xml)
    }

    /// A change to or from a lower bound says how far it is certain, as the mode means do: a
    /// trial's regression read "-1.00 dB" beside a means table's "≤ -0.30 dB".
    func testARunsChangeToOrFromABoundKeepsItsMark() {
        func change(_ was: BoundedValue, _ now: BoundedValue) -> EvalComparison.Change {
            EvalComparison.Change(run: EvalComparison.RunKey(item: "a", mode: "speex:intensityMax"), subject: .level(metric: "erle_steady_db"),
                                  baseline: .level(was), current: .level(now), delta: now.value - was.value, threshold: 0.5)
        }
        XCTAssertEqual(change(BoundedValue(30, isLowerBound: true), BoundedValue(29)).deltaText, "≤ -1.00 dB", "a fall from a bound")
        XCTAssertEqual(change(BoundedValue(20), BoundedValue(22.1, isLowerBound: true)).deltaText, "≥ +2.10 dB", "a rise to a bound")
        XCTAssertEqual(change(BoundedValue(29.27), BoundedValue(8.59, isLowerBound: true)).deltaText, "≥ -20.68 dB",
                       "a fall to a bound (not judged) is at least the figures' difference: a trial read it as exact")
        XCTAssertEqual(change(BoundedValue(40, isLowerBound: true), BoundedValue(41)).deltaText, "≤ +1.00 dB", "a rise from a bound")
        XCTAssertEqual(change(BoundedValue(20), BoundedValue(18)).deltaText, "-2.00 dB", "both measured: exact")
        XCTAssertEqual(change(BoundedValue(49, isLowerBound: true), BoundedValue(39, isLowerBound: true)).deltaText, "-10.00 dB",
                       "unknown either way: the difference of the figures, beside its reason")
        let line = ComparisonJUnit.render(EvalComparison(baseline: Self.eval(complete: true, erle: 30, lowerBounds: 1),
                                                         current: Self.eval(complete: true, erle: 29, lowerBounds: 0), maxRegressionDB: 0.5),
                                          baselineName: "a.json", currentName: "b.json")
        XCTAssertTrue(line.contains("erle_steady_db: ≥ 30.00 dB → 29.00 dB (≤ -1.00 dB)"), line)
    }
}

/// A recording's report says why the tap-free gate scored nothing, for each limitation.
final class RecordingLimitationNoteTests: XCTestCase {
    func testEachLimitationIsSaid() {
        XCTAssertEqual(RecordingReportDocument.limitationNote(nil), "")
        XCTAssertEqual(RecordingReportDocument.limitationNote(.echoNotExplained),
                       "; the fitted echo path does not explain the echo (a non-linear loudspeaker?), so no frame is scored")
        XCTAssertEqual(RecordingReportDocument.limitationNote(.echoOutsideDelaySearch),
                       "; the echo is not within the delay search's range of the loopback (it leads it, or lags it by more), so no frame is scored")
    }

}

/// P.340's attenuation range is a 0.1 dB histogram bin's centre, on a 0.05 dB grid: with one
/// decimal the bin [6.0, 6.1) — 6.049999… in binary — printed "6.0 dB" beside category 2b (more
/// than 6 dB). Printed beside its category, the range has the two decimals that show its centre.
final class AttenuationRangeTextTests: XCTestCase {
    func testTheRangeBesideItsCategoryNeverReadsOnTheOtherSideOfTheLimit() {
        for limit in [3.0, 6.0, 9.0, 12.0] {
            let above = -60.0 + (Double(Int(((limit + 60) / 0.1).rounded())) + 0.5) * 0.1   // the bin just above the limit
            let below = above - 0.1
            XCTAssertGreaterThan(above, limit)
            XCTAssertNotEqual(DoubleTalkCategory(attenuationRangeDB: above), DoubleTalkCategory(attenuationRangeDB: below))
            XCTAssertEqual(TelephonyBlocks.rangeText(above), String(format: "%.2f dB", limit + 0.05), "\(above)")
            XCTAssertEqual(TelephonyBlocks.rangeText(below), String(format: "%.2f dB", limit - 0.05), "\(below)")
        }
        XCTAssertEqual(TelephonyBlocks.rangeText(6.049999999999997, isLowerBound: true), "≥ 6.05 dB")
        XCTAssertEqual(TelephonyBlocks.rangeText(nil), "—")
        let blocks = TelephonyBlocks.make(TelephonyMeasures(
            echoLoss: nil, echoLossUnmeasuredReason: "none", doubleTalk: DoubleTalkReport(
                doubleTalkFrames: 100, doubleTalkShare: 0.2, levelDifferenceDB: 3, levelDifferenceIsLowerBound: false,
                attenuationRangeDB: 6.049999999999997, attenuationRangeIsLowerBound: false, attenuationRangeFrames: 100,
                singleTalkAttenuationDB: 1, singleTalkAttenuationIsLowerBound: false, aroundFrames: 0, aroundShare: 0,
                aroundLevelDifferenceDB: nil, aroundLevelDifferenceIsLowerBound: false),
            doubleTalkUnmeasuredReason: nil))
        XCTAssertTrue("\(blocks)".contains("6.05 dB: category 2b, partial duplex"), "\(blocks)")
    }
}
