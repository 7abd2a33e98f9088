import AudioCore
import EchoLabJSON

/// An eval.json as `merge` reads it back: the document's header (its shard, plan, modes and
/// EchoLab build) and, per item, which runs ran where and which failed. What each run measured
/// is not read here: merge summarises every run again from its own report.json (`RunSummary`),
/// as the run that wrote it did.
///
/// Decoded from a document `EvalDocument.read` has checked (`EvalDocument.problem(in:)`), so
/// every key it relies on is there with its type; keys an older version did not write are nil.
public struct EvalFile: Decodable, Sendable, Equatable {
    /// `"K/N"` in a shard's file; nil in a whole eval's.
    public var shard: String?
    /// The modes asked for, in order; nil where each scenario ran as written.
    public var modes: [String]?
    public var tool: Tool?
    /// The whole plan a shard was cut from (nil in a whole eval's file, and in older shards).
    public var plan: Plan?
    public var planned: Int
    public var complete: Bool
    public var timing: Timing?
    public var items: [Item]

    public struct Tool: Decodable, Sendable, Equatable {
        public var name: String?
        public var version: String?
    }

    public struct Plan: Decodable, Sendable, Equatable {
        public var entries: Int
        public var digest: String
    }

    public struct Timing: Decodable, Sendable, Equatable {
        public var wallSeconds: Double?

        enum CodingKeys: String, CodingKey { case wallSeconds = "wall_s" }
    }

    public struct Item: Decodable, Sendable, Equatable {
        /// Its position in the plan's corpus (nil in files written before shards).
        public var index: Int?
        public var name: String
        public var file: String
        public var results: [Run]
    }

    /// One item × mode run: its mode (nil: as written, for an item that failed before its mode
    /// was read), its OUT-relative folder, and why it failed (nil: it ran).
    public struct Run: Decodable, Sendable, Equatable {
        public var mode: String?
        public var folder: String
        public var error: String?
    }

    enum CodingKeys: String, CodingKey { case shard, modes, tool, plan, planned, complete, timing, items }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        shard = try container.decodeIfPresent(String.self, forKey: .shard)
        // `"as_written"` where no modes were asked for.
        modes = try? container.decodeIfPresent([String].self, forKey: .modes)
        tool = try container.decodeIfPresent(Tool.self, forKey: .tool)
        plan = try container.decodeIfPresent(Plan.self, forKey: .plan)
        planned = try container.decode(Int.self, forKey: .planned)
        complete = try container.decode(Bool.self, forKey: .complete)
        timing = try container.decodeIfPresent(Timing.self, forKey: .timing)
        items = try container.decode([Item].self, forKey: .items)
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
        let document = try EvalDocument.read(path)
        do {
            return try JSONValueDecoder().decode(EvalFile.self, from: document)
        } catch {
            throw EvalDocument.ReadError(path: path, problem: "not an EchoLab eval.json: \(error)")
        }
    }
}
