import Evaluation

/// The pages EchoLab writes beside every result's JSON: Markdown for pull requests and terminals,
/// one self-contained HTML page for browsers. The `echolab` executable hands this to Evaluation,
/// which calls it as each result finishes.
public struct ReportPages: ReportRenderer {
    public init() {}

    public func pages(of report: RunReport) -> [RenderedPage] {
        let document = RunReportDocument.make(report)
        return [RenderedPage(name: "report.md", text: MarkdownWriter.render(document)),
                RenderedPage(name: "report.html", text: HTMLWriter.render(document))]
    }

    public func pages(of report: RecordingReport, folder: String) -> [RenderedPage] {
        let document = RecordingReportDocument.make(report, folder: folder)
        return [RenderedPage(name: "report.md", text: MarkdownWriter.render(document)),
                RenderedPage(name: "report.html", text: HTMLWriter.render(document))]
    }

    public func pages(of report: EvalReport, modeSummaries summaries: [ModeSummary], directory: String) -> [RenderedPage] {
        [RenderedPage(name: "eval.md", text: MarkdownWriter.render(
                    EvalReportDocument.make(report, detail: .summary, summaries: summaries, directory: directory))),
                RenderedPage(name: "eval.html", text: HTMLWriter.render(
                    EvalReportDocument.make(report, detail: .full, summaries: summaries, directory: directory)))]
    }
}
