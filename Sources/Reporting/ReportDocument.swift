import Metrics

/// The one model every report for people is rendered from: `MarkdownWriter` and `HTMLWriter`
/// each render a `ReportDocument`, built once from the results (`RunReportDocument`,
/// `EvalReportDocument`) — no writer parses another's output. `report.json` and `eval.json`
/// are rendered from the same result values (`RunReport.json()`, `EvalReport.json()`).
public struct ReportDocument: Sendable {
    public var title: String
    public var blocks: [Block]

    public init(title: String, blocks: [Block] = []) {
        self.title = title
        self.blocks = blocks
    }

    public enum Block: Sendable {
        /// A section heading (level 2 or 3); `id` anchors it for links.
        case heading(String, level: Int, id: String? = nil)
        case paragraph([Span])
        /// Something a reader must not take for a result: nothing to measure, a run interrupted.
        case note([Span])
        case list([[Span]])
        case table(Table)
        case timeChart(TimeChart)
        case bandChart(BandChart)
        case scatterChart(ScatterChart)
        case audio([AudioClip])
    }

    /// Inline text.
    public enum Span: Sendable, Equatable {
        case text(String)
        case code(String)
        case strong(String)
        case link(String, href: String)
        /// A link that stands out (the best value of a row).
        case strongLink(String, href: String)
    }

    public struct Table: Sendable {
        public var header: [String]
        public var rows: [[Cell]]
        /// The HTML page lets the reader sort it by any column (numeric cells by their value).
        public var isSortable = false
        public init(header: [String], rows: [[Cell]], isSortable: Bool = false) {
            self.header = header
            self.rows = rows
            self.isSortable = isSortable
        }
    }

    public struct Cell: Sendable {
        public var spans: [Span]
        /// The number a sortable table orders this cell by (nil: text, or nothing measured).
        public var value: Double?
        /// A measurement, set right-aligned in one line; false for prose that sorts by a number.
        public var isNumeric: Bool
        /// The whole story behind a short cell, shown on hover in HTML (the cell stays one line).
        public var detail: String?
        public init(_ spans: [Span], value: Double? = nil, isNumeric: Bool = true, detail: String? = nil) {
            self.spans = spans
            self.value = value
            self.isNumeric = isNumeric && value != nil
            self.detail = detail
        }
        public init(_ text: String, value: Double? = nil, isNumeric: Bool = true, detail: String? = nil) {
            self.init([.text(text)], value: value, isNumeric: isNumeric, detail: detail)
        }
    }

    /// Lines over call time (seconds), sharing one y axis; gaps where a value is nil.
    public struct TimeChart: Sendable {
        public struct Line: Sendable {
            public var name: String
            public var points: [(t: Double, value: Double?)]
            /// Drawn dashed (a reference level rather than a result).
            public var isDashed = false
            /// A CSS colour (nil: the palette's, by the line's place).
            public var colour: String?
            /// Per point, whether its value only bounds it from below (drawn as a "≥" marker, its
            /// tooltip "≥ 34.0"); empty: none does.
            public var lowerBounds: [Bool]
            /// Per point, the analysis frames it stands on: one on fewer than
            /// `FigureConfidence.minimumAnalysisFrames` is marked low-confidence, its count in the
            /// tooltip (a window holding one frame plotted like the others read as a result); empty:
            /// not counted (levels, references).
            public var frames: [Int]
            public init(name: String, points: [(t: Double, value: Double?)], isDashed: Bool = false, colour: String? = nil,
                        lowerBounds: [Bool] = [], frames: [Int] = []) {
                self.name = name
                self.points = points
                self.isDashed = isDashed
                self.colour = colour
                self.lowerBounds = lowerBounds
                self.frames = frames
            }
            /// Whether point `index`'s value only bounds it from below.
            public func isLowerBound(_ index: Int) -> Bool { index < lowerBounds.count && lowerBounds[index] }
            /// Whether point `index` stands on too few analysis frames to be trusted.
            public func isLowConfidence(_ index: Int) -> Bool { index < frames.count && FigureConfidence.isLow(frames: frames[index]) }
            /// Point `index`'s value as its tooltip writes it: "≥ 34.0" for a bound, "25.0 (low
            /// confidence: 1 analysis frame)" for a thin one, "—" for none.
            public func valueText(_ index: Int) -> String {
                guard index < points.count, let value = points[index].value else { return "—" }
                let text = (isLowerBound(index) ? "≥ " : "") + ReportFormatting.number(value, digits: 1)
                guard isLowConfidence(index) else { return text }
                return text + " (\(FigureConfidence.mark(frames: frames[index])))"
            }
            /// Whether any point is a bound, or stands on too few frames.
            public var hasLowerBounds: Bool { points.indices.contains { points[$0].value != nil && isLowerBound($0) } }
            public var hasLowConfidence: Bool { points.indices.contains { points[$0].value != nil && isLowConfidence($0) } }
        }
        /// A marked instant (a timeline event), labelled on the plot.
        public struct Marker: Sendable {
            public var t: Double
            public var label: String
            public init(t: Double, label: String) { self.t = t; self.label = label }
        }
        /// A shaded stretch (a segment, or where a party talks).
        public struct Band: Sendable {
            public var start: Double
            public var end: Double
            /// A shaded segment's label; a lane's stretch's tooltip (none where empty).
            public var label: String
            /// A lane's stretch: the share of its time the lane's state held (0…1), drawn as how
            /// strongly it is filled; nil: wholly.
            public var share: Double?
            public init(start: Double, end: Double, label: String, share: Double? = nil) {
                self.start = start
                self.end = end
                self.label = label
                self.share = share
            }
        }
        /// Rows of on/off stretches under the plot (far end talks, near end talks).
        public struct Lane: Sendable {
            public var name: String
            public var stretches: [Band]
            public init(name: String, stretches: [Band]) { self.name = name; self.stretches = stretches }
        }

        public var title: String
        public var yLabel: String
        public var durationSeconds: Double
        public var lines: [Line]
        public var markers: [Marker] = []
        public var shading: [Band] = []
        public var lanes: [Lane] = []
        /// Shown in place of the plot's content when no line has a value.
        public var emptyNote: String
        /// Lowest and highest y the axis always shows (values outside widen it).
        public var yFloor: Double
        public var yCeiling: Double
        /// How a point's value is written in Markdown (one mark per point).
        public var sparkRange: ClosedRange<Double>

        public init(title: String, yLabel: String, durationSeconds: Double, lines: [Line], emptyNote: String,
                    yFloor: Double = 0, yCeiling: Double = 30, sparkRange: ClosedRange<Double> = 0...40) {
            self.title = title
            self.yLabel = yLabel
            self.durationSeconds = durationSeconds
            self.lines = lines
            self.emptyNote = emptyNote
            self.yFloor = yFloor
            self.yCeiling = yCeiling
            self.sparkRange = sparkRange
        }

        public var hasValues: Bool { lines.contains { $0.points.contains { $0.value != nil } } }
    }

    /// Values per octave band, one bar per series in each band.
    public struct BandChart: Sendable {
        public struct Series: Sendable {
            public var name: String
            /// One value per band (nil: nothing measured there).
            public var values: [Double?]
            /// Per band, whether the value only bounds it from below (shown "≥"); empty: none does.
            public var lowerBounds: [Bool]
            /// A CSS colour (nil: the palette's, by the series' place).
            public var colour: String?
            public init(name: String, values: [Double?], lowerBounds: [Bool] = [], colour: String? = nil) {
                self.name = name
                self.values = values
                self.lowerBounds = lowerBounds
                self.colour = colour
            }
            /// Whether band `index`'s value only bounds it from below.
            public func isLowerBound(_ index: Int) -> Bool { index < lowerBounds.count && lowerBounds[index] }
            /// Band `index`'s value as the pages write it: "≥ 15.9 dB" for a bound, "—" for none.
            public func text(_ index: Int) -> String {
                ReportFormatting.figure(index < values.count ? values[index] : nil, isLowerBound: isLowerBound(index))
            }
        }
        public var title: String
        public var yLabel: String
        /// Band edges in Hz.
        public var bands: [(low: Double, high: Double)]
        public var series: [Series]
        public var emptyNote: String
        /// What the bands are, under the axis.
        public var xLabel: String
        /// Per band, its name on the axis ("1250": a third octave's nominal centre); empty: its
        /// edges ("1000–2000"), which sixteen narrow bands have no room for.
        public var bandLabels: [String]
        public init(title: String, yLabel: String, bands: [(low: Double, high: Double)], series: [Series], emptyNote: String,
                    xLabel: String = "octave band (Hz)", bandLabels: [String] = []) {
            self.title = title
            self.xLabel = xLabel
            self.bandLabels = bandLabels
            self.yLabel = yLabel
            self.bands = bands
            self.series = series
            self.emptyNote = emptyNote
        }
        public var hasValues: Bool { series.contains { $0.values.contains { $0 != nil } } }
        /// Band `index`'s name on the axis.
        public func label(_ index: Int) -> String {
            index < bandLabels.count ? bandLabels[index] : "\(Int(bands[index].low))–\(Int(bands[index].high))"
        }
    }

    /// One point per series on two value axes (a trade-off: each mode's ERLE against its
    /// near-end attenuation); highlighted points are ringed and labelled.
    public struct ScatterChart: Sendable {
        public struct Point: Sendable {
            public var name: String
            public var x: Double
            public var y: Double
            public var isHighlighted: Bool
            /// A CSS colour (nil: the palette's, by the point's place).
            public var colour: String?
            /// Whether x or y only bounds the value from below (a mean over a bound is one): written
            /// "≥", and drawn with an arrow the way the truth may lie.
            public var xIsLowerBound: Bool
            public var yIsLowerBound: Bool
            public init(name: String, x: Double, y: Double, isHighlighted: Bool, colour: String? = nil,
                        xIsLowerBound: Bool = false, yIsLowerBound: Bool = false) {
                self.name = name
                self.x = x
                self.y = y
                self.isHighlighted = isHighlighted
                self.colour = colour
                self.xIsLowerBound = xIsLowerBound
                self.yIsLowerBound = yIsLowerBound
            }
            /// x and y as the pages write them: "≥ 15.4" for a bound.
            public var xText: String { (xIsLowerBound ? "≥ " : "") + ReportFormatting.number(x, digits: 1) }
            public var yText: String { (yIsLowerBound ? "≥ " : "") + ReportFormatting.number(y, digits: 1) }
        }
        public var title: String
        public var xLabel: String
        public var yLabel: String
        public var points: [Point]
        /// What the ring around a highlighted point means (in the legend).
        public var highlightLabel: String
        public var emptyNote: String
        /// Fixed axes, for values on a known scale (a MOS from 1 to 5); nil fits the points, 0 in view.
        public var xRange: ClosedRange<Double>? = nil
        public var yRange: ClosedRange<Double>? = nil
        /// What x and y are, short, for a point's tooltip ("other 2.4, echo 3.1"); nil: the numbers alone.
        public var valueNames: (x: String, y: String)? = nil
        /// What a bound's arrow means, in the legend where a point has one.
        public var lowerBoundLabel = "≥ a lower bound (the arrow points where the value may lie)"
        public init(title: String, xLabel: String, yLabel: String, points: [Point], highlightLabel: String, emptyNote: String) {
            self.title = title
            self.xLabel = xLabel
            self.yLabel = yLabel
            self.points = points
            self.highlightLabel = highlightLabel
            self.emptyNote = emptyNote
        }
    }

    /// A WAV the report links to, relative to the report's folder.
    public struct AudioClip: Sendable {
        public var label: String
        public var path: String
        public init(label: String, path: String) { self.label = label; self.path = path }
    }
}
