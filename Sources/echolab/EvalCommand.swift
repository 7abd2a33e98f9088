import ArgumentParser
import AudioInterop
import Dispatch
import Foundation
import Evaluation
import Reporting
import ScenarioFiles
import Simulation
import Synchronization

struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Run a corpus in one or more AEC modes and write a report per run plus eval.json, eval.md and eval.html.",
        discussion: """
        PATH is a scenario file or a folder of them (*.json, searched recursively; the output folder, hidden files, \
        manifests and EchoLab's own JSON outputs — reports, eval.json, golden.json — are passed over), a manifest (a JSON \
        file {"corpus": [...]} listing scenario files, folders and recordings {"name", "mic", "loopback", "echo", \
        "near_end", "talk_type", "channel"}, paths relative to it; see docs/recordings.md), or a folder of recordings in an \
        AEC-Challenge layout (synthetic: farend_speech/, nearend_mic_signal/, echo_signal/, nearend_speech/; real: \
        GUID_<talk type>_mic.wav and _lpb.wav, in the folder or in one subfolder per talk type as the blind test sets \
        ship them), read as they are and run straight through the canceller. Every item runs \
        in every mode of --modes (a scenario's own aec without it; speex:intensityRecommended for a recording) into \
        OUT/ITEM/MODE/, MODE written BACKEND-INTENSITY or disabled. \
        OUT/eval.json holds every item × mode's metrics and, per mode, the mean, median and 10th percentile of \
        steady-state and whole-call ERLE, TCLw, convergence and, in double talk, near-end attenuation, distortion and \
        the attenuation range (each with its count and its bounds); OUT/eval.md the main of them per mode (steady \
        ERLE, near-end attenuation and distortion, convergence, TCLw, the attenuation range). Both name each mode's \
        wins: the items \
        where no other mode beats it on both steady ERLE and near-end attenuation (the best modes, named first); \
        OUT/eval.html (self-contained) adds a plot of that trade-off, a sortable \
        table of every run and per item ERLE over time and per band for each mode, with players for the audio taps; \
        their bytes do not depend on --jobs (but for timing). With --scorer every run is scored (docs/scorers.md; each \
        worker starts each scorer once, for all its runs): each run's report and eval.json hold its scores per talk \
        type, eval.json their mean, median and 10th percentile per mode, eval.md and eval.html the mean and 10th \
        percentile, and eval.html AECMOS' echo score \
        against its other-degradation score in double talk. A broken item is reported in one line and the others still run. Exit codes: 0 all ran; 1 a run failed, \
        or the corpus holds no scenario; 3 lint findings with --strict (every run ran); 64 usage error; 129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM (eval.json then lists \
        what finished and says "complete": false, or true where the signal came once every run had finished).
        """
    )

    @Argument(help: "Scenario files or folders, corpus manifests, or AEC-Challenge recording folders (at least one).")
    var paths: [String]

    @Option(name: .shortAndLong, help: "Output folder (created if needed; must neither hold a corpus folder nor lie inside one).")
    var out: String = "reports"

    @Option(help: ArgumentHelp("AEC modes to compare: all (every built-in mode and each --plugin's), or modes separated by commas, each once, a plugin's as NAME:INTENSITY (without it, each scenario's own aec and speex:intensityRecommended for a recording).",
                               discussion: "Overrides each scenario's own aec (a timeline set_aec that enables the canceller takes the mode's intensity; one that disables it stays).",
                               valueName: "modes"))
    var modes: AECModeListArgument?

    @OptionGroup
    var plugins: PluginOptions

    @OptionGroup
    var scoring: ScorerOptions

    // `.unconditional`: `--shard -1/2` is a bad value to report, not a missing one.
    @Option(parsing: .unconditional,
            help: ArgumentHelp("Run only the K-th of N deterministic slices of items × modes (1 ≤ K ≤ N; without it, all of them); join the N outputs with merge.",
                               valueName: "K/N"))
    var shard: ShardArgument?

    // `.unconditional`: `--jobs -1` is a bad value to report, not a missing one.
    @Option(parsing: .unconditional, help: "Runs at once, at least 1 (results do not depend on it).")
    var jobs: Int = 1

    @Flag(help: "Exit with code 3 when the lint finds a broken AEC rule in any run, naming the rules and their runs (without it, findings are reported and the exit code is 0). The canceller's own findings and missed telephony requirements are reported but are not the lint's: they leave the exit code alone, as does aec-disabled-with-real-devices in a run --modes turned the canceller off in (the reference asked for). A failed run's exit code, 1, comes first.")
    var strict = false

    @Flag(help: "Do not write the WAV taps (a recording's output is scored, not kept; an earlier run's sent.wav goes).")
    var noTaps = false

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1 (got \(jobs))") }
        guard !paths.isEmpty else { throw ValidationError("give at least one scenario file or folder") }
        guard !paths.contains("") else { throw ValidationError("a scenario file or folder is an empty string") }
        guard !out.isEmpty else { throw ValidationError("--out must name a folder (got an empty string)") }
        _ = try modes?.value(plugins: plugins.resolved)
        _ = try shard?.value
        _ = try scoring.resolved
    }

    func run() throws {
        Interrupts.install()
        let started = DispatchTime.now()
        let modes = try modes?.value(plugins: plugins.resolved), shard = try shard?.value
        if let modes { for line in try plugins.unusedWarnings(modes: modes, command: "eval", option: "--modes") { standardError(line) } }
        // One renderer for the runs' pages and eval.md/eval.html.
        let renderer = ReportPages()
        var corpus: CorpusRun
        let loaded: CorpusRun.LoadedItems
        let lock: OutputLock
        do {
            try Self.checkOutputHoldsNoCorpus(out: out, paths: paths)
            let items: [CorpusItem]
            do {
                items = try Self.corpusItems(in: paths, excluding: out)
                guard !items.isEmpty else { throw ScenarioDiscovery.Empty(paths: paths) }
            } catch {
                // No corpus to run (a path that does not exist, none in it, a broken manifest):
                // nothing ran, and the exit status is a failed run's, so an earlier eval.json left
                // in OUT would be merged or gated as this run's by a CI job that accepts exit 1.
                // (Not where OUT lies in a corpus: that refusal is about the folder, which is not
                // eval's.)
                let outInCorpus = error is Corpus.OutputInsideCorpus || (error as? CorpusManifest.ManifestError)?.isAboutOutputFolder == true
                    || paths.contains { InputFile.isSameOrInside(out, $0) }
                if !outInCorpus {
                    Self.removeStaleReportUnlessHeld(in: out)
                }
                throw error
            }
            var run = CorpusRun(items: items, outputDirectory: out, modes: modes, shard: shard,
                                jobs: jobs, taps: noTaps ? .none : .standard, renderer: renderer,
                                cancellation: Interrupts.cancellation)
            run.scorers = try scoring.resolved
            run.scorerTimeout = scoring.timeout
            run.plugins = try plugins.resolved
            corpus = run
            loaded = corpus.load()
            // Without --modes each scenario runs its own aec: a registered plugin runs only where
            // a scenario names it (with the same file).
            if modes == nil {
                for line in try plugins.unusedWarnings(backends: loaded.backendsAsWritten, command: "eval", option: "--modes",
                                                       orIn: "a scenario's aec.backend") { standardError(line) }
            }
            try corpus.checkOutputFolder(loaded)
            try AtomicFile.prepareDirectory(out)
            // Held until the eval.json is written: a second eval into OUT is refused by name.
            lock = try OutputLock(folder: out, command: "eval")
            Self.removeStaleReport(in: out)
        } catch {
            throw CommandFailure.exit(error)
        }
        let progress = ProgressLine(label: "eval")
        let tally = ProgressTally()
        if progress.isEnabled {
            // The line moves while runs go (a long recording's run took minutes with none), saying
            // the runs finished as the last one to finish left it.
            corpus.partialProgress = { fraction in progress.update(fraction: fraction, detail: tally.detail) }
        }
        let outcome = corpus.run(loaded) { done, total, result in
            guard progress.isEnabled else { return }
            // An item that cannot load fails the same way in every mode: said once.
            if let error = result.error, tally.isNew(error) { progress.print("echolab: \(error)") }
            let seconds = tally.add(audioSeconds: result.summary?.durationSeconds ?? 0)
            let speed = seconds / max(progress.elapsedSeconds, 1e-9)
            let detail = tally.finished("\(done)/\(total) runs, \(String(format: "%.0f", speed))× real time")
            progress.update(fraction: Double(done) / Double(total), detail: detail, force: true)
        }
        progress.finish()
        // On a terminal the errors were printed as they came; elsewhere (CI logs) they come here.
        if !progress.isEnabled {
            for line in Self.errorLines(outcome.results) { standardError(line) }
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        do {
            try withExtendedLifetime(lock) {
                try EvalReport(outcome: outcome, wallSeconds: wall).write(to: out, renderer: renderer)
            }
        } catch {
            throw CommandFailure.exit(error)
        }
        if let code = Interrupts.exitCode {
            // The signal may come after the last run began: then every run finished, and the
            // files say so.
            standardError("echolab: interrupted: \(outcome.results.count) of \(outcome.plannedCount) runs finished; "
                          + "\(out)/eval.json says \"complete\": \(outcome.isComplete)")
            throw ExitCode(code)
        }
        // A shard past the plan's size runs nothing, and "0 of 0 runs succeeded" alone read as a
        // corpus that had nothing in it (its merge with the others is still whole).
        if let shard = outcome.shard, outcome.plannedCount == 0, let entries = outcome.plan?.entries {
            standardError("echolab eval: warning: shard \(shard) holds no run: the plan has \(entries) run\(entries == 1 ? "" : "s"), "
                          + "fewer than \(shard.count) shards; merge the others as they are")
        }
        for line in Self.unscoredLines(outcome.results) { standardError(line) }
        if let line = Self.replacedFilterLine(outcome.results) { standardError(line) }
        if let line = Self.replacedChangesLine(outcome.results) { standardError(line) }
        let failed = outcome.failedCount
        let strictTally = strict ? LintTally(strictlyJudging: outcome) : nil
        print(printable(Self.summaryLine(outcome.results, failed: failed, strictRuns: strictTally?.runsWithFindings, out: out)))
        // The lint's line is said with failed runs too (their exit 1 comes first): a CI log
        // that stops at a failure still shows what else to fix.
        let lint = strictTally.flatMap { Self.lintLine($0, of: outcome.results.count, out: out) }
        if let lint { standardError(lint) }
        if failed > 0 { throw ExitCode(1) }
        if lint != nil { throw ExitCode(3) }
    }

    /// "18 of 18 runs succeeded (7 with lint findings) → OUT/eval.md": what a CI log shows of an
    /// eval, the lint's share said where there is one (the pages name the rules).
    /// `incomplete`: what a merge of an interrupted shard says ("incomplete: 18 planned").
    /// `strictRuns`: under --strict, the runs it fails on, said where it leaves some out (7 with
    /// findings beside stderr's "lint findings in 3 of 16 runs" read as two counts of one thing).
    static func summaryLine(_ results: [CorpusRun.Result], failed: Int, strictRuns: Int? = nil, incomplete: String? = nil, out: String) -> String {
        let linted = LintTally(results).runsWithFindings
        var lint = linted > 0 ? "\(linted) with lint findings" : nil
        if let strictRuns, strictRuns != linted, lint != nil {
            lint! += ", \(strictRuns) of them failing --strict"
        }
        let notes = [lint, incomplete].compactMap { $0 }
        let said = notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"
        return "\(results.count - failed) of \(results.count) runs succeeded\(said) → \(out)/eval.md"
    }

    /// The lint's findings over `total` runs, for --strict: each rule once, with how many runs
    /// have it and the first of them (nil: none). A CI log shows what to fix without opening a page.
    static func lintLine(_ tally: LintTally, of total: Int, out: String) -> String? {
        guard tally.runsWithFindings > 0 else { return nil }
        let named = tally.rules.map { rule, runs in
            let first = "\(runs[0].item) (\(runs[0].modeName))"
            return "\(rule) in \(runs.count == 1 ? first : "\(runs.count) runs, first \(first)")"
        }
        return "echolab: lint findings in \(tally.runsWithFindings) of \(total) runs (\(out)/eval.md): " + named.joined(separator: "; ")
    }

    /// The runs' errors, one line per distinct message in plan order: an item that cannot be
    /// loaded fails identically in every mode, and says so once, with how many runs it stopped.
    /// A canceller's failure (a plugin's names the plugin, not the items) names the runs it
    /// stopped, the first three of them.
    static func errorLines(_ results: [CorpusRun.Result]) -> [String] {
        var order: [String] = [], runs: [String: [CorpusRun.Result]] = [:]
        for result in results {
            guard let error = result.error else { continue }
            if runs[error] == nil { order.append(error) }
            runs[error, default: []].append(result)
        }
        return order.map { error in
            let stopped = runs[error]!
            if !stopped.contains(where: \.isCancellerFailure) {
                return "echolab: \(error)" + (stopped.count > 1 ? " (\(stopped.count) runs)" : "")
            }
            let named = stopped.prefix(3).map { "\($0.item) \($0.mode?.description ?? "its own mode")" }.joined(separator: ", ")
                + (stopped.count > 3 ? " and \(stopped.count - 3) more" : "")
            return "echolab: \(error) (" + (stopped.count > 1 ? "\(stopped.count) runs: " : "") + named + ")"
        }
    }

    /// The scenarios whose own `filter_ms` the modes replaced (a mode is the whole `aec`), once:
    /// their runs are not the filter length they ask for, which only their report.json's `aec` said.
    static func replacedFilterLine(_ results: [CorpusRun.Result]) -> String? {
        var files: [String] = [], first: (file: String, milliseconds: Int)?
        for result in results {
            guard let milliseconds = result.replacedFilterMilliseconds, !files.contains(result.file) else { continue }
            files.append(result.file)
            if first == nil { first = (result.file, milliseconds) }
        }
        guard let first else { return nil }
        let which = files.count == 1 ? "\(first.file) sets \(first.milliseconds) ms"
            : "\(files.count) scenarios set one (the first: \(first.file), \(first.milliseconds) ms)"
        return "echolab eval: warning: --modes replaces each scenario's aec, its filter_ms too: \(which), not used; eval without --modes runs a scenario as written"
    }

    /// The scenarios whose timeline `set_aec` events `--modes` replaced, once (nil: none): a test
    /// of the app's mid-call AEC changes runs them only as written, and a report's events would
    /// otherwise show intensities the scenario never chose without a word.
    static func replacedChangesLine(_ results: [CorpusRun.Result]) -> String? {
        var files: [String] = []
        for result in results where result.replacedEchoCancellerChanges > 0 && !files.contains(result.file) { files.append(result.file) }
        guard let first = files.first else { return nil }
        let which = files.count == 1 ? "\(first) changes it mid-call" : "\(files.count) scenarios change it mid-call (the first: \(first))"
        return "echolab eval: warning: --modes replaces each scenario's AEC intensity, its timeline's set_aec too: \(which), "
            + "run in the mode's intensity (set_aec disabled stays); eval without --modes runs a scenario as written"
    }

    /// One line per scorer that left runs unscored: how many, and the first reason (each run's
    /// report says its own): a broken scorer says so once, not once per run.
    static func unscoredLines(_ results: [CorpusRun.Result]) -> [String] {
        var order: [String] = [], unscored: [String: (runs: Int, first: String)] = [:], scored: [String: Int] = [:]
        for result in results {
            for score in result.summary?.scores ?? [] {
                if scored[score.name] == nil { order.append(score.name) }
                scored[score.name, default: 0] += 1
                guard let reason = score.unscoredReason else { continue }
                if let known = unscored[score.name] { unscored[score.name] = (known.runs + 1, known.first) } else { unscored[score.name] = (1, reason) }
            }
        }
        return order.compactMap { name in
            guard let (runs, first) = unscored[name] else { return nil }
            return "echolab eval: warning: scorer \(name) left \(runs) of \(scored[name]!) runs unscored (the first: \(first)); each run's report says why"
        }
    }

    static func corpusItems(in paths: [String], excluding out: String) throws -> [CorpusItem] {
        try Corpus.items(in: paths, excluding: out)
    }

    /// An output folder that is, or holds, a corpus folder would write reports among the
    /// scenarios (and the next discovery would pass over the scenarios inside it).
    static func checkOutputHoldsNoCorpus(out: String, paths: [String]) throws {
        for path in paths where InputFile.isSameOrInside(path, out) { throw OutputHoldsCorpus(out: out, corpus: path) }
    }

    struct OutputHoldsCorpus: Error, CustomStringConvertible {
        let out: String
        let corpus: String
        var description: String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: out, isDirectory: &isFolder), !isFolder.boolValue {
                return "\(out): --out names the corpus's own file, not a folder; choose a folder outside the corpus (e.g. reports/)"
            }
            let what = InputFile.canonical(out) == InputFile.canonical(corpus) ? "is the corpus folder" : "holds the corpus folder \(corpus)"
            return "\(out): the output folder \(what); choose a folder outside it (e.g. reports/)"
        }
    }

    /// `removeStaleReport`, where no other command holds the folder (an eval writing it now
    /// keeps what it writes); `command` ("eval", "merge") names who did nothing.
    static func removeStaleReportUnlessHeld(in folder: String, command: String = "eval", because nothing: String = "ran nothing") {
        guard FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent("eval.json")),
              let lock = try? OutputLock(folder: folder, command: command) else { return }
        withExtendedLifetime(lock) {
            // Said: a mistyped corpus path removes an earlier eval's reports from OUT.
            if removeStaleReport(in: folder) {
                standardError("echolab: removed the earlier eval's eval.json, eval.md and eval.html from \(folder): this \(command) \(nothing)")
            }
        }
    }

    /// An eval.json of an earlier run would describe other runs if this one is killed before it
    /// writes its own: remove it first (only EchoLab's own). Whether eval.json went (one that
    /// could not be removed is not said to be).
    @discardableResult
    static func removeStaleReport(in folder: String) -> Bool {
        let json = (folder as NSString).appendingPathComponent("eval.json")
        guard ScenarioDiscovery.isEchoLabEval(json), (try? FileManager.default.removeItem(atPath: json)) != nil else { return false }
        try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent("eval.md"))
        try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent("eval.html"))
        return true
    }
}

/// What the progress line keeps between results, which arrive from the jobs' threads: the
/// error lines it printed, and the seconds of call audio finished (its speed).
private final class ProgressTally: Sendable {
    private let state = Mutex<(printed: Set<String>, audioSeconds: Double, detail: String)>(([], 0, ""))

    func isNew(_ error: String) -> Bool { state.withLock { $0.printed.insert(error).inserted } }

    /// What the line says of the finished runs: the last finished run's words, kept for the
    /// updates that come while runs go.
    var detail: String { state.withLock { $0.detail } }

    /// Keeps `detail` as the line's words and returns it.
    func finished(_ detail: String) -> String {
        state.withLock { $0.detail = detail }
        return detail
    }

    func add(audioSeconds seconds: Double) -> Double {
        state.withLock { state in
            state.audioSeconds += seconds
            return state.audioSeconds
        }
    }
}
