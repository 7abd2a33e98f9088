import AudioCore
import AudioInterop
import Metrics
import EchoLabJSON
import Foundation

/// `eval.json` as a document, rendered from the runs' values; the per-mode statistics and the
/// verdicts are computed from the same values (`RunSummary`, which holds each number as the run's
/// report.json prints it), so a run, a merge of shards and any later reader see the same numbers.
/// (eval.md and eval.html are rendered from the same results: `EvalReport`.)
///
/// Per mode: how many items ran or failed, mean, median and 10th percentile of steady-state ERLE,
/// whole ERLE, convergence and near-end attenuation over the items that have a value, and wins
/// (items where the mode is on the front of `BestModes`: no other mode beats it on both steady
/// ERLE and near-end attenuation in double talk). `best_modes` is that front over the corpus,
/// modes compared pair by pair, each axis on the items where every mode has its value on it.
public enum EvalDocument {
    public static let schema = "echolab.eval/\(currentVersion)"
    static let currentVersion = 4

    /// One corpus item of the document: where it sits in the plan, its name and file, and its
    /// runs in mode order.
    public struct Item: Sendable {
        public var index: Int
        public var name: String
        public var file: String
        public var results: [Run]

        public init(index: Int, name: String, file: String, results: [Run]) {
            self.index = index
            self.name = name
            self.file = file
            self.results = results
        }
    }

    /// One item × mode run: its mode as eval.json names it (nil: the scenario as written, for an
    /// item that failed before its mode was read), its folder, and what it measured or why it failed.
    public struct Run: Sendable {
        public var mode: String?
        public var folder: String
        public var summary: RunSummary?
        public var error: String?
        /// A failed run's canceller library (`CorpusRun.Result.library`); a run that ran has its
        /// summary's.
        public var failedLibrary: String?
        /// A failed run's error is its canceller's (a plugin that crashed): its message names the
        /// plugin, not the run, and a merge names the runs as eval did.
        public var isCancellerFailure: Bool
        /// The rate its canceller ran at under the call's (`CorpusRun.Result.bandLimitedCancellerRate`).
        public var bandLimitedCancellerRate: Int?

        public init(mode: String?, folder: String, summary: RunSummary?, error: String?, failedLibrary: String? = nil,
                    isCancellerFailure: Bool = false, bandLimitedCancellerRate: Int? = nil) {
            self.mode = mode
            self.folder = folder
            self.summary = summary
            self.error = error
            self.failedLibrary = failedLibrary
            self.isCancellerFailure = isCancellerFailure
            self.bandLimitedCancellerRate = bandLimitedCancellerRate
        }

        public init(_ result: CorpusRun.Result) {
            self.init(mode: result.mode?.description, folder: result.folder, summary: result.summary, error: result.error,
                      failedLibrary: result.summary == nil ? result.library : nil,
                      isCancellerFailure: result.summary == nil && result.isCancellerFailure,
                      bandLimitedCancellerRate: result.bandLimitedCancellerRate)
        }
    }

    /// The whole document from its items (in plan order, results in mode order).
    /// `shard` and `plan` (its whole plan's entries and digest) are written by a shard only.
    /// Throws when the items do not read back as printed (see `printed`).
    /// Returns the document, its per-mode statistics and its verdicts as values (what the pages show).
    public static func make(items: [Item], modes: [String], modesAsked: Bool, planned: Int, isComplete: Bool,
                            shard: String?, plan: JSONValue? = nil,
                            wallSeconds: Double) throws(UnreadableItems) -> (document: JSONValue, modeSummaries: [ModeSummary], verdicts: EvalVerdicts) {
        let entries = try printed(items.map(entry))
        let failed = items.reduce(0) { count, item in count + item.results.filter { $0.error != nil }.count }
        // Every verdict once, from the runs' values: the wins, the pages' bold cells and
        // paragraphs, and the trade-off plot all rest on these.
        let itemPoints = items.map(points)
        let itemFronts = itemPoints.map(BestModes.front(of:))
        let summaries = modes.map { summary(for: $0, items: items, itemFronts: itemFronts) }
        // Each scenario as written runs in its own mode: no two modes met on one item.
        let best = modesAsked ? BestModes.front(ofItems: itemPoints) : nil
        let verdicts = EvalVerdicts(corpusFront: best, itemFronts: itemFronts, comparedMeans: BestModes.comparedMeans(itemPoints),
                                    aecmosDoubleTalk: EvalVerdicts.aecmosDoubleTalk(modes, summaries: summaries,
                                                                                    muting: Set(itemPoints.joined().filter { $0.sendsSilence || $0.isNearEndLost }.map(\.mode))))
        var object: [String: JSONValue] = [
            "schema": .string(schema),
            "tool": .object(["name": .string("echolab"), "version": .string(EchoLabVersion.current)]),
            "complete": .bool(isComplete),
            "planned": .number(Double(planned)),
            "failed": .number(Double(failed)),
            "modes": modesAsked ? .array(modes.map(JSONValue.string)) : .string("as_written"),
            "items": .array(entries),
            "mode_summary": .array(summaries.map(JSONValue.init(encoding:))),
            "best_modes": best.map { verdict in bestModes(verdict, itemNames: items.map(\.name)) } ?? .null,
            "timing": .object(["wall_s": .number(wallSeconds)]),
        ]
        object["shard"] = shard.map(JSONValue.string)
        object["plan"] = plan
        return (.object(object), summaries, verdicts)
    }

    /// An item's entry in eval.json: its runs' metrics (without the series and bands its run's
    /// report.json holds), counters, findings, segments, library and scores.
    static func entry(_ item: Item) -> JSONValue {
        .object(["index": .number(Double(item.index)), "name": .string(item.name), "file": .string(item.file),
                 "results": .array(item.results.map(entry))])
    }

    static func entry(_ result: Run) -> JSONValue {
        var object: [String: JSONValue] = ["mode": result.mode.map(JSONValue.string) ?? .null,
                                           "folder": .string(result.folder),
                                           "error": result.error.map(JSONValue.string) ?? .null]
        if let summary = result.summary {
            if var metrics = summary.metrics.map(JSONValue.init(encoding:))?.objectValue {
                // In the item's report.json; eval.json stays small.
                metrics.removeValue(forKey: "erle_series")
                if var telephony = metrics["telephony"]?.objectValue, var loss = telephony["echo_loss"]?.objectValue {
                    loss.removeValue(forKey: "bands")
                    telephony["echo_loss"] = .object(loss)
                    metrics["telephony"] = .object(telephony)
                }
                object["metrics"] = .object(metrics)
            } else {
                object["metrics"] = .null
            }
            // Why a figure is null, in the run's own words, where one is: a CI script reading
            // eval.json alone would see the nulls and no reason (each run's report.json holds them).
            for (key, reason) in [("echo_unmeasured", summary.echoUnmeasuredReason), ("delay_unmeasured", summary.delayUnmeasuredReason),
                                  ("convergence_unmeasured", summary.convergenceUnmeasuredReason)] {
                if let reason { object[key] = .string(reason) }
            }
            object["pipeline"] = summary.pipeline.map(JSONValue.init(encoding:)) ?? summary.recordingHealth.map(JSONValue.init(encoding:)) ?? .null
            // Only with a hardware model: an item without one has no hardware counters for the gate
            // to compare, and the same keys in every eval.json.
            if let streams = summary.hardwareStreams { object["hardware_streams"] = JSONValue(encoding: streams) }
            object["findings"] = .array(summary.findings.map(JSONValue.string))
            if !summary.segments.isEmpty { object["segments"] = .array(summary.segments.map(JSONValue.init(encoding:))) }
            object["duration_s"] = .number(summary.durationSeconds)
            object["library"] = summary.library.map(JSONValue.string)
            object["scores"] = summary.scores.map { .array($0.map(JSONValue.init(encoding:))) }
        } else {
            if let library = result.failedLibrary { object["library"] = .string(library) }
            // Only where true: other failures keep the same keys in every eval.json.
            if result.isCancellerFailure { object["canceller_failure"] = .bool(true) }
        }
        return .object(object)
    }

    /// Item entries as eval.json prints them (`JSONValue.roundedAsPrinted`; a run's summary already
    /// holds its numbers so, and rounding again changes none). A run's report read back from disk
    /// (`merge` of shards) may nest its `pipeline` or `metrics` as deep as the reader's limit
    /// allows in report.json, which sits three levels deeper in eval.json: such items would make a
    /// file no reader takes, so this throws and no eval.json is written.
    static func printed(_ items: [JSONValue]) throws(UnreadableItems) -> [JSONValue] {
        // eval.json's root object holds the list, and the list the items.
        let depth = 2 + (items.map(\.depth).max() ?? 0)
        guard depth <= JSONValue.maximumDepth else { throw UnreadableItems(depth: depth) }
        return items.map { $0.roundedAsPrinted() }
    }

    /// eval.json's items nest deeper than its readers take (see `printed`).
    public struct UnreadableItems: DescribedError {
        public var depth: Int
        public var description: String {
            "eval.json: its items would nest \(depth) levels deep, and a reader takes \(JSONValue.maximumDepth); a run's report.json holds values nested too deep for eval.json"
        }
    }

    /// Where a figure sits in a result's `metrics` object (or a segment, whose keys are flat):
    /// its value, the frames it stands on, and the flag that marks it a lower bound (where it can
    /// be one). What `compare` reads of a file of any version: a key one version did not write
    /// is no figure there.
    public struct FigureKeys: Sendable, Equatable {
        public var path: String
        public var frames: String
        public var bound: String?

        /// The same keys under `prefix` (`metrics.`).
        func under(_ prefix: String) -> FigureKeys {
            FigureKeys(path: prefix + path, frames: prefix + frames, bound: bound.map { prefix + $0 })
        }
    }

    /// A figure of a run's metrics: its value, the frames it stands on and whether it is a lower
    /// bound, read from the typed metrics; and its keys in eval.json's `metrics` object, where
    /// `compare` reads the same figure of a file.
    struct Figure: Sendable {
        var keys: FigureKeys
        /// A near-end level change, counted either way in the statistics (`departure(_:of:)`).
        var countsDeparture: Bool
        var read: @Sendable (EchoMetrics) -> (value: Double?, frames: Int, isLowerBound: Bool)

        init(path: String, frames: String, bound: String?, countsDeparture: Bool = false,
             read: @escaping @Sendable (EchoMetrics) -> (value: Double?, frames: Int, isLowerBound: Bool)) {
            keys = FigureKeys(path: path, frames: frames, bound: bound)
            self.countsDeparture = countsDeparture
            self.read = read
        }

        static let erleSteady = Figure(path: "erle_steady_db", frames: "erle_steady_analysis_frames", bound: "erle_steady_is_lower_bound") {
            ($0.erleSteadyDB, $0.erleSteadyFrames, $0.erleSteadyIsLowerBound)
        }
        static let erle = Figure(path: "erle_db", frames: "gate.single_talk_analysis_frames", bound: "erle_is_lower_bound") {
            ($0.erleDB, $0.gate.singleTalkFrames, $0.erleIsLowerBound)
        }
        static let convergence = Figure(path: "convergence_s", frames: "gate.single_talk_analysis_frames", bound: "convergence_is_lower_bound") {
            ($0.convergenceSeconds, $0.gate.singleTalkFrames, $0.convergenceIsLowerBound)
        }
        static let nearEndAttenuation = Figure(path: "near_end.attenuation_db", frames: "near_end.double_talk_analysis_frames",
                                               bound: "near_end.attenuation_is_lower_bound", countsDeparture: true) {
            ($0.nearEnd?.attenuationDB, $0.nearEnd?.doubleTalkFrames ?? 0, $0.nearEnd?.attenuationIsLowerBound ?? false)
        }
        /// The near end while it talks alone (the far end silent): a canceller should leave it whole.
        static let nearEndSingleTalkAttenuation = Figure(path: "near_end.single_talk_attenuation_db",
                                                         frames: "near_end.single_talk_analysis_frames",
                                                         bound: "near_end.single_talk_attenuation_is_lower_bound") {
            ($0.nearEnd?.singleTalkAttenuationDB, $0.nearEnd?.singleTalkFrames ?? 0, $0.nearEnd?.singleTalkAttenuationIsLowerBound ?? false)
        }
        /// The tap-free near-end estimate of a run without a near-end track (a recording), in
        /// double talk: where the far end never played the talker talked alone, and the estimate
        /// is that (`nearEndAlone`), not a double-talk figure to average with the others.
        static let nearEndEstimate = Figure(path: "near_end_estimate.output_drop_db", frames: "near_end_estimate.analysis_frames",
                                            bound: "near_end_estimate.output_drop_is_lower_bound", countsDeparture: true) {
            $0.gate.farEndActiveFrames == 0 ? (nil, 0, false)
                : ($0.nearEndEstimate?.outputDropDB, $0.nearEndEstimate?.frames ?? 0, $0.nearEndEstimate?.outputDropIsLowerBound ?? false)
        }
        static let nearEndDistortion = Figure(path: "near_end.distortion_db", frames: "near_end.double_talk_analysis_frames", bound: nil) {
            ($0.nearEnd?.distortionDB, $0.nearEnd?.doubleTalkFrames ?? 0, false)
        }
        static let tclw = Figure(path: "telephony.echo_loss.tclw_db", frames: "telephony.echo_loss.analysis_frames",
                                 bound: "telephony.echo_loss.is_lower_bound") {
            ($0.telephony?.echoLoss?.tclwDB, $0.telephony?.echoLoss?.analysisFrames ?? 0, $0.telephony?.echoLoss?.isLowerBound ?? false)
        }
        static let doubleTalkRange = Figure(path: "telephony.double_talk.attenuation_range_db",
                                            frames: "telephony.double_talk.attenuation_range_analysis_frames",
                                            bound: "telephony.double_talk.attenuation_range_is_lower_bound") {
            ($0.telephony?.doubleTalk?.attenuationRangeDB, $0.telephony?.doubleTalk?.attenuationRangeFrames ?? 0,
             $0.telephony?.doubleTalk?.attenuationRangeIsLowerBound ?? false)
        }

        /// The figure's value where it counts: nil where it is not measured or stands on too few
        /// frames (`FigureConfidence`).
        func value(in metrics: EchoMetrics) -> (value: Double, isLowerBound: Bool)? {
            let figure = read(metrics)
            guard let value = figure.value, !FigureConfidence.isLow(frames: figure.frames) else { return nil }
            return (value, figure.isLowerBound)
        }

        /// Measured, but on too few frames to count.
        func isLowConfidence(in metrics: EchoMetrics) -> Bool {
            let figure = read(metrics)
            return figure.value != nil && FigureConfidence.isLow(frames: figure.frames)
        }
    }

    /// The metrics the per-mode statistics summarise, and where each goes in a `ModeSummary`.
    static var summarisedMetrics: [(figure: Figure, field: WritableKeyPath<ModeSummary, ModeSummary.Statistics>)] {
        [(.erleSteady, \.erleSteadyDB), (.erle, \.erleDB), (.convergence, \.convergenceSeconds),
         (.nearEndAttenuation, \.nearEndAttenuationDB), (.nearEndDistortion, \.nearEndDistortionDB),
         (.tclw, \.tclwDB), (.doubleTalkRange, \.doubleTalkAttenuationRangeDB)]
    }

    /// A near-end figure as the statistics count it: how far the talker's level moved, either way
    /// (`BestModes.Point.nearEndDeparture`, as the fronts rank it). Signed, an automatic gain
    /// control's 2.9 dB boost on one item cancelled a 5.7 dB cut on another in a mode's mean,
    /// which read 0.2 dB where its runs moved the talker 0.65 dB on average. Other figures as they are.
    static func departure(_ value: (value: Double, isLowerBound: Bool), of figure: Figure) -> (value: Double, isLowerBound: Bool) {
        figure.countsDeparture ? (abs(value.value), value.isLowerBound) : value
    }

    /// One mode's statistics over the items' runs; `itemFronts`: the items' fronts
    /// (`BestModes.front(of:)` of `points`), judged once for every mode's wins (nil: judged here).
    public static func summary(for mode: String, items: [Item], itemFronts: [BestModes.Verdict?]? = nil) -> ModeSummary {
        let results = items.flatMap(\.results).filter { $0.mode == mode }
        let ran = results.filter { $0.error == nil }
        let none = ModeSummary.Statistics([])
        let itemFronts = itemFronts ?? items.map { BestModes.front(of: points($0)) }
        var summary = ModeSummary(mode: mode, ran: ran.count, failed: results.count - ran.count, wins: wins(for: mode, itemFronts: itemFronts),
                                  erleSteadyDB: none, erleDB: none, convergenceSeconds: none, nearEndAttenuationDB: none,
                                  nearEndDistortionDB: none)
        let metrics = ran.compactMap { $0.summary?.metrics }
        // A run with no canceller there has no settling to time, as disabled has none.
        let cancelling = ran.filter { !isNoCanceller($0) }.compactMap { $0.summary?.metrics }
        for (figure, field) in summarisedMetrics {
            let runs = figure.keys == Figure.convergence.keys ? cancelling : metrics
            let counted = runs.compactMap { figure.value(in: $0) }.map { Self.departure($0, of: figure) }
            summary[keyPath: field] = ModeSummary.Statistics(counted.map { ($0.value, $0.isLowerBound) },
                                                             lowConfidence: runs.filter { figure.isLowConfidence(in: $0) }.count)
        }
        let estimates = metrics.compactMap { Figure.nearEndEstimate.value(in: $0) }.map { Self.departure($0, of: .nearEndEstimate) }
        if !estimates.isEmpty || metrics.contains(where: { Figure.nearEndEstimate.isLowConfidence(in: $0) }) {
            summary.nearEndEstimateDropDB = ModeSummary.Statistics(estimates.map { ($0.value, $0.isLowerBound) },
                                                                   lowConfidence: metrics.filter { Figure.nearEndEstimate.isLowConfidence(in: $0) }.count)
            summary.nearEndEstimateLostRuns = metrics.filter { Figure.nearEndEstimate.value(in: $0) != nil && $0.nearEndEstimate?.isLost == true }.count
        }
        // As the attenuation counts them: on enough frames (a lost near end is a bound).
        summary.nearEndLostRuns = metrics.filter { Figure.nearEndAttenuation.value(in: $0)?.isLowerBound == true }.count
        let scoredAnywhere = items.contains { item in item.results.contains { $0.summary?.scores != nil } }
        summary.scores = scoreStatistics(ran.map { $0.summary?.scores ?? [] }, scoredAnywhere: scoredAnywhere)
        return summary
    }

    /// Each scorer's scores over `runs` (one mode's runs, each run's scorers), per talk type and
    /// score, in the order first met; nil when no run of the corpus was scored.
    static func scoreStatistics(_ runs: [[ScorerResult]], scoredAnywhere: Bool) -> [ModeSummary.ScorerStatistics]? {
        guard scoredAnywhere else { return nil }
        typealias Identity = ModeSummary.ScorerStatistics.Identity
        // A score one run declares with another direction or range than another run is another
        // score: its statistics (p10 in its own direction) and its range stay its own.
        struct ScoreKey: Hashable {
            var talkType, name: String
            var higherIsBetter: Bool
            var minimum, maximum: Double
        }
        var order: [Identity] = [], scoreOrder: [Identity: [ScoreKey]] = [:]
        var values: [Identity: [ScoreKey: [Double]]] = [:], first: [Identity: [ScoreKey: ScoreValue]] = [:]
        var unscored: [String: Int] = [:], names: [String] = []
        for scorers in runs {
            for scorer in scorers {
                if !names.contains(scorer.name) { names.append(scorer.name) }
                guard let talkTypes = scorer.talkTypes, !talkTypes.isEmpty else { unscored[scorer.name, default: 0] += 1; continue }
                let identity = Identity(scorer: scorer.name, reportedName: scorer.reportedName, version: scorer.version, modelSHA256: scorer.modelSHA256)
                if values[identity] == nil { order.append(identity); values[identity] = [:]; first[identity] = [:] }
                for talk in talkTypes {
                    for (name, score) in talk.scores.sorted(by: { $0.key < $1.key }) {
                        let key = ScoreKey(talkType: talk.talkType, name: name, higherIsBetter: score.higherIsBetter,
                                           minimum: score.minimum, maximum: score.maximum)
                        if values[identity]![key] == nil { scoreOrder[identity, default: []].append(key); first[identity]![key] = score }
                        values[identity]![key, default: []].append(score.value)
                    }
                }
            }
        }
        var entries = order.map { identity in
            ModeSummary.ScorerStatistics(
                scorer: identity.scorer, reportedName: identity.reportedName, version: identity.version, modelSHA256: identity.modelSHA256,
                // Counted once, in the scorer's first entry.
                unscoredRuns: order.first { $0.scorer == identity.scorer } == identity ? unscored[identity.scorer] ?? 0 : 0,
                scores: (scoreOrder[identity] ?? []).map { key in
                    let score = first[identity]![key]!
                    return .init(talkType: key.talkType, name: key.name, higherIsBetter: score.higherIsBetter, minimum: score.minimum,
                                 maximum: score.maximum,
                                 statistics: ModeSummary.Statistics(values[identity]![key]!, lowerIsBetter: !score.higherIsBetter))
                })
        }
        // A scorer that scored none of the mode's runs is still said, with its unscored runs.
        for name in names where !order.contains(where: { $0.scorer == name }) {
            entries.append(.init(scorer: name, unscoredRuns: unscored[name] ?? 0, scores: []))
        }
        return entries
    }

    /// A run in which the eval finds no canceller, though one ran: it muted (`RequirementFindings.mutingRules`),
    /// or ran below the call's rate and removed no echo in the band it runs in
    /// (`removesNoEchoInItsBand`). Its "convergence" is how fast the noise floor or the dropped
    /// band settled (a mute's read ≥ 0.0 s, an 8 kHz pass-through's 0.0 s): it is left out of its
    /// mode's convergence median, as disabled's has none.
    static func isNoCanceller(_ run: Run) -> Bool {
        guard run.error == nil, let summary = run.summary else { return false }
        if summary.findings.contains(where: RequirementFindings.mutingRules.contains) { return true }
        guard let rate = run.bandLimitedCancellerRate, let bands = summary.metrics?.erleBands else { return false }
        return removesNoEchoInItsBand(bands, cancellerRate: rate)
    }

    /// Items where `mode` is on the front (see `BestModes`).
    static func wins(for mode: String, itemFronts: [BestModes.Verdict?]) -> Int {
        itemFronts.filter { $0?.modes.contains(mode) == true }.count
    }

    /// An item's runs as `BestModes` points (failed runs have none), on the figures that count
    /// (low-confidence ones do not). A near end lost: its attenuation is only a bound. Without a
    /// near-end track, the near end is the tap-free estimate. Where the gate heard no far end at
    /// all, the near end's attenuation while it talked alone is the item's one axis.
    static func points(_ item: Item) -> [BestModes.Point] {
        item.results.compactMap { result -> BestModes.Point? in
            guard let mode = result.mode, result.error == nil else { return nil }
            let metrics = result.summary?.metrics
            func bounded(_ figure: Figure) -> BoundedValue? {
                metrics.flatMap { figure.value(in: $0) }.map { BoundedValue($0.value, isLowerBound: $0.isLowerBound) }
            }
            let alone = result.summary?.nearEndAlone
            var point = BestModes.Point.run(mode: mode, erleSteady: bounded(.erleSteady), nearEndAttenuation: bounded(.nearEndAttenuation),
                                            estimate: bounded(.nearEndEstimate), estimateLost: metrics?.nearEndEstimate?.isLost ?? false,
                                            doubleTalkFrames: metrics?.gate.doubleTalkFrames ?? 0,
                                            sendsSilence: result.summary?.findings.contains(where: RequirementFindings.mutingRules.contains) ?? false,
                                            nearEndAlone: alone.flatMap { alone in
                                                FigureConfidence.isLow(frames: alone.frames) ? nil : BoundedValue(alone.value, isLowerBound: alone.isLowerBound)
                                            })
            point.nearEndAloneIsEstimate = alone?.isEstimate ?? false
            point.steadyERLEFrames = metrics?.erleSteadyFrames ?? 0
            if let metrics, let rate = result.bandLimitedCancellerRate {
                point.removesNoEchoInItsBand = removesNoEchoInItsBand(metrics.erleBands, cancellerRate: rate)
            }
            return point
        }
    }

    /// A canceller run below the call's rate, resampled around, never sends the band above half
    /// its rate, and what was there reads as echo removed in its steady ERLE (a pass-through
    /// plugin at 8 kHz: 8.2 dB on white noise, best on both axes beside speexdsp). Whether it
    /// removed any in the band it runs in: every octave band wholly under a quarter of its rate
    /// (clear of the resampler's roll-off, which takes 1 dB off 4–8 kHz at 16 kHz) that has an
    /// ERLE reads 0.0 dB or less as printed, none a lower bound, at least one.
    public static func removesNoEchoInItsBand(_ bands: [BandERLE], cancellerRate: Int) -> Bool {
        let inBand = bands.filter { $0.highHz <= Double(cancellerRate) / 4 && $0.erleDB != nil }
        return !inBand.isEmpty && inBand.allSatisfy { band in
            BestModes.removesNoEcho(BoundedValue(band.erleDB!, isLowerBound: band.isLowerBound))
        }
    }

    /// Where the far end never played (the gate heard none of it, so no echo and no double
    /// talk): the near end's attenuation while it talked alone, with its frames and whether it is a
    /// bound — such an item's one near-end figure (`BestModes`), shown as "alone" on the pages.
    /// Without a near-end track, the tap-free estimate (`isEstimate`; its near end lost: the
    /// worst case, a bound): a lone talker's, which averaged with double talk's would blur both.
    public static func nearEndAlone(_ metrics: EchoMetrics) -> (value: Double, isLowerBound: Bool, frames: Int, isEstimate: Bool)? {
        guard metrics.gate.farEndActiveFrames == 0 else { return nil }
        if let nearEnd = metrics.nearEnd {
            guard let value = nearEnd.singleTalkAttenuationDB else { return nil }
            return (value, nearEnd.singleTalkAttenuationIsLowerBound, nearEnd.singleTalkFrames, false)
        }
        guard let estimate = metrics.nearEndEstimate, let value = estimate.singleTalkOutputDropDB else { return nil }
        return (value, estimate.singleTalkOutputDropIsLowerBound || estimate.singleTalkIsLost, estimate.singleTalkFrames, true)
    }

    /// The corpus's front: `{"modes": [...], "judged_on": "both" | "erle_only" | "near_end_only",
    /// "compared_items": n, "items": m}` (modes compared pair by pair, steady ERLE over the
    /// `erle_compared_items` where every mode has one, the near end over the
    /// `near_end_compared_items` where every mode has a figure for it or lost it; n items in all), with `near_end_estimated_items` where the near end of some of them is
    /// the tap-free estimate, and, judged on ERLE alone, `near_end_not_judged`: `"no_double_talk"`,
    /// or `"no_near_end_figure"` with the double talk the gate heard (`double_talk_items`,
    /// `double_talk_analysis_frames`). On each axis judged, the items whose order a lower bound left
    /// unknown for a front mode (counted as no difference): `erle_tied_items` /
    /// `near_end_tied_items` (their names), and per front mode in `ties` (`mode`, `erle_tied_items`,
    /// `near_end_tied_items`: counts).
    static func bestModes(_ verdict: BestModes.Verdict, itemNames: [String]) -> JSONValue {
        let judged = switch verdict.axes {
        case .both: "both"
        case .erleOnly: "erle_only"
        case .nearEndOnly: "near_end_only"
        case .nearEndAlone: "near_end_alone"
        }
        var object: [String: JSONValue] = ["modes": .array(verdict.modes.map(JSONValue.string)), "judged_on": .string(judged),
                                           "compared_items": .number(Double(verdict.comparedItems)), "items": .number(Double(verdict.items))]
        if verdict.nearEndEstimatedItems > 0 { object["near_end_estimated_items"] = .number(Double(verdict.nearEndEstimatedItems)) }
        let erle = verdict.axes.judgesERLE, nearEnd = verdict.axes.judgesNearEnd
        if erle { object["erle_compared_items"] = .number(Double(verdict.erleComparedItems)) }
        if nearEnd { object["near_end_compared_items"] = .number(Double(verdict.nearEndComparedItems)) }
        func names(_ indices: [Int]) -> JSONValue { .array(indices.map { .string(itemNames.indices.contains($0) ? itemNames[$0] : "") }) }
        if erle { object["erle_tied_items"] = names(verdict.erleTiedItems) }
        if nearEnd { object["near_end_tied_items"] = names(verdict.nearEndTiedItems) }
        object["ties"] = .array(verdict.ties.map { ties in
            var entry: [String: JSONValue] = ["mode": .string(ties.mode)]
            if erle { entry["erle_tied_items"] = .number(Double(ties.erleItems.count)) }
            if nearEnd { entry["near_end_tied_items"] = .number(Double(ties.nearEndItems.count)) }
            return .object(entry)
        })
        if verdict.axes == .erleOnly {
            object["near_end_not_judged"] = .string(verdict.doubleTalkItems == 0 ? "no_double_talk" : "no_near_end_figure")
            if verdict.doubleTalkItems > 0 {
                object["double_talk_items"] = .number(Double(verdict.doubleTalkItems))
                object["double_talk_analysis_frames"] = .number(Double(verdict.doubleTalkFrames))
            }
        }
        return .object(object)
    }

    // MARK: Reading

    /// The N of an eval.json's `echolab.eval/N` schema; nil where it has none.
    static func schemaVersion(of document: JSONValue) -> Int? {
        guard let schema = document["schema"]?.stringValue, schema.hasPrefix("echolab.eval/") else { return nil }
        return Int(schema.dropFirst("echolab.eval/".count))
    }

    /// Reads an `eval.json` EchoLab wrote (any `echolab.eval/` schema version).
    public static func read(_ path: String) throws -> JSONValue {
        if let problem = InputFile.problem(at: path) { throw ReadError(path: path, problem: problem) }
        guard let data = FileManager.default.contents(atPath: path) else { throw ReadError(path: path, problem: "cannot be read") }
        let value: JSONValue
        do {
            value = try JSONValue.parse(Array(data), maximumBytes: 1 << 30)
        } catch {
            throw ReadError(path: path, problem: "not JSON: \(error)")
        }
        guard let schema = value["schema"]?.stringValue, schema.hasPrefix("echolab.eval/") else {
            throw ReadError(path: path, problem: "not an EchoLab eval.json (its schema is not echolab.eval/…)")
        }
        // A later version may mean other things by the same keys: read only what this one wrote.
        guard let version = schemaVersion(of: value), version >= 1, version <= currentVersion else {
            throw ReadError(path: path, problem: "schema \(schema) is not one this EchoLab reads (echolab.eval/1 to /\(currentVersion)); compare with the EchoLab that wrote it")
        }
        if let problem = problem(in: value) { throw ReadError(path: path, problem: "not an EchoLab eval.json: \(problem)") }
        return value
    }

    public struct ReadError: DescribedError {
        public var path: String
        public var problem: String
        public var description: String { "\(path): \(problem)" }

        public init(path: String, problem: String) {
            self.path = path
            self.problem = problem
        }
    }
}
