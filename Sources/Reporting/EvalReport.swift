import Foundation
import Metrics
import Simulation

/// `eval.json`, `eval.md` and `eval.html`: every item × mode's metrics, pipeline counters and findings, and
/// per mode the mean, median and 10th percentile of the headline metrics and how many items it
/// won. Everything but `timing` is a pure function of the results, in plan order, so the bytes
/// do not depend on `--jobs`.
public struct EvalReport {
    public static let schema = "echolab.eval/2"

    public var outcome: CorpusRun.Outcome
    public var wallSeconds: Double

    public init(outcome: CorpusRun.Outcome, wallSeconds: Double) {
        self.outcome = outcome
        self.wallSeconds = wallSeconds
    }

    /// The modes in the order the results name them (the asked-for order, or first use).
    var modes: [EchoControlMode] {
        if let modes = outcome.modes { return modes }
        var seen: [EchoControlMode] = []
        for result in outcome.results { if let mode = result.mode, !seen.contains(mode) { seen.append(mode) } }
        return seen
    }

    /// Items in plan order, each with its results in mode order.
    var items: [(name: String, file: String, results: [CorpusRun.Result])] {
        var order: [Int] = []
        var grouped: [Int: [CorpusRun.Result]] = [:]
        for result in outcome.results {
            if grouped[result.itemIndex] == nil { order.append(result.itemIndex) }
            grouped[result.itemIndex, default: []].append(result)
        }
        return order.map { index in (grouped[index]![0].item, grouped[index]![0].file, grouped[index]!) }
    }

    // MARK: eval.json

    public func json() -> JSONValue {
        var object: [String: JSONValue] = [
            "schema": .string(Self.schema),
            "tool": .object(["name": .string("echolab"), "version": .string(EchoLabVersion.current)]),
            "complete": .bool(outcome.isComplete),
            "planned": .number(Double(outcome.plannedCount)),
            "failed": .number(Double(outcome.failedCount)),
            "modes": outcome.modes.map { .array($0.map { .string($0.description) }) } ?? .string("as_written"),
            "items": .array(items.map { item in
                .object(["name": .string(item.name), "file": .string(item.file),
                         "results": .array(item.results.map(Self.resultJSON))])
            }),
            "mode_summary": .array(modes.map { summaryJSON(for: $0) }),
            "timing": .object(["wall_s": .number(wallSeconds)]),
        ]
        object["shard"] = outcome.shard.map { .string($0.description) }
        return .object(object)
    }

    static func resultJSON(_ result: CorpusRun.Result) -> JSONValue {
        var object: [String: JSONValue] = ["mode": result.mode.map { .string($0.description) } ?? .null,
                                           "folder": .string(result.folder),
                                           "error": result.error.map(JSONValue.string) ?? .null]
        if let summary = result.summary {
            if var metrics = summary.metricsJSON.objectValue {
                metrics.removeValue(forKey: "erle_series")      // in the item's report.json; eval.json stays small
                object["metrics"] = .object(metrics)
            } else {
                object["metrics"] = .null
            }
            object["pipeline"] = summary.pipeline
            object["findings"] = .array(summary.findings.map(JSONValue.string))
            object["duration_s"] = .number(summary.durationSeconds)
        }
        return .object(object)
    }

    /// Per mode: how many items ran or failed, statistics of steady ERLE, whole ERLE and
    /// convergence over the items that have a value, and wins (items where the mode's steady
    /// ERLE is the highest of all modes, ties counting for each).
    func summaryJSON(for mode: EchoControlMode) -> JSONValue {
        let results = outcome.results.filter { $0.mode == mode }
        let reports = results.compactMap(\.summary)
        func statistics(_ values: [Double?]) -> JSONValue {
            let present = values.compactMap { $0 }
            guard !present.isEmpty else { return .object(["mean": .null, "median": .null, "p10": .null, "count": .number(0)]) }
            return .object(["mean": .number(present.reduce(0, +) / Double(present.count)),
                            "median": .number(Self.percentile(present, 50)), "p10": .number(Self.percentile(present, 10)),
                            "count": .number(Double(present.count))])
        }
        return .object([
            "mode": .string(mode.description),
            "ran": .number(Double(reports.count)),
            "failed": .number(Double(results.count - reports.count)),
            "erle_steady_db": statistics(reports.map { $0.metrics?.erleSteadyDB }),
            "erle_db": statistics(reports.map { $0.metrics?.erleDB }),
            "convergence_s": statistics(reports.map { $0.metrics?.convergenceSeconds }),
            "wins": .number(Double(wins(for: mode))),
        ])
    }

    func wins(for mode: EchoControlMode) -> Int {
        items.filter { item in
            let values = item.results.compactMap { result in result.summary?.metrics?.erleSteadyDB.map { (result.mode, $0) } }
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

    // MARK: eval.md, eval.html

    /// `eval.md`: the pull-request view (see `EvalReportDocument`).
    public func markdown(directory: String = ".") -> String {
        MarkdownWriter.render(EvalReportDocument.make(self, detail: .summary, directory: directory))
    }

    /// `eval.html`: every run, sortable, and per item its plots and audio (see `EvalReportDocument`).
    public func html(directory: String = ".") -> String {
        HTMLWriter.render(EvalReportDocument.make(self, detail: .full, directory: directory))
    }

    /// Writes `eval.json`, `eval.md` and `eval.html` into `directory`, atomically.
    public func write(to directory: String) throws {
        try AtomicFile.write(json().canonicalText(), to: (directory as NSString).appendingPathComponent("eval.json"))
        try AtomicFile.write(markdown(directory: directory), to: (directory as NSString).appendingPathComponent("eval.md"))
        try AtomicFile.write(html(directory: directory), to: (directory as NSString).appendingPathComponent("eval.html"))
    }
}

extension JSONValue {
    var objectValue: [String: JSONValue]? {
        if case .object(let object) = self { return object }
        return nil
    }
}
