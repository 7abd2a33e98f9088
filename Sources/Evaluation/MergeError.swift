import AudioCore
import AudioInterop

/// Why `merge` refused its shards, naming the file; nothing is written then.
public enum MergeError: DescribedError, Equatable {
    /// No shard was given.
    case noShards
    /// The document has no `"shard": "K/N"`.
    case notAShard(path: String)
    /// Its `"shard"` is not K/N with 1 ≤ K ≤ N (why, `CorpusRun.ShardError`).
    case badShard(path: String, problem: String)
    /// Its N is not the first shard's.
    case otherShardCount(path: String, shard: String, count: Int, firstPath: String)
    /// Two documents are the same shard.
    case givenTwice(path: String, shard: String, otherPath: String)
    /// Its `modes` or `tool` (EchoLab's version) is not the first shard's.
    case differs(path: String, key: String, firstPath: String)
    /// It does not carry its whole plan's size and digest (an older EchoLab wrote it).
    case noPlan(path: String)
    /// Its plan's digest or size is not the first shard's: another corpus, other paths or modes.
    /// `difference` says how, where the two files show it (`EvalMerge.planDifference`).
    case otherPlan(path: String, firstPath: String, difference: String?)
    /// Its `planned` is not its slice of the plan.
    case wrongSlice(path: String, shard: String, planRuns: Int, expected: Int, planned: Int)
    /// Shard `index` of `count` was not given.
    case missingShard(index: Int, count: Int, given: [Int])
    /// An item without its index, name or file (an older EchoLab wrote it).
    case incompleteItem(path: String)
    /// One item index names two files: shards of different corpora.
    case otherFile(path: String, index: Int, file: String, otherFile: String, otherPath: String)
    /// Two shards ran the same item × mode.
    case ranTwice(path: String, item: String, mode: String?, otherPath: String)
    /// Some shards were run with `--no-taps` and others without.
    case tapsDiffer(withoutTaps: String, withTaps: String)
    /// A mode this EchoLab does not read.
    case unreadableMode(path: String, problem: String)
    /// A run's report.json is missing or unreadable as a file.
    case missingReport(path: String, problem: String)
    /// A run's report.json is not a report EchoLab wrote: not JSON (`problem`: the parser's
    /// line, column and words), or JSON of something else (nil).
    case notARunReport(path: String, problem: String?)
    /// A run's report.json is EchoLab's but a value the merged eval reads is broken.
    case brokenRunReport(path: String, problem: String)
    /// A tap its run's report names cannot be read whole (cut short, not audio): its players and
    /// anyone scoring it again would get less than the run measured.
    case brokenTap(AudioIOError)

    public var description: String {
        switch self {
        case .noShards:
            "merge: give the folders of shards 1/N … N/N"
        case .notAShard(let path):
            "\(path): not a shard's eval.json (it has no \"shard\": \"K/N\")"
        case .badShard(let path, let problem):
            "\(path): shard \(problem)"
        case .otherShardCount(let path, let shard, let count, let firstPath):
            "\(path): shard \(shard) is not one of \(count) like \(firstPath)"
        case .givenTwice(let path, let shard, let otherPath):
            "\(path): shard \(shard) is given twice (also \(otherPath))"
        case .differs(let path, let key, let firstPath):
            "\(path): its \"\(key)\" is not the same as in \(firstPath); shards must come from one plan and one EchoLab build"
        case .noPlan(let path):
            "\(path): it does not say which plan it is a shard of (written by an older EchoLab?); run the shards again"
        case .otherPlan(let path, let firstPath, let difference?):
            "\(path): its plan differs from \(firstPath)'s: \(difference); shards must come from one `eval --shard K/N` command"
        case .otherPlan(let path, let firstPath, nil):
            "\(path): its plan differs from \(firstPath)'s (another corpus, other files or paths, a scenario edited between the "
                + "shards' jobs, other --modes, or another build, options or rate of a plugin); shards must come from one `eval --shard K/N` command"
        case .wrongSlice(let path, let shard, let planRuns, let expected, let planned):
            "\(path): shard \(shard) of a plan of \(planRuns) runs has \(expected), but it says it planned \(planned)"
        case .missingShard(let index, let count, let given):
            "merge: shard \(index)/\(count) is missing (got \(given.map { "\($0)/\(count)" }.joined(separator: ", ")))"
        case .incompleteItem(let path):
            "\(path): an item has no index, name or file (written by an older EchoLab?)"
        case .otherFile(let path, let index, let file, let otherFile, let otherPath):
            "\(path): item \(index) is \(file) here but \(otherFile) in \(otherPath): shards of different corpora"
        case .ranTwice(let path, let item, let mode, let otherPath):
            "\(path): \(item) × \(mode ?? "as written") also ran in \(otherPath)"
        case .tapsDiffer(let withoutTaps, let withTaps):
            "\(withoutTaps): its runs were written without taps (--no-taps), \(withTaps)'s with them; run every shard alike"
        case .unreadableMode(let path, let problem):
            "\(path): mode \(problem)"
        case .missingReport(let path, let problem):
            "\(path): \(problem) (the shard's run folder must come with its eval.json)"
        case .notARunReport(let path, let problem):
            "\(path): not a run report EchoLab wrote" + (problem.map { " (\($0))" } ?? "")
        case .brokenRunReport(let path, let problem):
            "\(path): \(problem)"
        case .brokenTap(let error):
            "\(error) (a tap its run's report names must be whole: copy the shard's run folder again once its eval has finished)"
        }
    }
}
