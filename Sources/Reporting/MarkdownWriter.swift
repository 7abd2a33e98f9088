import AudioCore
import EchoLabJSON
import Foundation
import Metrics

/// Renders a `ReportDocument` as Markdown (GitHub's dialect): charts become one-line sparklines
/// (time) or tables (bands), audio becomes links.
public enum MarkdownWriter {
    public static func render(_ document: ReportDocument) -> String {
        var out = "# \(escape(document.title))\n"
        for block in document.blocks {
            out += "\n"
            switch block {
            case .heading(let text, let level, _):
                out += String(repeating: "#", count: max(2, min(level, 4))) + " \(escape(text))\n"
            case .paragraph(let spans):
                out += inline(spans) + "\n"
            case .note(let spans):
                out += "> " + inline(spans) + "\n"
            case .list(let items):
                for item in items { out += "- " + inline(item) + "\n" }
            case .table(let table):
                out += Self.table(table)
            case .timeChart(let chart):
                out += Self.timeChart(chart)
            case .bandChart(let chart):
                out += Self.bandChart(chart)
            case .scatterChart(let chart):
                out += Self.scatterChart(chart)
            case .audio(let clips):
                out += "Listen: " + clips.map { "[\(escape($0.label))](\(linkTarget($0.path)))" }.joined(separator: " · ") + "\n"
            }
        }
        return out
    }

    static func table(_ table: ReportDocument.Table) -> String {
        var out = "| " + table.header.map(cellText).joined(separator: " | ") + " |\n"
        out += "|" + String(repeating: "---|", count: table.header.count) + "\n"
        for row in table.rows { out += "| " + row.map { cellText(inline($0.spans)) }.joined(separator: " | ") + " |\n" }
        return out
    }

    static func timeChart(_ chart: ReportDocument.TimeChart) -> String {
        guard chart.hasValues else { return "**\(escape(chart.title))**: \(escape(chart.emptyNote))\n" }
        // Dashed lines are references (a steady state): a sparkline of two points says nothing.
        let lines = chart.lines.filter { !$0.isDashed }
        // The range widens to show what was measured (negative ERLE included), in steps of 10.
        let values = lines.flatMap { $0.points.compactMap(\.value) }
        let low = min(chart.sparkRange.lowerBound, ((values.min() ?? 0) / 10).rounded(.down) * 10)
        let high = max(chart.sparkRange.upperBound, ((values.max() ?? 0) / 10).rounded(.up) * 10)
        var out = "**\(escape(chart.title))** — \(escape(chart.yLabel)) from \(format(low)) to \(format(high)), one mark per point, · where none\n\n"
        let width = lines.map(\.name.count).max() ?? 0
        for line in lines {
            let name = line.name.padding(toLength: width, withPad: " ", startingAt: 0)
            out += "    \(name) \(sparkline(line.points.map(\.value), range: low...high))\n"
        }
        // A sparkline mark cannot say "≥" or how thin a point is: the points that are bounds or
        // stand on too few frames are named under it (the HTML marks them on the plot).
        let marked = lines.compactMap(markedPoints)
        if !marked.isEmpty { out += "\n" + marked.joined(separator: "\n\n") + "\n" }
        if !chart.markers.isEmpty {
            out += "\nEvents: " + chart.markers.map { "\(FixedDecimal.text($0.t, fractionDigits: 2)) s \(escape($0.label))" }.joined(separator: "; ") + "\n"
        }
        return out
    }

    /// "ERLE: ≥ (a lower bound) at 3 of 12 points, 0.25 s, 0.75 s, 1.25 s; fewer than 20 analysis
    /// frames (low confidence) at 5.25 s (1 frame) (times: the windows' centres)"; nil where the
    /// line has neither. The points are drawn at their windows' centres; report.json's series and
    /// the convergence time give the windows' starts, and a page that does not say which reads as
    /// a second clock.
    static func markedPoints(_ line: ReportDocument.TimeChart.Line) -> String? {
        let measured = line.points.indices.filter { line.points[$0].value != nil }
        func times(_ indices: [Int], frames: Bool) -> String {
            let shown = 10
            let text = indices.prefix(shown).map { index in
                "\(FixedDecimal.text(line.points[index].t, fractionDigits: 2)) s"
                    + (frames ? " (\(line.frames[index]) frame\(line.frames[index] == 1 ? "" : "s"))" : "")
            }.joined(separator: ", ")
            return text + (indices.count > shown ? " and \(indices.count - shown) more" : "")
        }
        var parts: [String] = []
        let bounds = measured.filter(line.isLowerBound)
        if !bounds.isEmpty {
            parts.append("≥ (a lower bound) at " + (bounds.count == measured.count ? "every point (\(bounds.count))"
                                                     : "\(bounds.count) of \(measured.count) points, " + times(bounds, frames: false)))
        }
        let thin = measured.filter(line.isLowConfidence)
        if !thin.isEmpty {
            parts.append("fewer than \(FigureConfidence.minimumAnalysisFrames) analysis frames (low confidence) at " + times(thin, frames: true))
        }
        let listsTimes = !thin.isEmpty || (!bounds.isEmpty && bounds.count < measured.count)
        return parts.isEmpty ? nil : escape("\(line.name): " + parts.joined(separator: "; ") + (listsTimes ? " (times: the windows' centres)" : "") + ".")
    }

    static func bandChart(_ chart: ReportDocument.BandChart) -> String {
        guard chart.hasValues else { return "**\(escape(chart.title))**: \(escape(chart.emptyNote))\n" }
        var out = "**\(escape(chart.title))**\n\n| band | " + chart.series.map { cellText($0.name) }.joined(separator: " | ") + " |\n"
        out += "|---|" + String(repeating: "---:|", count: chart.series.count) + "\n"
        // Named as the HTML chart names them (a third octave by its nominal centre).
        for index in chart.bands.indices {
            out += "| \(chart.label(index)) Hz | "
            out += chart.series.map { $0.text(index) }.joined(separator: " | ") + " |\n"
        }
        return out
    }

    /// A scatter chart as a table of its points (highlighted ones in bold).
    static func scatterChart(_ chart: ReportDocument.ScatterChart) -> String {
        guard !chart.points.isEmpty else { return "**\(escape(chart.title))**: \(escape(chart.emptyNote))\n" }
        var out = "**\(escape(chart.title))**\n\n| | \(cellText(chart.xLabel)) | \(cellText(chart.yLabel)) |\n|---|---:|---:|\n"
        for point in chart.points {
            let name = point.isHighlighted ? "**\(escape(point.name))**" : escape(point.name)
            out += "| \(cellText(name)) | \(point.xText) | \(point.yText) |\n"
        }
        return out
    }

    /// One character per value, eight levels across `range` (clamped: the table says the value).
    static func sparkline(_ values: [Double?], range: ClosedRange<Double>) -> String {
        let levels = Array("▁▂▃▄▅▆▇█")
        let span = range.upperBound - range.lowerBound
        return "`" + String(values.map { value -> Character in
            guard let value else { return "·" }
            let share = (min(max(value, range.lowerBound), range.upperBound) - range.lowerBound) / span
            return levels[Int((share * Double(levels.count - 1)).rounded())]
        }) + "`"
    }

    static func inline(_ spans: [ReportDocument.Span]) -> String {
        spans.map { span in
            switch span {
            case .text(let text): escape(text)
            case .code(let text): "`\(text.replacingOccurrences(of: "`", with: "'"))`"
            case .strong(let text): "**\(escape(text))**"
            case .link(let text, let href): "[\(escape(text))](\(linkTarget(href)))"
            case .strongLink(let text, let href): "[**\(escape(text))**](\(linkTarget(href)))"
            }
        }.joined()
    }

    /// Markdown's own characters in text would start emphasis or links: escaped.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            if "\\`*_[]<>".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// `text` as plain text in a line (a list item): Markdown's own characters escaped, a line
    /// break of any kind (which would end the item) as a space.
    public static func inlineText(_ text: String) -> String {
        escape(text.replacingOccurrences(of: "\r\n", with: " ").replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " "))
    }

    /// `text` as one table cell: a `|` would end the cell and a line break the row.
    public static func cellText(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ") }

    static func linkTarget(_ path: String) -> String {
        // "#anchor" is a link within the page: only its name is encoded.
        if path.hasPrefix("#") { return "#" + (path.dropFirst().addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed) ?? "") }
        return path.addingPercentEncoding(withAllowedCharacters: pathAllowed) ?? path
    }

    /// URL path characters less the parentheses: a ")" in a link target ends a Markdown link
    /// (a corpus in a folder named `a)b` had its players' links cut there).
    private static let pathAllowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "()"))

    static func format(_ value: Double) -> String { String(format: "%g", value) }
}
