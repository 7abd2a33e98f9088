import AudioCore
import EchoLabJSON
import Foundation

/// Renders a `ReportDocument` as one self-contained HTML page: inline CSS, inline SVG plots
/// (drawn here, so the page needs no script to show them), a small inline script only to sort
/// sortable tables, audio players with relative links. Nothing is fetched from the network.
/// Same document → same bytes.
public enum HTMLWriter {
    public static func render(_ document: ReportDocument) -> String {
        var body = "<h1>\(escape(document.title))</h1>\n"
        var hasSortable = false
        for block in document.blocks {
            switch block {
            case .heading(let text, let level, let id):
                let tag = "h\(max(2, min(level, 4)))"
                body += "<\(tag)\(id.map { " id=\"\(escape($0))\"" } ?? "")>\(escape(text))</\(tag)>\n"
            case .paragraph(let spans):
                body += "<p>\(inline(spans))</p>\n"
            case .note(let spans):
                body += "<p class=\"note\">\(inline(spans))</p>\n"
            case .list(let items):
                body += "<ul>\n" + items.map { "<li>\(inline($0))</li>\n" }.joined() + "</ul>\n"
            case .table(let table):
                hasSortable = hasSortable || table.isSortable
                body += Self.table(table)
            case .timeChart(let chart):
                body += TimeChartSVG(chart).render()
            case .bandChart(let chart):
                body += BandChartSVG(chart).render()
            case .scatterChart(let chart):
                body += ScatterChartSVG(chart).render()
            case .audio(let clips):
                body += "<div class=\"players\">\n"
                for clip in clips {
                    body += "<figure class=\"player\"><figcaption>\(escape(clip.label))</figcaption>"
                    body += "<audio controls preload=\"none\" src=\"\(escape(linkTarget(clip.path)))\"></audio></figure>\n"
                }
                body += "</div>\n"
            }
        }
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(document.title))</title>
        <style>\(style)</style></head><body>
        \(body)\(hasSortable ? "<script>\(sortScript)</script>\n" : "")</body></html>

        """
    }

    static func table(_ table: ReportDocument.Table) -> String {
        var out = "<table\(table.isSortable ? " class=\"sortable\"" : "")><thead><tr>"
        for (index, name) in table.header.enumerated() {
            out += table.isSortable ? "<th data-column=\"\(index)\" title=\"sort\">\(escape(name))</th>" : "<th>\(escape(name))</th>"
        }
        out += "</tr></thead><tbody>\n"
        for row in table.rows {
            out += "<tr>"
            for cell in row {
                // A sort key, not the text: a value that rounds to zero is "0.0000", not "-0.0000".
                // A sort key of a number only: "inf" or "nan" read as NaN and left the sort unstable.
                let value = cell.value.flatMap { value in
                    value.isFinite ? " data-value=\"\(FixedDecimal.text(FixedDecimal.scaled(value, fractionDigits: 4) == 0 ? 0 : value, fractionDigits: 4))\"" : nil
                } ?? ""
                let detail = cell.detail.map { " title=\"\(escape($0))\"" } ?? ""
                out += "<td\(cell.isNumeric ? " class=\"num\"" : "")\(value)\(detail)>\(inline(cell.spans))</td>"
            }
            out += "</tr>\n"
        }
        return out + "</tbody></table>\n"
    }

    static func inline(_ spans: [ReportDocument.Span]) -> String {
        spans.map { span in
            switch span {
            case .text(let text): escape(text)
            case .code(let text): "<code>\(escape(text))</code>"
            case .strong(let text): "<strong>\(escape(text))</strong>"
            case .link(let text, let href): "<a href=\"\(escape(linkTarget(href)))\">\(escape(text))</a>"
            case .strongLink(let text, let href): "<a href=\"\(escape(linkTarget(href)))\"><strong>\(escape(text))</strong></a>"
            }
        }.joined()
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A relative path as a URL path (spaces and the like percent-encoded).
    static func linkTarget(_ path: String) -> String {
        // "#anchor" is a link within the page: only its name is encoded.
        if path.hasPrefix("#") { return "#" + (path.dropFirst().addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed) ?? "") }
        return path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
    }

    /// Line and bar colours: distinct for up to 13 modes, the first ones readable by most
    /// colour-blind readers (Tableau 10, then three more).
    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
                          "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#843c39"]

    static let style = """
    body{font-family:system-ui,-apple-system,"DejaVu Sans",sans-serif;max-width:78rem;margin:1.5rem auto;padding:0 1rem;color:#222;line-height:1.4}
    h1{font-size:1.6rem}h2{margin-top:2rem;border-bottom:1px solid #ddd}h3{margin-top:1.5rem}
    table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem;display:block;max-width:100%;overflow-x:auto}td,th{border:1px solid #ddd;padding:.2rem .4rem;text-align:left}
    th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
    table.sortable th{cursor:pointer;user-select:none}table.sortable td:first-child,table.sortable td:nth-child(2){white-space:nowrap}table.sortable th[aria-sort=ascending]::after{content:" ▲"}table.sortable th[aria-sort=descending]::after{content:" ▼"}
    code{background:#f3f3f3;padding:0 .2rem;font-size:.9em}.note{background:#fff8e1;border-left:4px solid #f9a825;padding:.4rem .7rem}
    svg.chart{display:block;background:#fff;border:1px solid #ddd;margin:.5rem 0;max-width:100%;height:auto}
    svg text{font-size:11px;fill:#444;font-family:inherit}svg .chart-title{font-size:13px;font-weight:600;fill:#222}
    svg .axis-title{font-size:11px;fill:#222}svg .axis line{stroke:#777}svg .axis line.grid{stroke:#e8e8e8}svg .axis line.zero{stroke:#444;stroke-width:1.2}
    svg .series{fill:none;stroke-width:2;stroke-linejoin:round;stroke-linecap:round}svg .dashed{stroke-dasharray:6 4}
    svg .event{stroke:#c62828;stroke-dasharray:4 3}svg .event-label{fill:#c62828;font-size:10px}
    svg .segment{fill:#eef3fb}svg .points circle{fill:transparent;stroke:none}svg .points circle:hover{fill:#0005}svg .empty-note{font-size:13px;fill:#8d6e00}svg .ring{fill:none;stroke:#222;stroke-width:1.5}svg .point-label{font-size:11px;fill:#222}td[title]{white-space:nowrap;cursor:help}svg .lane-label{font-size:10px}svg .bound-mark,svg .few-mark{stroke-width:1.5}svg .bound-arrow{fill:none;stroke-width:1.5}
    .players{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem}.player{margin:0}.player figcaption{font-size:.85rem;color:#555}
    """

    /// Sorts a `table.sortable` by the clicked column: numbers by their `data-value` (cells
    /// without one last), text otherwise; a second click reverses.
    static let sortScript = """
    document.querySelectorAll("table.sortable").forEach(function(table){
      table.querySelectorAll("th").forEach(function(th){
        th.addEventListener("click",function(){
          var column=+th.dataset.column, body=table.tBodies[0], rows=Array.prototype.slice.call(body.rows);
          var descending=th.getAttribute("aria-sort")==="ascending";
          table.querySelectorAll("th").forEach(function(other){other.removeAttribute("aria-sort");});
          th.setAttribute("aria-sort",descending?"descending":"ascending");
          function key(row){var cell=row.cells[column];return cell&&cell.dataset.value!==undefined?+cell.dataset.value:null;}
          rows.sort(function(a,b){
            var x=key(a),y=key(b),order;
            if(x!==null||y!==null){if(x===null)return 1;if(y===null)return -1;order=x-y;}
            else{order=a.cells[column].textContent.localeCompare(b.cells[column].textContent);}
            return descending?-order:order;
          });
          rows.forEach(function(row){body.appendChild(row);});
        });
      });
      table.dataset.sortReady="true";
    });
    """
}
