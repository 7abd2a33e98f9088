import Evaluation

/// `report.html`: the run's `ReportDocument` as one self-contained page (inline SVG plots,
/// audio players linking the taps beside it).
public enum HTMLReport {
    public static func render(_ report: RunReport) -> String { HTMLWriter.render(RunReportDocument.make(report)) }
}
