import AudioInterop
import EchoLabJSON
import Foundation
import Metrics
import Reporting
import Simulation

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

/// Runs a scenario and writes its folder: the taps (see `TapSelection`), `report.json`,
/// `report.md` and `report.html`.
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
    /// Measure the call on worker threads while it runs (`BackgroundTap`; the same results), and
    /// render report.html and delete replaced taps on others. Worth it when a core is free;
    /// `eval` turns it off (its `--jobs` says how many cores to use).
    public var measuresInBackground = true
    /// Decoded inputs shared by the runs of a corpus (`eval` passes its own); nil streams them.
    public var decodedAudio: DecodedAudioCache?

    public init(scenario: Scenario, outputDirectory: String, taps: TapSelection = .standard,
                cancellation: RunCancellation? = nil, progress: ((RunProgress) -> Void)? = nil) {
        self.scenario = scenario
        self.outputDirectory = outputDirectory
        self.taps = taps
        self.cancellation = cancellation
        self.progress = progress
    }

    /// Plans the FFTs of a call's measurement on a second thread, so that the ~8 ms FFTW spends
    /// planning them (the delay estimator's 40 960 points both ways, the band meter's 960 forward)
    /// passes while the caller loads the scenario and checks the output folder (the
    /// measurement then gets the same plans at once). For a process that runs one call (`run`);
    /// without it the measurement plans them itself.
    public static func planMeasurementInBackground(configuration: EchoMetricsConfiguration = .default) {
        let plans = EchoAnalysisStream.transformPlans(sampleRate: SimulatedCall.sampleRate, configuration: configuration)
        Thread.detachNewThread { RealFFT.preparePlans(plans) }
    }

    @discardableResult
    public func run() throws -> RunReport {
        try OutputFolder.check(outputDirectory, for: scenario)
        return try OutputFolder.writing(into: outputDirectory, runInto)
    }

    private func runInto() throws -> RunReport {
        // A pipe or a device under a name the run writes is found now, not after the call (and
        // after the folder is made: a folder that cannot be is named with the system's reason).
        let files = CallRecording.tapNames.filter(taps.includes).map { "\($0).wav" } + Self.reportFiles + scenario.deviceOutputFiles
        try OutputFolder.checkReplaceable(files, in: outputDirectory)
        let previousOutputs = OutputFolder.filesOfPreviousRun(in: outputDirectory)
        // The previous taps wait at hidden names while the reports are written; a run killed then
        // (a second SIGINT) left them there.
        FileReplacement.removeLeftovers(of: CallRecording.tapNames.map { "\($0).wav" } + Self.reportFiles,
                                        in: outputDirectory)
        let started = DispatchTime.now()
        // The call and its measurement are gone once `callAndScore` returns (the tap writer keeps
        // only its chunks): the report documents are built in the memory they held (an hour-long
        // call's reports take ~8 MB).
        var (report, outputs, taps) = try callAndScore()
        report.wallSeconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        // The pages are rendered while the tap writer's thread writes its last chunks and moves the
        // taps into place (milliseconds of kernel work per file). report.html (its plots) takes
        // longer than the other two together: with a core to spare it is rendered on a second
        // thread meanwhile. The same bytes either way.
        let scored = report
        let html = SecondThread(measuresInBackground) { HTMLReport.render(scored) }
        defer { _ = html.value() }   // a failed write does not leave the render running
        let json = report.json().canonicalText()
        let markdown = MarkdownReport.render(report)
        // The taps are whole and in place before a report names them. The previous run's taps
        // they replaced are deleted on the tap writer's thread meanwhile (freeing them costs ext4
        // 5–11 ms, more than the reports take); `finish` helps with what is left, and waits.
        do {
            try taps?.waitUntilInPlace()
            try AtomicFile.write(json, to: path("report.json"))
            try AtomicFile.write(markdown, to: path("report.md"))
            try AtomicFile.write(html.value(), to: path("report.html"))
            try taps?.finish()
        } catch {
            // As in `callAndScore`: the writer's thread and its files are dealt with now, not
            // whenever its last reference goes.
            taps?.discard()
            throw error
        }
        // Outputs of an earlier run into this folder that this run did not write would
        // contradict its report: remove them — only those that run's report listed as its own.
        OutputFolder.removeStaleOutputs(in: outputDirectory, previous: previousOutputs, written: Set(outputs.values))
        return report
    }

    /// Runs the call with its taps and measurement, and scores it; returns the report (without
    /// its wall time), the files written, tap name → file name, and the tap writer, still closing
    /// the taps on its thread (`waitUntilInPlace()` waits for that).
    private func callAndScore() throws -> (RunReport, [String: String], WAVTapWriter?) {
        let runner = ScenarioRunner(scenario: scenario, outputDirectory: outputDirectory, recordTaps: false, decodedAudio: decodedAudio)
        let duration = try runner.duration()
        let rate = SimulatedCall.sampleRate
        let names = CallRecording.tapNames.filter(taps.includes)
        let writer = names.isEmpty ? nil : try WAVTapWriter(directory: outputDirectory, names: names, sampleRate: rate)
        let totalTicks = Int(duration.nanoseconds / SimulatedCall.tickDuration.nanoseconds) + 1
        let measurement = CallMeasurement(sampleRate: rate, configuration: evaluator.configuration, sendLatencyIsFixed: scenario.sendLatencyIsFixed)
        let levels = LevelMeter(sampleRate: rate)
        // Everything that only reads the ticks — the metrics, the level plots and the taps' copy
        // into their write buffers — runs off the call's thread, from one copy of each tick.
        let others: [CallTap] = [levels] + (writer.map { [$0] } ?? [])
        let consumers: [CallTap] = [measurement] + others
        let background: BackgroundTap?
        if measuresInBackground {
            let copied = CallMeasurement.signalsRead.union(LevelMeter.signalsRead).union(writer?.signalsRead ?? [])
            if scenario.voiceProcessing.echoCancellerMode == .disabled {
                // Without a canceller the call is cheap and measuring it is the long pole: two
                // workers, the echo metrics on one, the glitches, levels and taps on the other.
                measurement.measuresGlitchesApart = true
                background = BackgroundTap([[measurement], [measurement.glitchMeasurement] + others], copying: copied)
            } else {
                // A canceller keeps the call's thread busy ~15× longer than the measurement: one
                // worker keeps up, and a third busy thread would only compete with the call's.
                background = BackgroundTap(consumers, copying: copied)
            }
        } else {
            background = nil
        }
        var streaming = runner
        streaming.taps = background.map { [$0] } ?? consumers
        if cancellation != nil || progress != nil {
            streaming.taps.append(RunWatcher(cancellation: cancellation, progress: progress, totalTicks: totalTicks))
        }
        let run: CallRun
        do {
            run = try streaming.run(for: duration)
            try background?.finish()
        } catch {
            // Stopped early (an interrupt, a bad sample, a full disk): the workers first, then the
            // partial taps, here and now — not whenever the last reference goes.
            background?.stop()
            writer?.discard()
            throw error
        }
        // The taps are closed on the writer's thread while the call is scored.
        try writer?.beginFinishing()
        var outputs = writer?.files ?? [:]
        for file in scenario.deviceOutputFiles { outputs[(file as NSString).deletingPathExtension] = file }
        var report = evaluator.evaluate(run, measurement: measurement, wallSeconds: 0, taps: outputs)
        report.levels = levels.points
        return (report, outputs, writer)
    }

    private func path(_ name: String) -> String { (outputDirectory as NSString).appendingPathComponent(name) }

    /// The reports a run writes beside its taps.
    static let reportFiles = ["report.json", "report.md", "report.html"]
}

/// Work done on a second thread (or at once, in this one): `value()` waits for its result.
private final class SecondThread<Value: Sendable>: @unchecked Sendable {
    private var result: Value?
    private let done = DispatchSemaphore(value: 0)

    init(_ onSecondThread: Bool, _ work: @escaping @Sendable () -> Value) {
        guard onSecondThread else {
            result = work()
            done.signal()
            return
        }
        // `result` is written before `done` is signalled and read after it is waited for.
        Thread.detachNewThread { [self] in
            result = work()
            done.signal()
        }
    }

    @discardableResult
    func value() -> Value {
        done.wait()
        done.signal()
        return result!
    }
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
