import AudioCore
import EchoLabJSON
import Metrics
import ScenarioFiles

/// What `eval` needs of any run, a simulated call or a recording: its metrics (the report's
/// `metrics` object), pipeline counters where there are any, lint findings, length, taps.
///
/// Always read from the run's `report.json` value as that file prints it (numbers to four
/// decimals): a run that just finished and a run read back from disk (`merge` of shards) give
/// the same summary, so eval.json, eval.md and eval.html have the same bytes either way.
public struct RunSummary: Sendable {
    /// nil where there is nothing to measure (a recording without a loopback).
    public var metrics: EchoMetrics?
    /// nil for a recording (nothing is simulated).
    public var pipeline: PipelineReport?
    /// A recording's faults (nil for a simulated call, and for a report written before they were counted).
    public var recordingHealth: RecordingHealth?
    /// The hardware model's stream faults (report.json's `hardware.streams`); nil without a
    /// hardware model. eval.json carries them beside the pipeline's, so the gate judges them.
    public var hardwareStreams: HardwareStreamFaults?
    public var findings: [String]
    /// The rules of `findings` of one kind (the app's lint, a missed requirement, the canceller's).
    public func findings(of kind: RunReport.Finding.Kind) -> [String] { findings.filter { RunReport.Finding.Kind(rule: $0) == kind } }
    public var durationSeconds: Double
    /// The call's or recording's sample rate (nil in a report that does not say it).
    public var sampleRate: Int?
    /// Where the far end never played (`EvalDocument.nearEndAlone`): the near end's attenuation
    /// while it talked alone. Not where the app never fed the user reference it started
    /// (`user-reference-not-fed`): the far end played and its echo went out uncancelled, though
    /// the gate, reading that silent reference, heard none (eval.md would read "2.6 alone" for it).
    public var nearEndAlone: (value: Double, isLowerBound: Bool, frames: Int, isEstimate: Bool)? {
        guard !findings.contains(LintRule.userReferenceNotFed.rawValue) else { return nil }
        return metrics.flatMap(EvalDocument.nearEndAlone)
    }
    /// The canceller's library and version, or a plugin's name and SHA-256 (the report's
    /// `aec.library`); nil without a canceller, or in a report written before it was named.
    public var library: String?
    /// The rate the canceller ran at, where the report says it (`aec.rate_hz`: a plugin's and
    /// webrtc-mobile's; a recording's `processing_rate`): merge knows a plugin by its name only.
    public var cancellerRateHz: Int?
    /// The WAVs written into the run's folder, by tap name (`sent` → `sent.wav`), for the players.
    public var taps: [String: String] = [:]
    /// A recording's microphone file (its input, outside the run's folder); nil for a simulated call.
    public var micFile: String?
    /// What of a multichannel recording was scored (`channel 1`, `downmix`); nil for mono files,
    /// where the file is what was scored.
    public var micChannel: String?
    /// A simulated call's timeline actions: when (seconds) and what, for the plots.
    public var timeline: [(seconds: Double, action: String)] = []
    /// A simulated call's segments (empty for a recording): eval.json lists them so that the gate
    /// judges every device and route stretch, not only the call's average.
    public var segments: [Segment] = []
    /// What each scorer said of the run (nil: no scorer was asked).
    public var scores: [ScorerResult]?
    /// Why ERL and ERLE are null, in the run's own words (the report's `echo_unmeasured`: "no echo
    /// reached the sent path: custom mic (file microphone)"); nil where they were measured. The
    /// eval pages give it where a run has no ERLE, instead of guessing a reason of their own.
    public var echoUnmeasuredReason: String?
    /// Why the bulk delay and the convergence are null, in the report's words (its
    /// `delay_unmeasured`, `convergence_unmeasured`); nil where they were measured.
    public var delayUnmeasuredReason: String?
    /// The delay search's range (ms) where the run's echo lay outside it (a loopback recorded late?).
    public var echoOutsideDelaySearchMilliseconds: Double?
    public var convergenceUnmeasuredReason: String?

    /// What went wrong in a hardware model's I/O streams, both directions summed: engine ticks a
    /// stream could not fill (a device clock slower than the engine's), and samples a stream
    /// dropped as it ran over (a faster one).
    public struct HardwareStreamFaults: Codable, Sendable, Equatable {
        public var underruns: Int
        public var droppedSamples: Int
        /// Input streams made anew while the near talker spoke in the audio they held, and the
        /// talker's samples they dropped (absent, 0, in reports written before restarts were
        /// measured): a cut that grows longer is a rise too.
        public var nearEndCuts: Int
        public var nearEndLostSamples: Int

        enum CodingKeys: String, CodingKey {
            case underruns, droppedSamples = "dropped_samples", nearEndCuts = "near_end_cuts", nearEndLostSamples = "near_end_lost_samples"
        }

        public init(underruns: Int, droppedSamples: Int, nearEndCuts: Int = 0, nearEndLostSamples: Int = 0) {
            self.underruns = underruns
            self.droppedSamples = droppedSamples
            self.nearEndCuts = nearEndCuts
            self.nearEndLostSamples = nearEndLostSamples
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            underruns = try container.decode(Int.self, forKey: .underruns)
            droppedSamples = try container.decode(Int.self, forKey: .droppedSamples)
            nearEndCuts = try container.decodeIfPresent(Int.self, forKey: .nearEndCuts) ?? 0
            nearEndLostSamples = try container.decodeIfPresent(Int.self, forKey: .nearEndLostSamples) ?? 0
        }
    }

    /// One segment of a call as eval.json lists it: where it is, what opened it, its echo removal
    /// and the analysis frames it stands on.
    public struct Segment: Codable, Sendable, Equatable {
        public var startSeconds: Double
        public var endSeconds: Double
        /// The timeline actions that opened it (empty for the first).
        public var events: [String]
        /// The audio route in it (nil without a hardware model).
        public var route: String?
        public var erleSteadyDB: Double?
        public var erleSteadyIsLowerBound: Bool
        public var erleSteadyFrames: Int
        public var erleDB: Double?
        public var erleIsLowerBound: Bool
        public var singleTalkFrames: Int

        enum CodingKeys: String, CodingKey {
            case startSeconds = "start_s", endSeconds = "end_s", events, route
            case erleSteadyDB = "erle_steady_db", erleSteadyIsLowerBound = "erle_steady_is_lower_bound"
            case erleSteadyFrames = "erle_steady_analysis_frames"
            case erleDB = "erle_db", erleIsLowerBound = "erle_is_lower_bound", singleTalkFrames = "single_talk_analysis_frames"
        }
    }

    /// A report that cannot be read back as one EchoLab wrote.
    public struct ReadError: DescribedError {
        public let problem: String
        public var description: String { "run report: \(problem)" }
    }

    /// A summary of the given values, as they are: eval.json prints the numbers a summary read
    /// from a report holds (`init(reading:)`), so only that one gives a run's eval.json entry the
    /// bytes a merge of shards gives it. For statistics over values built by hand (tests).
    init(metrics: EchoMetrics?, pipeline: PipelineReport? = nil, findings: [String] = [], durationSeconds: Double = 0,
         library: String? = nil, scores: [ScorerResult]? = nil) {
        self.metrics = metrics
        self.pipeline = pipeline
        self.findings = findings
        self.durationSeconds = durationSeconds
        self.library = library
        self.scores = scores
    }

    /// From a `report.json` value (`echolab.run/…` or `echolab.recording/…`), rounded as its
    /// file prints it (`JSONValue.roundedAsPrinted`).
    public init(reading report: JSONValue) throws {
        let value = report.roundedAsPrinted()
        let schema = value["schema"]?.stringValue ?? ""
        switch value["metrics"] {
        case .object?:
            do {
                metrics = try JSONValueDecoder().decode(EchoMetrics.self, from: value["metrics"]!)
            } catch {
                throw ReadError(problem: "metrics: \(JSONValueDecoder.describe(error))")
            }
        case nil, .null?:
            // Only a recording without a loopback has nothing to measure: anywhere else a report
            // without metrics would be a run the gate never judges.
            guard schema.hasPrefix("echolab.recording/"), value.value(at: "files.loopback")?.stringValue == nil else {
                throw ReadError(problem: "metrics: missing or null in the report of a run that was measured")
            }
        // Read as no metrics, a report whose metrics were a number merged as a run without them.
        default: throw ReadError(problem: "metrics: not an object or null")
        }
        if let list = value["scores"] {
            do {
                scores = try JSONValueDecoder().decode([ScorerResult].self, from: list)
            } catch {
                throw ReadError(problem: "scores: \(JSONValueDecoder.describe(error))")
            }
        }
        durationSeconds = value["duration_s"]?.doubleValue ?? 0
        sampleRate = value["sample_rate"]?.doubleValue.map(Int.init(saturating:))
        echoUnmeasuredReason = value["echo_unmeasured"]?.stringValue
        delayUnmeasuredReason = value["delay_unmeasured"]?.stringValue
        echoOutsideDelaySearchMilliseconds = value["echo_outside_delay_search_ms"]?.doubleValue
        convergenceUnmeasuredReason = value["convergence_unmeasured"]?.stringValue
        library = value.value(at: "aec.library")?.stringValue
        cancellerRateHz = (value.value(at: "aec.rate_hz") ?? value["processing_rate"])?.doubleValue.map(Int.init(saturating:))
        if schema.hasPrefix("echolab.recording/") {
            pipeline = nil
            // Every count or none: a count a report did not hold is not a zero to judge a rise from.
            // A loopback's null is a recording without one, which has no count to hold.
            if let resets = value["aec_resets"]?.doubleValue, let mic = value.value(at: "clipped_samples.mic")?.doubleValue,
               let loopback = value.value(at: "clipped_samples.loopback"), loopback.doubleValue != nil || loopback == .null {
                recordingHealth = RecordingHealth(aecResets: Int(saturating: resets), clippedMicSamples: Int(saturating: mic),
                                                  clippedLoopbackSamples: loopback.doubleValue.map(Int.init(saturating:)))
            }
            findings = (value["findings"]?.arrayValue ?? []).compactMap { $0["rule"]?.stringValue }
            micFile = value.value(at: "files.mic")?.stringValue
            if let channel = ChannelSelection(json: value["channel"]), channel != .monoOnly { micChannel = channel.description }
            if let sent = value.value(at: "files.sent")?.stringValue { taps = ["sent": sent] }
        } else {
            do {
                pipeline = try JSONValueDecoder().decode(PipelineReport.self, from: value["pipeline"] ?? .null)
            } catch {
                throw ReadError(problem: "pipeline: \(JSONValueDecoder.describe(error))")
            }
            findings = (value["findings"]?.arrayValue ?? []).compactMap { $0["rule"]?.stringValue }
            for (name, file) in value["taps"]?.objectValue ?? [:] {
                if let file = file.stringValue, file.hasSuffix(".wav") { taps[name] = file }
            }
            do {
                segments = try (value["segments"]?.arrayValue ?? []).map { try JSONValueDecoder().decode(Segment.self, from: $0) }
            } catch {
                throw ReadError(problem: "segments: \(JSONValueDecoder.describe(error))")
            }
            if let streams = value.value(at: "hardware.streams"), streams != .null {
                do {
                    hardwareStreams = try JSONValueDecoder().decode(HardwareStreamFaults.self, from: streams)
                } catch {
                    throw ReadError(problem: "hardware.streams: \(JSONValueDecoder.describe(error))")
                }
            }
            timeline = (value["events"]?.arrayValue ?? []).compactMap { event in
                guard event["kind"]?.stringValue == "timeline", let t = event["t_s"]?.doubleValue,
                      let detail = event["detail"]?.stringValue else { return nil }
                return (t, detail)
            }
        }
    }
}
