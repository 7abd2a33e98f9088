import Foundation
import Metrics
import Simulation

/// `eval.json` and `eval.md`: every item × mode's metrics, pipeline counters and findings, and
/// per mode the mean, median and 10th percentile of the headline metrics and how many items it
/// won. Everything but `timing` is a pure function of the results, in plan order, so the bytes
/// do not depend on `--jobs`.
public struct EvalReport {
    public static let schema = "echolab.eval/1"

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

    /// Per mode: how many items ran or failed, statistics of steady ERLE, whole ERLE,
    /// convergence and near-end attenuation and distortion in double talk (the other axis:
    /// what the canceller leaves of the near talker) over the items that have a value, and
    /// wins (items where the mode's steady ERLE is the highest of all modes, ties counting for each).
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
            "near_end_attenuation_db": statistics(reports.map { $0.metrics?.nearEnd?.attenuationDB }),
            "near_end_distortion_db": statistics(reports.map { $0.metrics?.nearEnd?.distortionDB }),
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

    // MARK: eval.md

    public func markdown() -> String {
        var md = "# EchoLab evaluation\n\n"
        if !outcome.isComplete {
            md += "**Interrupted:** \(outcome.results.count) of \(outcome.plannedCount) runs finished; the others are not listed.\n\n"
        }
        if let shard = outcome.shard { md += "Shard \(shard) of the plan.\n\n" }
        let modes = self.modes
        md += "## Modes\n\n| mode | ran | failed | steady ERLE mean | median | p10 | convergence median | near-end attenuation mean | median | p10 | wins |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
        for mode in modes {
            let summary = summaryJSON(for: mode)
            func stat(_ key: String, _ field: String, unit: String) -> String {
                summary[key]?[field]?.doubleValue.map { String(format: "%.1f", $0) + unit } ?? "—"
            }
            md += "| \(mode) | \(summary["ran"]?.doubleValue.map { Int($0) } ?? 0) | \(summary["failed"]?.doubleValue.map { Int($0) } ?? 0) | "
            md += "\(stat("erle_steady_db", "mean", unit: " dB")) | \(stat("erle_steady_db", "median", unit: " dB")) | "
            md += "\(stat("erle_steady_db", "p10", unit: " dB")) | \(stat("convergence_s", "median", unit: " s")) | "
            md += "\(stat("near_end_attenuation_db", "mean", unit: " dB")) | \(stat("near_end_attenuation_db", "median", unit: " dB")) | "
            md += "\(stat("near_end_attenuation_db", "p10", unit: " dB")) | "
            md += "\(wins(for: mode)) |\n"
        }
        md += "\nNear-end attenuation: how far below its own level the near talker reaches the peer in double talk "
        md += "(from the near-end track; lower is better; — where a run has none).\n"
        md += "\n## Steady-state ERLE, items × modes\n\n| item | " + modes.map(\.description).joined(separator: " | ") + " |\n"
        md += "|---|" + String(repeating: "---|", count: modes.count) + "\n"
        for item in items {
            md += "| \(item.name) |"
            for mode in modes {
                guard let result = item.results.first(where: { $0.mode == mode }) else { md += " |"; continue }
                if let summary = result.summary {
                    md += " [\(ReportFormatting.db(summary.metrics?.erleSteadyDB))](\(result.folder)/report.md) |"
                } else {
                    md += " **failed** |"
                }
            }
            md += "\n"
        }
        let failures = outcome.results.filter { $0.error != nil }
        if !failures.isEmpty {
            md += "\n## Failures\n\n"
            for failure in failures { md += "- \(failure.item) (\(failure.mode?.description ?? "as written")): \(failure.error ?? "")\n" }
        }
        return md
    }

    /// Writes `eval.json` and `eval.md` into `directory`, atomically.
    public func write(to directory: String) throws {
        try AtomicFile.write(json().canonicalText(), to: (directory as NSString).appendingPathComponent("eval.json"))
        try AtomicFile.write(markdown(), to: (directory as NSString).appendingPathComponent("eval.md"))
    }
}

extension JSONValue {
    var objectValue: [String: JSONValue]? {
        if case .object(let object) = self { return object }
        return nil
    }
}
