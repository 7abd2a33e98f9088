import AudioCore
import EchoLabJSON
import Metrics
import ScenarioFiles
import Simulation

/// What a recording run reports (`report.json`, schema `echolab.recording/…`), and what its pages
/// render: `RecordingRun` builds it once, `merge` reads it back from a shard's report.json and
/// renders the pages again for the run's new place, from the same values.
public struct RecordingReport: Sendable, Equatable {
    public static let schema = "echolab.recording/2"

    public var item: String
    public var talkType: TalkType?
    /// The inputs where they really are (absolute, links resolved), and the kept output.
    public var files: Files
    /// The channel read from multichannel files (`.monoOnly`: mono files only), so the numbers
    /// can be traced back to the audio they measured.
    public var channel: ChannelSelection
    /// The mode, as `EchoControlMode` names it.
    public var mode: String
    /// Its canceller's library and version, or a plugin's name and SHA-256 (`BackendLibrary`);
    /// nil without a canceller.
    public var library: String?
    public var sampleRate: Int
    public var processingRate: Int
    public var latencySamples: Int
    public var aecResets: Int
    public var durationSeconds: Double
    /// nil without a loopback (near-end single talk): nothing to measure.
    public var metrics: EchoMetrics?
    /// Why ERL and ERLE are null, in words (`echo_unmeasured` in report.json, as in a simulated
    /// run's); nil when they were measured.
    public var echoUnmeasuredReason: String? = nil
    /// Why `metrics.delay_ms` is null, in words (`delay_unmeasured`, as in a simulated run's);
    /// nil when it was measured.
    public var delayUnmeasuredReason: String? = nil
    /// The delay search's range (ms) where the echo lay outside it (`echo_outside_delay_search_ms`,
    /// written only then), as in a simulated run's report.
    public var echoOutsideDelaySearchMilliseconds: Double? = nil
    /// Why `metrics.convergence_s` is null where there is a steady ERLE (`convergence_unmeasured`).
    public var convergenceUnmeasuredReason: String? = nil
    /// Both reasons for a recording without a loopback (near-end single talk).
    public static let noLoopbackReason = "the recording has no loopback (near-end single talk): there is no far end to echo"
    /// Where the inputs differ in length (within the tolerance `eval` allows): the samples scored
    /// (the shortest input's) and each input's, as `echolab metrics` gives them; nil where they
    /// are alike.
    public var lengthMismatch: LengthMismatch? = nil
    /// Samples at full scale in the mic and the loopback (see `RecordingProcessor.Outcome`); the
    /// loopback's nil where the recording has none (near-end single talk): no count of a file
    /// that is not there.
    public var clippedMicSamples = 0
    public var clippedLoopbackSamples: Int? = 0
    /// What was corrected in the inputs before they were measured (DC offsets, a clock drift);
    /// nil without a loopback, where nothing is measured.
    public var inputCorrections: InputCorrections? = nil
    /// Where both tracks were given: how much of the mic they leave unexplained, in dB of its
    /// power (`InputCensus.tracksUnexplainedDB`); over −10 dB they are not what the mic holds.
    public var tracksUnexplainedDB: Double? = nil
    /// The telephony requirements the output misses that a recording can be judged on (a send
    /// path of silence in every far-end single-talk frame: `RequirementFindings.silentSend`).
    public var findings: [RunReport.Finding] = []
    /// Why `intensityAdaptive` changed suppression (`frame`: samples at `processingRate`).
    public var adaptiveDecisions: [AdaptiveDecision] = []
    /// The activity gate's talk, window by window (`activity_series`), as a simulated call's
    /// report lists it: on a recording without tracks, what the tap-free gate heard, which its
    /// ERLE and near-end figures rest on (near-end single talk: against its silent loopback).
    /// Empty in a report written before it was listed.
    public var activity: [ActivityWindow] = []
    /// What each `--scorer` said of the recording (nil: none was asked; no `scores` key).
    public var scores: [ScorerResult]? = nil

    /// The run's inputs where they really are (absolute, links resolved when the run was
    /// measured; `InputFile.canonical`), which the pages link their players to as they are.
    public struct Files: Sendable, Equatable {
        public var mic: String
        /// `sent.wav` when the output was kept (not under `--no-taps`).
        public var sent: String?
        public var loopback: String?
        public var echo: String?
        public var nearEnd: String?
    }

    /// `report.json`'s content.
    public func json() -> JSONValue {
        var files: [String: JSONValue] = ["mic": .string(self.files.mic), "sent": self.files.sent.map(JSONValue.string) ?? .null]
        files["loopback"] = self.files.loopback.map(JSONValue.string)
        files["echo"] = self.files.echo.map(JSONValue.string)
        files["near_end"] = self.files.nearEnd.map(JSONValue.string)
        var root: [String: JSONValue] = [
            "schema": .string(Self.schema),
            "tool": .object(["name": .string("echolab"), "version": .string(EchoLabVersion.current)]),
            "item": .string(item),
            "talk_type": talkType.map { .string($0.rawValue) } ?? .null,
            "files": .object(files),
            "channel": channel.json,
            "aec": .object(["mode": .string(mode), "library": library.map(JSONValue.string) ?? .null]),
            "sample_rate": .number(Double(sampleRate)),
            "processing_rate": .number(Double(processingRate)),
            "latency_samples": .number(Double(latencySamples)),
            "aec_resets": .number(Double(aecResets)),
            "duration_s": .number(durationSeconds),
            "metrics": metrics?.json ?? .null,
            "echo_unmeasured": echoUnmeasuredReason.map(JSONValue.string) ?? .null,
            "delay_unmeasured": delayUnmeasuredReason.map(JSONValue.string) ?? .null,
            "convergence_unmeasured": convergenceUnmeasuredReason.map(JSONValue.string) ?? .null,
            "length_mismatch": lengthMismatch?.json ?? .null,
            "clipped_samples": .object(["mic": .number(Double(clippedMicSamples)),
                                        "loopback": clippedLoopbackSamples.map { .number(Double($0)) } ?? .null]),
            "input_corrections": inputCorrections.map { JSONValue(encoding: $0) } ?? .null,
            "tracks_unexplained_db": tracksUnexplainedDB.map(JSONValue.number) ?? .null,
            "findings": .array(findings.map(\.json)),
            "activity_series": JSONValue(encoding: activity),
            // As a simulated call's report lists them (`sample` there at the call's rate, here at
            // the processing rate: exact, where `t_s` is for people).
            "adaptive_aec": .array(adaptiveDecisions.map { $0.json(sampleRate: Double(processingRate)) }),
        ]
        if let scores { root["scores"] = .array(scores.map(JSONValue.init(encoding:))) }
        // Only where set: a report whose echo lies inside the search keeps the same keys in
        // every echolab.recording/2 report.
        if let range = echoOutsideDelaySearchMilliseconds { root["echo_outside_delay_search_ms"] = .number(range) }
        return .object(root)
    }

    /// A report.json that does not read as a recording report EchoLab wrote.
    public struct ReadError: DescribedError {
        public let problem: String
        public var description: String { "recording report: \(problem)" }
    }

    /// The text at `key`, or nil where it is null or missing.
    private static func reason(_ value: JSONValue, _ key: String) throws(ReadError) -> String? {
        switch value[key] {
        case nil, .null?: return nil
        case .string(let reason)?: return reason
        case let other?: throw ReadError(problem: "\(key) \(other.canonicalText(numbers: .exact).dropLast()) is not text")
        }
    }

    /// Reads a `report.json` value (`echolab.recording/…`) as its file prints it.
    public init(reading value: JSONValue) throws(ReadError) {
        guard value["schema"]?.stringValue?.hasPrefix("echolab.recording/") == true else { throw ReadError(problem: "its schema is not echolab.recording/…") }
        func string(_ path: String) throws(ReadError) -> String {
            guard let text = value.value(at: path)?.stringValue else { throw ReadError(problem: "no \(path)") }
            return text
        }
        func integer(_ key: String) throws(ReadError) -> Int {
            guard let number = value[key]?.doubleValue, let whole = Int(exactly: number) else { throw ReadError(problem: "no whole number \(key)") }
            return whole
        }
        item = try string("item")
        switch value["talk_type"] {
        case nil, .null?: talkType = nil
        case .string(let name)? where TalkType(rawValue: name) != nil: talkType = TalkType(rawValue: name)
        case let other?: throw ReadError(problem: "talk_type \(other.canonicalText(numbers: .exact).dropLast()) is not a talk type")
        }
        files = Files(mic: try string("files.mic"), sent: value.value(at: "files.sent")?.stringValue,
                      loopback: value.value(at: "files.loopback")?.stringValue, echo: value.value(at: "files.echo")?.stringValue,
                      nearEnd: value.value(at: "files.near_end")?.stringValue)
        guard let channel = ChannelSelection(json: value["channel"]) else {
            throw ReadError(problem: "channel \((value["channel"] ?? .null).canonicalText(numbers: .exact).dropLast()) is not a channel")
        }
        self.channel = channel
        mode = try string("aec.mode")
        // Reports written before libraries were named have none.
        library = value.value(at: "aec.library")?.stringValue
        sampleRate = try integer("sample_rate")
        processingRate = try integer("processing_rate")
        latencySamples = try integer("latency_samples")
        aecResets = try integer("aec_resets")
        guard let duration = value["duration_s"]?.doubleValue else { throw ReadError(problem: "no duration_s") }
        durationSeconds = duration
        switch value["metrics"] {
        case nil, .null?: metrics = nil
        case let object?:
            do { metrics = try JSONValueDecoder().decode(EchoMetrics.self, from: object) } catch {
                throw ReadError(problem: "metrics: \(JSONValueDecoder.describe(error))")
            }
        }
        // Reports written before the reasons were given have none.
        echoUnmeasuredReason = try Self.reason(value, "echo_unmeasured")
        delayUnmeasuredReason = try Self.reason(value, "delay_unmeasured")
        echoOutsideDelaySearchMilliseconds = value["echo_outside_delay_search_ms"]?.doubleValue
        convergenceUnmeasuredReason = try Self.reason(value, "convergence_unmeasured")
        switch value["length_mismatch"] {
        case nil, .null?: lengthMismatch = nil
        case let object?:
            do { lengthMismatch = try JSONValueDecoder().decode(LengthMismatch.self, from: object) } catch {
                throw ReadError(problem: "length_mismatch: \(JSONValueDecoder.describe(error))")
            }
        }
        // Reports written before clipping was counted have none: read as none counted. A
        // recording without a loopback counts none of it (null).
        func count(_ name: String) throws(ReadError) -> Int? {
            guard let count = value.value(at: "clipped_samples.\(name)") else { return 0 }
            if case .null = count, name == "loopback" { return nil }
            guard let number = count.doubleValue, let whole = Int(exactly: number), whole >= 0 else {
                throw ReadError(problem: "clipped_samples.\(name) is not a count")
            }
            return whole
        }
        clippedMicSamples = try count("mic") ?? 0
        clippedLoopbackSamples = try count("loopback")
        switch value["input_corrections"] {
        case nil, .null?: inputCorrections = nil
        case let object?:
            do { inputCorrections = try JSONValueDecoder().decode(InputCorrections.self, from: object) } catch {
                throw ReadError(problem: "input_corrections: \(JSONValueDecoder.describe(error))")
            }
        }
        // Reports written before it was measured have none.
        switch value["tracks_unexplained_db"] {
        case nil, .null?: tracksUnexplainedDB = nil
        case let number?:
            guard let decibels = number.doubleValue else { throw ReadError(problem: "tracks_unexplained_db is not a number or null") }
            tracksUnexplainedDB = decibels
        }
        findings = try (value["findings"]?.arrayValue ?? []).map { (item: JSONValue) throws(ReadError) -> RunReport.Finding in
            guard let finding = RunReport.Finding(reading: item) else { throw ReadError(problem: "findings: an entry that is not a finding") }
            return finding
        }
        if let list = value["scores"] {
            do { scores = try JSONValueDecoder().decode([ScorerResult].self, from: list) } catch {
                throw ReadError(problem: "scores: \(JSONValueDecoder.describe(error))")
            }
        }
        // Reports written before the talk was listed on recordings have none.
        for (index, entry) in (value["activity_series"]?.arrayValue ?? []).enumerated() {
            guard let window = ActivityWindow(reading: entry) else {
                throw ReadError(problem: "activity_series[\(index)] is not an activity window")
            }
            activity.append(window)
        }
        // Reports written before adaptive decisions were listed on recordings have none.
        for (index, entry) in (value["adaptive_aec"]?.arrayValue ?? []).enumerated() {
            func number(_ key: String) throws(ReadError) -> Double {
                guard let number = entry[key]?.doubleValue else { throw ReadError(problem: "adaptive_aec[\(index)] has no \(key)") }
                return number
            }
            // Absent (reports before it was measured) or null (no double talk in the window).
            func optionalNumber(_ key: String) throws(ReadError) -> Double? {
                guard let value = entry[key], value != .null else { return nil }
                guard let number = value.doubleValue else { throw ReadError(problem: "adaptive_aec[\(index)].\(key) is not a number") }
                return number
            }
            func whole(_ key: String) throws(ReadError) -> Int {
                guard let whole = Int(exactly: try number(key)) else { throw ReadError(problem: "adaptive_aec[\(index)].\(key) is not a whole number") }
                return whole
            }
            adaptiveDecisions.append(AdaptiveDecision(frame: Int64(try whole("sample")), erlEstimateDB: try number("erl_estimate_db"),
                                                      doubleTalkShare: try number("double_talk_share"),
                                                      echoToNearDB: try optionalNumber("echo_to_near_db"),
                                                      suppressionDB: try whole("suppression_db"),
                                                      doubleTalkSuppressionDB: try whole("double_talk_suppression_db")))
        }
    }

    init(item: String, talkType: TalkType?, files: Files, channel: ChannelSelection, mode: String, sampleRate: Int,
         processingRate: Int, latencySamples: Int, aecResets: Int, durationSeconds: Double, metrics: EchoMetrics?) {
        self.item = item
        self.talkType = talkType
        self.files = files
        self.channel = channel
        self.mode = mode
        self.sampleRate = sampleRate
        self.processingRate = processingRate
        self.latencySamples = latencySamples
        self.aecResets = aecResets
        self.durationSeconds = durationSeconds
        self.metrics = metrics
    }

    /// The values as a reader of report.json gets them: what the pages render, so a run's pages
    /// and the pages `merge` renders from its report.json are the same bytes.
    func roundedAsPrinted() throws(ReadError) -> RecordingReport { try RecordingReport(reading: json().roundedAsPrinted()) }
}
