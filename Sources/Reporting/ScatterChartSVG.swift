import EchoLabJSON
import Foundation

/// Draws a `ReportDocument.ScatterChart`: a dot per point on two value axes with their titles,
/// a legend of the points' names, highlighted points ringed and labelled (other names on hover),
/// and a note where there is nothing to draw.
struct ScatterChartSVG {
    let chart: ReportDocument.ScatterChart
    init(_ chart: ReportDocument.ScatterChart) { self.chart = chart }

    let width = 880.0, left = 100.0, right = 24.0, plotHeight = 300.0
    var hasBounds: Bool { chart.points.contains { $0.xIsLowerBound || $0.yIsLowerBound } }
    var legendNames: [String] {
        chart.points.map(\.name) + (chart.points.contains { $0.isHighlighted } ? [chart.highlightLabel] : [])
            + (hasBounds ? [chart.lowerBoundLabel] : [])
    }
    var legendRows: Int { ChartAxis.legendLayout(legendNames, left: left, right: width - right).rows }
    var top: Double { 30 + Double(legendRows) * 16 + 8 }
    var bottom: Double { top + plotHeight }
    var height: Double { bottom + 42 }

    func render() -> String {
        typealias A = ChartAxis
        let xs = chart.points.map(\.x), ys = chart.points.map(\.y)
        // Zero stays in view on both axes (no attenuation, no ERLE), and a margin around the points.
        func range(_ values: [Double], minimumSpan: Double) -> (ticks: [Double], step: Double) {
            var low = min(0, values.min() ?? 0), high = max(0, values.max() ?? 0)
            if high - low < minimumSpan { high = low + minimumSpan }
            let pad = (high - low) * 0.08
            let step = A.step(for: high - low + 2 * pad, count: 8)
            return (A.ticks(low: low - (low < 0 ? pad : 0), high: high + pad, step: step), step)
        }
        /// A known scale's ticks, ends included.
        func fixed(_ scale: ClosedRange<Double>) -> (ticks: [Double], step: Double) {
            let step = A.step(for: scale.upperBound - scale.lowerBound, count: 8)
            return (A.ticks(low: scale.lowerBound, high: scale.upperBound, step: step), step)
        }
        let (xTicks, xStep) = chart.xRange.map(fixed) ?? range(xs, minimumSpan: 5)
        let (yTicks, yStep) = chart.yRange.map(fixed) ?? range(ys, minimumSpan: 10)
        let xLow = xTicks.first ?? 0, xHigh = xTicks.last ?? 1, yLow = yTicks.first ?? 0, yHigh = yTicks.last ?? 1
        func x(_ value: Double) -> Double { left + (width - left - right) * (value - xLow) / max(xHigh - xLow, 1e-9) }
        func y(_ value: Double) -> Double { bottom - plotHeight * (value - yLow) / max(yHigh - yLow, 1e-9) }

        var svg = "<svg class=\"chart scatter-chart\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"\(HTMLWriter.escape(chart.title))\">\n"
        svg += "<text class=\"chart-title\" x=\"\(A.f(left))\" y=\"18\">\(HTMLWriter.escape(chart.title))</text>\n"
        svg += legend()
        svg += A.yAxis(ticks: yTicks, step: yStep, left: left, right: width - right, top: top, bottom: bottom, title: chart.yLabel, y: y)
        svg += "<g class=\"axis x-axis\">"
        for tick in xTicks {
            svg += "<line class=\"\(tick == 0 ? "zero" : "grid")\" x1=\"\(A.f(x(tick)))\" x2=\"\(A.f(x(tick)))\" y1=\"\(A.f(top))\" y2=\"\(A.f(bottom))\"/>"
            svg += "<text x=\"\(A.f(x(tick)))\" y=\"\(A.f(bottom + 17))\" text-anchor=\"middle\">\(A.label(tick, step: xStep))</text>"
        }
        svg += "<line x1=\"\(A.f(left))\" x2=\"\(A.f(width - right))\" y1=\"\(A.f(bottom))\" y2=\"\(A.f(bottom))\"/>"
        svg += "<text class=\"axis-title\" x=\"\(A.f(left + (width - left - right) / 2))\" y=\"\(A.f(bottom + 34))\" text-anchor=\"middle\">\(HTMLWriter.escape(chart.xLabel))</text></g>\n"
        // Highlighted points last, so their rings and labels draw over the others.
        let order = chart.points.indices.sorted { (chart.points[$0].isHighlighted ? 1 : 0, $0) < (chart.points[$1].isHighlighted ? 1 : 0, $1) }
        var labelSpans: [(x: ClosedRange<Double>, y: Double)] = []
        for index in order {
            let point = chart.points[index]
            let colour = point.colour ?? HTMLWriter.palette[index % HTMLWriter.palette.count]
            let px = x(point.x), py = y(point.y)
            let names = chart.valueNames.map { ("\($0.x) ", "\($0.y) ") } ?? ("", "")
            let value = HTMLWriter.escape("\(point.name): \(names.0)\(point.xText), \(names.1)\(point.yText)")
            // A bound's arrow: where the value may lie, up (more ERLE) or right (more attenuation).
            if point.yIsLowerBound {
                svg += "<path class=\"bound-arrow\" d=\"M\(A.f(px)),\(A.f(py - 6))V\(A.f(py - 20))M\(A.f(px - 4)),\(A.f(py - 15))L\(A.f(px)),\(A.f(py - 20))L\(A.f(px + 4)),\(A.f(py - 15))\" stroke=\"\(colour)\"><title>\(value)</title></path>"
            }
            if point.xIsLowerBound {
                svg += "<path class=\"bound-arrow\" d=\"M\(A.f(px + 6)),\(A.f(py))H\(A.f(px + 20))M\(A.f(px + 15)),\(A.f(py - 4))L\(A.f(px + 20)),\(A.f(py))L\(A.f(px + 15)),\(A.f(py + 4))\" stroke=\"\(colour)\"><title>\(value)</title></path>"
            }
            svg += "<circle class=\"dot\" data-series=\"\(HTMLWriter.escape(point.name))\" cx=\"\(A.f(px))\" cy=\"\(A.f(py))\" r=\"5\" fill=\"\(colour)\"><title>\(value)</title></circle>"
            if point.isHighlighted {
                svg += "<circle class=\"ring\" cx=\"\(A.f(px))\" cy=\"\(A.f(py))\" r=\"9\"/>"
                // The label right of its ring, moved down a line while it would cover another.
                let length = 6.2 * Double(point.name.count)
                let toLeft = px + 12 + length > width - right
                let span = toLeft ? (px - 12 - length)...(px - 12) : (px + 12)...(px + 12 + length)
                var ly = py + 4
                while labelSpans.contains(where: { $0.x.overlaps(span) && abs($0.y - ly) < 12 }) { ly += 12 }
                labelSpans.append((span, ly))
                svg += "<text class=\"point-label\" x=\"\(A.f(toLeft ? px - 12 : px + 12))\" y=\"\(A.f(ly))\" text-anchor=\"\(toLeft ? "end" : "start")\">\(HTMLWriter.escape(point.name))</text>"
            }
            svg += "\n"
        }
        if chart.points.isEmpty {
            svg += ChartAxis.emptyNote(chart.emptyNote, centreX: left + (width - left - right) / 2, centreY: top + plotHeight / 2, width: width - left - right)
        }
        return svg + "</svg>\n"
    }

    func legend() -> String {
        guard !chart.points.isEmpty else { return "" }
        let layout = ChartAxis.legendLayout(legendNames, left: left, right: width - right)
        var svg = "<g class=\"legend\">"
        for (index, point) in chart.points.enumerated() {
            let (lx, ly) = layout.positions[index]
            svg += "<circle cx=\"\(ChartAxis.f(lx + 9))\" cy=\"\(ChartAxis.f(ly - 4))\" r=\"5\" fill=\"\(point.colour ?? HTMLWriter.palette[index % HTMLWriter.palette.count])\"/>"
            svg += "<text x=\"\(ChartAxis.f(lx + 22))\" y=\"\(ChartAxis.f(ly))\">\(HTMLWriter.escape(point.name))</text>"
        }
        if layout.positions.count > chart.points.count {
            let (lx, ly) = layout.positions[chart.points.count]
            svg += "<circle class=\"ring\" cx=\"\(ChartAxis.f(lx + 9))\" cy=\"\(ChartAxis.f(ly - 4))\" r=\"7\"/>"
            svg += "<text x=\"\(ChartAxis.f(lx + 22))\" y=\"\(ChartAxis.f(ly))\">\(HTMLWriter.escape(chart.highlightLabel))</text>"
        }
        if hasBounds, let (lx, ly) = layout.positions.last {
            let cx = ChartAxis.f(lx + 9)
            svg += "<path class=\"bound-arrow\" d=\"M\(cx),\(ChartAxis.f(ly + 2))V\(ChartAxis.f(ly - 10))M\(ChartAxis.f(lx + 5)),\(ChartAxis.f(ly - 6))L\(cx),\(ChartAxis.f(ly - 10))L\(ChartAxis.f(lx + 13)),\(ChartAxis.f(ly - 6))\" stroke=\"#555\"/>"
            svg += "<text x=\"\(ChartAxis.f(lx + 22))\" y=\"\(ChartAxis.f(ly))\">\(HTMLWriter.escape(chart.lowerBoundLabel))</text>"
        }
        return svg + "</g>\n"
    }
}
