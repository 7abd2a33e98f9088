/// Renders finished results into the pages that sit beside their JSON (report.md and
/// report.html, eval.md and eval.html). Evaluation runs and judges but renders nothing itself:
/// it hands each finished result to a renderer — Reporting's `ReportPages`, which the `echolab`
/// executable wires in — and writes what comes back with the JSON, atomically, as the result
/// finishes, so an interrupted eval keeps every run that finished.
///
/// Without a renderer a run writes its JSON only (the result model's own serialisation).
/// A page is rendered when it is written, one at a time: an hour-long call's report document and
/// its pages are never all in memory at once.
public protocol ReportRenderer: Sendable {
    /// The pages of a simulated call.
    func pages(of report: RunReport) -> [ReportPage]
    /// The pages of a recording run through a canceller, to be written into `folder` (the
    /// recording's own files are linked relative to it).
    func pages(of report: RecordingReport, folder: String) -> [ReportPage]
    /// The pages of a corpus run; `modeSummaries` are the per-mode statistics of the eval.json
    /// written beside them and `verdicts` what it judged (`best_modes`, each item's front, the
    /// compared means): the pages show them and judge nothing again. `directory`: where they are written.
    func pages(of report: EvalReport, modeSummaries: [ModeSummary], verdicts: EvalVerdicts, directory: String) -> [ReportPage]
}

/// One page a renderer makes: its file name in the result's folder and how to render its text.
public struct ReportPage {
    public var name: String
    public var render: () -> String

    public init(name: String, render: @escaping () -> String) {
        self.name = name
        self.render = render
    }
}
