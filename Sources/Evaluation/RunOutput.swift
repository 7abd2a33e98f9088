import AudioInterop
import EchoLabJSON
import Foundation
import Metrics
import Simulation
import VirtualTime

/// Which WAV taps a run writes.
public enum TapSelection: Sendable {
    case none
    /// `mic.wav`, `reference.wav`, `echo.wav`, `sent.wav`.
    case standard
    /// The standard taps plus `near.wav` (near end + noise at the mic) and `played.wav` (loudspeaker).
    case all

    func includes(_ name: String) -> Bool {
        switch self {
        case .none: false
        case .standard: CallRecording.standardTapNames.contains(name)
        case .all: true
        }
    }
}

/// Runs a scenario and writes its folder: the taps (see `TapSelection`), `report.json`, and the
/// pages its `renderer` makes of the report (Reporting's `ReportPages`: `report.md`, `report.html`).
/// Nothing is half-written and nothing of the inputs is touched: the folder is checked first
/// (`OutputFolder`), everything is computed in memory or streamed to hidden temporary files, and
/// each file is renamed into place at the end.
public struct RunOutput {
    public var scenario: Scenario
    public var outputDirectory: String
    public var taps: TapSelection
    public var evaluator = RunEvaluator()
    /// Checked every engine tick: a cancelled run throws `RunCancelled` and leaves nothing new.
    public var cancellation: RunCancellation?
    /// Called every second of call time while the call runs.
    public var progress: ((RunProgress) -> Void)?
    /// Decoded inputs shared by the runs of a corpus (`eval` passes its own); nil streams them.
    public var decodedAudio: DecodedAudioCache?
    /// The echo of runs before, shared by the runs of a corpus (`eval` passes its own); nil
    /// computes it.
    public var echoPaths: EchoPathCache?
    /// What the hardware streams of runs before did, shared by the runs of a corpus (`eval`
    /// passes its own); nil converts every tick.
    public var hardwareStreams: HardwareStreamRecords?
    /// The cancellers' latencies, measured once per eval (`eval` passes its own); nil: the call
    /// keeps its own.
    public var latencies: EchoControlLatencies?
    /// The plugin files' digests as the eval found them (`eval` passes its own): a run whose
    /// plugin file changed since fails. nil checks nothing.
    public var pluginDigests: PluginDigests?
    /// Renders the report's pages; nil writes report.json alone.
    public var renderer: (any ReportRenderer)?
    /// The scorers that score the call (`--scorer`); each is started on its first request and
    /// stays running for the next run (the caller stops them).
    public var scorers: [ScorerProcess] = []
    /// The command (`run`, `eval`) that holds the output folder's `OutputLock` while the run
    /// writes it; nil takes none.
    public var lockingFor: String?
    /// The output folder lies in one this process holds (an eval's run): the lock does not look
    /// for holders of the folders it lies in.
    var lockIsInsideOwnFolder = false

    public init(scenario: Scenario, outputDirectory: String, taps: TapSelection = .standard, renderer: (any ReportRenderer)?,
                cancellation: RunCancellation? = nil, progress: ((RunProgress) -> Void)? = nil) {
        self.scenario = scenario
        self.outputDirectory = outputDirectory
        self.taps = taps
        self.renderer = renderer
        self.cancellation = cancellation
        self.progress = progress
    }

    @discardableResult
    public func run() throws -> RunReport { try run(summarising: false).report }

    /// The run's report and, with `summarising`, eval's summary of it, read from the report's JSON
    /// as written (built once).
    func run(summarising: Bool) throws -> (report: RunReport, summary: RunSummary?) {
        try OutputFolder.check(outputDirectory, for: scenario)
        return try OutputFolder.writing(into: outputDirectory, lockingFor: lockingFor, insideOwnFolder: lockIsInsideOwnFolder) {
            try runInto(summarising: summarising)
        }
    }

    private func runInto(summarising: Bool) throws -> (report: RunReport, summary: RunSummary?) {
        // A pipe or a device under a name the run writes is found now, not after the call (and
        // after the folder is made: a folder that cannot be is named with the system's reason).
        let files = CallRecording.tapNames.filter(taps.includes).map { "\($0).wav" } + Self.reportFiles + scenario.deviceOutputFiles
        try OutputFolder.checkReplaceable(files, in: outputDirectory)
        let previousOutputs = OutputFolder.filesOfPreviousRun(in: outputDirectory)
        // A run killed while it wrote its files (SIGKILL, a second SIGINT) left them, or the
        // ones they replaced, at hidden names: this run holds the folder's lock, and removes them.
        AtomicFile.removeLeftovers(of: CallRecording.tapNames.map { "\($0).wav" } + Self.reportFiles + scenario.deviceOutputFiles,
                                        in: outputDirectory)
        let started = DispatchTime.now()
        // The call and its measurement are gone once `callAndScore` returns: the report documents
        // are built in the memory they held (an hour-long call's reports take ~8 MB).
        var (report, outputs, scoringSeconds) = try callAndScore()
        // The scorers' time is theirs, not the simulation's: the real-time factor leaves it out.
        report.wallSeconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9 - scoringSeconds
        // The report and its pages are one change: all written to hidden names, then moved into
        // place (a full disk on report.html left the new report.json beside the previous run's
        // page). The JSON is written before the pages are rendered: a long call's JSON value and
        // its pages are never in memory together.
        var summary: RunSummary?
        let pages = renderer?.pages(of: report) ?? []
        try AtomicFile.write([(path("report.json"), { write in
            let json = report.json()
            try json.writeCanonicalText(to: write)
            if summarising { summary = try RunSummary(reading: json) }
        })] + pages.map { page in (path(page.name), { write in try write(page.render()) }) })
        // Outputs of an earlier run into this folder that this run did not write would
        // contradict its report: remove them — only those that run's report listed as its own.
        OutputFolder.removeStaleOutputs(in: outputDirectory, previous: previousOutputs, written: Set(outputs.values))
        return (report, summary)
    }

    /// Runs the call with its taps and measurement, and scores it; returns the report (without
    /// its wall time), the files written, tap name → file name, and the seconds its scorers took.
    /// The taps are whole and in place before a report names them.
    private func callAndScore() throws -> (RunReport, [String: String], Double) {
        var runner = ScenarioRunner(scenario: scenario, outputDirectory: outputDirectory, recordsTaps: false, decodedAudio: decodedAudio,
                                    echoPaths: echoPaths, latencies: latencies)
        runner.hardwareStreams = hardwareStreams
        let duration = try runner.duration()
        let rate = SimulatedCall.sampleRate
        let names = CallRecording.tapNames.filter(taps.includes)
        let writer = names.isEmpty ? nil : try WAVTapWriter(directory: outputDirectory, names: names, sampleRate: rate)
        let totalTicks = SimulatedCall.tickCount(for: duration)
        var configuration = evaluator.configuration
        configuration.recordsTalkRuns = !scorers.isEmpty   // what scorers cut the call by, only for them
        let measurement = CallMeasurement(sampleRate: rate, configuration: configuration, sendLatencyIsFixed: scenario.sendLatencyIsFixed)
        let levels = LevelMeter(sampleRate: rate)
        // Kept for the scorers only; a temporary folder that cannot be made leaves the scores
        // missing with the reason, not the run.
        var tracks: AlignedTrackRecorder?, tracksFailure: String?
        if !scorers.isEmpty {
            do { tracks = try AlignedTrackRecorder(sampleRate: rate) } catch { tracksFailure = "cannot keep the call's tracks to score: \(error)" }
        }
        defer { tracks?.remove() }
        measurement.alignedTracks = tracks
        var streaming = runner
        streaming.taps = [measurement, levels] + (writer.map { [$0] } ?? [])
        if cancellation != nil || progress != nil {
            streaming.taps.append(RunWatcher(cancellation: cancellation, progress: progress, totalTicks: totalTicks))
        }
        // The plugin file's SHA-256 as it is when the call starts, held open: checked after the
        // call to be the file the plugin ran from, unchanged (`PluginFile`).
        let pluginFile = scenario.voiceProcessing.backend.plugin.map(PluginFile.init)
        let pluginDigest = pluginFile?.sha256
        if let plugin = scenario.voiceProcessing.backend.plugin, let pluginDigest { try pluginDigests?.check(plugin, digest: pluginDigest) }
        let run: CallRun
        do {
            run = try streaming.run(for: duration)
            try writer?.finish()
        } catch {
            // Stopped early (an interrupt, a bad sample, a full disk): the partial taps go here
            // and now, not whenever the last reference goes.
            writer?.discard()
            // A plugin's wait cut short by the interruption stopped the run; the plugin did no wrong.
            if (error as? PluginProcess.PluginFailure)?.isInterruption == true { throw RunCancelled() }
            throw error
        }
        try pluginFile?.verify(loaded: run.pluginFiles)
        var outputs = writer?.files ?? [:]
        for file in scenario.deviceOutputFiles { outputs[(file as NSString).deletingPathExtension] = file }
        let oneClock = scenario.hardware.map { $0.clockDriftPPM != 0 } == true ? oneClockControl(for: duration) : nil
        var report = evaluator.evaluate(run, measurement: measurement, wallSeconds: 0, taps: outputs, pluginDigest: pluginDigest,
                                        oneClock: oneClock)
        // Figures read after a failed read back of the call's metric rows are not the call's.
        if let failure = measurement.spillError { throw failure }
        // A control that could not run leaves the drift unjudged: the run fails with its reason
        // (an interruption is the run's), never reads as a call with no finding.
        if let failure = oneClock?.failure {
            if failure is RunCancelled || (failure as? PluginProcess.PluginFailure)?.isInterruption == true { throw RunCancelled() }
            throw failure
        }
        report.levels = levels.points
        let scoringStarted = DispatchTime.now()
        if let tracks {
            report.scores = score(tracks, measurement)
            // Stopped while scoring: the run did not finish.
            if cancellation?.isCancelled == true { throw RunCancelled() }
        } else if let tracksFailure {
            report.scores = RunScoring.unscored(scorers, because: tracksFailure)
        }
        // The control's time is the verdict's, not the simulation's: left out as the scorers' is.
        return (report, outputs, Double(DispatchTime.now().uptimeNanoseconds - scoringStarted.uptimeNanoseconds) / 1e9 + (oneClock?.seconds ?? 0))
    }

    /// The same call with the mic on the loudspeaker's clock, run and measured only when asked
    /// (`ClockDriftFinding` asks once, where the drifting call's canceller kept too little): its
    /// metrics over a stretch, nil where it could not run. Its devices write into a scratch
    /// folder of its own, never the run's.
    private func oneClockControl(for duration: VirtualDuration) -> OneClockControl {
        OneClockControl { [scenario, decodedAudio, echoPaths, hardwareStreams, latencies, evaluator, cancellation] in
            var control = scenario
            control.hardware?.clockDriftPPM = 0
            control.hardware?.convertsCaptureOnOneClock = true
            let folder = TemporaryFolder.uniquePath(prefix: "echolab-one-clock")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            var runner = ScenarioRunner(scenario: control, outputDirectory: folder, recordsTaps: false, decodedAudio: decodedAudio,
                                        echoPaths: echoPaths, latencies: latencies)
            runner.hardwareStreams = hardwareStreams
            let measurement = CallMeasurement(sampleRate: SimulatedCall.sampleRate, configuration: evaluator.configuration,
                                              sendLatencyIsFixed: control.sendLatencyIsFixed)
            runner.taps = [measurement] + (cancellation.map { [RunWatcher(cancellation: $0, progress: nil, totalTicks: 1)] } ?? [])
            _ = try runner.run(for: duration)
            let analysis = measurement.finish(segments: []).analysis
            if let failure = measurement.spillError { throw failure }
            return analysis
        }
    }

    /// The scorers' scores of the call's aligned tracks. Tracks that could not be written (a full
    /// disk) leave the scores null with the reason; the run stands.
    private func score(_ recorder: AlignedTrackRecorder, _ measurement: CallMeasurement) -> [ScorerResult] {
        let tracks: FileTracks
        do {
            tracks = try recorder.finish()
        } catch {
            return RunScoring.unscored(scorers, because: "cannot keep the call's tracks to score: \(error)")
        }
        return RunScoring.score(tracks, talk: measurement.talkRuns, frameSize: measurement.analysisFrameSize,
                                id: "\(scenario.name)/\(scenario.echoControlMode.folderName)", scorers: scorers, cancellation: cancellation)
    }

    private func path(_ name: String) -> String { (outputDirectory as NSString).appendingPathComponent(name) }

    /// The reports a run writes beside its taps.
    static let reportFiles = ["report.json", "report.md", "report.html"]
}

/// How far a running call is.
public struct RunProgress: Sendable {
    /// Call time simulated so far.
    public var callSeconds: Double
    /// The call's length.
    public var totalSeconds: Double
    public var fraction: Double { totalSeconds > 0 ? min(1, callSeconds / totalSeconds) : 1 }
}

/// A tick consumer that stops the call when cancelled and reports progress every 100 ticks
/// (one second of call), so neither costs more than a load and a compare per tick.
final class RunWatcher: CallTap {
    private let cancellation: RunCancellation?
    private let progress: ((RunProgress) -> Void)?
    private let totalTicks: Int
    private var ticks = 0

    init(cancellation: RunCancellation?, progress: ((RunProgress) -> Void)?, totalTicks: Int) {
        self.cancellation = cancellation
        self.progress = progress
        self.totalTicks = max(1, totalTicks)
    }

    func record(_ tick: TickSignals) throws {
        if cancellation?.isCancelled == true { throw RunCancelled() }
        ticks += 1
        if ticks % 100 == 0, let progress {
            progress(RunProgress(callSeconds: Double(ticks) / 100, totalSeconds: Double(totalTicks) / 100))
        }
    }
}
