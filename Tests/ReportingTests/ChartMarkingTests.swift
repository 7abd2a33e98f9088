import Foundation
import Metrics
import Evaluation
@testable import Reporting
import XCTest

/// What a chart draws must say what its numbers are: a lower bound reads "≥" on the plot and in
/// its tooltip, as the tables do; a point on too few analysis frames is marked low-confidence with
/// its count; band labels that cannot fit side by side are set so they can be read.
final class ChartMarkingTests: XCTestCase {
    /// The run page's ERLE over time drew a call whose every window was a bound (its output under
    /// the noise floor) as an ordinary line, tooltips "ERLE at 0.75 s: 34.0", while the band chart
    /// beside it wrote "≥ 33.9"; a window on one analysis frame was plotted like the others.
    func testTimeChartMarksBoundsAndThinPoints() {
        let line = ReportDocument.TimeChart.Line(name: "ERLE", points: [(0.25, 33.8), (0.75, 34.0), (1.25, 25.0), (1.75, nil)],
                                                 lowerBounds: [true, true, false, false], frames: [44, 47, 1, 0])
        let document = ReportDocument(title: "t", blocks: [
            .timeChart(.init(title: "ERLE over time", yLabel: "ERLE (dB)", durationSeconds: 2, lines: [line], emptyNote: "none")),
        ])
        let html = HTMLWriter.render(document)
        XCTAssertTrue(html.contains("ERLE at 0.75 s: ≥ 34.0</title>"), html)
        XCTAssertTrue(html.contains("ERLE at 1.25 s: 25.0 (low confidence: 1 analysis frame)</title>"), html)
        XCTAssertEqual(html.components(separatedBy: "class=\"bound-mark\"").count - 1, 3, "two points and the legend's key")
        XCTAssertEqual(html.components(separatedBy: "class=\"few-mark\"").count - 1, 2, "one point and the legend's key")
        XCTAssertTrue(html.contains(">≥ lower bound</text>") && html.contains(">fewer than 20 analysis frames (low confidence)</text>"), html)
        XCTAssertFalse(html.contains(": 34.0</title>"), "no bound reads as a plain value")

        let markdown = MarkdownWriter.render(document)
        XCTAssertTrue(markdown.contains("ERLE: ≥ (a lower bound) at 2 of 3 points, 0.25 s, 0.75 s; "
                                        + "fewer than 20 analysis frames (low confidence) at 1.25 s (1 frame) (times: the windows' centres)."), markdown)
        // A line with neither says nothing more, and draws no markers or keys.
        let plain = ReportDocument(title: "t", blocks: [
            .timeChart(.init(title: "ERLE over time", yLabel: "ERLE (dB)", durationSeconds: 1,
                             lines: [.init(name: "ERLE", points: [(0.25, 10), (0.75, 12)], frames: [40, 40])], emptyNote: "none")),
        ])
        XCTAssertFalse(HTMLWriter.render(plain).contains("class=\"bound-mark") || HTMLWriter.render(plain).contains("class=\"few-mark"))
        XCTAssertFalse(MarkdownWriter.render(plain).contains("lower bound"))
    }

    /// Past 600 points (a long call) the bound marks are left off to keep the page light: the
    /// legend said "≥ lower bound" all the same, with nothing on the plot it named.
    func testALongChartsLegendNamesNoBoundMarkItDoesNotDraw() {
        let count = 700
        let line = ReportDocument.TimeChart.Line(name: "ERLE", points: (0..<count).map { (Double($0) * 0.5, 30.0) },
                                                 lowerBounds: Array(repeating: true, count: count), frames: Array(repeating: 40, count: count))
        let html = HTMLWriter.render(ReportDocument(title: "t", blocks: [
            .timeChart(.init(title: "ERLE over time", yLabel: "ERLE (dB)", durationSeconds: 350, lines: [line], emptyNote: "none")),
        ]))
        XCTAssertFalse(html.contains("class=\"bound-mark\""), "no marks past 600 points")
        XCTAssertFalse(html.contains(">≥ lower bound</text>"), "and no legend entry for them")
    }

    /// eval.html's trade-off plot wrote "1.9, 15.4" for a mode whose mean ERLE was over a bound.
    func testScatterPointShowsItsBound() {
        var chart = ReportDocument.ScatterChart(title: "trade-off", xLabel: "attenuation", yLabel: "ERLE",
                                                points: [.init(name: "a", x: 1.94, y: 15.44, isHighlighted: false, yIsLowerBound: true),
                                                         .init(name: "b", x: 3, y: 10, isHighlighted: true)],
                                                highlightLabel: "best", emptyNote: "none")
        chart.valueNames = ("near end", "ERLE")
        let html = HTMLWriter.render(ReportDocument(title: "t", blocks: [.scatterChart(chart)]))
        XCTAssertTrue(html.contains("<title>a: near end 1.9, ERLE ≥ 15.4</title></circle>"), html)
        XCTAssertTrue(html.contains("<title>b: near end 3.0, ERLE 10.0</title></circle>"), html)
        XCTAssertEqual(html.components(separatedBy: "class=\"bound-arrow\"").count - 1, 2, "the point's arrow and the legend's key")
        let markdown = MarkdownWriter.render(ReportDocument(title: "t", blocks: [.scatterChart(chart)]))
        XCTAssertTrue(markdown.contains("| a | 1.9 | ≥ 15.4 |"), markdown)
    }

    /// The run page's third-octave TCL chart labelled its sixteen bands by their edges
    /// ("1122–1414", "1414–1781"), which ran into each other: it names them by nominal centre,
    /// and labels still too wide for their band are slanted.
    func testBandLabelsFitTheirBands() {
        let edges: [(low: Double, high: Double)] = (0..<16).map { k -> (low: Double, high: Double) in
            let low: Double = 280 * pow(2, Double(k) / 3)
            return (low, low * pow(2, 1.0 / 3))
        }
        let series = ReportDocument.BandChart.Series(name: "TCL", values: Array(repeating: 40, count: 16))
        let centres = ["315", "400", "500", "630", "800", "1000", "1250", "1600", "2000", "2500", "3150", "4000", "5000", "6300", "8000", "10000"]
        let named = BandChartSVG(.init(title: "TCL", yLabel: "dB", bands: edges, series: [series], emptyNote: "none", bandLabels: centres))
        XCTAssertFalse(named.slantsLabels, "a centre fits its band")
        XCTAssertTrue(named.render().contains(">1250</text>"))
        let byEdges = BandChartSVG(.init(title: "TCL", yLabel: "dB", bands: edges, series: [series], emptyNote: "none"))
        XCTAssertTrue(byEdges.slantsLabels, "sixteen bands' edges cannot stand side by side")
        XCTAssertTrue(byEdges.render().contains("transform=\"rotate(-40"), "so they are slanted")
        XCTAssertGreaterThan(byEdges.height, named.height, "and the chart makes room under them")
    }
}

/// The lanes under the run page's ERLE plot are the activity gate's decisions, window by window:
/// each window filled by the share of its frames in which the talker talked, whole windows side by
/// side drawn as one stretch. (A half rule left the double-talk lane empty under a call whose gate
/// found a third of its frames double talk: speech interleaves within half a second.)
final class ActivityLaneTests: XCTestCase {
    func testLanesShadeEachWindowByTheGatesShare() {
        func window(_ start: Double, far: Int, near: Int, both: Int) -> ActivityWindow {
            ActivityWindow(startSeconds: start, endSeconds: start + 0.5, frames: 47, farEndFrames: far, nearEndFrames: near,
                           doubleTalkFrames: both)
        }
        let windows = [window(0, far: 47, near: 0, both: 0), window(0.5, far: 47, near: 24, both: 24),
                       window(1, far: 30, near: 23, both: 6), window(1.5, far: 0, near: 0, both: 0),
                       window(2, far: 0, near: 47, both: 0)]
        let lanes = RunReportDocument.activityLanes(windows)
        func stretches(_ name: String) -> [String] {
            lanes.first { $0.name == name }!.stretches.map { "\($0.start)-\($0.end) \($0.share.map { String(format: "%.3f", $0) } ?? "-") \($0.label)" }
        }
        XCTAssertEqual(stretches("far end talks"), ["0.0-1.0 1.000 far end talks in all 94 analysis frames",
                                                    "1.0-1.5 0.638 far end talks in 30 of 47 analysis frames"])
        XCTAssertEqual(stretches("near end talks"), ["0.5-1.0 0.511 near end talks in 24 of 47 analysis frames",
                                                     "1.0-1.5 0.489 near end talks in 23 of 47 analysis frames",
                                                     "2.0-2.5 1.000 near end talks in all 47 analysis frames"])
        XCTAssertEqual(stretches("double talk"), ["0.5-1.0 0.511 double talk in 24 of 47 analysis frames",
                                                  "1.0-1.5 0.128 double talk in 6 of 47 analysis frames"])
        XCTAssertTrue(RunReportDocument.activityLanes([]).isEmpty)
        // Drawn: a part share lighter than a whole one, with its count on hover.
        var chart = ReportDocument.TimeChart(title: "t", yLabel: "y", durationSeconds: 2.5, lines: [], emptyNote: "none")
        chart.lanes = lanes
        let html = HTMLWriter.render(ReportDocument(title: "t", blocks: [.timeChart(chart)]))
        XCTAssertTrue(html.contains("fill-opacity=\"0.7\"><title>far end talks in all 94 analysis frames</title>"), html)
        XCTAssertTrue(html.contains("fill-opacity=\"0.2\"><title>double talk in 6 of 47 analysis frames</title>"), html)
    }
}

/// A trial's plugin drew in a built-in backend's purple, its two intensities in webrtc-mobile's
/// green and webrtc's orange, and in another colour in the next eval (the palette by place).
final class PluginColourTests: XCTestCase {
    func testAPluginIsAFamilyOfItsOwnInEveryEval() throws {
        let intensities = ["intensityMin", "intensityRecommended", "intensityAdaptive", "intensityMax"]
        let builtIn = Set(ModeColours.backends.keys.flatMap { backend in intensities.compactMap { ModeColours.colour(for: "\(backend):\($0)") } })
        let mine = try intensities.map { try XCTUnwrap(ModeColours.colour(for: "fdaf:\($0)")) }
        XCTAssertEqual(Set(mine).count, 4, "one shade per intensity")
        XCTAssertTrue(builtIn.isDisjoint(with: mine), "\(mine)")
        // One hue: the shades differ only in lightness, as a built-in backend's do.
        let hue = ModeColours.pluginHues[Int(ModeColours.nameHash("fdaf") % UInt64(ModeColours.pluginHues.count))]
        XCTAssertEqual(mine, intensities.map { ModeColours.hex(hue: hue.hue, saturation: hue.saturation, lightness: ModeColours.intensities[$0]!) })
        XCTAssertNil(ModeColours.colour(for: "as written"))
        // Two plugins in one eval never share a family, whatever their names hash to.
        let names = (0..<40).map { "plugin\($0)" }
        let clash = try XCTUnwrap(names.first { other in other != "fdaf" && ModeColours.nameHash(other) % 5 == ModeColours.nameHash("fdaf") % 5 })
        let modes = ["speex:intensityMax", "fdaf:intensityMax", "\(clash):intensityMax"]
        XCTAssertNotEqual(ModeColours.colour(for: "fdaf:intensityMax", among: modes), ModeColours.colour(for: "\(clash):intensityMax", among: modes))
        XCTAssertEqual(ModeColours.colour(for: "fdaf:intensityMax", among: modes), ModeColours.colour(for: "fdaf:intensityMax"), "the first keeps its own")
    }
}
