@testable import Evaluation
import AudioCore
import EchoLabJSON
import Metrics
@testable import Reporting
import Simulation
import XCTest

/// Words beside the numbers: what a mean stands on, why a value is missing, what a bound's P.340
/// category can be, and which near-end figure is which.
final class ReportWordingTests: XCTestCase {
    private func text(_ spans: [ReportDocument.Span]) -> String {
        spans.map { span in
            switch span {
            case .text(let t), .code(let t), .strong(let t): t
            case .link(let t, _), .strongLink(let t, _): t
            }
        }.joined()
    }

    /// A figure says its frame count on the pages whatever the count, as the near-end rows do:
    /// "ERLE steady state 27.5 dB" stood on 186 frames the JSON held and the page did not say.
    func testEchoFiguresSayTheirFrameCounts() {
        XCTAssertEqual(ReportFormatting.counted(27.52, frames: 186), "27.5 dB (186 analysis frames)")
        XCTAssertEqual(ReportFormatting.counted(40.1, isLowerBound: true, frames: 1), "≥ 40.1 dB (low confidence: 1 analysis frame)")
        // A dash says its count too, as the near-end rows beside it do ("— (0 analysis frames)").
        XCTAssertEqual(ReportFormatting.counted(nil, frames: 0), "— (0 analysis frames)")
        XCTAssertEqual(ReportFormatting.counted(nil, frames: 312), "— (312 analysis frames)")
    }

    /// A page prints the value report.json holds, so a run's page and eval.md (which prints the
    /// JSON's) agree: a raw 9.04996 dB is 9.0500 in the JSON, and read "9.0 dB" on the run's page
    /// beside "9.1 dB" on eval.md. TS 26.131's 46 dB is judged on the same printed value.
    func testPagesPrintTheValueTheJSONHolds() {
        XCTAssertEqual(ReportPrecision.printed(9.04996), 9.05)
        XCTAssertEqual(ReportFormatting.db(9.04996), ReportFormatting.db(9.05))
        XCTAssertEqual(ReportFormatting.db(9.04996), "9.1 dB")
        XCTAssertEqual(ReportFormatting.db(9.04994), "9.0 dB")
        XCTAssertEqual(WeightedEchoLoss.atJudgedPrecision(45.94996), 46.0)
        XCTAssertTrue(WeightedEchoLoss(tclwDB: 45.94996, isLowerBound: false, bands: [], analysisFrames: 300).meetsRequirement == true,
                      "printed 46.0 dB, it meets 46 dB")
        XCTAssertNil(ReportPrecision.printed(.infinity))
        XCTAssertEqual(ReportFormatting.db(nil), "—")
    }

    /// A TCLw bound says where it comes from and how high it can go: "≥ 11.2 dB" alone read the
    /// same for a perfect canceller on music and for one 20 dB worse.
    func testATCLwBoundSaysWhichBandsBoundItAndItsCeiling() {
        let bands = [WeightedEchoLoss.BandLoss(centreHz: 1000, lossDB: 26.04, isLowerBound: false),
                     WeightedEchoLoss.BandLoss(centreHz: 1250, lossDB: 25.97, isLowerBound: false),
                     WeightedEchoLoss.BandLoss(centreHz: 2500, lossDB: 9.53, isLowerBound: true),
                     WeightedEchoLoss.BandLoss(centreHz: 3150, lossDB: 1.49, isLowerBound: true)]
        let bound = WeightedEchoLoss(tclwDB: 5.1, isLowerBound: true, bands: bands, analysisFrames: 300)
        let most = WeightedEchoLoss.lossAtMostDB(of: bands)!
        XCTAssertEqual(TelephonyBlocks.boundText(bound),
                       "; 2 of 4 bands are bounds, the far end standing 1.5–9.5 dB over the floor in them (2500–3150 Hz); "
                       + "at most \(ReportFormatting.db(most)), what its measured bands leak whatever the others do")
        let allBounds = WeightedEchoLoss(tclwDB: 5.1, isLowerBound: true, bands: bands.map { .init(centreHz: $0.centreHz, lossDB: $0.lossDB, isLowerBound: true) },
                                         analysisFrames: 300)
        XCTAssertEqual(TelephonyBlocks.boundText(allBounds), "; 4 of 4 bands are bounds, the far end standing 1.5–26.0 dB over the floor in them (1000–3150 Hz)")
        XCTAssertEqual(TelephonyBlocks.boundText(WeightedEchoLoss(tclwDB: 26, isLowerBound: false, bands: bands, analysisFrames: 300)), "")
        // The finding says why a bound misses 46 dB: its ceiling ("≥ 5.1 dB" alone did not).
        let page = MarkdownWriter.render(ReportDocument(title: "t", blocks: TelephonyBlocks.make(
            TelephonyMeasures(echoLoss: bound, echoLossUnmeasuredReason: nil, doubleTalk: nil, doubleTalkUnmeasuredReason: "none"))))
        XCTAssertTrue(page.contains("**Echo loss below TS 26.131's requirement:** TCLw ≥ 5.1 dB and at most \(ReportFormatting.db(most)) against 46.0 dB"), page)
    }

    /// A call that changed route pools its routes' echo into one ERL, which is neither route's (a
    /// receiver's 30.6 dB and a speaker's 9.7 read "ERL 13.7 dB"): the label says so.
    func testAnERLOverTwoRoutesSaysItIsPooled() {
        XCTAssertEqual(RunReportDocument.erlLabel(routes: []), "ERL")
        XCTAssertEqual(RunReportDocument.erlLabel(routes: ["speaker", "speaker"]), "ERL", "a format change on one route")
        XCTAssertEqual(RunReportDocument.erlLabel(routes: ["receiver", "speaker", "receiver"]),
                       "ERL (pooled over the routes receiver, speaker: each segment's under Segments)")
    }

    /// A convergence read at a window at the mic's floor prints as the bound it is.
    func testAConvergenceAtTheFloorPrintsAsABound() {
        XCTAssertEqual(ReportFormatting.seconds(7.5, isLowerBound: true), "≥ 7.50 s")
        XCTAssertEqual(ReportFormatting.seconds(7.5, isLowerBound: false), "7.50 s")
        XCTAssertEqual(ReportFormatting.seconds(nil, isLowerBound: true), "—")
    }

    /// A TCLw on few of the bands the far end reaches names them and says it is not judged: a
    /// canceller removing 5 dB read 48.9 dB on 2 of 14 bands and "met" 46 dB.
    func testATCLwOnFewBandsNamesThemAndIsNotJudged() throws {
        let bands = [WeightedEchoLoss.BandLoss(centreHz: 315, lossDB: 48.1, isLowerBound: false),
                     WeightedEchoLoss.BandLoss(centreHz: 400, lossDB: 49.7, isLowerBound: false)]
        // The twelve third octaves over 400 Hz, to 6.3 kHz.
        let leftOut: [Double] = [500, 630, 800, 1000, 1250, 1600, 2000, 2500, 3150, 4000, 5000, 6300]
        let few = WeightedEchoLoss(tclwDB: 48.9, isLowerBound: false, bands: bands, analysisFrames: 300, leftOutHz: leftOut)
        XCTAssertNil(few.meetsRequirement)
        let most = ReportFormatting.db(try XCTUnwrap(few.atMostDB))
        func page(_ loss: WeightedEchoLoss) -> String {
            MarkdownWriter.render(ReportDocument(title: "t", blocks: TelephonyBlocks.make(
                TelephonyMeasures(echoLoss: loss, echoLossUnmeasuredReason: nil, doubleTalk: nil, doubleTalkUnmeasuredReason: "none"))))
        }
        XCTAssertTrue(page(few).contains("| TCLw (TS 26.132 §8.7.1, 2 of the 14 third octaves the far end reaches, 315–400 Hz, steady far-end single talk) "
                                         + "| 48.9 dB (300 analysis frames); the bands left out hold echo under the noise: over the 14 the far end "
                                         + "reaches it is at most \(most) whatever they lose: not judged against TS 26.131's 46 dB |"), page(few))
        // Under 46 dB however much the others lose: a miss, said with its ceiling.
        let low = [WeightedEchoLoss.BandLoss(centreHz: 315, lossDB: 6.1, isLowerBound: false),
                   WeightedEchoLoss.BandLoss(centreHz: 400, lossDB: 5.9, isLowerBound: false)]
        let miss = WeightedEchoLoss(tclwDB: 6, isLowerBound: false, bands: low, analysisFrames: 300, leftOutHz: leftOut)
        XCTAssertEqual(miss.meetsRequirement, false)
        let lowMost = ReportFormatting.db(try XCTUnwrap(miss.atMostDB))
        XCTAssertTrue(page(miss).contains("reaches it is at most \(lowMost) whatever they lose |"), page(miss))
        XCTAssertTrue(page(miss).contains("**Echo loss below TS 26.131's requirement:** TCLw 6.0 dB on its 2 bands, at most \(lowMost) over the 14 "
                                          + "the far end reaches, against 46.0 dB"), page(miss))
        // The most over every reached band can lie under the figure of the few: a leaky band at the
        // edge of the measured ones counts over the wider span. The verdict is the whole span's.
        let edge = [WeightedEchoLoss.BandLoss(centreHz: 1600, lossDB: 39.5, isLowerBound: false),
                    WeightedEchoLoss.BandLoss(centreHz: 2000, lossDB: 66.5, isLowerBound: false),
                    WeightedEchoLoss.BandLoss(centreHz: 4000, lossDB: 56.6, isLowerBound: false)]
        let tclw = try XCTUnwrap(EchoLossWeighting.weightedLossDB(lossesDB: edge.map(\.lossDB), frequenciesHz: edge.map(\.centreHz)))
        let wide = WeightedEchoLoss(tclwDB: tclw, isLowerBound: false, bands: edge, analysisFrames: 300, leftOutHz: [500, 630, 3150, 5000])
        XCTAssertGreaterThan(tclw, 46)
        XCTAssertLessThan(try XCTUnwrap(wide.atMostDB), 46)
        XCTAssertEqual(wide.meetsRequirement, false)
        XCTAssertTrue(page(wide).contains("on its 3 bands, at most \(ReportFormatting.db(try XCTUnwrap(wide.atMostDB))) over the 7 the far end reaches"),
                      page(wide))
        // Every band the far end reaches measured: the row reads as before.
        let whole = WeightedEchoLoss(tclwDB: 48.9, isLowerBound: false, bands: bands, analysisFrames: 300, leftOutHz: [])
        XCTAssertEqual(whole.meetsRequirement, true)
        XCTAssertTrue(page(whole).contains("| TCLw (TS 26.132 §8.7.1, 2 third octaves 315–400 Hz, steady far-end single talk) | 48.9 dB (300 analysis frames) |"),
                      page(whole))
    }

    /// The Modes table's means are each mode's over its own runs with a value, the trade-off plot's
    /// over the items every mode has: the table said only "runs", and the plot's order differed.
    func testModesTableMeansSayOverHowManyRunsAndThePlotWhatItAverages() throws {
        let cell = EvalReportDocument.counted(EvalReportDocument.statisticCell(18.49, unit: " dB", isLowerBound: false), count: 3, runs: 5)
        XCTAssertEqual(text(cell.spans), "18.5 dB (3 of 5)")
        XCTAssertEqual(cell.value, 18.49, "still sorts by its value")
        XCTAssertEqual(text(EvalReportDocument.counted(.init("18.5 dB", value: 18.5), count: 5, runs: 5).spans), "18.5 dB", "all runs: nothing added")
        XCTAssertEqual(text(EvalReportDocument.counted(.init("—"), count: 0, runs: 5).spans), "—", "no mean: no count")

        let point = { (mode: String, erle: Double?, bound: Bool, nearEnd: Double) in
            BestModes.Point(mode: mode, erleSteadyDB: erle, erleSteadyIsLowerBound: bound, nearEndAttenuationDB: nearEnd)
        }
        // "b" has no ERLE on the second item: the plot's ERLE averages the first alone, its near end both.
        let items = [[point("a", 20, false, 2), point("b", 15.44, true, 1.94)], [point("a", 30, false, 2), point("b", nil, false, 1)]]
        let blocks = EvalReportDocument.tradeOffChart(BestModes.comparedMeans(items), front: BestModes.front(ofItems: items))
        guard case .paragraph(let caption)? = blocks.first, case .scatterChart(let chart)? = blocks.last else { return XCTFail("caption, then the plot") }
        XCTAssertEqual(text(caption), "Each point is a mode's mean steady ERLE over the 1 item (of 2) on which every mode plotted has one, "
                       + "and its mean near-end departure (the attenuation either way: a talker sent louder counts as far off as one cut "
                       + "as much) over the 2 items on which every mode plotted has one, "
                       + "while the Modes table's means are over each mode's own runs: its order can differ from the table's. "
                       + "≥ marks a mean over a lower bound (an arrow the way the truth may lie). The rings follow the corpus front "
                       + "(★ in the Modes table), which compares modes pair by pair, item by item, not these means: a ringed point "
                       + "may sit below or right of an unringed one.")
        let b = try XCTUnwrap(chart.points.first { $0.name == "b" })
        XCTAssertTrue(b.yIsLowerBound && !b.xIsLowerBound, "the mean over a bound is one")
        XCTAssertEqual(b.yText, "≥ 15.4")
    }

    /// The tap-free estimate's drop below 0 is the output over the talker, said so: "output
    /// -1.2 dB under the talker" read as a cut (a new user's trial).
    func testAnOutputOverTheTalkerIsSaidToBeOver() {
        func row(_ drop: Double) -> String? {
            let rows = RunReportDocument.nearEndRows(nil, estimate: NearEndEstimate(outputDropDB: drop, outputDropIsLowerBound: false, frames: 120,
                                                                                    lostFrames: 0, isLost: false))
            guard case .text(let text)? = rows.first?.last?.spans.first else { return nil }
            return text
        }
        XCTAssertEqual(row(-1.24), "output 1.2 dB over the talker the gate hears (120 analysis frames; 0 of them 20 dB or more under)")
        XCTAssertEqual(row(3.5), "output 3.5 dB under the talker the gate hears (120 analysis frames; 0 of them 20 dB or more under)")
        XCTAssertEqual(row(-0.04), "output 0.0 dB under the talker the gate hears (120 analysis frames; 0 of them 20 dB or more under)")
    }

    /// A figure on one frame says "1 analysis frame"; an eval without --modes is no grid of
    /// items × modes (it read "7 items × 3 modes: 7 runs").
    func testCountsAreWordedAsTheyAre() {
        XCTAssertEqual(ReportFormatting.figure(12.34, frames: 1), "12.3 dB (low confidence: 1 analysis frame)")
        XCTAssertEqual(ReportFormatting.figure(12.34, frames: 6), "12.3 dB (low confidence: 6 analysis frames)")
        XCTAssertEqual(EvalReportDocument.plan(items: 7, modes: 3, modesGiven: false), "7 items, each in its own mode (3 modes)")
        XCTAssertEqual(EvalReportDocument.plan(items: 7, modes: 1, modesGiven: false), "7 items × 1 mode")
        XCTAssertEqual(EvalReportDocument.plan(items: 1, modes: 3, modesGiven: true), "1 item × 3 modes")
    }

    /// eval.html said "No far-end single talk in this item" for a file microphone's call, whose far
    /// end plays throughout; eval.md showed "— / —" with no reason. The runs' own reasons are given.
    func testAnItemWithoutValuesGivesItsRunsOwnReasons() throws {
        func result(_ mode: EchoControlMode, reason: String?) throws -> CorpusRun.Result {
            var report: [String: JSONValue] = ["schema": .string("echolab.recording/1"), "duration_s": .number(10)]
            if let reason { report["echo_unmeasured"] = .string(reason) }
            return CorpusRun.Result(itemIndex: 0, item: "file-mic", file: "file-mic.json", mode: mode, folder: "file-mic/\(mode)",
                                    summary: try RunSummary(reading: .object(report)), error: nil)
        }
        let reason = "no echo reached the sent path: custom mic (file microphone)"
        let all = try [result(.disabled, reason: reason), result(EchoControlMode(parsing: "speex:intensityRecommended"), reason: reason)]
        XCTAssertEqual(EvalReportDocument.unmeasuredReasons(all, nearEnd: false), ["no steady ERLE: \(reason) (every mode)"])
        let one = try [result(.disabled, reason: reason), result(EchoControlMode(parsing: "speex:intensityRecommended"), reason: nil)]
        XCTAssertEqual(EvalReportDocument.unmeasuredReasons(one, nearEnd: false), ["no steady ERLE: \(reason) (disabled)"])
        XCTAssertNil(EvalReportDocument.unmeasuredReasons([try result(.disabled, reason: nil)], nearEnd: false))
    }

    /// A canceller's own finding (an echo leak after a route change: no app setup avoids it, so
    /// it is no lint finding) is named in eval.md with its runs; it was only in a run's tooltip,
    /// behind "ok", and a corpus run to catch the leak never showed it.
    func testTheCancellersOwnFindingsAreSaid() throws {
        let leak = HardwareFindings.echoLeakRule
        func result(_ mode: String, item: String, rules: [String]) throws -> CorpusRun.Result {
            let report: [String: JSONValue] = ["schema": .string("echolab.recording/1"), "duration_s": .number(10),
                                               "findings": .array(rules.map { .object(["rule": .string($0)]) })]
            return CorpusRun.Result(itemIndex: 0, item: item, file: "\(item).json", mode: try EchoControlMode(parsing: mode),
                                    folder: "\(item)/\(mode)", summary: try RunSummary(reading: .object(report)), error: nil)
        }
        let results = try [result("speex:intensityRecommended", item: "to-hfp", rules: [leak]),
                           result("webrtc:intensityRecommended", item: "to-hfp", rules: []),
                           result("aec3:intensityRecommended", item: "to-a2dp", rules: [leak])]
        XCTAssertEqual(EvalReportDocument.cancellerFindingsNote(results),
                       "The canceller's own findings (its behaviour, not the app's setup; not counted as lint findings or pipeline issues): "
                       + "\(leak) in 2 runs: to-hfp (speex:intensityRecommended), to-a2dp (aec3:intensityRecommended).")
        XCTAssertNil(EvalReportDocument.cancellerFindingsNote([results[1]]))
        let health = results[0].health
        XCTAssertEqual(health.issues + health.lintFindings, 0, "neither a pipeline issue nor a lint finding")
        XCTAssertEqual(EvalReportDocument.healthText(health), "the canceller's: \(leak)")
        // The health cell says it and sorts by it: after a clean run, before a run with an issue.
        let cell = EvalReportDocument.healthCell(results[0])
        XCTAssertEqual(cell.spans, [.text("ok for the app; the canceller's: 1 finding")])
        XCTAssertEqual(cell.value, 1)
        XCTAssertEqual(EvalReportDocument.healthCell(results[1]).value, 0)
    }

    /// The lint's findings are named under the Modes table, rule by rule with their items (and
    /// modes where not every mode has them): eval.md counted the runs and named no rule.
    func testTheLintsFindingsAreNamedWithTheirItems() throws {
        func result(_ mode: String, item: String, rules: [String]) throws -> CorpusRun.Result {
            let report: [String: JSONValue] = ["schema": .string("echolab.recording/1"), "duration_s": .number(10),
                                               "findings": .array(rules.map { .object(["rule": .string($0)]) })]
            return CorpusRun.Result(itemIndex: 0, item: item, file: "\(item).json", mode: try EchoControlMode(parsing: mode),
                                    folder: "\(item)/\(mode)", summary: try RunSummary(reading: .object(report)), error: nil)
        }
        let file = "aec-on-non-microphone-source", off = "aec-disabled-with-real-devices"
        let results = try [result("disabled", item: "file-mic", rules: [file]), result("speex:intensityMin", item: "file-mic", rules: [file]),
                           result("disabled", item: "room", rules: [off]), result("speex:intensityMin", item: "room", rules: []),
                           result("disabled", item: "clean", rules: ["echo-loss-below-ts26131"]), result("speex:intensityMin", item: "clean", rules: []),
                           result("disabled", item: "gen", rules: []), result("speex:intensityMin", item: "gen", rules: [file]),
                           result("webrtc:intensityMin", item: "gen", rules: [file]), result("disabled", item: "more", rules: [off])]
        func outcome(_ results: [CorpusRun.Result], modes: [String]?) throws -> CorpusRun.Outcome {
            CorpusRun.Outcome(results: results, plannedCount: results.count, modes: try modes?.map { try EchoControlMode(parsing: $0) }, shard: nil)
        }
        let findings = "\(file) in every mode: file-mic; in every mode but disabled: gen; \(off) in disabled: room, more."
        XCTAssertEqual(EvalReportDocument.lintFindingsNote(try outcome(results, modes: nil)),
                       "Lint findings (the app's audio setup against the guides' AEC rules; eval --strict fails on them): " + findings)
        // --modes turned the canceller off in `disabled`: --strict leaves its aec-disabled out, and
        // the note says so (it said "--strict fails on them" beside an eval --strict that passed).
        XCTAssertEqual(EvalReportDocument.lintFindingsNote(try outcome(results, modes: ["disabled", "speex:intensityMin", "webrtc:intensityMin"])),
                       "Lint findings (the app's audio setup against the guides' AEC rules; eval --strict fails on them but for \(off) in the "
                       + "runs --modes turned the canceller off in, the reference the eval asked for: 4 of the 6 runs): " + findings)
        XCTAssertNil(EvalReportDocument.lintFindingsNote(try outcome(Array(results[4...5]), modes: nil)), "a requirement's finding is not the lint's")
    }

    /// Items whose echo lies outside the delay search are named once each, from the runs'
    /// typed key; none: no note.
    func testItemsWhoseEchoLiesOutsideTheSearchAreNamedOnce() throws {
        func result(_ mode: String, item: String, outside: Bool) throws -> CorpusRun.Result {
            var report: [String: JSONValue] = ["schema": .string("echolab.recording/1"), "duration_s": .number(10), "findings": .array([])]
            if outside { report["echo_outside_delay_search_ms"] = .number(500) }
            return CorpusRun.Result(itemIndex: 0, item: item, file: "\(item).wav", mode: try EchoControlMode(parsing: mode),
                                    folder: "\(item)/\(mode)", summary: try RunSummary(reading: .object(report)), error: nil)
        }
        let results = try [result("disabled", item: "late", outside: true), result("speex:intensityMin", item: "late", outside: true),
                           result("disabled", item: "fine", outside: false), result("disabled", item: "far", outside: true)]
        let note = try XCTUnwrap(EvalReportDocument.echoOutsideSearchNote(results))
        XCTAssertTrue(note.hasPrefix("The echo lies outside the 0–500 ms delay search of its reference: on late, far it leads the loopback "
                                     + "(a loopback recorded late, or mic and loopback swapped"), note)
        XCTAssertNil(EvalReportDocument.echoOutsideSearchNote([results[2]]))
    }

    /// A recording whose echo arrives past a mode's reach is named with those modes: a simulated
    /// call has a lint finding for it, a recording nothing (a new user's trial: 300 ms, speex at
    /// 0.4 dB of steady ERLE without a word).
    func testRecordingsWhoseEchoIsPastAModesReachAreNamed() throws {
        func result(_ mode: String, item: String, delay: Double?) throws -> CorpusRun.Result {
            let gate = ActivityGateSummary(method: .echoPathFit, frames: 500, farEndActiveFrames: 400, singleTalkFrames: 400,
                                           doubleTalkFrames: 0, limitation: nil, echoUnderNoiseFrames: 0)
            let metrics = EchoMetrics(erlDB: 10, erleDB: 1, erleSteadyDB: 0.4, erleSteadyFrames: 200, convergenceSeconds: nil,
                                      delayMilliseconds: delay, erleSeries: [], erleBands: [], gate: gate)
            let report: [String: JSONValue] = ["schema": .string("echolab.recording/1"), "duration_s": .number(10), "findings": .array([]),
                                               "metrics": metrics.json]
            return CorpusRun.Result(itemIndex: 0, item: item, file: "\(item).wav", mode: try EchoControlMode(parsing: mode),
                                    folder: "\(item)/\(mode)", summary: try RunSummary(reading: .object(report)), error: nil)
        }
        let results = try [result("speex:intensityRecommended", item: "delay300", delay: 300), result("webrtc:intensityMax", item: "delay300", delay: 300),
                           result("aec3:intensityRecommended", item: "delay300", delay: 300), result("disabled", item: "delay300", delay: 300),
                           result("speex:intensityRecommended", item: "near", delay: 40)]
        XCTAssertEqual(EvalReportDocument.delayBeyondReachNote(results),
                       "Recordings whose echo arrives later than a mode's filter reaches (no canceller removes what its filter does not span): "
                       + "delay300, 300 ms: speex:intensityRecommended (190 ms), webrtc:intensityMax (130 ms). "
                       + "Those modes' figures there measure the reach, not the canceller.")
        XCTAssertNil(EvalReportDocument.delayBeyondReachNote([results[4]]))
    }

    /// A recording that clipped is named under the Modes table, once, with its counts: it was
    /// only in a run's health cell, and it turned an item's verdict (a new user's trial).
    func testClippedRecordingsAreNamedOnce() throws {
        func result(_ mode: String, item: String, mic: Int, loopback: Int?) throws -> CorpusRun.Result {
            let report: [String: JSONValue] = ["schema": .string("echolab.recording/1"), "duration_s": .number(10), "aec_resets": .number(0),
                                               "clipped_samples": .object(["mic": .number(Double(mic)), "loopback": loopback.map { .number(Double($0)) } ?? .null]),
                                               "findings": .array([])]
            return CorpusRun.Result(itemIndex: 0, item: item, file: "\(item).wav", mode: try EchoControlMode(parsing: mode),
                                    folder: "\(item)/\(mode)", summary: try RunSummary(reading: .object(report)), error: nil)
        }
        let results = try [result("disabled", item: "clipped", mic: 1200, loopback: 0), result("speex:intensityMin", item: "clipped", mic: 1200, loopback: 0),
                           result("disabled", item: "hot", mic: 3, loopback: 40), result("disabled", item: "clean", mic: 0, loopback: nil)]
        let note = try XCTUnwrap(EvalReportDocument.clippedRecordingsNote(results))
        XCTAssertTrue(note.hasPrefix("Recordings that clipped: clipped (mic: 1200 samples at full scale), hot (mic: 3 samples, loopback: 40 samples at full scale). "), note)
        XCTAssertNil(EvalReportDocument.clippedRecordingsNote([results[3]]))
    }

    /// Cancellers run below the call's rate are named with their rate under the Modes table: the
    /// band they never send reads as echo removed, and a pass-through plugin at 8 kHz was named
    /// best on both axes of a white-noise corpus (a plugin author's trial).
    func testCancellersRunBelowTheCallsRateAreSaid() throws {
        func run(_ mode: EchoControlMode, rate: Int) throws -> CorpusRun.Result {
            let report: [String: JSONValue] = ["schema": .string("echolab.recording/1"), "duration_s": .number(10),
                                               "sample_rate": .number(Double(rate)), "findings": .array([])]
            return CorpusRun.Result(itemIndex: 0, item: "item", file: "item.json", mode: mode, folder: "item/\(mode)",
                                    summary: try RunSummary(reading: .object(report)), error: nil)
        }
        let narrow = EchoControlMode(backend: EchoCancellerBackend(plugin: try CancellerPlugin(name: "p8", path: "/p8.so", sampleRate: 8000)),
                                     intensity: .intensityMax)
        let mobile = try EchoControlMode(parsing: "webrtc-mobile:intensityMin")
        let note = try XCTUnwrap(EvalReportDocument.bandLimitedNote([try run(.disabled, rate: 48_000), try run(mobile, rate: 48_000),
                                                                    try run(EchoControlMode(parsing: "speex:intensityMin"), rate: 48_000),
                                                                    try run(narrow, rate: 48_000)]))
        XCTAssertTrue(note.hasPrefix("Cancellers run below the call's rate (webrtc-mobile at 16 kHz, p8 at 8 kHz) "
                                     + "never send the band above half their rate"), note)
        let wide = EchoControlMode(backend: EchoCancellerBackend(plugin: try CancellerPlugin(name: "p48", path: "/p48.so")), intensity: .intensityMax)
        XCTAssertNil(EvalReportDocument.bandLimitedNote([try run(.disabled, rate: 48_000), try run(EchoControlMode(parsing: "aec3:intensityMin"), rate: 48_000),
                                                        try run(wide, rate: 48_000)]))
        // A 16 kHz recording loses nothing to a 16 kHz canceller.
        XCTAssertNil(EvalReportDocument.bandLimitedNote([try run(mobile, rate: 16_000)]))
        // Those that removed no echo in the band they run in are named with their runs: the
        // verdicts leave them out, which their ERLE alone would not explain.
        func measured(_ mode: EchoControlMode, inBand erle: Double, below highHz: Double = 2000, processedAt: Int? = nil) throws -> CorpusRun.Result {
            let bands = (0..<7).map { BandERLE(lowHz: 125 * Double(1 << $0), highHz: 250 * Double(1 << $0), erleDB: 250 * Double(1 << $0) <= highHz ? erle : 30) }
            let gate = ActivityGateSummary(method: .echoPathFit, frames: 500, farEndActiveFrames: 400, singleTalkFrames: 400,
                                           doubleTalkFrames: 0, limitation: nil, echoUnderNoiseFrames: 0)
            let metrics = EchoMetrics(erlDB: 10, erleDB: 8, erleSteadyDB: 8, erleSteadyFrames: 200, convergenceSeconds: nil,
                                      delayMilliseconds: 40, erleSeries: [], erleBands: bands, gate: gate)
            var report: [String: JSONValue] = ["schema": .string("echolab.recording/1"), "duration_s": .number(10), "sample_rate": .number(48_000),
                                               "findings": .array([]), "metrics": metrics.json]
            if let processedAt { report["processing_rate"] = .number(Double(processedAt)) }
            return CorpusRun.Result(itemIndex: 0, item: "item", file: "item.json", mode: mode, folder: "item/\(mode)",
                                    summary: try RunSummary(reading: .object(report)), error: nil)
        }
        let named = try XCTUnwrap(EvalReportDocument.bandLimitedNote([try measured(narrow, inBand: 0), try measured(narrow, inBand: 6),
                                                                     try measured(mobile, inBand: 0.1)]))
        XCTAssertTrue(named.hasSuffix(" Removed no echo in the band it runs in (every octave band under a quarter of its rate reads 0.0 dB): "
                                      + "p8 (1 of 2 runs); no canceller there, those runs stand on no front and have no convergence in the median."), named)
        // A recording's report names the rate it was processed at around AECM (48 kHz), not
        // AECM's: the verdict read that and kept such a run on the front while this note named it.
        let aecm = try measured(mobile, inBand: 0, below: 4000, processedAt: 48_000)
        XCTAssertEqual(aecm.bandLimitedCancellerRate, 16_000)
        XCTAssertTrue(try XCTUnwrap(EvalReportDocument.bandLimitedNote([aecm])).contains(": webrtc-mobile (1 of 1 runs);"))
        var asWritten = try measured(mobile, inBand: 0, processedAt: 16_000)
        asWritten.mode = nil
        XCTAssertEqual(asWritten.bandLimitedCancellerRate, 16_000, "a scenario run as written: its report's rate")
        XCTAssertNil(try measured(try EchoControlMode(parsing: "speex:intensityMin"), inBand: 0, processedAt: 48_000).bandLimitedCancellerRate)
    }

    /// A corpus without double talk is compared on ERLE alone: the trade-off plot has no point,
    /// and no caption about means over items it does not show.
    func testThePlotOfACorpusWithoutDoubleTalkSaysSoAndNothingElse() throws {
        let items = [[BestModes.Point(mode: "a", erleSteadyDB: 20, nearEndAttenuationDB: nil),
                      BestModes.Point(mode: "b", erleSteadyDB: 25, nearEndAttenuationDB: nil)]]
        let blocks = EvalReportDocument.tradeOffChart(BestModes.comparedMeans(items), front: BestModes.front(ofItems: items))
        XCTAssertEqual(blocks.count, 1, "the plot alone")
        guard case .scatterChart(let chart)? = blocks.first else { return XCTFail("a plot") }
        XCTAssertTrue(chart.points.isEmpty)
        XCTAssertEqual(chart.title, "Echo removed against near end kept, one point per mode (no item to plot both values of)")
    }

    /// A convergence median stands on the runs whose ERLE settled within ±3 dB: 7 of 24 read as
    /// well as 18 of 24 did. It says over how many, as a mean does.
    func testConvergenceMedianSaysOverHowManyRuns() {
        func summary(_ mode: String, convergence: [Double]) -> ModeSummary {
            ModeSummary(mode: mode, ran: 4, failed: 0, wins: 0, erleSteadyDB: .init([10, 12, 14, 16]), erleDB: .init([10, 12, 14, 16]),
                        convergenceSeconds: .init(convergence), nearEndAttenuationDB: .init([]), nearEndDistortionDB: .init([]))
        }
        XCTAssertEqual(text(EvalReportDocument.convergenceCell(summary("speex:intensityRecommended", convergence: [2, 3]), runs: 4).spans),
                       "2.5 s (2 of 4)")
        XCTAssertEqual(text(EvalReportDocument.convergenceCell(summary("speex:intensityRecommended", convergence: [2, 3, 4, 5]), runs: 4).spans),
                       "3.5 s", "all runs: nothing added")
        XCTAssertEqual(text(EvalReportDocument.convergenceCell(summary("speex:intensityRecommended", convergence: []), runs: 4).spans), "—")
    }

    /// The telephony table's medians say over how many runs where fewer than the mode ran: a
    /// mode whose 2 of 5 runs had 20 frames of far-end single talk for a TCLw read as if all had.
    func testTelephonyMediansSayOverHowManyRuns() throws {
        let speex = try EchoControlMode(parsing: "speex:intensityMax"), webrtc = try EchoControlMode(parsing: "webrtc:intensityMax")
        func summary(_ mode: EchoControlMode, tclw: [Double], range: [Double]) -> ModeSummary {
            ModeSummary(mode: mode.description, ran: 5, failed: 0, wins: 0, erleSteadyDB: .init([]), erleDB: .init([]), convergenceSeconds: .init([]),
                        nearEndAttenuationDB: .init([]), nearEndDistortionDB: .init([]), tclwDB: .init(tclw), doubleTalkAttenuationRangeDB: .init(range))
        }
        let blocks = EvalReportDocument.telephonyTable(modes: [speex, webrtc],
                                                       summaries: [summary(speex, tclw: [40, 50], range: [4, 5, 6, 7, 8]),
                                                                   summary(webrtc, tclw: [50, 52, 54, 56, 58], range: [])]) { _ in (0, 0) }
        let markdown = MarkdownWriter.render(ReportDocument(title: "t", blocks: blocks))
        XCTAssertTrue(markdown.contains("| `speex:intensityMax` | 45.0 dB (2 of 5) | 41.0 dB | 0 | 0 | 6.00 dB |"), markdown)
        XCTAssertTrue(markdown.contains("| `webrtc:intensityMax` | 54.0 dB | 50.8 dB | 0 | 0 | — |"), markdown)
        XCTAssertTrue(markdown.contains("the median says over how many runs (\"3 of 5\")"), markdown)
    }

    /// The note under the Modes table says what convergence is and why a mode may have none:
    /// `disabled`'s median read 0.0 s, the best of the table, though nothing converged.
    func testTheModesTableSaysWhatConvergenceIsAndWhenThereIsNone() throws {
        guard case .paragraph(let spans)? = EvalReportDocument.modesTableNotes().first else { return XCTFail("a note under the table") }
        XCTAssertTrue(text(spans).contains("none where the steady ERLE is 6 dB or less (disabled, or a canceller that failed): nothing converged"),
                      text(spans))
        // The key it names is code: written into the text, its backticks came out escaped ("\`convergence\_unmeasured\`").
        let markdown = MarkdownWriter.render(ReportDocument(title: "t", blocks: EvalReportDocument.modesTableNotes()))
        XCTAssertTrue(markdown.contains("says which, in `convergence_unmeasured`); its median"), markdown)
        // And what its other columns are: a reader met p10, distortion and pipeline issues unexplained.
        for phrase in ["p10 is steady ERLE's 10th percentile", "Near-end distortion is the output's difference from the near end",
                       "The near-end attenuation's mean and median are over each run's departure, either way",
                       "≥ marks a lower bound: a run's convergence where its steady ERLE or a window from then on is a bound",
                       "Pipeline issues are underruns"] {
            XCTAssertTrue(text(spans).contains(phrase), phrase)
        }
    }

    /// "≥ 1.8 dB: category 1 or worse, full duplex" read as a full-duplex verdict for a bound (even
    /// with no canceller): a bound's category is only the best it can be, with no duplex label.
    func testABoundsP340CategoryIsNotAVerdict() {
        XCTAssertEqual(TelephonyBlocks.categoryText(.fullDuplex, isLowerBound: true),
                       "category 1 at best, not determined: the range is a lower bound")
        XCTAssertEqual(TelephonyBlocks.categoryText(.fullDuplex, isLowerBound: false), "category 1, full duplex")
        XCTAssertEqual(TelephonyBlocks.categoryText(.noDuplex, isLowerBound: true), "category 3, no duplex", "past 12 dB a bound is certain")
        XCTAssertEqual(TelephonyBlocks.categoryText(nil, isLowerBound: true), "no category")
    }

    /// The Echo table's near-end single-talk attenuation (4.1 dB) and the telephony table's
    /// "near-end attenuation alone" (≥ 3.2 dB) are different estimators: pooled frames against the
    /// median frame. Their labels say so.
    func testTheTwoNearEndSingleTalkFiguresSayWhichEstimatorTheyAre() throws {
        let nearEnd = NearEndPreservation(attenuationDB: 3, distortionDB: -3.8, doubleTalkFrames: 106, singleTalkAttenuationDB: 4.1,
                                          singleTalkDistortionDB: -2.6, singleTalkFrames: 84)
        let echoLabels = RunReportDocument.nearEndRows(nearEnd).map { text($0[0].spans) }
        XCTAssertTrue(echoLabels.contains { $0.hasPrefix("near-end attenuation, near-end single talk (all its frames pooled") }, "\(echoLabels)")
        let doubleTalk = DoubleTalkReport(doubleTalkFrames: 106, doubleTalkShare: 0.11, levelDifferenceDB: -1.4, levelDifferenceIsLowerBound: false,
                                          attenuationRangeDB: 8.9, attenuationRangeIsLowerBound: true, attenuationRangeFrames: 106,
                                          singleTalkAttenuationDB: 3.2, singleTalkAttenuationIsLowerBound: true,
                                          aroundFrames: 10, aroundShare: 0.06, aroundLevelDifferenceDB: 12, aroundLevelDifferenceIsLowerBound: false)
        let blocks = TelephonyBlocks.make(TelephonyMeasures(echoLoss: nil, echoLossUnmeasuredReason: "none", doubleTalk: doubleTalk,
                                                            doubleTalkUnmeasuredReason: nil))
        guard case .table(let table)? = blocks.first(where: { if case .table = $0 { true } else { false } }) else { return XCTFail("a table") }
        let labels = table.rows.map { text($0[0].spans) }
        XCTAssertTrue(labels.contains { $0.hasPrefix("near-end attenuation alone, no far end: the median frame's cut")
                                        && $0.contains("not the Echo table's near-end single-talk figure, which pools all the frames") }, "\(labels)")
        let range = try XCTUnwrap(table.rows.first { text($0[0].spans).hasPrefix("send attenuation range") })
        XCTAssertEqual(text(range[1].spans), "≥ 8.90 dB: category 2b at best, not determined: the range is a lower bound (106 of 106 double-talk analysis frames)")
    }

    /// A near-end row on few frames says its count once, in its low-confidence mark (it read "1.4 dB
    /// (low confidence: 1 analysis frame) (1 analysis frame)"), and the distortion beside it, on the
    /// same frames, is marked too; on enough frames both say the count as before.
    func testNearEndRowsSayTheirFrameCountOnceAndMarkDistortionOnFewFrames() {
        let few = NearEndPreservation(attenuationDB: 3, distortionDB: -3.8, doubleTalkFrames: 106, singleTalkAttenuationDB: 1.4,
                                      singleTalkDistortionDB: -7.9, singleTalkFrames: 1)
        let values = RunReportDocument.nearEndRows(few).map { text($0[1].spans) }
        XCTAssertEqual(values, ["3.0 dB (106 analysis frames)", "-3.8 dB",
                                "1.4 dB (low confidence: 1 analysis frame)", "-7.9 dB (low confidence: 1 analysis frame)"])
        let none = NearEndPreservation(attenuationDB: nil, distortionDB: nil, doubleTalkFrames: 0, singleTalkAttenuationDB: nil,
                                       singleTalkDistortionDB: nil, singleTalkFrames: 0)
        XCTAssertEqual(RunReportDocument.nearEndRows(none).map { text($0[1].spans) },
                       ["— (0 analysis frames)", "— (0 analysis frames)", "— (0 analysis frames)", "— (0 analysis frames)"])
    }

    /// A distortion with no value says why beside its dash, as the attenuation beside it does: a
    /// trial read the bare "—" under "— (0 analysis frames)" as a figure lost without a reason.
    func testADistortionWithoutAValueSaysWhy() {
        let lost = NearEndPreservation(attenuationDB: 31.2, attenuationIsLowerBound: true, distortionDB: nil, doubleTalkFrames: 84,
                                       singleTalkAttenuationDB: 0.5, singleTalkDistortionDB: -9.9, singleTalkFrames: 421)
        XCTAssertEqual(RunReportDocument.nearEndRows(lost).map { text($0[1].spans) },
                       ["≥ 31.2 dB: near end lost (84 analysis frames)", "— (the near end was lost: none of it to measure against)",
                        "0.5 dB (421 analysis frames)", "-9.9 dB"])
    }
}
