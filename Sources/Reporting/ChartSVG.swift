import AudioCore
import EchoLabJSON
import Foundation
import Metrics

/// Axis arithmetic shared by the charts: "nice" tick steps (1, 2, 5 × 10ⁿ) and fixed-decimal
/// coordinates, so the same values always draw the same bytes.
enum ChartAxis {
    /// The smallest 1/2/5 × 10ⁿ step that splits `span` into at most `count` intervals.
    static func step(for span: Double, count: Int) -> Double {
        guard span > 0, span.isFinite else { return 1 }
        let raw = span / Double(max(1, count))
        let magnitude = pow(10, floor(log10(raw)))
        for factor in [1.0, 2, 5, 10] where factor * magnitude >= raw { return factor * magnitude }
        return 10 * magnitude
    }

    /// Tick values from `low` to `high` by `step` (both ends snapped outward to a step).
    static func ticks(low: Double, high: Double, step: Double) -> [Double] {
        let first = (low / step).rounded(.down), last = (high / step).rounded(.up)
        return stride(from: first, through: last, by: 1).map { $0 * step }
    }

    static func label(_ value: Double, step: Double) -> String {
        let digits = step >= 1 ? 0 : Int(ceil(-log10(step)))
        let text = FixedDecimal.text(value, fractionDigits: digits)
        return text.hasPrefix("-") && Double(text) == 0 ? String(text.dropFirst()) : text
    }

    static func f(_ value: Double) -> String { FixedDecimal.text(value, fractionDigits: 1) }

    /// A note in the middle of an empty plot, in lines that fit its width (≤ 7.5 px a character at
    /// 13 px), so that a long reason stays inside the plot rather than over its axis title.
    static func emptyNote(_ text: String, centreX: Double, centreY: Double, width: Double) -> String {
        let limit = max(20, Int(width / 7.5))
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > limit {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        let first = centreY - Double(lines.count - 1) * 8
        return "<text class=\"empty-note\" x=\"\(f(centreX))\" y=\"\(f(first))\" text-anchor=\"middle\">"
            + lines.enumerated().map { index, line in
                "<tspan x=\"\(f(centreX))\" dy=\"\(index == 0 ? "0" : "16")\">\(HTMLWriter.escape(line))</tspan>"
            }.joined() + "</text>\n"
    }

    /// The y axis both charts draw: grid lines (the zero line marked), tick labels, the axis line
    /// and its title, rotated along it.
    static func yAxis(ticks: [Double], step: Double, left: Double, right: Double, top: Double, bottom: Double,
                      title: String, y: (Double) -> Double) -> String {
        var svg = "<g class=\"axis y-axis\">"
        for tick in ticks {
            svg += "<line class=\"\(tick == 0 ? "zero" : "grid")\" x1=\"\(f(left))\" x2=\"\(f(right))\" y1=\"\(f(y(tick)))\" y2=\"\(f(y(tick)))\"/>"
            svg += "<text x=\"\(f(left - 6))\" y=\"\(f(y(tick) + 4))\" text-anchor=\"end\">\(label(tick, step: step))</text>"
        }
        svg += "<line x1=\"\(f(left))\" x2=\"\(f(left))\" y1=\"\(f(top))\" y2=\"\(f(bottom))\"/>"
        svg += "<text class=\"axis-title\" transform=\"translate(\(f(left - 40)) \(f(top + (bottom - top) / 2))) rotate(-90)\" text-anchor=\"middle\">\(HTMLWriter.escape(title))</text></g>\n"
        return svg
    }

    /// Legend entries flowed left to right from `left`, wrapping before `right`: each entry's
    /// position (its baseline) from its name's length (≈ 6.5 px a character at 11 px), and the rows used.
    static func legendLayout(_ names: [String], left: Double, right: Double) -> (positions: [(x: Double, y: Double)], rows: Int) {
        var positions: [(x: Double, y: Double)] = []
        var x = left, row = 0
        for name in names {
            let width = 22 + 6.5 * Double(name.count) + 18
            if x > left, x + width > right { x = left; row += 1 }
            positions.append((x, 30 + Double(row) * 16))
            x += width
        }
        return (positions, names.isEmpty ? 0 : row + 1)
    }
}

/// Draws a `ReportDocument.TimeChart`: title, legend, y axis with its unit, time axis with
/// ticks and "time (s)", shaded segments, labelled event markers, one path per line (negative
/// values drawn, nothing clamped), activity lanes under the plot, and a note where nothing
/// was measured.
struct TimeChartSVG {
    let chart: ReportDocument.TimeChart
    init(_ chart: ReportDocument.TimeChart) { self.chart = chart }

    let width = 880.0, left = 100.0, right = 16.0
    /// The legend's entries: the lines, then what the point markers mean, where any is drawn.
    /// Bound marks are drawn only on a light chart (`hasPointMarks`): past that, no legend entry.
    var legendNames: [String] {
        chart.lines.map(\.name) + (hasPointMarks && chart.lines.contains { $0.hasLowerBounds } ? [Self.lowerBoundLabel] : [])
            + (chart.lines.contains { $0.hasLowConfidence } ? [Self.lowConfidenceLabel] : [])
    }
    /// Few enough points for hover targets and bound marks on each (an hour's 7200 would weigh
    /// the page down).
    var hasPointMarks: Bool { chart.lines.reduce(0, { $0 + $1.points.count }) <= 600 }
    static let lowerBoundLabel = "≥ lower bound"
    static let lowConfidenceLabel = "fewer than \(FigureConfidence.minimumAnalysisFrames) analysis frames (low confidence)"
    var legendRows: Int { ChartAxis.legendLayout(legendNames, left: left, right: width - right).rows }
    var top: Double { 30 + Double(legendRows) * 16 }
    let plotHeight = 210.0
    var bottom: Double { top + plotHeight }
    var lanesTop: Double { bottom + 44 }
    var height: Double { lanesTop + Double(chart.lanes.count) * 16 + (chart.lanes.isEmpty ? 0 : 8) }

    func x(_ t: Double) -> Double { left + (width - left - right) * t / max(chart.durationSeconds, 0.001) }

    func render() -> String {
        typealias A = ChartAxis
        let values = chart.lines.flatMap { $0.points.compactMap(\.value) }
        let rawLow = min(chart.yFloor, values.min() ?? chart.yFloor), rawHigh = max(chart.yCeiling, values.max() ?? chart.yCeiling)
        let yStep = A.step(for: rawHigh - rawLow, count: 6)
        let yTicks = A.ticks(low: rawLow, high: rawHigh, step: yStep)
        let low = yTicks.first ?? rawLow, high = yTicks.last ?? rawHigh
        func y(_ value: Double) -> Double { bottom - plotHeight * (value - low) / max(high - low, 1e-9) }

        var svg = "<svg class=\"chart time-chart\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"\(HTMLWriter.escape(chart.title))\">\n"
        svg += "<text class=\"chart-title\" x=\"\(A.f(left))\" y=\"18\">\(HTMLWriter.escape(chart.title))</text>\n"
        svg += legend()
        // Segments first, so lines and markers draw over them.
        for (index, band) in chart.shading.enumerated() where index % 2 == 1 {
            svg += "<rect class=\"segment\" x=\"\(A.f(x(band.start)))\" y=\"\(A.f(top))\" width=\"\(A.f(max(0, x(band.end) - x(band.start))))\" height=\"\(A.f(plotHeight))\"><title>\(HTMLWriter.escape(band.label))</title></rect>\n"
        }
        // y axis: grid, ticks, unit.
        svg += A.yAxis(ticks: yTicks, step: yStep, left: left, right: width - right, top: top, bottom: bottom,
                       title: chart.yLabel, y: y)
        // Time axis.
        let tStep = A.step(for: chart.durationSeconds, count: 10)
        svg += "<g class=\"axis x-axis\"><line x1=\"\(A.f(left))\" x2=\"\(A.f(width - right))\" y1=\"\(A.f(bottom))\" y2=\"\(A.f(bottom))\"/>"
        for tick in A.ticks(low: 0, high: chart.durationSeconds, step: tStep) where tick <= chart.durationSeconds + 1e-9 {
            svg += "<line x1=\"\(A.f(x(tick)))\" x2=\"\(A.f(x(tick)))\" y1=\"\(A.f(bottom))\" y2=\"\(A.f(bottom + 5))\"/>"
            svg += "<text x=\"\(A.f(x(tick)))\" y=\"\(A.f(bottom + 17))\" text-anchor=\"middle\">\(A.label(tick, step: tStep))</text>"
        }
        svg += "<text class=\"axis-title\" x=\"\(A.f(left + (width - left - right) / 2))\" y=\"\(A.f(bottom + 33))\" text-anchor=\"middle\">time (s)</text></g>\n"
        // Lines.
        for (index, line) in chart.lines.enumerated() {
            let colour = line.colour ?? HTMLWriter.palette[index % HTMLWriter.palette.count]
            var path = "", open = false
            for (at, point) in line.points.enumerated() {
                guard let value = point.value else { open = false; continue }
                if !open, at + 1 == line.points.count || line.points[at + 1].value == nil {
                    // A window alone between gaps: a dot, or it would not show.
                    svg += "<circle class=\"lone\" cx=\"\(A.f(x(point.t)))\" cy=\"\(A.f(y(value)))\" r=\"3\" fill=\"\(colour)\"/>"
                    continue
                }
                path += (open ? "L" : "M") + "\(A.f(x(point.t))),\(A.f(y(value)))"
                open = true
            }
            guard !path.isEmpty else { continue }
            svg += "<path class=\"series\(line.isDashed ? " dashed" : "")\" data-series=\"\(HTMLWriter.escape(line.name))\" stroke=\"\(colour)\" d=\"\(path)\"><title>\(HTMLWriter.escape(line.name))</title></path>\n"
        }
        func tooltip(_ line: ReportDocument.TimeChart.Line, _ index: Int) -> String {
            "<title>\(HTMLWriter.escape(line.name)) at \(FixedDecimal.text(line.points[index].t, fractionDigits: 2)) s: \(HTMLWriter.escape(line.valueText(index)))</title>"
        }
        // Points a reader can hover for their value (left out past 600: a long call's plot stays
        // light); a marked point (below) carries its own.
        let isLight = hasPointMarks
        if isLight {
            svg += "<g class=\"points\">"
            for line in chart.lines where !line.isDashed {
                for (index, point) in line.points.enumerated() where !line.isLowerBound(index) && !line.isLowConfidence(index) {
                    guard let value = point.value else { continue }
                    svg += "<circle cx=\"\(A.f(x(point.t)))\" cy=\"\(A.f(y(value)))\" r=\"4\">\(tooltip(line, index))</circle>"
                }
            }
            svg += "</g>\n"
        }
        // A value that only bounds the truth from below is a "≥" (an upward triangle), one on too
        // few frames to trust a hollow marker: drawn as ordinary points they read as results.
        // Bounds past 600 points go unmarked one by one (the legend and the tooltips of the
        // light plot are gone too); a thin point is rare and always marked.
        for (lineIndex, line) in chart.lines.enumerated() where !line.isDashed && (line.hasLowerBounds || line.hasLowConfidence) {
            let colour = line.colour ?? HTMLWriter.palette[lineIndex % HTMLWriter.palette.count]
            var marks = ""
            for (index, point) in line.points.enumerated() {
                guard let value = point.value else { continue }
                let isBound = line.isLowerBound(index) && isLight, isThin = line.isLowConfidence(index)
                guard isBound || isThin else { continue }
                let px = x(point.t), py = y(value)
                let fill = isThin ? "#fff" : colour
                if isBound {
                    marks += "<path class=\"bound-mark\(isThin ? " few-mark" : "")\" d=\"M\(A.f(px)),\(A.f(py - 5.5))L\(A.f(px + 5)),\(A.f(py + 3.5))L\(A.f(px - 5)),\(A.f(py + 3.5))Z\" fill=\"\(fill)\" stroke=\"\(colour)\">\(tooltip(line, index))</path>"
                } else {
                    marks += "<circle class=\"few-mark\" cx=\"\(A.f(px))\" cy=\"\(A.f(py))\" r=\"4.5\" fill=\"\(fill)\" stroke=\"\(colour)\">\(tooltip(line, index))</circle>"
                }
            }
            if !marks.isEmpty { svg += "<g class=\"marks\" data-series=\"\(HTMLWriter.escape(line.name))\">\(marks)</g>\n" }
        }
        // Events: a dashed line and its label, each label in the first row where it overlaps no
        // other; a label no row has room for is left to the line's hover text.
        let rows = eventLabelRows()
        for (index, marker) in chart.markers.enumerated() {
            let mx = x(marker.t)
            svg += "<line class=\"event\" x1=\"\(A.f(mx))\" x2=\"\(A.f(mx))\" y1=\"\(A.f(top))\" y2=\"\(A.f(bottom))\"><title>\(HTMLWriter.escape(marker.label)) at \(FixedDecimal.text(marker.t, fractionDigits: 2)) s</title></line>"
            guard let row = rows[index] else { svg += "\n"; continue }
            let (anchor, lx) = labelPlacement(mx)
            svg += "<text class=\"event-label\" x=\"\(A.f(lx))\" y=\"\(A.f(top + 11 + Double(row) * 12))\" text-anchor=\"\(anchor)\">\(HTMLWriter.escape(marker.label))</text>\n"
        }
        if !chart.hasValues {
            svg += ChartAxis.emptyNote(chart.emptyNote, centreX: left + (width - left - right) / 2, centreY: top + plotHeight / 2, width: width - left - right)
        }
        // Activity lanes, on the same time axis.
        for (index, lane) in chart.lanes.enumerated() {
            let ly = lanesTop + Double(index) * 16
            let colour = ["#1f77b4", "#2ca02c", "#d62728"][index % 3]
            svg += "<g class=\"lane\"><text class=\"lane-label\" x=\"\(A.f(left - 6))\" y=\"\(A.f(ly + 10))\" text-anchor=\"end\">\(HTMLWriter.escape(lane.name))</text>"
            svg += "<rect x=\"\(A.f(left))\" y=\"\(A.f(ly))\" width=\"\(A.f(width - left - right))\" height=\"12\" fill=\"#f5f5f5\"/>"
            for stretch in lane.stretches {
                // A part share is a lighter fill, never so light that it reads as none.
                let opacity = stretch.share.map { 0.12 + 0.58 * min(1, max(0, $0)) } ?? 0.7
                let rect = "<rect x=\"\(A.f(x(stretch.start)))\" y=\"\(A.f(ly))\" width=\"\(A.f(max(0.5, x(stretch.end) - x(stretch.start))))\" height=\"12\" fill=\"\(colour)\" fill-opacity=\"\(A.f(opacity))\""
                svg += stretch.label.isEmpty ? rect + "/>" : rect + "><title>\(HTMLWriter.escape(stretch.label))</title></rect>"
            }
            svg += "</g>\n"
        }
        return svg + "</svg>\n"
    }

    /// Event labels' rows (nil: no room), at most `maximumLabelRows`, placed greedily in time order.
    static let maximumLabelRows = 8
    func eventLabelRows() -> [Int?] {
        var rowEnds: [[ClosedRange<Double>]] = Array(repeating: [], count: Self.maximumLabelRows)
        return chart.markers.map { marker in
            let mx = x(marker.t)
            let (anchor, lx) = labelPlacement(mx)
            // ≈ 5.6 px a character at 10 px, and a little air.
            let length = 5.6 * Double(marker.label.count) + 6
            let span = anchor == "end" ? (lx - length)...lx : lx...(lx + length)
            for row in 0..<Self.maximumLabelRows where !rowEnds[row].contains(where: { $0.overlaps(span) }) {
                rowEnds[row].append(span)
                return row
            }
            return nil
        }
    }

    /// A label reads rightwards from its line, or leftwards near the right edge.
    func labelPlacement(_ mx: Double) -> (anchor: String, x: Double) {
        mx > width - 160 ? ("end", mx - 3) : ("start", mx + 3)
    }

    func legend() -> String {
        guard !chart.lines.isEmpty else { return "" }
        typealias A = ChartAxis
        var svg = "<g class=\"legend\">"
        let names = legendNames
        let layout = ChartAxis.legendLayout(names, left: left, right: width - right)
        for (index, line) in chart.lines.enumerated() {
            let (lx, ly) = layout.positions[index]
            let colour = line.colour ?? HTMLWriter.palette[index % HTMLWriter.palette.count]
            svg += "<line class=\"series\(line.isDashed ? " dashed" : "")\" x1=\"\(A.f(lx))\" x2=\"\(A.f(lx + 18))\" y1=\"\(A.f(ly - 4))\" y2=\"\(A.f(ly - 4))\" stroke=\"\(colour)\"/>"
            svg += "<text x=\"\(A.f(lx + 22))\" y=\"\(A.f(ly))\">\(HTMLWriter.escape(line.name))</text>"
        }
        // The markers' meanings, in grey (they apply to every line).
        for index in chart.lines.count..<names.count {
            let (lx, ly) = layout.positions[index], cx = lx + 9, cy = ly - 4
            svg += names[index] == Self.lowerBoundLabel
                ? "<path class=\"bound-mark\" d=\"M\(A.f(cx)),\(A.f(cy - 5.5))L\(A.f(cx + 5)),\(A.f(cy + 3.5))L\(A.f(cx - 5)),\(A.f(cy + 3.5))Z\" fill=\"#555\" stroke=\"#555\"/>"
                : "<circle class=\"few-mark\" cx=\"\(A.f(cx))\" cy=\"\(A.f(cy))\" r=\"4.5\" fill=\"#fff\" stroke=\"#555\"/>"
            svg += "<text x=\"\(A.f(lx + 22))\" y=\"\(A.f(ly))\">\(HTMLWriter.escape(names[index]))</text>"
        }
        return svg + "</g>\n"
    }
}

/// Draws a `ReportDocument.BandChart`: grouped bars per octave band from a zero line (negative
/// values go down), y axis in dB with ticks, band labels, legend, a note where nothing was measured.
struct BandChartSVG {
    let chart: ReportDocument.BandChart
    init(_ chart: ReportDocument.BandChart) { self.chart = chart }

    let width = 880.0, left = 100.0, right = 16.0, plotHeight = 190.0
    var legendRows: Int { ChartAxis.legendLayout(chart.series.map(\.name), left: left, right: width - right).rows }
    var top: Double { 30 + Double(legendRows) * 16 }
    var bottom: Double { top + plotHeight }
    var group: Double { (width - left - right) / Double(max(chart.bands.count, 1)) }
    /// Labels wider than their band (≈ 6.2 px a character at 11 px) would run into each other:
    /// they are then set at a slant, and the axis title moved under them.
    var slantsLabels: Bool { chart.bands.indices.contains { 6.2 * Double(chart.label($0).count) + 6 > group } }
    var labelDepth: Double {
        guard slantsLabels else { return 0 }
        return 0.6 * 6.2 * Double(chart.bands.indices.map { chart.label($0).count }.max() ?? 0)
    }
    var height: Double { bottom + 40 + labelDepth }

    func render() -> String {
        typealias A = ChartAxis
        let values = chart.series.flatMap { $0.values.compactMap { $0 } }
        let rawLow = min(0, values.min() ?? 0), rawHigh = max(30, values.max() ?? 30)
        let yStep = A.step(for: rawHigh - rawLow, count: 6)
        let yTicks = A.ticks(low: rawLow, high: rawHigh, step: yStep)
        let low = yTicks.first ?? rawLow, high = yTicks.last ?? rawHigh
        func y(_ value: Double) -> Double { bottom - plotHeight * (value - low) / max(high - low, 1e-9) }
        let barWidth = group * 0.8 / Double(max(chart.series.count, 1))

        var svg = "<svg class=\"chart band-chart\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"\(HTMLWriter.escape(chart.title))\">\n"
        svg += "<text class=\"chart-title\" x=\"\(A.f(left))\" y=\"18\">\(HTMLWriter.escape(chart.title))</text>\n"
        if !chart.series.isEmpty {
            svg += "<g class=\"legend\">"
            let layout = ChartAxis.legendLayout(chart.series.map(\.name), left: left, right: width - right)
            for (index, series) in chart.series.enumerated() {
                let (lx, ly) = layout.positions[index]
                svg += "<rect x=\"\(A.f(lx))\" y=\"\(A.f(ly - 9))\" width=\"12\" height=\"10\" fill=\"\(series.colour ?? HTMLWriter.palette[index % HTMLWriter.palette.count])\"/>"
                svg += "<text x=\"\(A.f(lx + 16))\" y=\"\(A.f(ly))\">\(HTMLWriter.escape(series.name))</text>"
            }
            svg += "</g>\n"
        }
        svg += A.yAxis(ticks: yTicks, step: yStep, left: left, right: width - right, top: top, bottom: bottom,
                       title: chart.yLabel, y: y)
        svg += "<g class=\"axis x-axis\"><line x1=\"\(A.f(left))\" x2=\"\(A.f(width - right))\" y1=\"\(A.f(bottom))\" y2=\"\(A.f(bottom))\"/>"
        for index in chart.bands.indices {
            let lx = left + group * (Double(index) + 0.5), label = HTMLWriter.escape(chart.label(index))
            svg += slantsLabels
                ? "<text x=\"\(A.f(lx))\" y=\"\(A.f(bottom + 12))\" text-anchor=\"end\" transform=\"rotate(-40 \(A.f(lx)) \(A.f(bottom + 12)))\">\(label)</text>"
                : "<text x=\"\(A.f(lx))\" y=\"\(A.f(bottom + 16))\" text-anchor=\"middle\">\(label)</text>"
        }
        svg += "<text class=\"axis-title\" x=\"\(A.f(left + (width - left - right) / 2))\" y=\"\(A.f(bottom + 32 + labelDepth))\" text-anchor=\"middle\">\(HTMLWriter.escape(chart.xLabel))</text></g>\n"
        for (s, series) in chart.series.enumerated() {
            let colour = series.colour ?? HTMLWriter.palette[s % HTMLWriter.palette.count]
            for (b, value) in series.values.enumerated() where b < chart.bands.count {
                guard let value else { continue }
                let bound = series.isLowerBound(b) ? "≥ " : ""
                // As the tables print it (report.json's value, no "-0.0"): −0.0317 dB read "-0.0"
                // on the bar beside report.md's "0.0 dB".
                let bx = left + group * Double(b) + group * 0.1 + barWidth * Double(s)
                let y0 = y(0), y1 = y(value)
                svg += "<rect class=\"bar\" x=\"\(A.f(bx))\" y=\"\(A.f(min(y0, y1)))\" width=\"\(A.f(max(1, barWidth - 1)))\" height=\"\(A.f(max(0.5, abs(y1 - y0))))\" fill=\"\(colour)\"><title>\(HTMLWriter.escape(series.name)) \(Int(chart.bands[b].low))–\(Int(chart.bands[b].high)) Hz: \(bound)\(ReportFormatting.number(value, digits: 1)) dB</title></rect>"
                if chart.series.count <= 2 {
                    svg += "<text x=\"\(A.f(bx + barWidth / 2))\" y=\"\(A.f(value >= 0 ? y1 - 3 : y1 + 11))\" text-anchor=\"middle\">\(bound)\(ReportFormatting.number(value, digits: 1))</text>"
                }
            }
            svg += "\n"
        }
        if !chart.hasValues {
            svg += ChartAxis.emptyNote(chart.emptyNote, centreX: left + (width - left - right) / 2, centreY: top + plotHeight / 2, width: width - left - right)
        }
        return svg + "</svg>\n"
    }
}
