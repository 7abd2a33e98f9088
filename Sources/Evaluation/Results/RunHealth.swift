/// A run's health as eval's pages count it: what went wrong in the pipeline (each an issue), the
/// app's lint findings, and what is said but counted as neither (a recording's clipping, the
/// canceller's own findings). Judged here; the pages only word it.
public struct RunHealth: Sendable, Equatable {
    /// Something that went wrong in the pipeline, in the order the pages say them.
    public enum Fault: Sendable, Equatable {
        case underruns(Int), overruns(Int), clicks(Int), gaps(Int), cancellerResets(Int)
        /// A buffer that lost audio (named by its place in the pipeline).
        case notConserved(buffer: String)
        case hardwareStreamUnderruns(Int), nearEndCuts(Int)
        /// Samples a hardware stream dropped as it ran over.
        case droppedSamples(Int)

        /// How many issues it is: one per event; one for a buffer, and one for any number of
        /// dropped samples (samples, not events).
        public var issues: Int {
            switch self {
            case .underruns(let n), .overruns(let n), .clicks(let n), .gaps(let n), .cancellerResets(let n),
                 .hardwareStreamUnderruns(let n), .nearEndCuts(let n): n
            case .notConserved, .droppedSamples: 1
            }
        }
    }

    public var faults: [Fault] = []
    /// A recording's clipped samples by stage (mic, loopback), where any: the recording's, not the
    /// pipeline's, so said and not counted.
    public var clippedSamples: [(stage: String, count: Int)] = []
    /// The canceller's own findings (an echo leak after a route change): said, not the app's lint.
    public var cancellerFindings: [String] = []
    /// The lint's findings, each rule once in the order first found, with how many times.
    public var lintRules: [(rule: String, count: Int)] = []

    public var issues: Int { faults.reduce(0) { $0 + $1.issues } }
    public var lintFindings: Int { lintRules.reduce(0) { $0 + $1.count } }
    public var isClipped: Bool { !clippedSamples.isEmpty }
    /// Nothing went wrong, nothing was found, nothing is said.
    public var isClean: Bool { faults.isEmpty && clippedSamples.isEmpty && cancellerFindings.isEmpty && lintRules.isEmpty }

    public static func == (a: RunHealth, b: RunHealth) -> Bool {
        a.faults == b.faults && a.cancellerFindings == b.cancellerFindings
            && a.clippedSamples.elementsEqual(b.clippedSamples, by: ==) && a.lintRules.elementsEqual(b.lintRules, by: ==)
    }

    /// A failed run's (no summary): nothing counted.
    public init() {}

    public init(_ summary: RunSummary) {
        func fault(_ n: Int, _ make: (Int) -> Fault) { if n > 0 { faults.append(make(n)) } }
        if let pipeline = summary.pipeline {
            fault(pipeline.underruns, Fault.underruns); fault(pipeline.overruns, Fault.overruns)
            fault(pipeline.sentClicks, Fault.clicks); fault(pipeline.sentGaps, Fault.gaps)
            fault(pipeline.aecResets, Fault.cancellerResets)
            for (name, buffer) in pipeline.buffers where !buffer.isConserved { faults.append(.notConserved(buffer: name)) }
        }
        if let streams = summary.hardwareStreams {
            fault(streams.underruns, Fault.hardwareStreamUnderruns)
            fault(streams.nearEndCuts, Fault.nearEndCuts)
            fault(streams.droppedSamples, Fault.droppedSamples)
        }
        if let health = summary.recordingHealth {
            fault(health.aecResets, Fault.cancellerResets)
            for (stage, count) in [("mic", health.clippedSamples.mic), ("loopback", health.clippedSamples.loopback ?? 0)] where count > 0 {
                clippedSamples.append((stage, count))
            }
        }
        cancellerFindings = summary.findings(of: .canceller)
        for rule in summary.findings(of: .lint) {
            if let index = lintRules.firstIndex(where: { $0.rule == rule }) { lintRules[index].count += 1 } else { lintRules.append((rule, 1)) }
        }
    }
}

extension CorpusRun.Result {
    /// The run's health (nothing counted for a failed run).
    public var health: RunHealth { summary.map(RunHealth.init) ?? RunHealth() }
}
