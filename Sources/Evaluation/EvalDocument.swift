import AudioInterop
import EchoLabJSON
import Foundation

/// `eval.json` as a document: the per-mode statistics are computed from its item entries as the
/// file prints them, so a run, a merge of shards and any later reader see the same numbers from
/// the same bytes. (eval.md and eval.html are rendered from the same results: `EvalReport`.)
///
/// Per mode: how many items ran or failed, mean, median and 10th percentile of steady-state ERLE,
/// whole ERLE, convergence and near-end attenuation over the items that have a value, and wins
/// (items where the mode's steady ERLE is the highest of all modes, ties counting for each).
public enum EvalDocument {
    public static let schema = "echolab.eval/\(currentVersion)"
    static let currentVersion = 2

    /// The statistics eval.json gives per mode: its key, and the path under a result's `metrics`.
    static let statistics: [(key: String, path: String)] = [
        ("erle_steady_db", "erle_steady_db"), ("erle_db", "erle_db"), ("convergence_s", "convergence_s"),
        ("near_end_attenuation_db", "near_end.attenuation_db"), ("near_end_distortion_db", "near_end.distortion_db"),
    ]

    /// The whole document from its item entries (in plan order, results in mode order).
    /// `shard` and `plan` (its whole plan's entries and digest) are written by a shard only.
    /// Throws when the items do not read back as printed (see `printed`).
    public static func make(items: [JSONValue], modes: [String], modesAsked: Bool, planned: Int, complete: Bool,
                            shard: String?, plan: JSONValue? = nil, wallSeconds: Double) throws(UnreadableItems) -> JSONValue {
        // The statistics are computed from the numbers as eval.json prints them (four decimals), so
        // a document recomputed from the file (a merge of shards) has the same bytes.
        let items = try printed(items)
        let failed = items.reduce(0) { count, item in
            count + (item["results"]?.arrayValue ?? []).filter { $0["error"]?.stringValue != nil }.count
        }
        var object: [String: JSONValue] = [
            "schema": .string(schema),
            "tool": .object(["name": .string("echolab"), "version": .string(EchoLabVersion.current)]),
            "complete": .bool(complete),
            "planned": .number(Double(planned)),
            "failed": .number(Double(failed)),
            "modes": modesAsked ? .array(modes.map(JSONValue.string)) : .string("as_written"),
            "items": .array(items),
            "mode_summary": .array(modes.map { summary(for: $0, items: items) }),
            "timing": .object(["wall_s": .number(wallSeconds)]),
        ]
        object["shard"] = shard.map(JSONValue.string)
        object["plan"] = plan
        return .object(object)
    }

    /// `items` as eval.json prints them, read back (`JSONValue.roundedAsPrinted`). A run's report read
    /// back from disk (`merge` of shards) may nest its `pipeline` or `metrics` as deep as the
    /// reader's limit allows in report.json, which sits three levels deeper in eval.json: such
    /// items would make a file no reader takes, so this throws and no eval.json is written.
    static func printed(_ items: [JSONValue]) throws(UnreadableItems) -> [JSONValue] {
        // eval.json's root object holds the list, and the list the items.
        let depth = 2 + (items.map(\.depth).max() ?? 0)
        guard depth <= JSONValue.maximumDepth else { throw UnreadableItems(depth: depth) }
        return items.map { $0.roundedAsPrinted() }
    }

    /// eval.json's items nest deeper than its readers take (see `printed`).
    public struct UnreadableItems: Error, CustomStringConvertible {
        public var depth: Int
        public var description: String {
            "eval.json: its items would nest \(depth) levels deep, and a reader takes \(JSONValue.maximumDepth); a run's report.json holds values nested too deep for eval.json"
        }
    }

    /// The modes of a document, in its order.
    public static func modes(of eval: JSONValue) -> [String] {
        if let asked = eval["modes"]?.arrayValue { return asked.compactMap(\.stringValue) }
        var seen: [String] = []
        for item in eval["items"]?.arrayValue ?? [] {
            for result in item["results"]?.arrayValue ?? [] {
                if let mode = result["mode"]?.stringValue, !seen.contains(mode) { seen.append(mode) }
            }
        }
        return seen
    }

    public static func summary(for mode: String, items: [JSONValue]) -> JSONValue {
        let results = items.flatMap { $0["results"]?.arrayValue ?? [] }.filter { $0["mode"]?.stringValue == mode }
        let ran = results.filter { $0["error"]?.stringValue == nil }
        var object: [String: JSONValue] = [
            "mode": .string(mode),
            "ran": .number(Double(ran.count)),
            "failed": .number(Double(results.count - ran.count)),
            "wins": .number(Double(wins(for: mode, items: items))),
        ]
        for (key, path) in statistics {
            object[key] = statisticsJSON(ran.compactMap { $0.value(at: "metrics.\(path)")?.doubleValue })
        }
        return .object(object)
    }

    static func statisticsJSON(_ values: [Double]) -> JSONValue {
        guard !values.isEmpty else { return .object(["mean": .null, "median": .null, "p10": .null, "count": .number(0)]) }
        return .object(["mean": .number(values.reduce(0, +) / Double(values.count)),
                        "median": .number(percentile(values, 50)), "p10": .number(percentile(values, 10)),
                        "count": .number(Double(values.count))])
    }

    static func wins(for mode: String, items: [JSONValue]) -> Int {
        items.filter { item in
            let values = (item["results"]?.arrayValue ?? []).compactMap { result -> (String, Double)? in
                guard let mode = result["mode"]?.stringValue, let erle = result.value(at: "metrics.erle_steady_db")?.doubleValue else { return nil }
                return (mode, erle)
            }
            guard let best = values.map(\.1).max(), values.count > 1 else { return false }
            return values.contains { $0.0 == mode && $0.1 == best }
        }.count
    }

    /// The p-th percentile by linear interpolation between the closest ranks (p in 0…100).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        let position = p / 100 * Double(sorted.count - 1)
        let low = Int(position.rounded(.down)), high = Int(position.rounded(.up))
        return sorted[low] + (sorted[high] - sorted[low]) * (position - Double(low))
    }

    // MARK: Reading

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
        guard let version = Int(schema.dropFirst("echolab.eval/".count)), version >= 1, version <= currentVersion else {
            throw ReadError(path: path, problem: "schema \(schema) is not one this EchoLab reads (echolab.eval/1 to /\(currentVersion)); compare with the EchoLab that wrote it")
        }
        if let problem = problem(in: value) { throw ReadError(path: path, problem: "not an EchoLab eval.json: \(problem)") }
        return value
    }

    public struct ReadError: Error, CustomStringConvertible {
        public var path: String
        public var problem: String
        public var description: String { "\(path): \(problem)" }
    }
}
