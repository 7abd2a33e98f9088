import Foundation
@testable import Reporting
import XCTest

/// The writers of the one report model: what a chart shows (negative values, events, empty
/// plots), how Markdown escapes, and that the same document gives the same bytes.
final class ReportDocumentTests: XCTestCase {
    private func chart(_ values: [Double?]) -> ReportDocument.TimeChart {
        var chart = ReportDocument.TimeChart(title: "ERLE over time", yLabel: "ERLE (dB)", durationSeconds: Double(values.count) * 0.5,
                                             lines: [.init(name: "ERLE", points: values.enumerated().map { (Double($0.offset) * 0.5 + 0.25, $0.element) })],
                                             emptyNote: "nothing to measure")
        chart.markers = [.init(t: 1, label: "set_aec <Max>")]
        return chart
    }

    /// A value that rounds to zero is printed unsigned: "-0.0 dB" in eval.md read as a measured
    /// sign. Real negatives keep theirs.
    func testValuesRoundingToZeroHaveNoSign() {
        XCTAssertEqual(ReportFormatting.db(-0.0123), "0.0 dB")
        XCTAssertEqual(ReportFormatting.db(-0.0), "0.0 dB")
        XCTAssertEqual(ReportFormatting.db(-0.06), "-0.1 dB")
        XCTAssertEqual(ReportFormatting.number(-0.004, digits: 2, unit: " s"), "0.00 s")
        XCTAssertEqual(ReportFormatting.number(-12.5, digits: 0), "-12")
        XCTAssertEqual(ReportFormatting.db(nil), "—")
    }

    func testNegativeERLEIsDrawnBelowTheZeroLineNotClamped() {
        let html = HTMLWriter.render(ReportDocument(title: "t", blocks: [.timeChart(chart([12, -7, 3]))]))
        // The y axis reaches below −7 with a labelled tick and a zero line.
        XCTAssertTrue(html.contains(">-10</text>"), "axis extends to the negative value")
        XCTAssertTrue(html.contains("class=\"zero\""))
        // The point at −7 lies below the zero line (SVG y grows downwards).
        let zeroY = Double(html.components(separatedBy: "class=\"zero\" ")[1].components(separatedBy: "y1=\"")[1].prefix { $0 != "\"" })!
        let path = html.components(separatedBy: "data-series=\"ERLE\"")[1].components(separatedBy: " d=\"")[1].prefix { $0 != "\"" }
        let ys = path.replacingOccurrences(of: "l0.01,0", with: "").split(whereSeparator: { "ML".contains($0) }).compactMap { point -> Double? in
            let parts = point.split(separator: ","); return parts.count == 2 ? Double(parts[1].prefix { $0 != "l" }) : nil
        }
        XCTAssertEqual(ys.count, 3, String(path))
        XCTAssertGreaterThan(ys[1], zeroY, "−7 dB drawn under 0 dB")
        XCTAssertLessThan(ys[0], zeroY)
        XCTAssertTrue(html.contains(">set_aec &lt;Max&gt;</text>"), "events labelled, escaped")
        XCTAssertTrue(html.contains(">time (s)</text>") && html.contains(">ERLE (dB)</text>"))
    }

    /// A cell's sort key is the value at four decimals, a value that rounds to zero without a
    /// sign: "-0.0000" stood in report.html beside the text "0.0".
    func testASortKeyThatRoundsToZeroHasNoSign() {
        let html = HTMLWriter.render(ReportDocument(title: "t", blocks: [.table(.init(header: ["a"], rows: [
            [.init("0.0", value: -0.00004)], [.init("-0.0", value: -0.00006)], [.init("-2.5", value: -2.5)], [.init("inf", value: -.infinity)],
        ]))]))
        XCTAssertTrue(html.contains("data-value=\"0.0000\""), html)
        XCTAssertFalse(html.contains("data-value=\"-0.0000\""), html)
        XCTAssertTrue(html.contains("data-value=\"-0.0001\""), html)
        XCTAssertTrue(html.contains("data-value=\"-2.5000\""), html)
        // Not a number: no sort key ("-inf" sorted as NaN).
        XCTAssertFalse(html.contains("inf\""), html)
    }

    func testAnEmptyChartSaysWhyInsteadOfDrawingZero() throws {
        let html = HTMLWriter.render(ReportDocument(title: "t", blocks: [.timeChart(chart([nil, nil]))]))
        XCTAssertTrue(html.contains("class=\"empty-note\""))
        XCTAssertFalse(html.contains("class=\"series\" data-series"), "no line drawn")
        let markdown = MarkdownWriter.render(ReportDocument(title: "t", blocks: [.timeChart(chart([nil, nil]))]))
        XCTAssertTrue(markdown.contains("**ERLE over time**: nothing to measure"), markdown)
        // A long reason is set in lines inside the plot (one line ran past both edges of it).
        var long = chart([nil, nil])
        long.emptyNote = "No ERL or ERLE in this item: the echo in the mic is not within 0–500 ms of the loopback: it leads it (a loopback recorded late?), or lags it by more <&>"
        let wrapped = HTMLWriter.render(ReportDocument(title: "t", blocks: [.timeChart(long)]))
        let note = try XCTUnwrap(wrapped.components(separatedBy: "class=\"empty-note\"").dropFirst().first?.components(separatedBy: "</text>").first)
        let lines = note.components(separatedBy: "<tspan").dropFirst().map { $0.components(separatedBy: ">").dropFirst().first?.components(separatedBy: "</tspan").first ?? "" }
        XCTAssertGreaterThan(lines.count, 1, note)
        XCTAssertTrue(lines.allSatisfy { $0.count <= 100 }, "\(lines)")
        XCTAssertEqual(lines.joined(separator: " "), "No ERL or ERLE in this item: the echo in the mic is not within 0–500 ms of the loopback: it leads it (a loopback recorded late?), or lags it by more &lt;&amp;&gt;")
    }

    func testMarkdownEscapesAndKeepsTablesAligned() {
        let document = ReportDocument(title: "run *a*", blocks: [
            .table(.init(header: ["item", "value"], rows: [[.init("x|y"), .init([.strongLink("1.0 dB", href: "a b/report.md")])]])),
            .timeChart(chart([0, 40, nil])),
        ])
        let markdown = MarkdownWriter.render(document)
        XCTAssertTrue(markdown.hasPrefix("# run \\*a\\*\n"), markdown)
        XCTAssertTrue(markdown.contains("| x\\|y | [**1.0 dB**](a%20b/report.md) |"), markdown)
        XCTAssertTrue(markdown.contains("`▁█·`"), markdown)
        XCTAssertTrue(markdown.contains("Events: 1.00 s set\\_aec \\<Max\\>"), markdown)
    }

    func testTheSameDocumentRendersToTheSameBytes() {
        let document = ReportDocument(title: "t", blocks: [.timeChart(chart([1, 2, 3])),
                                                           .bandChart(.init(title: "b", yLabel: "dB", bands: [(125, 250), (250, 500)],
                                                                            series: [.init(name: "a", values: [1, -2]), .init(name: "b", values: [nil, 4])],
                                                                            emptyNote: "none"))])
        XCTAssertEqual(HTMLWriter.render(document), HTMLWriter.render(document))
        let links = HTMLWriter.render(ReportDocument(title: "t", blocks: [.paragraph([.link("item", href: "#item-a"), .link("run", href: "a b/report.html")])]))
        XCTAssertTrue(links.contains("<a href=\"#item-a\">item</a>") && links.contains("<a href=\"a%20b/report.html\">run</a>"), links)
        XCTAssertTrue(HTMLWriter.render(document).contains("a 250–500 Hz: -2.0 dB"), "a negative band value is drawn")
    }

    /// A band the output fell under its floor in only bounds the figure: its table cell and its
    /// bar (tooltip and label) read "≥", as the whole-call figures do; the others read plain.
    func testABandThatIsOnlyABoundReadsAsOne() {
        let document = ReportDocument(title: "t", blocks: [
            .bandChart(.init(title: "ERLE per octave band", yLabel: "dB", bands: [(1000, 2000), (2000, 4000)],
                             series: [.init(name: "ERLE", values: [25.6, 15.9], lowerBounds: [false, true])], emptyNote: "none")),
        ])
        let markdown = MarkdownWriter.render(document)
        XCTAssertTrue(markdown.contains("| 1000–2000 Hz | 25.6 dB |\n| 2000–4000 Hz | ≥ 15.9 dB |"), markdown)
        let html = HTMLWriter.render(document)
        XCTAssertTrue(html.contains("ERLE 2000–4000 Hz: ≥ 15.9 dB</title>") && html.contains("ERLE 1000–2000 Hz: 25.6 dB</title>"), html)
        XCTAssertTrue(html.contains(">≥ 15.9</text>"), html)
        // A value that rounds to zero reads as the table reads it: "0.0", not "-0.0".
        let zero = ReportDocument(title: "t", blocks: [
            .bandChart(.init(title: "ERLE per octave band", yLabel: "dB", bands: [(4000, 8000)],
                             series: [.init(name: "ERLE", values: [-0.0317])], emptyNote: "none")),
        ])
        XCTAssertTrue(MarkdownWriter.render(zero).contains("| 4000–8000 Hz | 0.0 dB |"), MarkdownWriter.render(zero))
        let zeroHTML = HTMLWriter.render(zero)
        XCTAssertTrue(zeroHTML.contains("ERLE 4000–8000 Hz: 0.0 dB</title>") && zeroHTML.contains(">0.0</text>"), zeroHTML)
    }

    /// A ")" ends a Markdown link target: parentheses in a path are percent-encoded there (an
    /// HTML attribute needs no such care).
    func testMarkdownLinkTargetsEncodeParentheses() {
        let document = ReportDocument(title: "t", blocks: [.audio([.init(label: "mic (recording)", path: "../a)b/(1) mic.wav")])])
        XCTAssertEqual(MarkdownWriter.render(document).components(separatedBy: "\n").first { $0.hasPrefix("Listen: ") },
                       "Listen: [mic (recording)](../a%29b/%281%29%20mic.wav)")
        XCTAssertTrue(HTMLWriter.render(document).contains(#"src="../a)b/(1)%20mic.wav""#))
    }

    /// Each item's id on eval's pages is its own: "a+b" and "a-b" both read "item-a-b", and one
    /// item's link went to the other.
    func testNoTwoItemNamesShareAnAnchor() {
        let names = ["a+b", "a-b", "a_b", "a b", "a_2Bb", "café", "room.1"]
        XCTAssertEqual(Set(names.map(EvalReportDocument.anchor)).count, names.count, "\(names.map(EvalReportDocument.anchor))")
        XCTAssertEqual(EvalReportDocument.anchor("hw-route-bluetooth-a2dp"), "item-hw-route-bluetooth-a2dp", "plain names as they were")
        XCTAssertEqual(EvalReportDocument.anchor("a+b"), "item-a_2Bb")
    }
}
