import Evaluation

/// The pages EchoLab writes beside every result's JSON: Markdown for pull requests and terminals,
/// one self-contained HTML page for browsers. The `echolab` executable hands this to Evaluation,
/// which renders each page as it writes it.
public struct ReportPages: ReportRenderer {
    public init() {}

    // Each page builds its own document: one page's document and text are freed before the next
    // is built (an hour-long call's report is megabytes).
    public func pages(of report: RunReport) -> [ReportPage] {
        [ReportPage(name: "report.md") { MarkdownWriter.render(RunReportDocument.make(report)) },
         ReportPage(name: "report.html") { HTMLWriter.render(RunReportDocument.make(report)) }]
    }

    public func pages(of report: RecordingReport, folder: String) -> [ReportPage] {
        [ReportPage(name: "report.md") { MarkdownWriter.render(RecordingReportDocument.make(report, folder: folder)) },
         ReportPage(name: "report.html") { HTMLWriter.render(RecordingReportDocument.make(report, folder: folder)) }]
    }

    public func pages(of report: EvalReport, modeSummaries summaries: [ModeSummary], verdicts: EvalVerdicts, directory: String) -> [ReportPage] {
        [ReportPage(name: "eval.md") {
            MarkdownWriter.render(EvalReportDocument.make(report, detail: .summary, summaries: summaries, verdicts: verdicts, directory: directory))
         },
         ReportPage(name: "eval.html") {
            HTMLWriter.render(EvalReportDocument.make(report, detail: .full, summaries: summaries, verdicts: verdicts, directory: directory))
         }]
    }
}
