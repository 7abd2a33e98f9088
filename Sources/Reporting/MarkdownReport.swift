import Evaluation

/// `report.md`: the run's `ReportDocument` as Markdown.
public enum MarkdownReport {
    public static func render(_ report: RunReport) -> String { MarkdownWriter.render(RunReportDocument.make(report)) }
}
