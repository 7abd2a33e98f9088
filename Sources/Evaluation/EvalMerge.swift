import EchoLabJSON
import Foundation
import Reporting

/// Joins the `eval.json` of shards 1/N … N/N of one plan into the document one unsharded run
/// writes (bytes equal but for `timing`): items by their corpus index, each item's results in
/// the order of the modes, statistics recomputed over all of them.
///
/// Refused, naming the file: a document that is not a shard, shards of different N, modes or
/// EchoLab versions, a shard given twice or missing, two shards that ran the same item × mode,
/// or an item index that names different files in two shards (different corpora).
public enum EvalMerge {
    public struct Shard {
        public var path: String
        public var eval: JSONValue
        public init(path: String, eval: JSONValue) {
            self.path = path
            self.eval = eval
        }
    }

    public struct MergeError: Error, CustomStringConvertible {
        public var description: String
    }

    public static func merge(_ shards: [Shard]) throws -> JSONValue {
        guard let first = shards.first else { throw MergeError(description: "merge: give the folders of shards 1/N … N/N") }
        var count: Int?
        var seen: [Int: String] = [:]
        for shard in shards {
            guard let text = shard.eval["shard"]?.stringValue,
                  let parsed = try? CorpusRun.Shard(parsing: text) else {
                throw MergeError(description: "\(shard.path): not a shard's eval.json (it has no \"shard\": \"K/N\")")
            }
            if let count, parsed.count != count {
                throw MergeError(description: "\(shard.path): shard \(text) is not one of \(count) like \(first.path)")
            }
            count = parsed.count
            if let other = seen[parsed.index] {
                throw MergeError(description: "\(shard.path): shard \(text) is given twice (also \(other))")
            }
            seen[parsed.index] = shard.path
            for key in ["modes", "tool"] where shard.eval[key] != first.eval[key] {
                throw MergeError(description: "\(shard.path): its \(key) differ from \(first.path)'s; shards must come from one plan and one EchoLab build")
            }
        }
        let total = count!
        if let missing = (1...total).first(where: { seen[$0] == nil }) {
            throw MergeError(description: "merge: shard \(missing)/\(total) is missing (got \(seen.keys.sorted().map { "\($0)/\(total)" }.joined(separator: ", ")))")
        }

        let modes = EvalDocument.modes(of: first.eval)
        let modeOrder = Dictionary(modes.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var itemsByIndex: [Int: (entry: [String: JSONValue], results: [JSONValue], path: String)] = [:]
        for shard in shards {
            for item in shard.eval["items"]?.arrayValue ?? [] {
                guard var entry = item.objectValue, let index = item["index"]?.doubleValue.map(Int.init) else {
                    throw MergeError(description: "\(shard.path): an item has no index (written by an older EchoLab?)")
                }
                let results = entry.removeValue(forKey: "results")?.arrayValue ?? []
                if let existing = itemsByIndex[index] {
                    guard existing.entry["file"] == entry["file"] else {
                        throw MergeError(description: "\(shard.path): item \(index) is \(entry["file"]?.stringValue ?? "?") here but \(existing.entry["file"]?.stringValue ?? "?") in \(existing.path): shards of different corpora")
                    }
                    let taken = Set(existing.results.compactMap { $0["mode"]?.stringValue })
                    if let repeated = results.first(where: { taken.contains($0["mode"]?.stringValue ?? "") }) {
                        throw MergeError(description: "\(shard.path): \(entry["name"]?.stringValue ?? "?") × \(repeated["mode"]?.stringValue ?? "?") also ran in \(existing.path)")
                    }
                    itemsByIndex[index]!.results += results
                } else {
                    itemsByIndex[index] = (entry, results, shard.path)
                }
            }
        }
        let items: [JSONValue] = itemsByIndex.keys.sorted().map { index in
            var (entry, results, _) = itemsByIndex[index]!
            results.sort { (modeOrder[$0["mode"]?.stringValue ?? ""] ?? .max) < (modeOrder[$1["mode"]?.stringValue ?? ""] ?? .max) }
            entry["results"] = .array(results)
            return .object(entry)
        }
        let planned = shards.reduce(0) { $0 + Int($1.eval["planned"]?.doubleValue ?? 0) }
        let complete = shards.allSatisfy { $0.eval["complete"]?.boolValue == true }
        // Shards run side by side: the merged run took as long as the slowest.
        let wall = shards.compactMap { $0.eval.value(at: "timing.wall_s")?.doubleValue }.max() ?? 0
        return EvalDocument.make(items: items, modes: modes, modesAsked: first.eval["modes"]?.arrayValue != nil,
                                 planned: planned, complete: complete, shard: nil, wallSeconds: wall)
    }

    /// The OUT-relative folders of every run a document lists (ITEM/MODE).
    public static func runFolders(of eval: JSONValue) -> [String] {
        (eval["items"]?.arrayValue ?? []).flatMap { item in
            (item["results"]?.arrayValue ?? []).compactMap { $0["folder"]?.stringValue }
        }
    }
}
