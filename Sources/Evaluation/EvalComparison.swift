import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import Metrics

/// The regression gate: two `eval.json` files (a committed baseline and the current run)
/// compared item × mode. A run regressed when its echo removal (steady or whole ERLE, TCLw) fell,
/// or what it took of the near end (in double talk, alone, or a recording's estimate) or its
/// double-talk attenuation range rose, by more than the threshold, or it lost a near end it kept —
/// ERLE over the whole call or in any of its device and route segments; when it gained a finding
/// (the app mistake the lint exists to catch, or a telephony requirement missed); when a fault
/// counter of its pipeline (underruns, drops, clipped samples, canceller resets, clicks, gaps …)
/// rose at all, or a buffer stopped conserving samples; when it failed where the baseline ran; or
/// when it is missing from the current run (a gate must not pass on less work) — unless that run
/// was interrupted, which fails on its own, and whose missing runs are listed as not run. A
/// baseline that was interrupted fails too: the runs it never reached would pass unjudged.
/// Findings that went away are improvements. Runs new in the current file are listed, not judged
/// (one that failed is a regression), and so are runs measured with another canceller library. Works on the JSON alone, so any two
/// EchoLab versions' files compare on the keys both have.
public struct EvalComparison: Sendable {
    /// One item × mode, as eval.json names it.
    public struct RunKey: Hashable, Sendable, Comparable, CustomStringConvertible {
        public var item: String
        public var mode: String
        public var description: String { "\(item) × \(mode)" }
        public static func < (a: RunKey, b: RunKey) -> Bool { (a.item, a.mode) < (b.item, b.mode) }
    }

    /// A difference between the two files for one run, as values: what is compared, each side,
    /// the signed change and the verdict's reason where there is no verdict. Reporting
    /// (`ComparisonMarkdown`, `ComparisonJUnit`) puts them in words; nothing here is display text.
    public struct Change: Sendable, Equatable {
        public var run: RunKey
        /// What changed.
        public var subject: Subject
        public var baseline: Value
        public var current: Value
        /// Signed change in the subject's unit (dB, a count, a score's), when both are numbers.
        public var delta: Double?
        /// The threshold `delta` was judged against (nil: any change counts, as a count's does).
        public var threshold: Double? = nil
        /// Why a change beyond the threshold was not judged (`notJudged`); nil where it was.
        public var notJudgedReason: NotJudgedReason? = nil

        public init(run: RunKey, subject: Subject, baseline: Value, current: Value, delta: Double?, threshold: Double? = nil,
                    notJudgedReason: NotJudgedReason? = nil) {
            self.run = run
            self.subject = subject
            self.baseline = baseline
            self.current = current
            self.delta = delta
            self.threshold = threshold
            self.notJudgedReason = notJudgedReason
        }
    }

    /// What a change compares. Its kind decides how the change reads: a level in dB, a count, a
    /// score in its own unit, or a state.
    public enum Subject: Sendable, Equatable {
        /// The run itself: it ran, failed or is missing.
        case run
        /// A level in dB of the run's `metrics`, by its key (`erle_steady_db`,
        /// `telephony.echo_loss.tclw_db` …).
        case level(metric: String)
        /// A device or route segment of the call: there or missing.
        case segment(Segment)
        /// A level in dB of one segment, by its key (`erle_steady_db`, `erle_db`).
        case segmentLevel(Segment, metric: String)
        /// The near end kept and now lost entirely, read from `measure`.
        case isNearEndLost(NearEndMeasure)
        /// The near end lost and now kept.
        case nearEndKept(NearEndMeasure)
        /// How often the run breaks a rule (a lint finding, a missed telephony requirement).
        case finding(rule: String)
        /// A fault counter of the pipeline or the hardware streams, or a buffer's `conserved` flag,
        /// by its dotted path in the run's eval.json entry (`pipeline.uplink.underruns`,
        /// `hardware_streams.dropped_samples`).
        case counter(path: String)
        /// The canceller library the run was measured with.
        case library
        /// A scorer as a whole: run or not, which version and model.
        case scorer(name: String)
        /// One score of a scorer in one talk type.
        case score(scorer: String, name: String, talkType: String)

        /// The change counts something (a pipeline counter, a finding) rather than a level in dB.
        public var isCount: Bool {
            switch self {
            case .finding, .counter: true
            default: false
            }
        }

        /// The change is of a scorer's score (in its own unit, such as MOS).
        public var isScore: Bool { if case .score = self { true } else { false } }
    }

    /// Which of a run's near-end figures says the near end is lost: the near-end track in double
    /// talk or while the near end talks alone, or, without a track (a recording), the tap-free
    /// gate's estimate.
    public enum NearEndMeasure: Sendable, Equatable, CaseIterable {
        case doubleTalk, singleTalk, estimate

        /// The figure, and the key that says the near end is lost there (the figure then a bound).
        var keys: (figure: EvalDocument.FigureKeys, lost: String) {
            switch self {
            case .doubleTalk: (EvalDocument.Figure.nearEndAttenuation.keys, EvalDocument.Figure.nearEndAttenuation.keys.bound!)
            case .singleTalk: (EvalDocument.Figure.nearEndSingleTalkAttenuation.keys, EvalDocument.Figure.nearEndSingleTalkAttenuation.keys.bound!)
            case .estimate: (EvalDocument.Figure.nearEndEstimate.keys, "near_end_estimate.near_end_lost")
            }
        }
    }

    /// A segment of a call as eval.json has it: its number (from 1), where it starts and the
    /// events that started it — in the baseline, and in the current run where they differ (a
    /// timeline edited at the same moment: the current events are what changed the segment).
    public struct Segment: Sendable, Equatable {
        public var number: Int
        public var startSeconds: Double
        public var events: [String]
        /// The current run's events at the same start, where they are not the baseline's.
        public var currentEvents: [String]?

        public init(number: Int, startSeconds: Double, events: [String], currentEvents: [String]? = nil) {
            self.number = number
            self.startSeconds = startSeconds
            self.events = events
            self.currentEvents = currentEvents
        }
    }

    /// One side of a change.
    public enum Value: Sendable, Equatable {
        /// A level in dB, measured or a lower bound.
        case level(BoundedValue)
        /// A level on too few analysis frames to count (`FigureConfidence`).
        case lowConfidence(frames: Int)
        /// Measured before, not now.
        case notMeasured
        /// A count (a fault counter, a finding's).
        case count(Int)
        /// A flag of the pipeline (a buffer's `conserved`).
        case flag(Bool)
        /// A scorer's score, in its own unit.
        case score(Double)
        /// The run ran; it failed (`error`: the message, where the change is the failure); it is
        /// missing from the file.
        case ran
        case failed(error: String?)
        case missing
        /// The run is not in the baseline (a run new to CURRENT, which failed).
        case notInBaseline
        /// The near end in double talk: some of it sent, or none.
        case nearEndKept
        case isNearEndLost
        /// A scorer scored the run; was not run on it; ran and left it unscored (its reason);
        /// has no such score for it.
        case scored
        case notRun
        case unscored(reason: String?)
        case notScored
        /// A name as the file gives it: a canceller library, a scorer's identity (name, version,
        /// model).
        case name(String)
    }

    /// Which side's lower bound leaves a change's direction unknown.
    public enum BoundedSides: Sendable, Equatable {
        case both, baseline, current

        init?(baseline: Bool, current: Bool) {
            switch (baseline, current) {
            case (true, true): self = .both
            case (true, false): self = .baseline
            case (false, true): self = .current
            case (false, false): return nil
            }
        }
    }

    /// One of the two files compared.
    public enum Side: Sendable, Equatable {
        case baseline, current
    }

    /// Why a change beyond the threshold was not judged.
    public enum NotJudgedReason: Sendable, Equatable {
        /// A lower bound on these sides leaves the level's direction unknown.
        case lowerBound(BoundedSides)
        /// A finding that judges a figure against a line, gained over a baseline (or lost in a
        /// CURRENT) whose figure had no verdict: why, on that side.
        case finding(FindingVerdicts.Unjudged, on: Side)
    }

    public var baselineRuns: Int
    public var currentRuns: Int
    public var maxRegressionDB: Double
    /// Largest fall of a scorer's score that still passes, in the score's unit (MOS).
    public var maxRegressionScore: Double
    public var regressions: [Change] = []
    public var improvements: [Change] = []
    /// Changes beyond the threshold whose direction a lower bound leaves unknown (`BoundedValue`):
    /// `≥ 49.04 → ≥ 39.04 dB` of ERLE is no evidence the canceller removed less. Listed, not judged.
    public var notJudged: [Change] = []
    /// Runs whose canceller library (eval.json's `library`: a version, a plugin's SHA-256) is not
    /// the baseline's: listed, and not judged (in neither `regressions` nor `improvements`: the
    /// numbers measure another build) unless `judgesLibraryChanges`.
    public var libraryChanges: [Change] = []
    /// Runs measured with another library are judged too (`compare --judge-library-changes`): a
    /// plugin author's next build against the last, where the new library is the change to judge.
    public var judgesLibraryChanges: Bool
    /// Scores the two files cannot be compared on: a scorer of another version or model, or one
    /// CURRENT was not scored with. Listed, not judged.
    public var scoreNotes: [Change] = []
    /// Runs of the current file that the baseline does not have, and that ran (one that failed
    /// is a regression: a new item that cannot run is a broken corpus).
    public var added: [RunKey] = []
    /// Segments of a run in both files that only CURRENT's call has (a device or route change at
    /// a moment the baseline's has none): listed, not judged, as new runs are.
    public var addedSegments: [(run: RunKey, segment: Segment)] = []
    /// A new run that may be a missing one under another name or mode, by its key: the missing
    /// run of the baseline whose item came from a file of the same name (a renamed item, a
    /// changed `aec`). Both still count as they are — the missing run fails the gate — but a reader sees
    /// the one change rather than a deleted file and an unrelated new one.
    public var formerRuns: [RunKey: RunKey] = [:]
    /// Runs of the baseline an interrupted current file does not have: not run, listed — not
    /// counted as regressions, since the interruption alone fails the gate.
    public var notRun: [RunKey] = []
    /// Every run either file has, in order: what the gate looked at (JUnit lists each).
    public var runs: [RunKey] = []
    /// Per mode of either file: mean steady ERLE in the baseline and now, over the same runs.
    public var modeMeans: [ModeMean] = []
    /// One mode's mean steady-state ERLE in the two files over the same runs: those both files
    /// hold and judge, measured in both. Each file's mean over all its own runs would read an item
    /// removed, renamed or not reached as a change of the mode. A mean over lower bounds is one
    /// itself.
    public struct ModeMean: Sendable {
        public var mode: String
        /// How many runs (items) both means are over.
        public var items: Int
        /// nil where `items` is 0.
        public var baseline: Double?
        public var current: Double?
        public var baselineIsLowerBound: Bool
        public var currentIsLowerBound: Bool
        /// Every run's figure is the same in both files, value and bound alike: the means are the
        /// same numbers, which no bound makes uncertain.
        public var isUnchanged: Bool

        /// The means of `pairs`, one run's steady ERLE in the baseline and now each.
        init(mode: String, pairs: [(was: Figure, now: Figure)]) {
            func mean(_ figures: [Figure]) -> Double? {
                figures.isEmpty ? nil : figures.compactMap(\.number).reduce(0, +) / Double(figures.count)
            }
            self.mode = mode
            items = pairs.count
            baseline = mean(pairs.map(\.was))
            current = mean(pairs.map(\.now))
            baselineIsLowerBound = pairs.contains { $0.was.isLowerBound }
            currentIsLowerBound = pairs.contains { $0.now.isLowerBound }
            isUnchanged = pairs.allSatisfy { $0.was == $0.now }
        }

        /// How the mean changed, as far as `BoundedValue` makes it certain.
        public enum Change: Sendable, Equatable {
            /// Both means measured: the change is this.
            case exactly(Double)
            /// CURRENT's mean a bound over a measured baseline: it rose by this at least.
            case atLeast(Double)
            /// The baseline's mean a bound over a measured CURRENT: it fell by this at least (the
            /// change is at most this, a negative number).
            case atMost(Double)
            /// A bound on the side that leaves the direction unknown (`notJudgedReason`).
            case unknown
        }

        /// The change from the baseline's mean to CURRENT's; nil where `items` is 0. A mean over
        /// a lower bound is one itself, so its change is known only as the gate knows a bound's:
        /// `≥ 18.49 → ≥ 13.77 dB` is no evidence of a fall, `19.95 → ≥ 15.50 dB` neither.
        public var change: Change? {
            guard let a = baseline, let b = current else { return nil }
            if isUnchanged { return .exactly(0) }
            switch (baselineIsLowerBound, currentIsLowerBound) {
            case (false, false): return .exactly(b - a)
            case (false, true): return b > a ? .atLeast(b - a) : .unknown
            case (true, false): return b < a ? .atMost(b - a) : .unknown
            case (true, true): return .unknown
            }
        }

        /// Which side's bound leaves the change unknown (nil where it is known).
        public var notJudgedReason: BoundedSides? {
            guard change == .unknown else { return nil }
            return BoundedSides(baseline: baselineIsLowerBound, current: currentIsLowerBound)
        }
    }
    /// The baseline has scorers' scores to judge.
    public var hasScores = false
    /// The current file says `"complete": false` (an interrupted run).
    public var currentIsIncomplete = false
    /// CURRENT's schema writes a run's segments where its call has any (echolab.eval/3 on): a
    /// baseline's segments it lacks are missing, not a key an older version did not write.
    var currentWritesSegments = false
    /// The baseline says `"complete": false`: an interrupted eval was blessed, and the runs it
    /// never reached would go unjudged (listed as new). No gate passes against it.
    public var baselineIsIncomplete = false
    /// The baseline is one shard of an eval (`"shard": "K/N"`, N > 1) and CURRENT is not that
    /// same shard: a CI job that blessed one shard's eval.json would judge a third of its corpus
    /// from then on, the other shards' runs passing as new. No gate passes against it.
    public var baselineShard: String?
    /// CURRENT is one shard of an eval and the baseline is not that same shard: the baseline's
    /// runs of the other shards are missing from it. Said, so the missing runs read as a shard's.
    public var currentShard: String?

    /// Which EchoLab wrote each file and in which schema (`"0.1.0, echolab.eval/4"`), where the two
    /// differ (nil where they agree): said, not judged — the files compare on the keys both have,
    /// and a figure can move with the version that measured it.
    public var writers: (baseline: String, current: String)?

    /// Which EchoLab wrote `eval` and in which schema, as the file names them.
    static func writer(of eval: JSONValue) -> String {
        let version = eval["tool"]?["version"]?.stringValue.map { "EchoLab \($0)" } ?? "an EchoLab that did not name its version"
        return version + (eval["schema"]?.stringValue.map { " (\($0))" } ?? "")
    }

    public var hasRegression: Bool { !regressions.isEmpty || currentIsIncomplete || baselineIsIncomplete || baselineShard != nil }

    /// The shard an eval.json was written as (`"K/N"`), nil for a whole eval (or "1/1", which runs
    /// the whole plan).
    static func shard(of eval: JSONValue) -> String? {
        guard let shard = eval["shard"]?.stringValue, !shard.hasSuffix("/1") else { return nil }
        return shard
    }

    /// The run's figures the gate judges, by their keys in `metrics`: echo removal, higher is
    /// better (ERLE, steady and whole; TCLw, the telephony standards' weighted echo loss), and
    /// what was taken of the near end, lower is better (its attenuation in double talk and while
    /// it talks alone; without a near-end track, the output's drop under the talker the gate
    /// hears; the send attenuation range, the 95th percentile P.340 categorises, which can grow
    /// while the mean holds). A figure on too few frames (`FigureConfidence`) is not judged.
    static let judgedFigures: [(keys: EvalDocument.FigureKeys, higherIsBetter: Bool)] =
        [(EvalDocument.Figure.erleSteady.keys, true), (EvalDocument.Figure.erle.keys, true), (EvalDocument.Figure.tclw.keys, true),
         (EvalDocument.Figure.nearEndAttenuation.keys, false), (EvalDocument.Figure.nearEndSingleTalkAttenuation.keys, false),
         (EvalDocument.Figure.nearEndEstimate.keys, false), (EvalDocument.Figure.doubleTalkRange.keys, false)]
    /// What a segment's figures are judged on (its keys are flat; higher is better).
    static let segmentFigures = [
        EvalDocument.FigureKeys(path: "erle_steady_db", frames: "erle_steady_analysis_frames", bound: "erle_steady_is_lower_bound"),
        EvalDocument.FigureKeys(path: "erle_db", frames: "single_talk_analysis_frames", bound: "erle_is_lower_bound"),
    ]

    public init(baseline: JSONValue, current: JSONValue, maxRegressionDB: Double, maxRegressionScore: Double = 0.1,
                judgesLibraryChanges: Bool = false) {
        self.judgesLibraryChanges = judgesLibraryChanges
        self.maxRegressionDB = maxRegressionDB
        self.maxRegressionScore = maxRegressionScore
        let old = Self.runs(in: baseline), new = Self.runs(in: current)
        baselineRuns = old.count
        currentRuns = new.count
        currentIsIncomplete = current["complete"]?.boolValue == false
        baselineIsIncomplete = baseline["complete"]?.boolValue == false
        if Self.shard(of: baseline) != Self.shard(of: current) {
            baselineShard = Self.shard(of: baseline)
            currentShard = Self.shard(of: current)
        }
        currentWritesSegments = (EvalDocument.schemaVersion(of: current) ?? 0) >= 3
        if Self.writer(of: baseline) != Self.writer(of: current) {
            writers = (Self.writer(of: baseline), Self.writer(of: current))
        }
        hasScores = old.values.contains { $0.scores != nil }
        // An item that could not be loaded has one run, in no mode ("as written"): without
        // --modes, its error is why each of the baseline's runs of it is gone.
        var explained = Set<RunKey>()
        // And the other way round: an item the baseline could not load, loaded now, runs in
        // modes. Its runs are what became of the baseline's failed one — fixed, an improvement
        // (it read "failed → missing", a regression, beside a new run not judged).
        var loadedNow = Set<RunKey>()
        for key in old.keys.sorted() {
            let before = old[key]!
            if key.mode == Self.asWritten, new[key] == nil, before.error != nil {
                let runsNow = new.keys.filter { $0.item == key.item && $0.mode != Self.asWritten }.sorted()
                if !runsNow.isEmpty {
                    explained.insert(key)
                    for run in runsNow {
                        loadedNow.insert(run)
                        if let error = new[run]!.error {
                            regressions.append(Change(run: run, subject: .run, baseline: .failed(error: nil), current: .failed(error: error), delta: nil))
                        } else {
                            improvements.append(Change(run: run, subject: .run, baseline: .failed(error: nil), current: .ran, delta: nil))
                        }
                    }
                    continue
                }
            }
            guard let after = new[key] else {
                // An interrupted run did not reach it: its interruption fails the gate, and the
                // runs it holds are judged on what they are.
                if currentIsIncomplete {
                    notRun.append(key)
                    continue
                }
                // A gate must not pass on less work: missing is a regression even where the
                // baseline's run had failed.
                let was: Value = before.error == nil ? .ran : .failed(error: nil)
                let unloaded = RunKey(item: key.item, mode: Self.asWritten)
                if old[unloaded] == nil, let error = new[unloaded]?.error {
                    explained.insert(unloaded)
                    regressions.append(Change(run: key, subject: .run, baseline: was, current: .failed(error: error), delta: nil))
                } else {
                    regressions.append(Change(run: key, subject: .run, baseline: was, current: .missing, delta: nil))
                }
                continue
            }
            compare(key, before, after)
        }
        // An item listed twice fails its second listing: a broken corpus no gate passes over,
        // whether or not the baseline's corpus listed it twice too (as a run failed in both).
        for (key, error) in Self.refusedRepeats(in: current) {
            let was: Value = old[key].map { $0.error == nil ? .ran : .failed(error: $0.error) } ?? .notInBaseline
            regressions.append(Change(run: key, subject: .run, baseline: was, current: .failed(error: error), delta: nil))
        }
        let newRuns = new.keys.filter { old[$0] == nil && !explained.contains($0) && !loadedNow.contains($0) }.sorted()
        // A run new to CURRENT is listed, not judged; one that failed is a broken item, which no
        // gate passes over.
        for key in newRuns {
            guard let error = new[key]?.error else { continue }
            regressions.append(Change(run: key, subject: .run, baseline: .notInBaseline, current: .failed(error: error), delta: nil))
        }
        added = newRuns.filter { new[$0]?.error == nil }
        formerRuns = Self.formerRuns(of: added, missing: regressions.filter { $0.current == .missing }.map(\.run),
                                     baselineFiles: Self.itemFiles(baseline), currentFiles: Self.itemFiles(current))
        // An unloaded item's run is said under its baseline runs, not as a case of its own.
        runs = Set(old.keys).union(new.keys).subtracting(explained).sorted()
        modeMeans = modeMeans(old, new, modes: Self.modeNames(baseline, current))
    }

    /// The mean steady ERLE of each mode in `modes` over the runs both files hold and judge, where
    /// both measured it (ran, on enough frames). In order of run, so that the sums, and the
    /// printed means, are the same every time.
    private func modeMeans(_ old: [RunKey: ComparedRun], _ new: [RunKey: ComparedRun], modes: [String]) -> [ModeMean] {
        let notJudged = judgesLibraryChanges ? [] : Set(libraryChanges.map(\.run))
        var pairs: [String: [(was: Figure, now: Figure)]] = [:]
        for key in old.keys.sorted() where !notJudged.contains(key) {
            guard let after = new[key] else { continue }
            let was = steadyERLE(of: old[key]!), now = steadyERLE(of: after)
            if was.number != nil, now.number != nil { pairs[key.mode, default: []].append((was, now)) }
        }
        return modes.map { ModeMean(mode: $0, pairs: pairs[$0] ?? []) }
    }

    /// A run's steady-state ERLE as the gate judges it; none for a failed run.
    private func steadyERLE(of run: ComparedRun) -> Figure {
        guard run.error == nil else { return .none }
        return run.figures[EvalDocument.Figure.erleSteady.keys.path] ?? .none
    }

    private mutating func compare(_ key: RunKey, _ before: ComparedRun, _ after: ComparedRun) {
        // Another library's numbers measure another build: the run is listed, and nothing of it
        // is judged (a regression there would fail the gate on a library update) unless asked.
        if let change = Self.libraryChange(key, before, after) {
            libraryChanges.append(change)
            if !judgesLibraryChanges { return }
        }
        let failedBefore = before.error, failedAfter = after.error
        switch (failedBefore, failedAfter) {
        case (nil, let error?):
            regressions.append(Change(run: key, subject: .run, baseline: .ran, current: .failed(error: error), delta: nil))
            return
        case (_?, nil):
            improvements.append(Change(run: key, subject: .run, baseline: .failed(error: nil), current: .ran, delta: nil))
            return
        case (_?, let error?):
            // Failed in both: nothing of it is measured, and a gate that passed it would pass
            // over a broken corpus for as long as the baseline blessed while it was broken.
            regressions.append(Change(run: key, subject: .run, baseline: .failed(error: nil), current: .failed(error: error), delta: nil))
            return
        case (nil, nil):
            break
        }
        var nearEndChanges: [(change: Change, isRegression: Bool)] = []
        for (keys, higherIsBetter) in Self.judgedFigures {
            let was = before.figures[keys.path] ?? .none, now = after.figures[keys.path] ?? .none
            // A near end kept and now lost entirely is the worst a canceller can do to it,
            // whatever its bound says; lost and now kept is a fix. Judged so where both sides
            // stand on enough frames; where one does not, the figure is judged as any is (a
            // figure on too few frames now is a regression). Lost in both, the two bounds are
            // compared as any are (never certainly).
            if let measure = NearEndMeasure.allCases.first(where: { $0.keys.figure.path == keys.path }),
               case .value = was, case .value = now {
                let wasLost = before.lostNearEnds.contains(measure), isLost = after.lostNearEnds.contains(measure)
                if wasLost != isLost {
                    nearEndChanges.append(isLost
                        ? (Change(run: key, subject: .isNearEndLost(measure), baseline: .nearEndKept, current: .isNearEndLost, delta: nil), true)
                        : (Change(run: key, subject: .nearEndKept(measure), baseline: .isNearEndLost, current: .nearEndKept, delta: nil), false))
                    continue
                }
            }
            compare(key, .level(metric: keys.path), was, now, higherIsBetter: higherIsBetter)
        }
        for (change, isRegression) in nearEndChanges {
            if isRegression { regressions.append(change) } else { improvements.append(change) }
        }
        compareSegments(key, before.segments, after.segments)
        compareFindings(key, before, after)
        compareScores(key, before.scores, after.scores)
        compareCounters(key, before.counters, after.counters)
    }

    /// Fault counters and `conserved` flags of the baseline's pipeline, by path: a count that rose
    /// is a regression, one that fell an improvement; a buffer that stopped conserving samples, or
    /// a counter or flag CURRENT no longer has, a regression.
    private mutating func compareCounters(_ key: RunKey, _ before: [(path: [String], value: ComparedRun.Counter)]?,
                                          _ after: [(path: [String], value: ComparedRun.Counter)]?) {
        guard let before else { return }
        let after = after ?? []   // a pipeline now null counts none of the baseline's faults
        // Keys are unique at each level, so paths of keys are unique.
        let now = Dictionary(uniqueKeysWithValues: after.map { ($0.path, $0.value) })
        for (keys, was) in before {
            let path = keys.joined(separator: ".")
            switch (was, now[keys]) {
            case (.count(let a), .count(let b)?) where b > a:
                regressions.append(Change(run: key, subject: .counter(path: path), baseline: .count(Int(saturating: a)),
                                          current: .count(Int(saturating: b)), delta: b - a))
            case (.count(let a), .count(let b)?) where b < a:
                improvements.append(Change(run: key, subject: .counter(path: path), baseline: .count(Int(saturating: a)),
                                           current: .count(Int(saturating: b)), delta: b - a))
            case (.flag(true), .flag(false)?):
                regressions.append(Change(run: key, subject: .counter(path: path), baseline: .flag(true), current: .flag(false), delta: nil))
            case (.count(let a), nil):
                // A gate must not pass on less: a fault the file no longer counts may have risen.
                regressions.append(Change(run: key, subject: .counter(path: path), baseline: .count(Int(saturating: a)), current: .missing,
                                          delta: nil))
            case (.flag(let flag), nil):
                regressions.append(Change(run: key, subject: .counter(path: path), baseline: .flag(flag), current: .missing, delta: nil))
            default:
                break
            }
        }
    }

    /// The run's canceller library (a version, a plugin's SHA-256) where it is not the baseline's;
    /// nil where it is, or where either file names none (baselines written before libraries were
    /// named: nothing to say), or where either run failed: a failed run names the library it
    /// failed with, and a run that fails with a new build is a failure, judged as one, not a
    /// library change passed over.
    static func libraryChange(_ key: RunKey, _ before: ComparedRun, _ after: ComparedRun) -> Change? {
        guard before.error == nil, after.error == nil, let was = before.library, let now = after.library, was != now else { return nil }
        return Change(run: key, subject: .library, baseline: .name(was), current: .name(now), delta: nil)
    }

    /// A figure as the gate sees it: its value; `.lowConfidence` where it stands on fewer frames
    /// than a figure needs (files without frame counts: every value counts).
    enum Figure: Equatable {
        case value(Double, isLowerBound: Bool)
        case lowConfidence(frames: Int)
        case none
        var number: Double? { if case .value(let v, _) = self { v } else { nil } }
        var isLowerBound: Bool { if case .value(_, let bound) = self { bound } else { false } }
    }

    /// `after − before` as eval.json holds them, at four decimals, in exact integers:
    /// floating-point error must not decide a change of exactly the threshold (8 scores each
    /// 0.1000 lower read as 6 regressions and 2 not), nor a file with more decimals be judged
    /// otherwise than its values print.
    static func difference(_ before: Double, _ after: Double) -> Double {
        Double(FixedDecimal.scaled(after, fractionDigits: 4) - FixedDecimal.scaled(before, fractionDigits: 4)) / 10_000
    }

    /// One level in both files: a change beyond the threshold the right way is a regression or
    /// an improvement where it is certain (`BoundedValue`: a lower bound's truth may lie anywhere
    /// above it); beyond the threshold but uncertain, it is listed as not judged. Higher is
    /// better (ERLE, TCLw): a regression needs CURRENT measured, not a bound, and under the
    /// baseline's value, bound or not; an improvement needs the baseline measured. Lower is
    /// better (attenuation, where a bound is the worst case): a regression needs the baseline
    /// measured and CURRENT over it, bound or not; an improvement needs CURRENT measured.
    /// Measured before and not now is a regression (the run can no longer be judged), and so is
    /// measured before and now on too few frames to count. A baseline figure on too few frames
    /// judges nothing.
    private mutating func compare(_ key: RunKey, _ subject: Subject, _ was: Figure, _ now: Figure, higherIsBetter: Bool) {
        if case .value(let a, let bound) = was, case .lowConfidence(let frames) = now {
            regressions.append(Change(run: key, subject: subject, baseline: .level(BoundedValue(a, isLowerBound: bound)),
                                      current: .lowConfidence(frames: frames), delta: nil))
            return
        }
        switch (was.number, now.number) {
        case (let a?, let b?):
            let before = BoundedValue(a, isLowerBound: was.isLowerBound), after = BoundedValue(b, isLowerBound: now.isLowerBound)
            let delta = Self.difference(a, b)
            var change = Change(run: key, subject: subject, baseline: .level(before), current: .level(after), delta: delta,
                                threshold: maxRegressionDB)
            // Certain only where the side it moved toward is measured: a lower bound's truth may
            // lie anywhere above it.
            let fell = !after.isLowerBound && -delta > maxRegressionDB, rose = !before.isLowerBound && delta > maxRegressionDB
            if higherIsBetter ? fell : rose {
                regressions.append(change)
            } else if higherIsBetter ? rose : fell {
                improvements.append(change)
            } else if abs(delta) > maxRegressionDB {
                // Beyond the threshold and neither certain: a bound is on one side at least.
                change.notJudgedReason = BoundedSides(baseline: was.isLowerBound, current: now.isLowerBound).map(NotJudgedReason.lowerBound)
                notJudged.append(change)
            }
        case (let a?, nil):
            regressions.append(Change(run: key, subject: subject, baseline: .level(BoundedValue(a, isLowerBound: was.isLowerBound)),
                                      current: .notMeasured, delta: nil))
        default:
            break   // not measured in the baseline, or a key one version does not write
        }
    }

    /// The segments of one call in both files (a device or route change each), paired by where
    /// they start: a stretch that lost echo removal fails the gate even when the call's average
    /// hides it; a baseline segment the current call no longer has is a regression — its key
    /// gone too, where CURRENT's schema writes segments (`currentWritesSegments`: a gate must not
    /// pass on less work). A baseline without segments (a recording, a call without changes) has
    /// nothing to pair, and an older CURRENT that never wrote them nothing to pair with.
    private mutating func compareSegments(_ key: RunKey, _ before: [ComparedRun.Segment]?, _ after: [ComparedRun.Segment]?) {
        guard let before, let after = after ?? (currentWritesSegments ? [] : nil) else { return }
        for (index, was) in before.enumerated() {
            guard let start = was.startSeconds else { continue }
            // A stretch the call no longer has cannot be judged: a gate must not pass on less work.
            guard let now = after.first(where: { $0.startSeconds == start }) else {
                let segment = Segment(number: index + 1, startSeconds: start, events: was.events)
                regressions.append(Change(run: key, subject: .segment(segment), baseline: .ran, current: .missing, delta: nil))
                continue
            }
            let segment = Segment(number: index + 1, startSeconds: start, events: was.events,
                                  currentEvents: now.events == was.events ? nil : now.events)
            for keys in Self.segmentFigures {
                compare(key, .segmentLevel(segment, metric: keys.path), was.figures[keys.path] ?? .none, now.figures[keys.path] ?? .none,
                        higherIsBetter: true)
            }
        }
        // A timeline event moved (4.0 → 4.5 s): the baseline's segment is missing, and the new
        // one was said nowhere.
        for (index, now) in after.enumerated() {
            guard let start = now.startSeconds, !before.contains(where: { $0.startSeconds == start }) else { continue }
            addedSegments.append((key, Segment(number: index + 1, startSeconds: start, events: now.events)))
        }
    }

    /// Findings by rule: a rule the current run breaks more often than the baseline's is a
    /// regression, one it breaks less often an improvement — where certain. A rule that judges a
    /// figure against a line (`FindingVerdicts`: TCLw against 46 dB, the echo delay against the
    /// reach) is judged only where the side it departs from had a verdict: gained over a baseline
    /// whose figure could not be judged (a TCLw bound under 46 dB, none measured), or lost in a
    /// CURRENT that cannot be, the change is listed as not judged, with why.
    private mutating func compareFindings(_ key: RunKey, _ beforeRun: ComparedRun, _ afterRun: ComparedRun) {
        guard let before = beforeRun.findings, let after = afterRun.findings else { return }   // a key one version does not write
        func counts(_ rules: [String]) -> [String: Int] { rules.reduce(into: [:]) { $0[$1, default: 0] += 1 } }
        let was = counts(before), now = counts(after)
        for rule in Set(was.keys).union(now.keys).sorted() {
            let a = was[rule] ?? 0, b = now[rule] ?? 0
            guard a != b else { continue }
            var change = Change(run: key, subject: .finding(rule: rule), baseline: .count(a), current: .count(b), delta: Double(b - a))
            // Gained: the baseline's absence must have been a verdict; lost: CURRENT's must be.
            let side: Side = b > a ? .baseline : .current
            if let unjudged = FindingVerdicts.unjudged(rule: rule, in: side == .baseline ? beforeRun : afterRun) {
                change.notJudgedReason = .finding(unjudged, on: side)
                notJudged.append(change)
            } else if b > a {
                regressions.append(change)
            } else {
                improvements.append(change)
            }
        }
    }

    /// Each scorer's scores per talk type: one that fell by more than `maxRegressionScore` is a
    /// regression, one that rose as much an improvement; scored before and unscored now (the
    /// scorer failed, or the talk type is gone) is a regression — a gate must not pass on less
    /// work. A scorer CURRENT was not run with, or of another version or model, is listed.
    private mutating func compareScores(_ key: RunKey, _ before: [ScorerResult]?, _ after: [ScorerResult]?) {
        guard let was = before else { return }
        let now = after ?? []
        for old in was {
            guard let oldTalk = old.talkTypes else { continue }   // unscored in the baseline: nothing to judge
            guard let new = now.first(where: { $0.name == old.name }) else {
                scoreNotes.append(Change(run: key, subject: .scorer(name: old.name), baseline: .scored, current: .notRun, delta: nil))
                continue
            }
            guard let newTalk = new.talkTypes else {
                regressions.append(Change(run: key, subject: .scorer(name: old.name), baseline: .scored,
                                          current: .unscored(reason: new.unscoredReason), delta: nil))
                continue
            }
            func identity(_ result: ScorerResult) -> String {
                [result.reportedName, result.version, result.modelSHA256.map { String($0.prefix(12)) }].compactMap { $0 }.joined(separator: " ")
            }
            guard identity(old) == identity(new) else {
                scoreNotes.append(Change(run: key, subject: .scorer(name: old.name), baseline: .name(identity(old)), current: .name(identity(new)),
                                         delta: nil))
                continue
            }
            for talk in oldTalk {
                let current = newTalk.first { $0.talkType == talk.talkType }
                for name in talk.scores.keys.sorted() {
                    let a = talk.scores[name]!
                    let subject = Subject.score(scorer: old.name, name: name, talkType: talk.talkType)
                    guard let b = current?.scores[name] else {
                        regressions.append(Change(run: key, subject: subject, baseline: .score(a.value), current: .notScored, delta: nil))
                        continue
                    }
                    // Declared with another direction or range, it is not the same score: said, not judged.
                    guard a.isDeclared(like: b) else {
                        func declared(_ score: ScoreValue) -> String {
                            "\(FixedDecimal.text(score.value, fractionDigits: 2)) (\(score.higherIsBetter ? "higher" : "lower") is better, "
                                + "\(FixedDecimal.text(score.minimum, fractionDigits: 2))…\(FixedDecimal.text(score.maximum, fractionDigits: 2)))"
                        }
                        scoreNotes.append(Change(run: key, subject: subject, baseline: .name(declared(a)), current: .name(declared(b)), delta: nil))
                        continue
                    }
                    let delta = Self.difference(a.value, b.value), gain = (a.higherIsBetter ? 1.0 : -1.0) * delta
                    let change = Change(run: key, subject: subject, baseline: .score(a.value), current: .score(b.value), delta: delta,
                                        threshold: maxRegressionScore)
                    if gain < -maxRegressionScore { regressions.append(change) } else if gain > maxRegressionScore { improvements.append(change) }
                }
            }
        }
    }

    /// Each item's file name (its last path component: the two evals may have named the corpus
    /// by other paths, `vectors/scenarios` and `/data/corpus`), by item name (the first of a name).
    static func itemFiles(_ eval: JSONValue) -> [String: String] {
        var files: [String: String] = [:]
        for item in eval["items"]?.arrayValue ?? [] {
            guard let name = item["name"]?.stringValue, let file = item["file"]?.stringValue, files[name] == nil else { continue }
            files[name] = InputFile.lastComponent(of: file)
        }
        return files
    }

    /// For each new run, the missing run of an item from the same file, each taken once: of the
    /// same mode where there is one (a renamed item); else the item's missing run of the same
    /// backend, or of the same intensity, or its first (a changed mode: speex:intensityMax was
    /// said to come from the item's aec3 run where its speex:intensityRecommended was missing).
    static func formerRuns(of added: [RunKey], missing: [RunKey], baselineFiles: [String: String],
                           currentFiles: [String: String]) -> [RunKey: RunKey] {
        func backend(_ mode: String) -> Substring { mode.split(separator: ":", maxSplits: 1).first ?? Substring(mode) }
        func intensity(_ mode: String) -> Substring? { mode.split(separator: ":", maxSplits: 1).dropFirst().first }
        // Pass by pass over all new runs, the closest likeness first: one at a time, a new run
        // matched only by intensity took the missing run a later one shared a backend with.
        let likenesses: [(RunKey, RunKey) -> Bool] = [
            { new, old in old.mode == new.mode },
            { new, old in old.item == new.item && backend(old.mode) == backend(new.mode) },
            { new, old in old.item == new.item && intensity(old.mode) != nil && intensity(old.mode) == intensity(new.mode) },
            { new, old in old.item == new.item },
            { _, _ in true },
        ]
        var former: [RunKey: RunKey] = [:]
        var taken: Set<RunKey> = []
        for alike in likenesses {
            for run in added where former[run] == nil {
                guard let file = currentFiles[run.item],
                      let match = missing.first(where: { baselineFiles[$0.item] == file && !taken.contains($0) && alike(run, $0) }) else { continue }
                former[run] = match
                taken.insert(match)
            }
        }
        return former
    }

    /// The mode of an item's run that failed before its own mode was read.
    static let asWritten = "as written"

    /// Every item × mode result of an eval.json, by key.
    static func runs(in eval: JSONValue) -> [RunKey: ComparedRun] {
        var runs: [RunKey: ComparedRun] = [:]
        for item in eval["items"]?.arrayValue ?? [] {
            let name = item["name"]?.stringValue ?? "?"
            for result in item["results"]?.arrayValue ?? [] {
                // The first of a name: a later item refused for taking it is listed under it too
                // (`refusedRepeats`).
                let key = RunKey(item: name, mode: result["mode"]?.stringValue ?? asWritten)
                if runs[key] == nil { runs[key] = ComparedRun(reading: result) }
            }
        }
        return runs
    }

    /// The failed runs of an item a file lists again under a name and mode an earlier item's run
    /// holds (an item listed twice: the second is refused), with their errors, in file order.
    static func refusedRepeats(in eval: JSONValue) -> [(key: RunKey, error: String)] {
        var seen = Set<RunKey>(), repeats: [(key: RunKey, error: String)] = []
        for item in eval["items"]?.arrayValue ?? [] {
            let name = item["name"]?.stringValue ?? "?"
            for result in item["results"]?.arrayValue ?? [] {
                let key = RunKey(item: name, mode: result["mode"]?.stringValue ?? asWritten)
                if !seen.insert(key).inserted, let error = result["error"]?.stringValue { repeats.append((key, error)) }
            }
        }
        return repeats
    }

    /// The modes of both files, the baseline's first, each in its file's order.
    static func modeNames(_ a: JSONValue, _ b: JSONValue) -> [String] {
        var names = EvalFile(checked: a).modeNames
        for mode in EvalFile(checked: b).modeNames where !names.contains(mode) { names.append(mode) }
        return names
    }
}
