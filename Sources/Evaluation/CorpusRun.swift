import AudioCore
import AudioInterop
import Dispatch
import EchoLabJSON
import Foundation
import Metrics
import ScenarioFiles
import Simulation
import Synchronization

/// Runs a corpus: every item (a scenario or a recording) in every AEC mode asked for, `jobs` runs at a time,
/// each into OUT/ITEM/MODE/ (the files one `echolab run` writes). Without modes each scenario
/// runs in its own (a recording, which has none, in `speex:intensityRecommended`). One bad item is an error entry; the others still run. Results are in plan
/// order (items in input order, modes in the order given) whatever the job count, so the
/// outcome — and `eval.json` — does not depend on it.
public struct CorpusRun {
    /// One item × mode of the plan.
    public struct Entry: Sendable, Equatable {
        public var item: Int
        public var mode: EchoControlMode?
    }

    /// What one entry produced.
    public struct Result: Sendable {
        /// The item's position in `items`.
        public var itemIndex: Int
        public var item: String
        public var file: String
        /// The mode it ran in (the scenario's own when no modes were asked for).
        public var mode: EchoControlMode?
        /// The mode as the pages name it: "as written" for an item that failed before its mode
        /// was read.
        public var modeName: String { mode?.description ?? "as written" }
        /// OUT-relative folder of its files.
        public var folder: String
        /// What eval needs of the run (nil when it failed).
        public var summary: RunSummary?
        public var error: String?
        /// A failed run's canceller: its library and version, or a plugin's name and SHA-256
        /// (`BackendLibrary`), as a run that ran gives it in its summary — so a CI artifact of a
        /// plugin that crashed says which build did. nil for a run that ran, or without a canceller.
        public var library: String?
        /// The error is the canceller's (a plugin that failed, a library that refused): it names
        /// the canceller, not the item, so a line about it names the runs it stopped.
        public var isCancellerFailure = false
        /// The scenario's own `filter_ms`, which the mode asked for replaced with another
        /// (`Scenario.filterMillisecondsReplaced(by:)`): nil where it kept it, or ran as written.
        public var replacedFilterMilliseconds: Int?
        /// The scenario's timeline `set_aec` events whose intensity `mode` replaced (0: none, or
        /// the scenario ran as written).
        public var replacedEchoCancellerChanges = 0
        var wasCancelled = false
    }

    public struct Outcome: Sendable {
        /// The entries that ran (or failed), in plan order; after an interruption, only those.
        public var results: [Result]
        /// Entries of the plan, run or not.
        public var plannedCount: Int
        /// The modes asked for (nil: each scenario as written).
        public var modes: [EchoControlMode]?
        /// The shard this run was (`--shard K/N`), if any.
        public var shard: Shard?
        /// A shard's whole plan (all shards' entries and a digest of the items and modes), so
        /// that `merge` can tell shards of one plan from shards of another; nil when not sharded.
        public var plan: PlanIdentity?
        /// False when the run was interrupted before every entry ran.
        public var isComplete: Bool { results.count == plannedCount }
        public var failedCount: Int { results.filter { $0.error != nil }.count }
    }

    public var items: [CorpusItem]
    public var outputDirectory: String
    public var modes: [EchoControlMode]?
    public var shard: Shard?
    public var jobs: Int
    public var taps: TapSelection
    /// Renders each run's pages as the run finishes (Reporting's `ReportPages`); nil writes
    /// report.json alone.
    public var renderer: (any ReportRenderer)?
    /// When cancelled, no new entry starts and running ones stop at their next tick, leaving
    /// nothing behind; the outcome lists what finished.
    public var cancellation: RunCancellation?
    /// The scorers every run is scored with (`--scorer`): each worker starts its own of each,
    /// once, and keeps it for all its runs.
    public var scorers: [ScorerSpec] = []
    /// Seconds a scorer's answer may take.
    public var scorerTimeout = ScorerProcess.defaultTimeout
    /// The plugins `--plugin` registered: where the scenarios run as written, one naming a
    /// different canceller under a registered name (or under an earlier scenario's) is refused.
    public var plugins: [CancellerPlugin] = []
    /// Told, while runs go, the share of the plan done: the finished entries and the share of each
    /// running one's call simulated (or recording processed), once a second of its audio, from the
    /// runs' threads. A progress line moves during a long run with it (an eval of one long item
    /// showed nothing until the end). Keep it short: the run waits for it.
    public var partialProgress: (@Sendable (_ fraction: Double) -> Void)?

    public init(items: [CorpusItem], outputDirectory: String, modes: [EchoControlMode]? = nil, shard: Shard? = nil,
                jobs: Int = 1, taps: TapSelection = .standard, renderer: (any ReportRenderer)?, cancellation: RunCancellation? = nil) {
        self.items = items
        self.outputDirectory = outputDirectory
        self.modes = modes
        self.shard = shard
        self.jobs = jobs
        self.taps = taps
        self.renderer = renderer
        self.cancellation = cancellation
    }

    /// Runs the plan; `progress(done, total, result)` is called as entries finish (from any
    /// thread, one call at a time, `done` counting up by one). Keep it short: a worker that
    /// finishes a run waits for the call before it takes the next.
    public func run(_ loaded: LoadedItems? = nil, progress: @escaping @Sendable (Int, Int, Result) -> Void = { _, _, _ in }) -> Outcome {
        let entries = plan
        let scenarios = (loaded ?? load()).items
        let results = Mutex<[Result?]>(Array(repeating: nil, count: entries.count))
        let done = PlanProgress()
        let partialProgress = self.partialProgress
        let next = Mutex(0)
        let items = self.items, directory = outputDirectory, taps = self.taps, renderer = self.renderer, cancellation = self.cancellation
        let scorerSpecs = scorers, scorerTimeout = self.scorerTimeout
        let workers = max(1, min(jobs, entries.count))
        // Every item runs in several modes, and items share inputs: each input file is decoded
        // (resampled to 48 kHz) once for the whole corpus instead of once per run. The far and
        // near ends are decoded first, by all workers at once: otherwise the second worker's
        // first run would wait for the file the first worker's run is decoding.
        let prefetch = workers > 1 ? Self.engineRateInputs(scenarios) : []
        // Each run removes its own folder when it fails or is interrupted, and the item's folder
        // if it made it and it is empty; with two jobs on one item the other run may still be
        // writing then, and an item folder that ends up empty is removed below.
        let itemFolders = Self.itemFolders(scenarios, in: directory).filter { !FileManager.default.fileExists(atPath: $0) }
        defer { for folder in itemFolders { rmdir(folder) } }
        let nextPrefetch = Mutex(0)
        // This corpus's own: it goes when the runs are over, so nothing outlives the eval.
        let decodedAudio = DecodedAudioCache(budgetBytes: Self.decodedAudioBudget)
        // The echo at the mic does not depend on the mode: an item's modes that start after one
        // of them has finished take the echo from its record (the same bits) instead of
        // convolving the room again (with --jobs 2, an item's first two modes both compute).
        let echoPaths = EchoPathCache(budgetBytes: Self.echoPathBudget)
        // Nor does what the devices' conversions make of the loudspeaker drive and the room's
        // sound (a 44.1 kHz or Bluetooth route, a drifting clock).
        let hardwareStreams = HardwareStreamRecords(budgetBytes: Self.hardwareStreamBudget)
        // Nor do the tap-free gate's decisions on a recording: its other modes take them.
        let gateDecisions = EchoPathGateCache(budgetBytes: Self.gateDecisionBudget)
        // One name is one canceller: each plugin file as the eval starts is what its runs run.
        let pluginDigests = PluginDigests()
        var scenarioPlugins: [CancellerPlugin] = []
        for case .success(.scenario(let scenario)) in scenarios {
            if let plugin = scenario.voiceProcessing.backend.plugin { scenarioPlugins.append(plugin) }
        }
        for plugin in plugins + scenarioPlugins { pluginDigests.record(plugin) }
        // The plugins the runs use: the modes' (which replace the scenarios' own), or, as written,
        // the scenarios'. A registered plugin no run uses is no part of the plan.
        let pluginsRun = modes.map { $0.compactMap(\.backend.plugin) } ?? scenarioPlugins
        // A configuration's latency is the same for every run: measured once.
        let latencies = EchoControlLatencies()
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            // A worker's own scorers: one start each per worker, not per run.
            let scorers = scorerSpecs.map { ScorerProcess(spec: $0, timeout: scorerTimeout) }
            defer { for scorer in scorers { scorer.stop() } }
            while true {
                let file: Int = nextPrefetch.withLock { value in defer { value += 1 }; return value }
                guard file >= prefetch.count else {
                    if cancellation?.isCancelled != true {
                        // The quality the file sources read at (BlockSource): the cache is keyed on it.
                        _ = decodedAudio.decoded(path: prefetch[file].path, targetRate: SimulatedCall.sampleRate,
                                                 selection: prefetch[file].channel, quality: .medium)
                    }
                    continue
                }
                let index: Int = next.withLock { value in defer { value += 1 }; return value }
                guard index < entries.count, cancellation?.isCancelled != true else { return }
                let entry = entries[index]
                let runProgress = partialProgress.map { told in
                    { (fraction: Double) in done.advance(entry: index, to: fraction) { told($0 / Double(entries.count)) } }
                }
                let result = Self.run(entry, scenarios[entry.item], item: items[entry.item], directory: directory, taps: taps,
                                      renderer: renderer, cancellation: cancellation, decodedAudio: decodedAudio, echoPaths: echoPaths,
                                      hardwareStreams: hardwareStreams, gateDecisions: gateDecisions, pluginDigests: pluginDigests,
                                      latencies: latencies, scorers: scorers, progress: runProgress)
                // An entry stopped by the interruption did not finish: it is not part of the outcome.
                if result.wasCancelled { return }
                results.withLock { $0[index] = result }
                // Told under the count's lock, so counts arrive in order: told after it, two runs
                // finishing together can go out of order (a terminal's line showing 42/57, then 38/57).
                done.finish(entry: index) { value in progress(value, entries.count, result) }
            }
        }
        return Outcome(results: results.withLock { $0.compactMap { $0 } }, plannedCount: entries.count, modes: modes, shard: shard,
                       plan: shard == nil ? nil : planIdentity(plugins: pluginsRun, pluginDigests: pluginDigests))
    }

    /// The files eval writes beside the items' folders.
    public static let reportFileNames = ["eval.json", "eval.md", "eval.html"]
    static let reportNames = Set(reportFileNames)

    /// OUT/NAME of every loaded item.
    private static func itemFolders(_ items: [Swift.Result<Loaded, ItemError>], in directory: String) -> [String] {
        items.compactMap { item in
            switch item {
            case .success(.scenario(let scenario)): (directory as NSString).appendingPathComponent(scenario.name)
            case .success(.recording(let recording)): (directory as NSString).appendingPathComponent(recording.name)
            case .failure: nil
            }
        }
    }

    /// What the decoded inputs of a corpus may hold in memory (longer inputs are streamed).
    public static let decodedAudioBudget = 256 << 20
    /// What the echo records may hold (runs go item by item: the newest records are the ones used).
    public static let echoPathBudget = 32 << 20
    /// What the hardware streams' records may hold (each of a call's streams takes about 0.4 MB
    /// per second of call, and is recorded up to an eighth of this: calls up to 20 s).
    public static let hardwareStreamBudget = 64 << 20
    /// What the tap-free gate's decisions on recordings may take while an eval runs (an hour's
    /// recording's are about 1.5 MB; a day's are not kept).
    public static let gateDecisionBudget = 32 << 20

    /// Recordings have no `aec` of their own: without modes they run in this one.
    public static let recordingDefaultMode = EchoControlMode(backend: .speex, intensity: .intensityRecommended)

    static func run(_ entry: Entry, _ loaded: Swift.Result<Loaded, ItemError>, item: CorpusItem, directory: String,
                    taps: TapSelection, renderer: (any ReportRenderer)?, cancellation: RunCancellation?,
                    decodedAudio: DecodedAudioCache? = nil, echoPaths: EchoPathCache? = nil,
                    hardwareStreams: HardwareStreamRecords? = nil, gateDecisions: EchoPathGateCache? = nil, pluginDigests: PluginDigests? = nil,
                    latencies: EchoControlLatencies? = nil, scorers: [ScorerProcess] = [], progress: ((Double) -> Void)? = nil) -> Result {
        let file = item.file
        // What a run that fails to load is listed as: a broken recording runs in the recordings'
        // default mode, as its healthy self would; each mode has a folder of its own.
        var fallbackName = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        var fallbackMode = entry.mode
        switch item {
        case .broken(let name, _, _):
            fallbackName = name
            fallbackMode = entry.mode ?? Self.recordingDefaultMode
        case .recording(let recording):     // refused for its name
            fallbackName = recording.name
            fallbackMode = entry.mode ?? Self.recordingDefaultMode
        case .scenario:
            if case .failure(let error) = loaded, let name = error.itemName { fallbackName = name }
        }
        var result = Result(itemIndex: entry.item, item: fallbackName, file: file, mode: fallbackMode,
                            folder: fallbackMode.map { "\(fallbackName)/\($0.folderName)" } ?? fallbackName, summary: nil, error: nil)
        do {
            switch try loaded.get() {
            case .scenario(let written):
                let scenario = entry.mode.map(written.running) ?? written
                result.replacedFilterMilliseconds = entry.mode.flatMap(written.filterMillisecondsReplaced(by:))
                result.replacedEchoCancellerChanges = entry.mode.map(written.echoCancellerChangesReplaced(by:)) ?? 0
                let mode = scenario.echoControlMode
                result.item = scenario.name
                result.mode = mode
                result.folder = "\(scenario.name)/\(mode.folderName)"
                let folder = (directory as NSString).appendingPathComponent(result.folder)
                var output = RunOutput(scenario: scenario, outputDirectory: folder, taps: taps, renderer: renderer,
                                       cancellation: cancellation, progress: progress.map { told in { told($0.fraction) } })
                // Each run's folder is locked inside the one eval holds: a `run` writing there
                // meanwhile fails this run instead of the two splicing their files.
                output.lockingFor = "eval"
                output.lockIsInsideOwnFolder = true
                output.decodedAudio = decodedAudio
                output.echoPaths = echoPaths
                output.hardwareStreams = hardwareStreams
                output.pluginDigests = pluginDigests
                output.latencies = latencies
                output.scorers = scorers
                result.summary = try output.run(summarising: true).summary
            case .recording(let recording):
                if cancellation?.isCancelled == true { throw RunCancelled() }
                let mode = entry.mode ?? Self.recordingDefaultMode
                result.item = recording.name
                result.mode = mode
                result.folder = "\(recording.name)/\(mode.folderName)"
                let folder = (directory as NSString).appendingPathComponent(result.folder)
                do {
                    var run = RecordingRun(item: recording, mode: mode, outputDirectory: folder, keepsOutput: taps != .none,
                                           renderer: renderer, cancellation: cancellation)
                    run.scorers = scorers
                    run.gateDecisions = gateDecisions
                    run.pluginDigests = pluginDigests
                    run.latencies = latencies
                    run.progress = progress
                    result.summary = try run.run()
                } catch let error where !(error is RunCancelled) {
                    // The error names a WAV; a manifest's entry also says where it is listed.
                    let text = Self.describe(error, pluginDigests: pluginDigests)
                    throw ItemError(description: recording.origin.map { "\($0) (\(recording.name)): \(text)" } ?? text,
                                    isCancellerFailure: Self.isCancellerFailure(error),
                                    pluginName: (error as? PluginProcess.PluginFailure)?.reportedName)
                }
            }
        } catch is RunCancelled {
            result.wasCancelled = true
        } catch {
            result.error = Self.describe(error, pluginDigests: pluginDigests)
            // A plugin that said its name before it failed is named so, as its passing runs are.
            let pluginName = (error as? ItemError)?.pluginName ?? (error as? PluginProcess.PluginFailure)?.reportedName
            result.library = result.mode.flatMap { mode in
                BackendLibrary.describe(mode, pluginName: pluginName, pluginDigest: mode.backend.plugin.flatMap { pluginDigests?.digest(of: $0) })
            }
            result.isCancellerFailure = (error as? ItemError)?.isCancellerFailure ?? Self.isCancellerFailure(error)
            // A canceller that failed (a plugin that crashed, or changed) in a folder where an
            // earlier eval's run of the same mode name passed: that run's report would stand
            // where eval.json names this failure. Only then: where the folder itself was the
            // problem (another writer's lock, an input in it), what is there is not eval's to remove.
            if result.isCancellerFailure {
                OutputFolder.removePreviousRun(in: (directory as NSString).appendingPathComponent(result.folder), under: directory)
            }
        }
        return result
    }

    /// A corpus item that could not be loaded or run, as its one-line message.
    struct ItemError: Error, CustomStringConvertible, Sendable {
        let description: String
        var isCancellerFailure = false
        /// The item's own name where it loaded and was refused after (else its file's stem).
        var itemName: String?
        /// The backend the item names, where it loaded and was refused after for it (a plugin
        /// name given another canceller): it still names that backend.
        var backendAsWritten: String?
        /// The name a failed plugin gave itself, where it said one (`PluginFailure.reportedName`).
        var pluginName: String?
    }

    /// A run's error as eval reports it: a plugin's failure says where its file changed under it.
    static func describe(_ error: any Error, pluginDigests: PluginDigests?) -> String {
        String(describing: pluginDigests?.noting(error) ?? error)
    }

    /// The error is the canceller's: a plugin that failed or changed, a mode no backend runs, a
    /// library that refused.
    static func isCancellerFailure(_ error: any Error) -> Bool {
        error is PluginProcess.PluginFailure || error is EchoControlError || error is CancellerLibraryError || error is PluginDigests.Changed
            || error is PluginFile.Changed
    }
}

extension CorpusRun.Result {
    /// The rate the run's canceller ran at where it is under the call's (AECM's 16 kHz, a plugin's
    /// `--plugin-rate`): the lower of its report's (`aec.rate_hz` of a simulated call, else the
    /// rate a recording was processed at) and its mode's backend's. A recording's report names
    /// the rate around AECM (48 kHz), not AECM's own, and a scenario run as written has no mode:
    /// read from one side only, the verdict and eval.md's note on such runs disagreed. nil where
    /// it ran at the call's rate.
    public var bandLimitedCancellerRate: Int? {
        guard let runRate = summary?.sampleRate,
              let rate = [summary?.cancellerRateHz, mode?.backend.cancellerRate].compactMap({ $0 }).min(), rate < runRate else { return nil }
        return rate
    }
}

/// How far a plan's runs have gone: the finished entries, and the share done of each running one.
/// One lock for both, so a run that finishes leaves the running ones and joins the finished ones at
/// once (the share told never counts it twice, nor drops it between the two).
final class PlanProgress: Sendable {
    private let state = Mutex<(finished: Int, running: [Int: Double])>((0, [:]))

    /// Entry `entry` is `fraction` done: `body` is told, under the lock, the finished entries
    /// plus the running ones' shares.
    func advance(entry: Int, to fraction: Double, _ body: (Double) -> Void) {
        state.withLock { state in
            state.running[entry] = min(1, max(0, fraction))
            body(Double(state.finished) + state.running.values.reduce(0, +))
        }
    }

    /// Entry `entry` finished: `body` is told, under the lock, how many have (counting up by one).
    func finish(entry: Int, _ body: (Int) -> Void) {
        state.withLock { state in
            state.running[entry] = nil
            state.finished += 1
            body(state.finished)
        }
    }
}
