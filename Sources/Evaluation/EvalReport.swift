import AudioInterop
import EchoLabJSON
import Foundation
import Metrics
import Simulation

/// A corpus run's `eval.json` (see `EvalDocument`, which computes the per-mode statistics from
/// it) and the pages rendered from it (`eval.md`, `eval.html`): every item × mode's metrics, pipeline counters and findings.
/// Everything but `timing` is a pure function of the results, in plan order, so the bytes do not
/// depend on `--jobs`.
public struct EvalReport {
    public var outcome: CorpusRun.Outcome
    public var wallSeconds: Double

    public init(outcome: CorpusRun.Outcome, wallSeconds: Double) {
        self.outcome = outcome
        self.wallSeconds = wallSeconds
    }

    /// The modes in the order the results name them (the asked-for order, or first use).
    public var modes: [EchoControlMode] {
        if let modes = outcome.modes { return modes }
        var seen: [EchoControlMode] = []
        for result in outcome.results { if let mode = result.mode, !seen.contains(mode) { seen.append(mode) } }
        return seen
    }

    /// Items in plan order, each with its results in mode order.
    public var items: [(index: Int, name: String, file: String, results: [CorpusRun.Result])] {
        var order: [Int] = []
        var grouped: [Int: [CorpusRun.Result]] = [:]
        for result in outcome.results {
            if grouped[result.itemIndex] == nil { order.append(result.itemIndex) }
            grouped[result.itemIndex, default: []].append(result)
        }
        return order.map { index in (index, grouped[index]![0].item, grouped[index]![0].file, grouped[index]!) }
    }

    // MARK: eval.json

    /// Throws `EvalDocument.UnreadableItems` when the runs' values do not fit in eval.json.
    public func json() throws(EvalDocument.UnreadableItems) -> JSONValue { try document().document }

    /// eval.json, its per-mode statistics and its verdicts as values.
    func document() throws(EvalDocument.UnreadableItems) -> (document: JSONValue, modeSummaries: [ModeSummary], verdicts: EvalVerdicts) {
        let items: [JSONValue] = self.items.map { item in
            .object(["index": .number(Double(item.index)), "name": .string(item.name), "file": .string(item.file),
                     "results": .array(item.results.map(Self.resultJSON))])
        }
        return try EvalDocument.make(items: items, modes: modes.map(\.description), modesAsked: outcome.modes != nil,
                                 planned: outcome.plannedCount, complete: outcome.isComplete,
                                 shard: outcome.shard?.description,
                                 plan: outcome.plan.map { .object(["entries": .number(Double($0.entries)), "digest": .string($0.digest)]) },
                                 wallSeconds: wallSeconds)
    }

    static func resultJSON(_ result: CorpusRun.Result) -> JSONValue {
        var object: [String: JSONValue] = ["mode": result.mode.map { .string($0.description) } ?? .null,
                                           "folder": .string(result.folder),
                                           "error": result.error.map(JSONValue.string) ?? .null]
        if let summary = result.summary {
            if var metrics = summary.metrics.map(JSONValue.init(encoding:))?.objectValue {
                // In the item's report.json; eval.json stays small.
                metrics.removeValue(forKey: "erle_series")
                if var telephony = metrics["telephony"]?.objectValue, var loss = telephony["echo_loss"]?.objectValue {
                    loss.removeValue(forKey: "bands")
                    telephony["echo_loss"] = .object(loss)
                    metrics["telephony"] = .object(telephony)
                }
                object["metrics"] = .object(metrics)
            } else {
                object["metrics"] = .null
            }
            object["pipeline"] = summary.pipeline.map(JSONValue.init(encoding:)) ?? summary.recordingHealth.map(JSONValue.init(encoding:)) ?? .null
            object["findings"] = .array(summary.findings.map(JSONValue.string))
            if !summary.segments.isEmpty { object["segments"] = .array(summary.segments.map(JSONValue.init(encoding:))) }
            object["duration_s"] = .number(summary.durationSeconds)
            object["library"] = summary.library.map(JSONValue.string)
            object["scores"] = summary.scores.map { .array($0.map(JSONValue.init(encoding:))) }
        }
        return .object(object)
    }

    /// Writes `eval.json` and the pages the renderer makes of it (Reporting's `ReportPages`:
    /// `eval.md`, `eval.html`) into `directory`, atomically: the pages show the statistics of the
    /// document written, built once, and its verdicts, judged once.
    public func write(to directory: String, renderer: (any ReportRenderer)?) throws {
        let (document, summaries, verdicts) = try document()
        let pages = renderer?.pages(of: self, modeSummaries: summaries, verdicts: verdicts, directory: directory) ?? []
        try AtomicFile.write(to: (directory as NSString).appendingPathComponent("eval.json")) { write in try document.writeCanonicalText(to: write) }
        for page in pages { try AtomicFile.write(page.render(), to: (directory as NSString).appendingPathComponent(page.name)) }
    }
}
