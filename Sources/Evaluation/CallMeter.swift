import AudioCore
import Dispatch
import Metrics
import Simulation
import VirtualTime

/// Measures and lints a call that app code drives by hand — `SimulatedCall`, its custom devices,
/// `run(for:)` — and reports it as `echolab run` reports a scenario: the same `RunReport` (echo
/// metrics over the call and each segment, clicks and gaps in the sent audio, lint findings with
/// their measured consequences, pipeline counters, the level timeline), scored by the same
/// `RunEvaluator`.
///
/// Attach it before the call starts, mark where the app changes something, and finish:
///
/// ```swift
/// let call = try SimulatedCall(world: world, recordsTaps: false)
/// let meter = try CallMeter(call: call)      // before call.start(): it must see every tick
/// try call.start()
/// try call.run(for: .seconds(2))
/// meter.beginSegment("custom mic")           // a report segment from here on
/// call.audioManager.setCustomMic(mic)
/// try call.run(for: .seconds(3))
/// let report = try meter.finish(name: "my-app")  // ends the call
/// print(report.metrics.erleDB ?? .nan, report.findings.map(\.rule))
/// ```
///
/// Render the report as `echolab run` writes it: `report.json().canonicalText()` (report.json),
/// and Reporting's `ReportPages().pages(of: report)` (report.md and report.html).
///
/// The measurement streams (bounded memory, as `echolab run`'s): a call measured this way can be
/// made with `recordsTaps: false` so that it keeps no signal in memory either.
public final class CallMeter {
    /// The call being measured.
    public let call: SimulatedCall
    /// The scoring: the metric configuration the measurement and the evaluator share.
    public let evaluator: RunEvaluator
    private let measurement: CallMeasurement
    private let levels: LevelMeter
    /// The voice processing the call started with (the report's `aec` block), as its first tick
    /// found it: the app may set its modes between attaching the meter and starting the call.
    private let startSettings: StartSettings
    private let started = DispatchTime.now()
    /// Segment starts: the frame and what the app did there.
    private var marks: [(frame: Int64, label: String)] = []
    private var finished = false

    /// Attaches a measurement and a level meter to `call.taps`.
    ///
    /// Throws `CallMeterError.attachedAfterFirstTick` where the call has ticked already (attach
    /// before `call.start()`, or before its first `run(for:)`): every signal is measured from the
    /// call's first sample.
    /// - Parameter configuration: the echo metrics' settings; the default is `echolab run`'s.
    ///   Its `nearEndTrackHoldsTheNoise` is set: a simulated call's near-end track is its talker
    ///   and its room's noise.
    public init(call: SimulatedCall, configuration: EchoMetricsConfiguration = .default) throws {
        guard call.tickCount == 0 else { throw CallMeterError.attachedAfterFirstTick(ticks: call.tickCount) }
        self.call = call
        evaluator = RunEvaluator(configuration: configuration)
        measurement = CallMeasurement(sampleRate: SimulatedCall.sampleRate, configuration: configuration)
        levels = LevelMeter(sampleRate: SimulatedCall.sampleRate)
        startSettings = StartSettings(processor: call.sendVoiceProcessor)
        call.taps.append(startSettings)
        call.taps.append(measurement)
        call.taps.append(levels)
    }

    /// Starts a report segment at the call's current instant, as a scenario's timeline event
    /// does: the report gives each segment its own ERL, ERLE, re-convergence and the clicks at
    /// its start. Call it where the app switches a device or an AEC mode; `label` is listed as
    /// the segment's event, and logged as a `timeline` event of the call, as a scenario's
    /// timeline logs its actions (a hand-driven call's report listed fewer events than
    /// `echolab run`'s of the same timeline).
    public func beginSegment(_ label: String) {
        precondition(!finished, "the call was already finished")
        call.logEvent(kind: "timeline", detail: label)
        marks.append((call.currentFrame, label))
    }

    /// Applies `action` (a route change, a session event) to the call's hardware now, as a
    /// scenario's timeline event does: logged as a `timeline` event and a report segment from
    /// here on, labelled by the action — the report `echolab run` writes of that timeline. Applied
    /// to `call.hardware` directly, an action opens no segment and logs no event. Throws
    /// `CallMeterError.noHardware` where the call has none (`call.hardware = CallHardware(…)`
    /// first), or what the hardware throws for an action it refuses.
    public func apply(_ action: HardwareAction) throws {
        precondition(!finished, "the call was already finished")
        guard let hardware = call.hardware else { throw CallMeterError.noHardware(action: action.description) }
        // Applied first: an action the hardware refuses is no event of the call's. Logged before
        // what the hardware logs of it (its `route` event), as a scenario's timeline logs it.
        let logged = call.events.count
        try hardware.apply(action, at: call.currentFrame)
        call.logEvent(kind: "timeline", detail: action.description, beforeEventsFrom: logged)
        marks.append((call.currentFrame, action.description))
    }

    /// Ends the call (`SimulatedCall.end()`), scores it and returns its report — the model
    /// `echolab run` renders, from the same evaluator.
    ///
    /// - Parameters:
    ///   - name: the report's scenario name.
    ///   - taps: tap name → file name, for reports that link audio the app wrote itself.
    /// Throws `CallMeterError.nothingToMeasure` where the call has not ticked (not started, or
    /// run for less than a tick: the call goes on, and can still be run and finished);
    /// `CallMeterError.alreadyFinished` when called again (a meter finishes its call once);
    /// `SpillError` where a long call's metric rows could not be read back from the temporary
    /// folder: the figures would not be the call's.
    public func finish(name: String = "app-call", taps: [String: String] = [:]) throws -> RunReport {
        guard !finished else { throw CallMeterError.alreadyFinished }
        guard call.tickCount > 0 else { throw CallMeterError.nothingToMeasure }
        finished = true
        do {
            try call.sendVoiceProcessor.finishCanceller()
        } catch {
            // The call ends all the same (its devices let go, its records kept); the canceller's
            // failure is the meter's answer.
            _ = call.end()
            throw error
        }
        let duration = VirtualDuration.nanoseconds(call.tickCount * SimulatedCall.tickDuration.nanoseconds)
        let hardware = call.hardware?.report(endFrame: call.tickCount * Int64(SimulatedCall.tickFrames))
        let counters = call.end()
        let frames = marks.map(\.frame)
        // The world's echo path: the default one reported a room of 0 ms and 0 dB.
        let scenario = Scenario(name: name, echoPath: call.echoPathSettings,
                                voiceProcessing: startSettings.settings ?? StartSettings.current(call.sendVoiceProcessor), duration: duration)
        let run = CallRun(scenario: scenario, sampleRate: SimulatedCall.sampleRate, duration: duration,
                          recording: call.recording, counters: counters, events: call.events,
                          deviceStates: call.deviceStates, timelineFrames: frames.sorted(),
                          adaptiveDecisions: call.sendVoiceProcessor.adaptiveDecisions, hardware: hardware)
        let wallSeconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        var report = evaluator.evaluate(run, measurement: measurement, wallSeconds: wallSeconds, taps: taps)
        if let failure = measurement.spillError { throw failure }
        report.levels = levels.points
        // A scenario's segments list its timeline actions; a hand-driven call's, its labels.
        let rate = Double(SimulatedCall.sampleRate)
        for index in report.segments.indices {
            let start = Int64((report.segments[index].startSeconds * rate).rounded())
            report.segments[index].events = marks.filter { $0.frame == start }.map(\.label)
        }
        return report
    }
}

/// What a `CallMeter` refuses, as a one-line description.
public enum CallMeterError: DescribedError, Equatable {
    /// Attached once the call had ticked: the call's first samples would go unmeasured.
    case attachedAfterFirstTick(ticks: Int64)
    /// `finish` before the call ticked once: there is no call time to measure.
    case nothingToMeasure
    /// `finish` again: a meter finishes its call once.
    case alreadyFinished
    /// `apply` on a call without simulated hardware: there is no route or session to change.
    case noHardware(action: String)

    public var description: String {
        switch self {
        case .attachedAfterFirstTick(let ticks):
            "attach a CallMeter before the call's first tick: this call has ticked \(ticks) times, and its first samples would go unmeasured"
        case .nothingToMeasure:
            "the call has not ticked: start() it and run(for:) at least 10 ms before finishing its meter"
        case .alreadyFinished:
            "the meter has finished its call already: a meter finishes its call once"
        case .noHardware(let action):
            "cannot apply \(action): the call has no simulated hardware (set call.hardware = try CallHardware(configuration:) before call.start())"
        }
    }
}

/// The send voice processor's modes at the call's first tick.
private final class StartSettings: CallTap {
    private unowned let processor: SendVoiceProcessor
    private(set) var settings: VoiceProcessingSettings?

    init(processor: SendVoiceProcessor) { self.processor = processor }

    func record(_ tick: TickSignals) throws {
        if settings == nil { settings = Self.current(processor) }
    }

    static func current(_ processor: SendVoiceProcessor) -> VoiceProcessingSettings {
        VoiceProcessingSettings(echoCancellerMode: processor.echoCancellerMode, backend: processor.backend,
                                filterMilliseconds: processor.filterOverride, noiseSuppressor: processor.noiseSuppressorMode,
                                autoGainControl: processor.autoGainControlMode)
    }
}
