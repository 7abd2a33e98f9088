import Foundation
import Metrics

/// `report.html`: self-contained (no scripts, no external files), with inline SVG plots of ERLE
/// over time (timeline events marked) and per octave band.
public enum HTMLReport {
    public static func render(_ report: RunReport) -> String {
        let markdownTables = MarkdownReport.render(report)
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>EchoLab: \(escape(report.scenarioName))</title>
        <style>
        body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
        svg{background:#fafafa;border:1px solid #ddd} .axis{stroke:#999;stroke-width:1} .grid{stroke:#eee}
        .series{fill:none;stroke:#1565c0;stroke-width:2} .event{stroke:#c62828;stroke-dasharray:4 3}
        .bar{fill:#2e7d32} text{font-size:11px;fill:#555} table{border-collapse:collapse;margin:.5rem 0}
        td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left} code{background:#f3f3f3}
        </style></head><body>
        <h1>EchoLab run: \(escape(report.scenarioName))</h1>
        <h2>ERLE over time</h2>
        \(seriesPlot(report))
        <h2>ERLE per octave band</h2>
        \(bandPlot(report.metrics.erleBands))
        \(html(fromReportMarkdown: markdownTables))
        </body></html>

        """
    }

    static func seriesPlot(_ report: RunReport) -> String {
        let width = 800.0, height = 260.0, left = 40.0, bottom = 24.0
        let series = report.metrics.erleSeries
        let duration = max(report.durationSeconds, 0.5)
        let top = max(40, (series.compactMap(\.erleDB).max() ?? 0) + 5)
        func x(_ t: Double) -> Double { left + (width - left - 10) * t / duration }
        func y(_ db: Double) -> Double { (height - bottom) * (1 - (max(db, 0) / top)) + 5 }
        var svg = "<svg width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"ERLE over time\">"
        for db in stride(from: 0.0, through: top, by: 10) {
            svg += "<line class=\"grid\" x1=\"\(left)\" x2=\"\(width)\" y1=\"\(y(db))\" y2=\"\(y(db))\"/><text x=\"4\" y=\"\(y(db) + 4)\">\(Int(db)) dB</text>"
        }
        svg += "<line class=\"axis\" x1=\"\(left)\" x2=\"\(width)\" y1=\"\(y(0))\" y2=\"\(y(0))\"/>"
        var path = ""
        for point in series {
            guard let db = point.erleDB else { path += " "; continue }
            let t = point.timeSeconds + 0.25
            path += (path.isEmpty || path.hasSuffix(" ") ? "M" : "L") + String(format: "%.1f,%.1f", x(t), y(db))
        }
        if !path.isEmpty { svg += "<path class=\"series\" d=\"\(path)\"/>" }
        for event in report.events where event.kind == "timeline" {
            let t = Double(event.frame) / Double(report.sampleRate)
            svg += "<line class=\"event\" x1=\"\(x(t))\" x2=\"\(x(t))\" y1=\"5\" y2=\"\(y(0))\"><title>\(escape(event.detail)) at \(String(format: "%.2f", t)) s</title></line>"
        }
        svg += "<text x=\"\(width - 60)\" y=\"\(height - 6)\">\(String(format: "%.1f", duration)) s</text></svg>"
        return svg
    }

    static func bandPlot(_ bands: [BandERLE]) -> String {
        let width = 800.0, height = 200.0, barWidth = (width - 60) / Double(max(bands.count, 1))
        let top = max(40, (bands.compactMap(\.erleDB).max() ?? 0) + 5)
        var svg = "<svg width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"ERLE per octave band\">"
        for (index, band) in bands.enumerated() {
            let x = 40 + Double(index) * barWidth
            let value = max(band.erleDB ?? 0, 0)
            let barHeight = (height - 40) * value / top
            svg += "<rect class=\"bar\" x=\"\(x + 4)\" y=\"\(height - 24 - barHeight)\" width=\"\(barWidth - 8)\" height=\"\(barHeight)\"><title>\(band.erleDB.map { String(format: "%.1f dB", $0) } ?? "no data")</title></rect>"
            svg += "<text x=\"\(x + 4)\" y=\"\(height - 8)\">\(Int(band.lowHz))–\(Int(band.highHz))</text>"
            svg += "<text x=\"\(x + 4)\" y=\"\(height - 28 - barHeight)\">\(band.erleDB.map { String(format: "%.1f", $0) } ?? "—")</text>"
        }
        return svg + "</svg>"
    }

    /// The Markdown report's own subset (headings, tables, bullets, paragraphs, `code`, **bold**)
    /// as HTML, so the page carries the same details without a Markdown renderer.
    static func html(fromReportMarkdown markdown: String) -> String {
        var out = "", inTable = false, inList = false
        func close() {
            if inTable { out += "</table>\n"; inTable = false }
            if inList { out += "</ul>\n"; inList = false }
        }
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("# ") { close(); continue }   // the page has its own title
            if line.hasPrefix("#") {
                close()
                let level = min(4, line.prefix { $0 == "#" }.count + 0)
                out += "<h\(level)>\(inline(String(line.drop { $0 == "#" || $0 == " " })))</h\(level)>\n"
            } else if line.hasPrefix("|") {
                if line.contains("|---") { continue }
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                    .map { inline($0.trimmingCharacters(in: .whitespaces)) }
                if !inTable { close(); out += "<table>\n"; inTable = true }
                out += "<tr>" + cells.map { "<td>\($0)</td>" }.joined() + "</tr>\n"
            } else if line.hasPrefix("- ") {
                if !inList { close(); out += "<ul>\n"; inList = true }
                out += "<li>\(inline(String(line.dropFirst(2))))</li>\n"
            } else if line.isEmpty {
                close()
            } else {
                close()
                out += "<p>\(inline(line))</p>\n"
            }
        }
        close()
        return out
    }

    /// `code` and **bold** inside escaped text.
    static func inline(_ text: String) -> String {
        var out = "", code = false, index = text.startIndex
        let escaped = escape(text)
        index = escaped.startIndex
        var bold = false
        while index < escaped.endIndex {
            if escaped[index] == "`" {
                out += code ? "</code>" : "<code>"
                code.toggle()
            } else if escaped[index...].hasPrefix("**") {
                out += bold ? "</strong>" : "<strong>"
                bold.toggle()
                index = escaped.index(after: index)
            } else {
                out.append(escaped[index])
            }
            index = escaped.index(after: index)
        }
        return out
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
