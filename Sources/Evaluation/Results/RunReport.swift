import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import Metrics
import ScenarioFiles
import Simulation

/// What `echolab run` reports about one call. `json()` is the `report.json` schema
/// (`echolab.run/2`); everything but `performance` is a pure function of the inputs.
public struct RunReport: Sendable {
    public static let schema = "echolab.run/2"

    public struct Segment: Sendable {
        public var startSeconds: Double
        public var endSeconds: Double
        /// Timeline actions that opened this segment.
        public var events: [String]
        public var metrics: SegmentMetrics
        /// Seconds until ERLE settled again after the segment's start (nil: never, or no far end).
        public var reconvergenceSeconds: Double?
        /// A lower bound: a bound at the mic's floor from then on (`SegmentMetrics.convergenceIsLowerBound`).
        public var reconvergenceIsLowerBound: Bool { reconvergenceSeconds != nil && metrics.convergenceIsLowerBound }
        /// Clicks in `sent` around the segment's transition: from 10 ms before its start to 10 ms
        /// after the devices its event changed took over (`RunEvaluator.transitionWindow`).
        public var clicksAtStart: Int
        /// Why the segment has no ERL or ERLE, in words (`echo_unmeasured` in its report.json
        /// entry, as the whole call's); nil when they were measured.
        public var echoUnmeasuredReason: String?
        /// Why `reconvergenceSeconds` is nil where the segment has a steady ERLE, in words
        /// (`reconvergence_unmeasured`; `RunEvaluator.reconvergenceUnmeasuredReason`).
        public var reconvergenceUnmeasuredReason: String?
        /// Where the segment opens with a route change, or holds a switch back to the device mic
        /// (`MicSwitchLeakFinding`), whose echo leak could not be judged, why (`echo_leak_unjudged`, written for route-change and mic-switch segments only;
        /// `HardwareFindings.findings`' `unjudgedLeaks`): a missing finding there is no verdict.
        public var echoLeakUnjudgedReason: String?

        public init(startSeconds: Double, endSeconds: Double, events: [String], metrics: SegmentMetrics,
                    reconvergenceSeconds: Double?, clicksAtStart: Int, echoUnmeasuredReason: String? = nil) {
            self.startSeconds = startSeconds
            self.endSeconds = endSeconds
            self.events = events
            self.metrics = metrics
            self.reconvergenceSeconds = reconvergenceSeconds
            self.clicksAtStart = clicksAtStart
            self.echoUnmeasuredReason = echoUnmeasuredReason
        }
    }

    public struct Finding: Sendable, Equatable {
        public var rule: String
        public var atSeconds: Double
        public var untilSeconds: Double
        public var message: String
        /// The measured consequence: which metric, its value, and what it means.
        public var consequenceMetric: String
        public var consequenceDB: Double?
        public var consequence: String

        /// What a finding judges: the lint's, an app's mistake in its audio setup (`run --strict`
        /// fails on these); a telephony standard's requirement the echo cancellation misses; or
        /// the canceller's own behaviour, which no app setup avoids (an echo leak while it learns
        /// a route's new echo path after the user changed routes).
        public enum Kind: String, Sendable {
            case lint, requirement, canceller

            /// The rules that judge the canceller's own behaviour.
            static let cancellerRules: Set<String> = [HardwareFindings.echoLeakRule, MicSwitchLeakFinding.rule, ClockDriftFinding.rule]

            /// The kind of a finding under `rule` (what eval.json lists per run).
            public init(rule: String) {
                self = RequirementFindings.rules.contains(rule) ? .requirement : Self.cancellerRules.contains(rule) ? .canceller : .lint
            }
        }

        public var kind: Kind { Kind(rule: rule) }

        /// The finding as report.json lists it (a run's, and a recording's).
        public var json: JSONValue {
            .object(["rule": .string(rule), "kind": .string(kind.rawValue),
                     "at_s": .number(atSeconds), "until_s": .number(untilSeconds),
                     "message": .string(message),
                     "consequence": .object(["metric": .string(consequenceMetric),
                                             "value_db": consequenceDB.map(JSONValue.number) ?? .null,
                                             "meaning": .string(consequence)])])
        }

        /// A finding as `json` lists it; nil where it does not read as one.
        public init?(reading value: JSONValue) {
            guard let rule = value["rule"]?.stringValue, let at = value["at_s"]?.doubleValue, let until = value["until_s"]?.doubleValue,
                  let message = value["message"]?.stringValue, let metric = value.value(at: "consequence.metric")?.stringValue,
                  let meaning = value.value(at: "consequence.meaning")?.stringValue else { return nil }
            self.init(rule: rule, atSeconds: at, untilSeconds: until, message: message, consequenceMetric: metric,
                      consequenceDB: value.value(at: "consequence.value_db")?.doubleValue, consequence: meaning)
        }

        public init(rule: String, atSeconds: Double, untilSeconds: Double, message: String, consequenceMetric: String,
                    consequenceDB: Double?, consequence: String) {
            self.rule = rule
            self.atSeconds = atSeconds
            self.untilSeconds = untilSeconds
            self.message = message
            self.consequenceMetric = consequenceMetric
            self.consequenceDB = consequenceDB
            self.consequence = consequence
        }
    }

    public var scenarioName: String
    public var scenarioFile: String
    public var sampleRate: Int
    public var durationSeconds: Double
    public var aecMode: String
    public var aecBackend: String
    /// How the starting mode maps onto the backend (`filter_ms`, `suppression_level` …).
    public var aecSettings: [String: EchoControlSetting]
    public var noiseSuppressor: String
    public var autoGainControl: String
    public var metrics: EchoMetrics
    public var segments: [Segment]
    public var events: [CallEvent]
    public var findings: [Finding]
    public var pipeline: PipelineCounters
    public var sentClicks: Int
    public var sentGaps: Int
    public var adaptiveDecisions: [AdaptiveDecision]
    public var taps: [String: String]
    /// Wall time of simulating and scoring the call (`performance.wall_s`).
    public var wallSeconds: Double
    /// The loudspeaker → mic path the room applied (delay, gain, room response, loudspeaker
    /// clipping), as the scenario gives it: the conditions the ERL is read against. nil where a
    /// route of the hardware model brought its own all call (`hardware` names it); null in
    /// report.json then.
    public var echoPath: EchoPathSettings? = nil
    /// The audio hardware and session (nil: the scenario models none; `report.json` then has no
    /// `hardware` key).
    public var hardware: HardwareReport? = nil
    /// The hardware's input streams made anew while they held captured audio (`hardware.capture_restarts`).
    public var captureRestarts: [CaptureRestartLoss] = []
    /// Signal levels per 0.5 s window, doubled each time a call outgrows `LevelMeter.maximumWindows`
    /// (an hour; empty when not measured).
    public var levels: [LevelPoint] = []
    /// The activity gate's decisions per window of about 0.5 s (the talk the metrics scored).
    public var activity: [ActivityWindow] = []
    /// Where the clicks and gaps in the sent audio are (the first `listedGlitches` of each; the
    /// pipeline counts them all), so a reader can go and listen.
    public var sentClickEvents: [GlitchEvent] = []
    public var sentGapRanges: [Range<Int>] = []
    public static let listedGlitches = 1000
    /// Why the call has no ERL or ERLE (no far-end single talk reached what was sent), in words
    /// (`echo_unmeasured` in report.json); nil when they were measured.
    public var echoUnmeasuredReason: String? = nil
    /// Why `metrics.delay_ms` is null, in words (`delay_unmeasured` in report.json, as `echolab
    /// metrics` gives it: the echo outside the search, a tonal far end, no lag standing out); nil
    /// when the delay was measured.
    public var delayUnmeasuredReason: String? = nil
    /// The delay search's range (ms) where the echo lay outside it — leading the reference (a
    /// loopback recorded late) or beyond its reach (`echo_outside_delay_search_ms`, written only
    /// then): typed, so eval can name such items without reading the words above.
    public var echoOutsideDelaySearchMilliseconds: Double? = nil
    /// Why `metrics.convergence_s` is null where there is a steady ERLE, in words
    /// (`convergence_unmeasured` in report.json).
    public var convergenceUnmeasuredReason: String? = nil
    /// What each `--scorer` said of the call (nil: none was asked; report.json then has no
    /// `scores` key).
    public var scores: [ScorerResult]? = nil

    // Evaluation builds run reports; Reporting renders them.
    public init(scenarioName: String, scenarioFile: String, sampleRate: Int, durationSeconds: Double, aecMode: String,
                aecBackend: String, aecSettings: [String: EchoControlSetting], noiseSuppressor: String, autoGainControl: String,
                metrics: EchoMetrics, segments: [Segment], events: [CallEvent], findings: [Finding], pipeline: PipelineCounters,
                sentClicks: Int, sentGaps: Int, adaptiveDecisions: [AdaptiveDecision], taps: [String: String], wallSeconds: Double) {
        self.scenarioName = scenarioName
        self.scenarioFile = scenarioFile
        self.sampleRate = sampleRate
        self.durationSeconds = durationSeconds
        self.aecMode = aecMode
        self.aecBackend = aecBackend
        self.aecSettings = aecSettings
        self.noiseSuppressor = noiseSuppressor
        self.autoGainControl = autoGainControl
        self.metrics = metrics
        self.segments = segments
        self.events = events
        self.findings = findings
        self.pipeline = pipeline
        self.sentClicks = sentClicks
        self.sentGaps = sentGaps
        self.adaptiveDecisions = adaptiveDecisions
        self.taps = taps
        self.wallSeconds = wallSeconds
    }

    public var realtimeFactor: Double { wallSeconds > 0 ? durationSeconds / wallSeconds : 0 }

    /// The stretches where the app left the canceller's reference silent (the lint's
    /// user-reference-not-fed and -not-stopped): ERL and ERLE, measured against that reference,
    /// stand on the rest of the call alone.
    public var silentReferenceFindings: [Finding] {
        findings.filter { finding in LintRule.silentReference.contains { $0.rawValue == finding.rule } }
    }

    /// How long the stretches of `silentReferenceFindings` last, in seconds (they never overlap).
    public var silentReferenceSeconds: Double { silentReferenceFindings.reduce(0) { $0 + ($1.untilSeconds - $1.atSeconds) } }

    /// `report.json`'s content.
    public func json() -> JSONValue {
        let rate = Double(sampleRate)
        func seconds(_ frames: Int64) -> JSONValue { .number(Double(frames) / rate) }
        func optional(_ value: Double?) -> JSONValue { value.map(JSONValue.number) ?? .null }
        var aec: [String: JSONValue] = ["mode": .string(aecMode), "backend": .string(aecBackend)]
        for (key, value) in aecSettings { aec[key] = JSONValue(value) }
        var root: [String: JSONValue] = [
            "schema": .string(Self.schema),
            "tool": .object(["name": .string("echolab"), "version": .string(EchoLabVersion.current)]),
            "scenario": .string(scenarioName),
            // A hand-driven call (`CallMeter`) has no scenario file: null, not "".
            "scenario_file": scenarioFile.isEmpty ? .null : .string(scenarioFile),
            "sample_rate": .number(rate),
            "duration_s": .number(durationSeconds),
            "aec": .object(aec),
            // In the scenario's own format; a response file relative to the scenario's folder,
            // as the scenario names it.
            "echo_path": echoPath.map { ScenarioEncoder.encode($0, relativeTo: scenarioFolder) } ?? .null,
            "noise_suppressor": .string(noiseSuppressor),
            "auto_gain_control": .string(autoGainControl),
            "metrics": metrics.json,
            "echo_unmeasured": echoUnmeasuredReason.map(JSONValue.string) ?? .null,
            "delay_unmeasured": delayUnmeasuredReason.map(JSONValue.string) ?? .null,
            "convergence_unmeasured": convergenceUnmeasuredReason.map(JSONValue.string) ?? .null,
            "segments": .array(segments.map { segment in
                var object: [String: JSONValue] = ["start_s": .number(segment.startSeconds), "end_s": .number(segment.endSeconds),
                                                   "events": .array(segment.events.map(JSONValue.string)),
                                                   "reconvergence_s": optional(segment.reconvergenceSeconds),
                                                   "reconvergence_is_lower_bound": .bool(segment.reconvergenceIsLowerBound),
                                                   "clicks_at_start": .number(Double(segment.clicksAtStart)),
                                                   "echo_unmeasured": segment.echoUnmeasuredReason.map(JSONValue.string) ?? .null,
                                                   "reconvergence_unmeasured": segment.reconvergenceUnmeasuredReason.map(JSONValue.string) ?? .null]
                // Where a leak rule judges: a route change, a switch of mic.
                if segment.echoLeakUnjudgedReason != nil
                    || segment.events.contains(where: { $0.hasPrefix("route_change") || $0.hasPrefix("set_custom_mic") || $0.hasPrefix("reset_custom_mic") }) {
                    object["echo_leak_unjudged"] = segment.echoLeakUnjudgedReason.map(JSONValue.string) ?? .null
                }
                for (key, value) in segment.metrics.json where key != "start_sample" && key != "end_sample" { object[key] = value }
                return .object(object)
            }),
            // `sample`: the event's sample index at the call's rate (exact; `t_s` is for people).
            "events": .array(events.map { .object(["t_s": seconds($0.frame), "sample": .number(Double($0.frame)),
                                                   "kind": .string($0.kind), "detail": .string($0.detail)]) }),
            "findings": .array(findings.map(\.json)),
            "pipeline": JSONValue(encoding: pipelineReport),
            "adaptive_aec": .array(adaptiveDecisions.map { $0.json(sampleRate: rate) }),
            "taps": .object(taps.mapValues(JSONValue.string)),
            "levels_series": JSONValue(encoding: levels),
            "activity_series": JSONValue(encoding: activity),
            // Times for people, samples exact; strength: how far the jump stands above its
            // surroundings.
            "sent_glitches": .object([
                "clicks": .array(sentClickEvents.prefix(Self.listedGlitches).map { click in
                    .object(["t_s": seconds(Int64(click.sampleIndex)), "sample": .number(Double(click.sampleIndex)),
                             "strength_db": .number(click.strengthDB)])
                }),
                "gaps": .array(sentGapRanges.prefix(Self.listedGlitches).map { gap in
                    .object(["start_s": seconds(Int64(gap.lowerBound)), "end_s": seconds(Int64(gap.upperBound))])
                }),
                "listed_at_most": .number(Double(Self.listedGlitches)),
            ]),
            "performance": .object(["wall_s": .number(wallSeconds), "realtime_factor": .number(realtimeFactor)]),
        ]
        if let scores { root["scores"] = .array(scores.map(JSONValue.init(encoding:))) }
        // Only where set: a report whose echo lies inside the search keeps the same keys in
        // every echolab.run/2 report.
        if let range = echoOutsideDelaySearchMilliseconds { root["echo_outside_delay_search_ms"] = .number(range) }
        addHardware(to: &root)
        return .object(root)
    }

    /// The room response file as the scenario names it (nil without one), for the pages.
    public var echoPathResponseFile: String? {
        guard case .file(let path, _)? = echoPath?.impulseResponse else { return nil }
        return ScenarioEncoder.path(path, relativeTo: scenarioFolder)
    }

    /// The absolute folder of the scenario file as the loader resolved its paths against it
    /// (`..` kept: standardised, a scenario reached through `../` named its response file by its
    /// whole path); the working directory for a hand-driven call.
    private var scenarioFolder: String {
        scenarioFile.isEmpty ? FileManager.default.currentDirectoryPath : InputFile.parent(of: InputFile.absolute(scenarioFile))
    }

    /// `report.json`'s `pipeline` object (also what `eval.json` lists per run).
    public var pipelineReport: PipelineReport { PipelineReport(pipeline, sentClicks: sentClicks, sentGaps: sentGaps) }
}

extension JSONValue {
    init(_ setting: EchoControlSetting) {
        switch setting {
        case .number(let value): self = .number(value)
        case .text(let value): self = .string(value)
        case .flag(let value): self = .bool(value)
        }
    }
}

extension AdaptiveDecision {
    /// One decision as report.json lists it, a simulated call's or a recording's: `sample` exact at
    /// `sampleRate` (the call's, or a recording's processing rate), `t_s` for people.
    func json(sampleRate: Double) -> JSONValue {
        .object(["t_s": .number(Double(frame) / sampleRate), "sample": .number(Double(frame)), "erl_estimate_db": .number(erlEstimateDB),
                 "double_talk_share": .number(doubleTalkShare), "echo_to_near_db": echoToNearDB.map(JSONValue.number) ?? .null,
                 "suppression_db": .number(Double(suppressionDB)), "double_talk_suppression_db": .number(Double(doubleTalkSuppressionDB))])
    }
}
