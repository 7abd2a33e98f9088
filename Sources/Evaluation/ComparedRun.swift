import EchoLabJSON
import Metrics

/// One run of an eval.json as the gate reads it, read once from the file's result object: files
/// of every schema version compare, so a key a version did not write is nil here and nothing is
/// judged of it. `EvalComparison` judges these values; it walks no file.
struct ComparedRun: Sendable {
    /// Why the run failed; nil where it ran.
    var error: String?
    /// The canceller's library (a version, a plugin's SHA-256); nil where the file names none.
    var library: String?
    /// The gate's figures (`EvalComparison.judgedFigures`), by their path in `metrics`.
    var figures: [String: EvalComparison.Figure] = [:]
    /// The near-end figures that say the near end was removed entirely (each then only a bound).
    var lostNearEnds: Set<EvalComparison.NearEndMeasure> = []
    /// The call's device and route segments; nil where the file lists none (a recording, an
    /// older file).
    var segments: [Segment]?
    /// The rule of each finding; nil where the file does not list them.
    var findings: [String]?
    /// Each scorer's result; nil where the file has no `scores` (none asked for). A list that
    /// cannot be read is refused before (`EvalDocument.problem(in:)`).
    var scores: [ScorerResult]?
    /// The pipeline's fault counters and `conserved` flags by their keys from the run's entry down
    /// (`pipeline` first), depth first with keys in order (every count under `clipped_samples` is
    /// a fault), then the hardware streams'; nil without a pipeline. A path is its keys, not their
    /// dotted name: a key may hold a dot.
    var counters: [(path: [String], value: Counter)]?
    /// What the findings that judge a figure against a line depend on (`FindingVerdicts`).
    var echoLoss: EchoLoss?
    var hasEchoDelay = false

    struct Segment: Sendable {
        var startSeconds: Double?
        var events: [String]
        /// `EvalComparison.segmentFigures`, by key.
        var figures: [String: EvalComparison.Figure]
    }

    /// A pipeline counter's value: a count, a flag, or something neither (nothing is judged of it).
    enum Counter: Sendable, Equatable {
        case count(Double)
        case flag(Bool)
        case other
    }

    /// TCLw as `FindingVerdicts` judges its finding: the figure, its frames and bound, and the
    /// file's verdict against 46 dB.
    struct EchoLoss: Sendable {
        var tclwDB: Double
        var frames: Int?
        var isLowerBound: Bool
        var meetsRequirement: Verdict
        /// The bands it stands on of those the far end reaches (nil in a file written before).
        var coverage: WeightedEchoLoss.BandCoverage?

        enum Verdict: Sendable {
            case meets(Bool)
            /// null: a bound the measured bands do not settle, or too few bands.
            case unknown
            /// A file written before the key.
            case notWritten
        }
    }

    init(reading result: JSONValue) {
        error = result["error"]?.stringValue
        library = result["library"]?.stringValue
        for (keys, _) in EvalComparison.judgedFigures {
            figures[keys.path] = Self.figure(result, keys.under("metrics."))
        }
        lostNearEnds = Set(EvalComparison.NearEndMeasure.allCases.filter { result.value(at: "metrics." + $0.keys.lost)?.boolValue == true })
        segments = result["segments"]?.arrayValue.map { list in
            list.map { segment in
                Segment(startSeconds: segment["start_s"]?.doubleValue,
                        events: (segment["events"]?.arrayValue ?? []).compactMap(\.stringValue),
                        figures: Dictionary(uniqueKeysWithValues: EvalComparison.segmentFigures.map { ($0.path, Self.figure(segment, $0)) }))
            }
        }
        findings = result["findings"]?.arrayValue.map { $0.compactMap(\.stringValue) }
        scores = result["scores"].map { (try? JSONValueDecoder().decode([ScorerResult].self, from: $0)) ?? [] }
        if let pipeline = result["pipeline"], pipeline.objectValue != nil {
            var counters: [(path: [String], value: Counter)] = []
            Self.collectCounters(pipeline, path: ["pipeline"], into: &counters)
            // The hardware model's stream faults are judged as the pipeline's (a baseline written
            // before eval.json carried them judges none).
            if let streams = result["hardware_streams"]?.objectValue {
                for key in streams.keys.sorted() { counters.append((["hardware_streams", key], Self.counter(streams[key]!))) }
            }
            self.counters = counters
        }
        let tclw = EvalDocument.Figure.tclw.keys.under("metrics.")
        if let value = result.value(at: tclw.path)?.doubleValue {
            let meets: EchoLoss.Verdict = switch result.value(at: "metrics.telephony.echo_loss.meets_ts26131_46db") {
            case .bool(let value)?: .meets(value)
            case .null?: .unknown
            default: .notWritten
            }
            let coverage = result.value(at: "metrics.telephony.echo_loss.band_coverage").flatMap {
                try? JSONValueDecoder().decode(WeightedEchoLoss.BandCoverage.self, from: $0)
            }
            echoLoss = EchoLoss(tclwDB: value, frames: result.value(at: tclw.frames)?.doubleValue.map(Int.init(saturating:)),
                                isLowerBound: result.value(at: tclw.bound!)?.boolValue == true, meetsRequirement: meets, coverage: coverage)
        }
        hasEchoDelay = result.value(at: "metrics.delay_ms")?.doubleValue != nil
    }

    /// A figure as the gate sees it: its value; `.lowConfidence` where it stands on fewer frames
    /// than a figure needs (files without frame counts: every value counts).
    static func figure(_ object: JSONValue, _ keys: EvalDocument.FigureKeys) -> EvalComparison.Figure {
        guard let value = object.value(at: keys.path)?.doubleValue else { return .none }
        if let frames = object.value(at: keys.frames)?.doubleValue.map(Int.init(saturating:)), FigureConfidence.isLow(frames: frames) {
            return .lowConfidence(frames: frames)
        }
        return .value(value, isLowerBound: keys.bound.flatMap { object.value(at: $0)?.boolValue } ?? false)
    }

    /// Fault counters (and `conserved` flags) by their keys.
    static func collectCounters(_ object: JSONValue, path: [String], into out: inout [(path: [String], value: Counter)]) {
        guard let members = object.objectValue else { return }
        for key in members.keys.sorted() {
            let value = members[key]!, here = path + [key]
            if let stages = value.objectValue {
                // Every count under clipped_samples is a fault.
                if key == "clipped_samples" {
                    for stage in stages.keys.sorted() { out.append((here + [stage], counter(stages[stage]!))) }
                } else {
                    collectCounters(value, path: here, into: &out)
                }
            } else if EvalDocument.faultCounters.contains(key) || key == "conserved" {
                out.append((here, counter(value)))
            }
        }
    }

    static func counter(_ value: JSONValue) -> Counter {
        if let number = value.doubleValue { return .count(number) }
        if let flag = value.boolValue { return .flag(flag) }
        return .other
    }
}

extension Int {
    /// A file's count as an `Int`, saturating: a number too large for one (a frame count of
    /// 10¹⁹ in a file written by hand) reads as the most there can be, not a trap.
    init(saturating value: Double) {
        if value.isNaN { self = 0 } else if value >= 0x1p63 { self = .max } else if value < -0x1p63 { self = .min } else { self = Int(value) }
    }
}
