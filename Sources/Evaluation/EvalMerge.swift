import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import Metrics
import Simulation

/// Joins shards 1/N … N/N of one plan into what one unsharded run writes (bytes equal but for
/// `timing`): the results of every shard's eval.json, each summarised from its run's report.json
/// in the shard's folder (as an unsharded run summarises it), ordered by corpus index then mode.
///
/// Refused, naming the file: a document that is not a shard, shards of different N, modes or
/// EchoLab versions, shards of different plans (each shard carries its whole plan's size and a
/// digest of its items and modes: another corpus, or the same one given by other paths), a shard
/// given twice or missing, one whose planned runs are not its slice of the plan, two shards that
/// ran the same item × mode, or an item index that names different files in two shards.
public enum EvalMerge {
    public struct Shard {
        /// Its eval.json, and the folder holding its runs' folders.
        public var path: String
        public var folder: String
        public var eval: EvalFile
        public init(path: String, folder: String, eval: EvalFile) {
            self.path = path
            self.folder = folder
            self.eval = eval
        }
    }

    public static func merge(_ shards: [Shard]) throws -> EvalReport {
        guard let first = shards.first else { throw MergeError.noShards }
        var count: Int?
        var seen: [Int: String] = [:]
        for shard in shards {
            guard let text = shard.eval.shard else { throw MergeError.notAShard(path: shard.path) }
            let parsed: CorpusRun.Shard
            do { parsed = try CorpusRun.Shard(parsing: text) } catch {
                throw MergeError.badShard(path: shard.path, problem: "\(error)")
            }
            if let count, parsed.count != count {
                throw MergeError.otherShardCount(path: shard.path, shard: text, count: count, firstPath: first.path)
            }
            count = parsed.count
            if let key = shard.eval.differs(from: first.eval) { throw MergeError.differs(path: shard.path, key: key, firstPath: first.path) }
            // The whole plan each shard was cut from: the same items (files as given) and modes.
            guard let plan = shard.eval.plan else { throw MergeError.noPlan(path: shard.path) }
            if plan.written != first.eval.plan?.written {
                throw MergeError.otherPlan(path: shard.path, firstPath: first.path, difference: planDifference(shard.eval, from: first.eval))
            }
            // After the plan: shard 1/2 of another plan is of another plan, not shard 1/2 again.
            if let other = seen[parsed.index] {
                throw MergeError.givenTwice(path: shard.path, shard: text, otherPath: other)
            }
            seen[parsed.index] = shard.path
            // Entry i of the plan is in shard i mod N + 1. (Counts were checked when it was read.)
            let whole = plan.entries, expected = whole / parsed.count + (parsed.index - 1 < whole % parsed.count ? 1 : 0)
            let planned = shard.eval.planned
            if planned != expected {
                throw MergeError.wrongSlice(path: shard.path, shard: text, planRuns: whole, expected: expected, planned: planned)
            }
        }
        let total = count!
        if let missing = (1...total).first(where: { seen[$0] == nil }) {
            throw MergeError.missingShard(index: missing, count: total, given: seen.keys.sorted())
        }

        let modeNames = first.eval.modeNames
        let modeOrder = Dictionary(modeNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var results: [CorpusRun.Result] = []
        var fileOfIndex: [Int: (file: String, path: String)] = [:]
        var taken: [String: String] = [:]
        // Whether the first run read wrote taps, and in which shard: shards run with and without
        // --no-taps would merge into pages no one eval writes (players for some runs only).
        var tapsSeen: (hasTaps: Bool, path: String)?
        for shard in shards {
            for item in shard.eval.items {
                guard let index = item.index else { throw MergeError.incompleteItem(path: shard.path) }
                let name = item.name, file = item.file
                if let other = fileOfIndex[index], other.file != file {
                    throw MergeError.otherFile(path: shard.path, index: index, file: file, otherFile: other.file, otherPath: other.path)
                }
                fileOfIndex[index] = (file, shard.path)
                for entry in item.results {
                    let modeName = entry.mode, folder = entry.folder
                    // A run is its folder; a failed one has none on disk (items that failed to
                    // load share their name's in every mode): the item and mode then.
                    // (A NUL, which no folder name holds, keeps the two kinds of key apart.)
                    let run = entry.error == nil ? folder : "\u{0}\(index) \(modeName ?? "")"
                    if let other = taken[run] {
                        throw MergeError.ranTwice(path: shard.path, item: name, mode: modeName, otherPath: other)
                    }
                    taken[run] = shard.path
                    var result = CorpusRun.Result(itemIndex: index, item: name, file: file,
                                                  mode: try modeName.map { try mode($0, in: shard) }, folder: folder,
                                                  summary: nil, error: entry.error)
                    result.library = entry.library
                    result.isCancellerFailure = entry.isCancellerFailure
                    if result.error == nil {
                        let report = ((shard.folder as NSString).appendingPathComponent(folder) as NSString).appendingPathComponent("report.json")
                        let summary: RunSummary
                        do { summary = try RunSummary(reading: try readReport(report)) } catch let error as RunSummary.ReadError {
                            // Said alone, "run report: metrics: …" named no shard.
                            throw MergeError.brokenRunReport(path: report, problem: error.description)
                        }
                        try checkRunFiles(of: summary, in: InputFile.parent(of: report))
                        // A recording speaker's file is written whatever the taps (it is the
                        // device's output, not a tap): only the call's taps tell.
                        let hasTaps = summary.taps.keys.contains(where: CallRecording.tapNames.contains)
                        if let seen = tapsSeen, seen.hasTaps != hasTaps, seen.path != shard.path {
                            let (with, without) = hasTaps ? (shard.path, seen.path) : (seen.path, shard.path)
                            throw MergeError.tapsDiffer(withoutTaps: without, withTaps: with)
                        }
                        if tapsSeen == nil { tapsSeen = (hasTaps, shard.path) }
                        result.summary = summary
                        // A plugin's rate is in its runs' reports, not in eval.json: without this,
                        // eval.md's note on cancellers run below the call's rate names it for the
                        // eval but not for the merge of its shards.
                        if let rate = summary.cancellerRateHz, let mode = result.mode, let plugin = mode.backend.plugin,
                           plugin.sampleRate != rate, let atRate = try? CancellerPlugin(name: plugin.name, path: plugin.path, sampleRate: rate) {
                            result.mode = EchoControlMode(backend: EchoCancellerBackend(plugin: atRate), intensity: mode.intensity)
                        }
                    }
                    results.append(result)
                }
            }
        }
        results.sort { a, b in
            (a.itemIndex, modeOrder[a.mode?.description ?? ""] ?? 0) < (b.itemIndex, modeOrder[b.mode?.description ?? ""] ?? 0)
        }
        let planned = shards.reduce(0) { $0 + $1.eval.planned }
        let modes = first.eval.modes != nil ? try modeNames.map { try mode($0, in: first) } : nil
        // Shards run side by side: the merged run took as long as the slowest.
        let wall = shards.compactMap(\.eval.wallSeconds).max() ?? 0
        return EvalReport(outcome: CorpusRun.Outcome(results: results, plannedCount: planned, modes: modes, shard: nil), wallSeconds: wall)
    }

    /// How two shards' plans differ, where their files show it: the plan's size, an item (by
    /// index or name) given by another path — the same corpus reached by other relative paths
    /// from another folder is another plan — or a mode measured with another canceller build
    /// (a plugin's options and rate are in its library's line). nil where only the digest tells
    /// them apart: a scenario's text edited between the shards' jobs, or items neither shard holds
    /// in both. (A bare "its plan differs"
    /// does not say when only the relative paths do.)
    static func planDifference(_ shard: EvalFile, from first: EvalFile) -> String? {
        if let entries = shard.plan?.entries, let firstEntries = first.plan?.entries, entries != firstEntries {
            return "its plan has \(entries) runs, \(firstEntries) there (another corpus)"
        }
        for item in shard.items {
            let other = first.items.first { $0.index != nil && $0.index == item.index } ?? first.items.first { $0.name == item.name }
            if let other, other.file != item.file {
                let which = other.index != nil && other.index == item.index ? "item \(item.index!)" : "item \(item.name)"
                return "\(which) is \(item.file) here but \(other.file) there (the same files given by other paths are another plan)"
            }
        }
        // Plugins only: the plan holds a plugin's file digest, not a built-in library's version.
        let firstRuns = first.items.flatMap(\.results)
        for run in shard.items.flatMap(\.results) {
            guard let mode = run.mode, let library = run.library, EchoCancellerBackend(builtIn: backendName(of: mode)) == nil else { continue }
            if let other = firstRuns.first(where: { $0.mode == mode && $0.library != nil }), let was = other.library, was != library {
                return "\(mode) ran with \(library) here but \(was) there"
            }
        }
        return nil
    }

    /// A mode as a shard's eval.json names it. A plugin's backend is known here by its name only:
    /// the plugin was given to `eval` (or named by a scenario), not to `merge`, which runs nothing
    /// and reads what each run's library was from its report.
    static func mode(_ name: String, in shard: Shard) throws -> EchoControlMode {
        let backend = backendName(of: name)
        let plugins = EchoCancellerBackend(builtIn: backend) == nil ? [try? CancellerPlugin(name: backend, path: "")].compactMap { $0 } : []
        do {
            return try EchoControlMode(parsing: name, plugins: plugins)
        } catch {
            throw MergeError.unreadableMode(path: shard.path, problem: String(describing: error))
        }
    }

    /// The backend of a mode as eval.json names it ("speex:intensityMax" → "speex").
    static func backendName(of mode: String) -> String { String(mode.prefix { $0 != ":" }) }

    /// The files a run's report.json names are in its folder and whole — its taps, which the pages
    /// play (a tap cut short merged as if whole) — and its pages are there: both or neither (a shard written without pages has none). A shard
    /// missing one merged without a word, its players and links pointing at nothing.
    static func checkRunFiles(of summary: RunSummary, in folder: String) throws {
        for file in summary.taps.values.sorted() where !file.hasPrefix("/") {
            let path = (folder as NSString).appendingPathComponent(file)
            if let problem = InputFile.problem(at: path) { throw MergeError.missingReport(path: path, problem: problem) }
            // Opened, not read: the reader checks the header against the file (its data length for a WAV).
            do { _ = try SoundFileReader(path: path) } catch let error as AudioIOError { throw MergeError.brokenTap(error) }
        }
        let pages = ["report.md", "report.html"].map { (folder as NSString).appendingPathComponent($0) }
        let problems = pages.map(InputFile.problem(at:))
        if problems.contains(nil), let missing = problems.indices.first(where: { problems[$0] != nil }) {
            throw MergeError.missingReport(path: pages[missing], problem: problems[missing]!)
        }
    }

    static func readReport(_ path: String) throws -> JSONValue {
        if let problem = InputFile.problem(at: path) { throw MergeError.missingReport(path: path, problem: problem) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MergeError.missingReport(path: path, problem: "cannot be read")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(Array(data), maximumBytes: 1 << 30)
        } catch {
            // Where the text breaks (a shard copied while it was written, an edit by hand).
            throw MergeError.notARunReport(path: path, problem: String(describing: error))
        }
        guard value["schema"]?.stringValue?.hasPrefix("echolab.") == true else { throw MergeError.notARunReport(path: path, problem: nil) }
        return value
    }

}
