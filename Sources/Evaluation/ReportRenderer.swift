/// Renders finished results into the pages that sit beside their JSON (report.md and
/// report.html, eval.md and eval.html). Evaluation runs and judges but renders nothing itself:
/// it hands each finished result to a renderer — Reporting's `ReportPages`, which the `echolab`
/// executable wires in — and writes what comes back with the JSON, atomically, as the result
/// finishes, so an interrupted eval keeps every run that finished.
///
/// Without a renderer a run writes its JSON only (the result model's own serialisation).
public protocol ReportRenderer: Sendable {
    /// The pages of a simulated call.
    func pages(of report: RunReport) -> [RenderedPage]
    /// The pages of a recording run through a canceller, to be written into `folder` (the
    /// recording's own files are linked relative to it).
    func pages(of report: RecordingReport, folder: String) -> [RenderedPage]
    /// The pages of a corpus run; `modeSummaries` are the per-mode statistics of the eval.json
    /// written beside them, `directory` where they are written.
    func pages(of report: EvalReport, modeSummaries: [ModeSummary], directory: String) -> [RenderedPage]
}

/// One page a renderer made: its file name in the result's folder and its text.
public struct RenderedPage: Sendable, Equatable {
    public var name: String
    public var text: String

    public init(name: String, text: String) {
        self.name = name
        self.text = text
    }
}
