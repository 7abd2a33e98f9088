import AudioInterop
import EchoLabJSON
import Foundation
import Metrics
import Simulation

/// A corpus run's `eval.json` (see `EvalDocument`, which renders it and computes the per-mode
/// statistics from the runs' values) and the pages rendered from it (`eval.md`, `eval.html`): every item × mode's metrics, pipeline counters and findings.
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
        let items = self.items.map { item in
            EvalDocument.Item(index: item.index, name: item.name, file: item.file, results: item.results.map(EvalDocument.Run.init))
        }
        return try EvalDocument.make(items: items, modes: modes.map(\.description), modesAsked: outcome.modes != nil,
                                     planned: outcome.plannedCount, isComplete: outcome.isComplete,
                                     shard: outcome.shard?.description,
                                     plan: outcome.plan.map { .object(["entries": .number(Double($0.entries)), "digest": .string($0.digest)]) },
                                     wallSeconds: wallSeconds)
    }

    /// Writes `eval.json` and the pages the renderer makes of it (Reporting's `ReportPages`:
    /// `eval.md`, `eval.html`) into `directory`, atomically and as one change: the pages show the statistics of the
    /// document written, built once, and its verdicts, judged once.
    public func write(to directory: String, renderer: (any ReportRenderer)?) throws {
        let (document, summaries, verdicts) = try document()
        let pages = renderer?.pages(of: self, modeSummaries: summaries, verdicts: verdicts, directory: directory) ?? []
        // As one change: a page that cannot be written leaves the eval.json before it too.
        try AtomicFile.write([((directory as NSString).appendingPathComponent("eval.json"), { write in try document.writeCanonicalText(to: write) })]
                             + pages.map { page in ((directory as NSString).appendingPathComponent(page.name), { write in try write(page.render()) }) })
    }
}
