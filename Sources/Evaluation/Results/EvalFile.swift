import AudioCore
import EchoLabJSON

/// An eval.json as `merge` reads it back (and `compare` its modes): the document's header (its
/// shard, plan, modes and EchoLab build) and, per item, which runs ran where and which failed.
/// What each run measured is not read here: merge summarises every run again from its own
/// report.json (`RunSummary`), as the run that wrote it did.
///
/// Read from a document `EvalDocument.read` has checked (`EvalDocument.problem(in:)`: counts,
/// items, results, folders, errors), once; a key an older version did not write, or that holds
/// another kind of value, reads as nil. The build and the plan are identities that shards must
/// share: they are kept as the file has them and compared whole.
public struct EvalFile: Sendable, Equatable {
    /// `"K/N"` in a shard's file; nil in a whole eval's.
    public var shard: String?
    /// The modes asked for, in order; nil where each scenario ran as written (`"as_written"`).
    public var modes: [String]? { writtenModes?.arrayValue?.compactMap(\.stringValue) }
    /// The EchoLab build that wrote it (`tool`), as the file has it.
    public var tool: JSONValue?
    /// The whole plan a shard was cut from (nil in a whole eval's file, and in older shards).
    public var plan: Plan?
    public var planned: Int
    public var isComplete: Bool
    /// `timing.wall_s`.
    public var wallSeconds: Double?
    public var items: [Item]
    /// `modes` as the file has it: what shards of one plan share.
    var writtenModes: JSONValue?

    public struct Plan: Sendable, Equatable {
        public var entries: Int
        public var digest: String
        /// The plan as the file has it: what shards of one plan share.
        var written: JSONValue
    }

    public struct Item: Sendable, Equatable {
        /// Its position in the plan's corpus (nil in files written before shards).
        public var index: Int?
        public var name: String
        public var file: String
        public var results: [Run]
    }

    /// One item × mode run: its mode (nil: as written, for an item that failed before its mode
    /// was read), its OUT-relative folder, and why it failed (nil: it ran).
    public struct Run: Sendable, Equatable {
        public var mode: String?
        public var folder: String
        public var error: String?
        /// A failed run's canceller library, where eval.json names it.
        public var library: String? = nil
        /// A failed run's error is its canceller's (`canceller_failure`).
        public var isCancellerFailure = false
    }

    /// A document as these values; from a file, one `EvalDocument.read` has checked (elsewhere a
    /// value of another kind reads as nil, a count as 0, and no count traps).
    init(checked document: JSONValue) {
        shard = document["shard"]?.stringValue
        writtenModes = document["modes"]
        tool = document["tool"]
        if let plan = document["plan"], let entries = plan["entries"]?.doubleValue, let digest = plan["digest"]?.stringValue {
            self.plan = Plan(entries: Int(saturating: entries), digest: digest, written: plan)
        }
        planned = Int(saturating: document["planned"]?.doubleValue ?? 0)
        isComplete = document["complete"]?.boolValue ?? false
        wallSeconds = document.value(at: "timing.wall_s")?.doubleValue
        items = (document["items"]?.arrayValue ?? []).map { item in
            Item(index: item["index"]?.doubleValue.map(Int.init(saturating:)), name: item["name"]?.stringValue ?? "", file: item["file"]?.stringValue ?? "",
                 results: (item["results"]?.arrayValue ?? []).map { result in
                     Run(mode: result["mode"]?.stringValue, folder: result["folder"]?.stringValue ?? "", error: result["error"]?.stringValue,
                         library: result["error"]?.stringValue == nil ? nil : result["library"]?.stringValue,
                         isCancellerFailure: result["error"]?.stringValue != nil && result["canceller_failure"]?.boolValue == true)
                 })
        }
    }

    /// Both files were written for one plan by one build: the same modes and EchoLab as the
    /// files have them (a key one lacks is not the other's null).
    func differs(from other: EvalFile) -> String? {
        if writtenModes != other.writtenModes { return "modes" }
        if tool != other.tool { return "tool" }
        return nil
    }

    /// The modes of the document in its order: those asked for, or each in the order first run.
    public var modeNames: [String] {
        if let modes { return modes }
        var seen: [String] = []
        for result in items.flatMap(\.results) {
            if let mode = result.mode, !seen.contains(mode) { seen.append(mode) }
        }
        return seen
    }

    /// The OUT-relative folders (ITEM/MODE) of the runs that ran: a failed run has none on disk
    /// (its item's folder may hold the item's other runs).
    public var runFolders: [String] {
        items.flatMap { item in item.results.filter { $0.error == nil }.map(\.folder) }
    }

    /// Reads and checks the eval.json at `path` (`EvalDocument.read`), as these values.
    public static func read(_ path: String) throws -> EvalFile {
        EvalFile(checked: try EvalDocument.read(path))
    }
}
