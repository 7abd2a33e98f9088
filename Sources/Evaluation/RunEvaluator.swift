import AudioCore
import EchoLabJSON
import Foundation
import Metrics
import Simulation

/// Scores a finished call: echo metrics over the whole call and each timeline segment, clicks at
/// the transitions, lint findings with their measured consequences.
/// Works on the call's signals only, measured while it ran (`CallMeasurement` attached as a
/// tap), as it would on WAVs read back from disk.
public struct RunEvaluator: Sendable {
    public var configuration: EchoMetricsConfiguration

    public init(configuration: EchoMetricsConfiguration = .default) {
        self.configuration = configuration
    }

    /// Where each capture restart's new input stream sent its first, empty buffers (samples of
    /// `sent`): the restart dropped what the old stream held (`CaptureRestart.discarded`) and the
    /// new one starts as empty, priming about as long (the route's buffers), to the tick. That
    /// silence is the restart's, reported under the hardware's capture restarts in every mode; a
    /// sent gap inside it, or inside it and the room's own silence after it (a talker's pause), is
    /// no pipeline issue of its own; one that runs on into the room's sound still is.
    /// Counted as one, it was an issue only where the output is the mic (disabled, and AECM where it
    /// zeroes): a canceller's output over those zeros is its echo estimate, not silence.
    static func restartFills(_ run: CallRun, measurement: CallMeasurement, tick: Int) -> [Range<Int>] {
        (run.hardware?.captureRestarts ?? []).filter { $0.cause != .audioStopped }.map { restart in
            let start = Int(restart.frame) + measurement.sendLatency(at: Int(restart.frame))
            return start..<(start + (restart.discarded.count + tick - 1) / tick * tick + tick)
        }
    }

    /// Scores a call measured while it ran (`CallMeasurement` attached as a tap).
    /// `pluginDigest`: the plugin file's SHA-256 taken when the run started (else it is read now).
    /// `oneClock`: the same call with the mic on the loudspeaker's clock, for a drifting call
    /// (`ClockDriftFinding`); nil judges no drift.
    public func evaluate(_ run: CallRun, measurement: CallMeasurement, wallSeconds: Double, taps: [String: String] = [:],
                         pluginDigest: String? = nil, oneClock: OneClockControl? = nil) -> RunReport {
        let length = Int(run.counters.ticks) * (run.sampleRate / 100)
        let rate = Double(run.sampleRate)
        let boundaries = Array(Set([0] + run.timelineFrames.map(Int.init).filter { $0 > 0 && $0 < length })).sorted()
        let ranges = run.timelineFrames.isEmpty ? [] : zip(boundaries, boundaries.dropFirst() + [length]).map { $0..<$1 }
        let tick = Int(rate / 100)
        let (analysis, glitches) = measurement.finish(segments: ranges, ownedSilence: Self.restartFills(run, measurement: measurement, tick: tick))

        // The AEC mode each segment starts in (the device timeline the lint reads): a segment
        // without a canceller re-converges to nothing. The timeline is noted per tick, and an
        // event between two ticks takes effect at the next: a set_aec at 5000.5 ms read as the
        // mode before it, and its segment "had AEC disabled".
        func cancels(at sample: Int) -> Bool {
            let applied = Int64((sample + tick - 1) / tick * tick)
            let mode = run.deviceStates.last { $0.frame <= applied }?.echoCancellerMode ?? run.scenario.voiceProcessing.echoCancellerMode
            return mode != .disabled
        }
        let deviceFindings = Linter.findings(states: run.deviceStates, endFrame: length, sampleRate: run.sampleRate,
                                             counters: run.counters)
        // Where the app left the canceller's reference silent (started and never fed, or never
        // stopped): a segment inside such a stretch has no far-end single talk because its
        // figures are measured against that reference, not because the far end was quiet.
        let silentReference = deviceFindings.filter { LintRule.silentReference.contains($0.rule) }.map(\.frames)
        let crossover = tick * (SimulatedCall.switchTimeoutTicks + 1)
        // Gain control in the send path may raise what is sent over the mic, whatever the canceller
        // does: the leak rule does not judge a change by what was sent against the mic then.
        let sendPathAddsGain = run.scenario.voiceProcessing.autoGainControl != .disabled
            || run.scenario.timeline.contains { if case .setAutoGainControl(let mode) = $0.action { mode != .disabled } else { false } }
        // The hardware's findings, and the route changes whose leak could not be judged (said on
        // the segment each opens).
        let hardwareFindings = HardwareFindings.findings(run.hardware, analysis: analysis, rate: rate, length: length, states: run.deviceStates,
                                                         sentErrorDB: measurement.sentErrorDB(in:), sendPathAddsGain: sendPathAddsGain,
                                                         oneClock: oneClock)
        let unjudgedLeaks = hardwareFindings.unjudgedLeaks
        let micSwitchLeaks = MicSwitchLeakFinding.findings(states: run.deviceStates, hardware: run.hardware, analysis: analysis,
                                                           rate: rate, length: length, sendLatency: measurement.sendLatency(at:))
        let segments = zip(ranges, analysis.segments).map { range, measured -> RunReport.Segment in
            let states = Self.states(run.deviceStates, during: range, crossover: crossover)
            // The timeline's actions at the segment's start: the event that opened it.
            let opening = run.scenario.timeline.filter { Int($0.at.nanoseconds * Int64(run.sampleRate) / 1_000_000_000) == range.lowerBound }
                .map(\.action)
            // No echo could reach what the segment sent (a file mic's stretch): the frames its
            // figures would stand on are the crossover from the segment before, not its own.
            let noEchoPath = Self.noEchoPathReason(states)
            var metrics = noEchoPath == nil ? measured : measured.withoutEchoFigures
            let audioFlows = run.hardware.map { !$0.flowing(in: Int64(range.lowerBound)..<Int64(range.upperBound)).isEmpty } ?? true
            // No audio flowed: the search in force there measured nothing of the segment.
            if !audioFlows { metrics.delayMilliseconds = nil }
            let startsCancelling = cancels(at: range.lowerBound)
            var segment = RunReport.Segment(startSeconds: Double(range.lowerBound) / rate, endSeconds: Double(range.upperBound) / rate,
                              events: opening.map(\.description),
                              metrics: metrics,
                              // Segment metrics restart the ERLE series at the segment's start: their
                              // convergence is the re-convergence after the event that opened it
                              // (none without a canceller: its ERLE sits at 0 dB from the start; none
                              // on fewer than 20 frames, whose steady state is no reference: it read 0 s).
                              reconvergenceSeconds: startsCancelling && !metrics.isLowConfidence ? metrics.convergenceSeconds : nil,
                              clicksAtStart: glitches.count(in: Self.transitionWindow(
                                  range, states: run.deviceStates, switchesDevice: opening.contains(where: \.switchesCustomDevice),
                                  crossover: crossover, tick: tick, latency: measurement.sendLatency(at:),
                                  newStreamsAudioStart: Self.newStreamsAudioStart(after: range, hardware: run.hardware))),
                              // Where no audio flowed at all, that is why, before what the devices
                              // were (an interruption with a file mic read "no echo reached the sent
                              // path: custom mic", where nothing was played or captured).
                              echoUnmeasuredReason: (audioFlows ? noEchoPath : nil) ?? Self.segmentEchoUnmeasuredReason(
                                  metrics, states: states,
                                  audioFlows: audioFlows,
                                  referenceIsSilent: Self.isCovered(range, by: silentReference),
                                  // From the crossover on: a mic's first zeros reach sent a period or two after the event.
                                  captureIsSilent: measurement.silentCapture.mutes(min(range.lowerBound + crossover, range.upperBound)..<range.upperBound)))
            segment.reconvergenceUnmeasuredReason = Self.reconvergenceUnmeasuredReason(segment, cancels: startsCancelling)
            // Not where the segment had nothing to judge: a file mic's, a mute's, a silent reference's.
            if noEchoPath == nil, segment.echoUnmeasuredReason.map({ !Self.reasonsWithNothingToJudge.contains($0) }) ?? true {
                segment.echoLeakUnjudgedReason = (unjudgedLeaks + micSwitchLeaks.unjudged).first { range.contains(Int($0.frame)) }?.reason
            }
            return segment
        }
        let processing = run.scenario.voiceProcessing
        let whole = Self.reportedMetrics(analysis.whole, states: run.deviceStates)
        // Searched again at an echo-path change (a route, formats granted anew, a pass-through
        // mic) and found: each segment is judged by its own delay, not the call by its first.
        // Found nowhere, the call is judged as one, by the scenario's delay where it lies past
        // the search ("at least 700.0 ms").
        let delaySearchedAgain = segments.contains { $0.metrics.hasOwnDelay && $0.metrics.delayMilliseconds != nil }
        let delay = delaySearchedAgain ? nil : echoDelayMilliseconds(run, metrics: whole)
        let delayFindings = Linter.delayFindings(states: run.deviceStates, endFrame: length, sampleRate: run.sampleRate,
                                                 delayMilliseconds: delay?.milliseconds, delayIsLowerBound: delay?.isLowerBound ?? false,
                                                 customSpeakerBufferingMilliseconds: delay?.customSpeakerBuffering,
                                                 backend: processing.backend, filterOverride: processing.filterMilliseconds,
                                                 route: run.hardware?.segment(at: 0).map(\.route).flatMap { $0 == "echo_path" ? nil : $0 })
            + (delaySearchedAgain ? segmentDelayFindings(run, ranges: ranges, segments: segments) : [])
        let findings = (deviceFindings + Linter.clippingFindings(run.counters.clippedSamples) + delayFindings)
            .sorted { ($0.frames.lowerBound, LintRule.allCases.firstIndex(of: $0.rule)!) < ($1.frames.lowerBound, LintRule.allCases.firstIndex(of: $1.rule)!) }
            .map { consequence(of: $0, measurement: measurement, analysis: analysis, counters: run.counters, states: run.deviceStates, rate: rate,
                               routes: run.hardware?.segments ?? []) }
            + hardwareFindings.findings
            + micSwitchLeaks.findings
            + RequirementFindings.findings(analysis.whole, durationSeconds: run.duration.seconds,
                                           measuredOn: RequirementFindings.echoLossRoutes(frameStarts: analysis.echoLossFrameStarts, hardware: run.hardware,
                                                                                              rate: rate, latency: measurement.sendLatency(at:)),
                                           echoLossFromSeconds: analysis.echoLossFrameStarts.map { Double($0.lowerBound) / rate })
        var report = RunReport(scenarioName: run.scenario.name, scenarioFile: run.scenario.file, sampleRate: run.sampleRate,
                         durationSeconds: run.duration.seconds, aecMode: processing.echoCancellerMode.rawValue,
                         aecBackend: processing.backend.name,
                         aecSettings: EchoControlFactory.settings(for: run.scenario.echoControlMode,
                                                                  filterOverride: processing.filterMilliseconds),
                         noiseSuppressor: processing.noiseSuppressor.rawValue, autoGainControl: processing.autoGainControl.rawValue,
                         metrics: whole, segments: segments, events: run.events, findings: findings,
                         pipeline: run.counters, sentClicks: glitches.events.count, sentGaps: glitches.gaps.count,
                         adaptiveDecisions: run.adaptiveDecisions, taps: taps, wallSeconds: wallSeconds)
        report.hardware = run.hardware
        // A file or generator mic, or a mute, sent none of the room: a restart cut no talker there.
        report.captureRestarts = run.hardware?.captureRestarts.map { restart in
            CaptureRestartLoss(restart, sampleRate: run.sampleRate, silentDBFS: configuration.nearEndSilentDBFS) { frame in
                let state = run.deviceStates.last { $0.frame <= frame } ?? run.deviceStates.first
                return state.map(\.sendsTheRoom) ?? true
            }
        } ?? []
        // A route brings its own path (the loader refuses both): the scenario's is the room's
        // only where no route is in use.
        if run.hardware?.segments.contains(where: { $0.route == "echo_path" }) ?? true { report.echoPath = run.scenario.echoPath }
        report.activity = ActivityWindow.windows(analysis.talkActivity, sampleRate: run.sampleRate, durationSeconds: run.duration.seconds)
        if let plugin = processing.backend.plugin {
            // What a baseline measured: the plugin's own name and the file's SHA-256.
            let digest = pluginDigest ?? BackendLibrary.digest(of: plugin)
            if let name = run.pluginName { report.aecSettings["plugin_name"] = .text(name) }
            // What it said of its own delay, which EchoLab took out: a plugin that reports less
            // than it delays reads as a canceller that cuts the near end.
            if let latency = run.pluginLatencySamples { report.aecSettings["plugin_latency_samples"] = .number(Double(latency)) }
            report.aecSettings["plugin_sha256"] = .text(digest)
            report.aecSettings["library"] = BackendLibrary.describe(run.scenario.echoControlMode, pluginName: run.pluginName,
                                                                    pluginDigest: digest).map(EchoControlSetting.text)
        }
        // No far end (or one of silence) and no custom speaker of the app's own: the peer sent
        // nothing to play.
        // A hand-driven call's scenario names no far end (the app's world plays it): what the
        // loudspeaker played tells.
        let silentFarEnd = switch run.scenario.farEnd {
        case .generator(.silence, _)?: true
        case nil: !measurement.playedSound
        default: false
        }
        let nothingPlayed = silentFarEnd && run.deviceStates.allSatisfy { $0.customSpeaker == nil }
        let referenceNotFed = deviceFindings.contains { $0.rule == .userReferenceNotFed }
        report.echoUnmeasuredReason = Self.echoUnmeasuredReason(whole, states: run.deviceStates, durationSeconds: run.duration.seconds,
                                                                referenceIsSilent: nothingPlayed, referenceNotFed: referenceNotFed,
                                                                captureIsSilent: measurement.silentCapture.mutes(min(crossover, length)..<length))
        if let reason = report.echoUnmeasuredReason { report.metrics.sayWhyNoSingleTalk(reason) }
        report.delayUnmeasuredReason = Self.delayUnmeasuredReason(whole, states: run.deviceStates, referenceNotFed: referenceNotFed,
                                                                  scenarioDelayMilliseconds: run.scenario.echoPath.delayMilliseconds,
                                                                  customSpeakerBufferingMilliseconds: Self.customSpeakerBuffering(run),
                                                                  clockDriftPPM: run.hardware?.clockDriftPPM)
        report.echoOutsideDelaySearchMilliseconds = Self.echoOutsideDelaySearch(whole, states: run.deviceStates, referenceNotFed: referenceNotFed)
        report.convergenceUnmeasuredReason = Self.convergenceUnmeasuredReason(whole)
        report.sentClickEvents = Array(glitches.events.prefix(RunReport.listedGlitches))
        report.sentGapRanges = Array(glitches.gaps.prefix(RunReport.listedGlitches))
        return report
    }

    /// `routes`: the hardware model's route segments (empty without one): a finding that spans
    /// route changes is measured on each route, since one ERL over a quiet earpiece and a
    /// loudspeaker describes neither.
    private func consequence(of finding: LintFinding, measurement: CallMeasurement, analysis: EchoAnalysis,
                             counters: PipelineCounters, states: [DeviceState], rate: Double,
                             routes: [RouteSegment] = []) -> RunReport.Finding {
        let range = finding.frames
        var report = RunReport.Finding(rule: finding.rule.rawValue, atSeconds: Double(range.lowerBound) / rate,
                                       untilSeconds: Double(range.upperBound) / rate, message: finding.message,
                                       consequenceMetric: "", consequenceDB: nil, consequence: "")
        /// Fills the consequence: the metric, its value and what it means (or why there is none).
        func measured(_ metric: String, _ value: Double?, _ meaning: (Double) -> String, otherwise: String) {
            report.consequenceMetric = metric
            report.consequenceDB = value
            report.consequence = value.map(meaning) ?? otherwise
        }
        let noSingleTalk = "no far-end single talk to measure"
        /// ERLE over `range` as the consequence reads it: a bound says "at least".
        func erle(in range: Range<Int>) -> (value: Double?, change: (Bool) -> String) {
            let m = analysis.metrics(in: range)
            return (m.erleDB, { only in
                guard let value = m.erleDB else { return noSingleTalk }
                return (m.erleIsLowerBound ? "echo reduced by at least \(Self.format(value)) dB (the output fell under the noise)"
                    : Self.echoChange(value, only: only)) + Self.confidenceNote(frames: m.singleTalkFrames)
            })
        }
        switch finding.rule {
        case .aecOnNonMicrophoneSource, .aecOnWithoutLoudspeaker:
            measured("sent_error_db", measurement.sentErrorDB(in: range),
                     { "the canceller altered what was sent: error energy \(Self.format($0)) dB relative to the source"
                         // Near 0 dB the error is as loud as the source: read as a small change, it hid a talker cut by 31 dB.
                         + ($0 >= -3 ? ", as loud as the source itself: what was sent is mostly not what the source held (the canceller cut or replaced it)" : "") },
                     otherwise: "the sent audio equals the source here")
        case .alteredPlayoutWithoutReference:
            let e = erle(in: range)
            measured("erle_db", e.value, { _ in "\(e.change(true)): the played audio the canceller was not told about echoes to the peer" },
                     otherwise: noSingleTalk)
        case .userReferenceNotFed:
            let silent = "the canceller's reference was silence for most of \(Self.format(Double(range.count) / rate)) s: the echo went to the peer uncancelled"
            // Against a silent reference no frame is single talk: what frames count straddle the
            // reference's stop, and their 14 dB stood beside "uncancelled" as the consequence.
            let m = analysis.metrics(in: range)
            measured("erle_db", FigureConfidence.isLow(frames: m.singleTalkFrames) ? nil : m.erleDB, { _ in silent },
                     otherwise: silent + " (and no ERLE can be measured against a silent reference)")
        case .userReferenceNotStopped:
            let silent = "the canceller's reference was silence for \(Self.format(Double(range.count) / rate)) s after the custom speaker was reset: "
                + "the default speaker's echo went to the peer uncancelled"
            let e = erle(in: range)
            measured("erle_db", e.value, { _ in silent + "; \(e.change(true))" },
                     otherwise: silent + " (and no ERLE can be measured against a silent reference)")
        case .customSpeakerNotPulled:
            // The speaker's own counters, over its whole time in the call.
            let playout = Linter.speakerPlayout(at: range.lowerBound, states: states, counters.speakerPlayouts) ?? BufferCounters()
            report.consequenceMetric = "playout_dropped_samples"
            report.consequence = "the app pulled \(playout.read) of the \(playout.written) samples of the peer's audio the engine handed its "
                + "custom speaker\(playout.written > 0 ? " (\(Self.format(100 * Double(playout.read) / Double(playout.written))) %)" : ""); "
                + "\(playout.dropped) were dropped (\(playout.overruns) overruns): the peer was not played"
        case .customMicOverrun:
            // The mic's own buffer, over its whole time in the call.
            let uplink = Linter.DeviceFaults(at: range.lowerBound, states: states, counters: counters).mic
            report.consequenceMetric = "uplink_dropped_samples"
            report.consequence = "the engine dropped \(uplink.dropped) of the \(uplink.written) samples the custom mic pushed "
                + Self.overrunLoss(uplink, of: "the near end", rate: rate) + ": the peer hears gaps where it was"
        case .customSpeakerOverrun:
            let loudspeaker = Linter.DeviceFaults(at: range.lowerBound, states: states, counters: counters).loudspeaker
            report.consequenceMetric = "loudspeaker_dropped_samples"
            report.consequence = "the loudspeaker's buffer dropped \(loudspeaker.dropped) samples the custom speaker played "
                + Self.overrunLoss(loudspeaker, of: "the peer's audio", rate: rate) + ": the user hears gaps where it was"
        case .customDeviceFormatRejected:
            let parts = Linter.DeviceFaults(at: range.lowerBound, states: states, counters: counters).rejectedFrames
                .filter { $0.frames > 0 }.map { "\($0.frames) of \($0.device) frames" }
            report.consequenceMetric = "rejected_frames"
            // A mic's or the reference's refused frames never reach the call; a speaker's refused
            // pulls are handed silence, and its refused plays never reach the room.
            report.consequence = "the engine refused " + parts.joined(separator: ", ") + " (at the app's rate): that audio was lost"
        case .loudspeakerClipping, .micClipping:
            let clipped = counters.clippedSamples
            let samples = finding.rule == .loudspeakerClipping ? clipped.playout + clipped.loudspeaker : clipped.mic
            let share = Self.format(100 * Double(samples) / Double(max(1, range.count)))
            let stage = finding.rule == .loudspeakerClipping ? "loudspeaker" : "microphone"
            let e = erle(in: range)
            measured("erle_db", e.value, { _ in "\(samples) \(stage) samples clipped (\(share) % of the stretch); \(e.change(false)) there" },
                     otherwise: "\(samples) \(stage) samples clipped (\(share) % of the stretch); " + noSingleTalk)
        case .echoDelayBeyondFilter:
            let e = erle(in: range)
            // A canceller that finds the echo past its nominal reach (WebRTC's AEC with its delay
            // estimation) settles there after all: its steady state says so, and the stretch's
            // ERLE holds the time it took (a trial's A2DP route: 8.9 dB over the stretch, steady
            // ≥ 29.3 dB, read as "the filter ends before the echo begins").
            let m = analysis.metrics(in: range)
            let reached = m.erleSteadyDB.flatMap { steady in
                steady >= Self.reachedSteadyERLEDB && !FigureConfidence.isLow(frames: m.erleSteadyFrames) ? steady : nil
            }
            measured("erle_db", e.value, { _ in
                guard let reached else { return "\(e.change(true)): the filter ends before the echo begins" }
                return "\(e.change(false)) over the stretch, but by \(m.erleSteadyIsLowerBound ? "at least " : "")\(Self.format(reached)) dB in its steady state: "
                    + "it removed this echo after all, late"
                    + (m.convergenceSeconds.map { " (settled \(m.convergenceIsLowerBound ? "at least " : "")\(Self.format($0)) s in)" } ?? "")
                    + ", and the echo went to the peer until then"
            }, otherwise: noSingleTalk)
        case .aecDisabledWithRealDevices:
            // On the route where the echo is loudest (the least ERL that counts), named where the
            // finding spans route changes: pooled, a speaker's 6 dB and an earpiece's 30 dB read
            // as one figure of neither.
            var m = analysis.metrics(in: range), onRoute = ""
            let pieces = Self.routePieces(of: range, routes: routes)
            if pieces.count > 1 {
                let measuredPieces = pieces.map { (piece: $0, metrics: analysis.metrics(in: $0.range)) }
                // A bound ("≥ 59.6 dB": the echo under the noise) may stand for a quieter echo than
                // it reads: measured figures first.
                let counted = measuredPieces.filter { $0.metrics.erlDB != nil && !FigureConfidence.isLow(frames: $0.metrics.erlFrames) }
                let exact = counted.filter { !$0.metrics.erlIsLowerBound }
                if let worst = (exact.isEmpty ? counted : exact).min(by: { $0.metrics.erlDB! < $1.metrics.erlDB! })
                    ?? measuredPieces.first(where: { $0.metrics.erlDB != nil }) {
                    m = worst.metrics
                    onRoute = (worst.piece.route == "echo_path" ? " on the scenario's echo path" : " on the \(worst.piece.route) route")
                        + " (\(Self.format(Double(worst.piece.range.lowerBound) / rate))–\(Self.format(Double(worst.piece.range.upperBound) / rate)) s)"
                }
            }
            measured("erl_db", m.erlDB, { "nothing removes the echo: the peer hears itself \(m.erlIsLowerBound ? "at least " : "")\(Self.format($0)) dB down"
                + onRoute + Self.confidenceNote(frames: m.erlFrames) },
                     otherwise: noSingleTalk)
        }
        return report
    }

    /// Why a call has no ERL or ERLE (nil when it has them): the first of — too short to
    /// analyse; no echo could reach what was sent (a file or generator was the mic all call, or
    /// nothing was played into the room); the echo lies outside the delay search
    /// (`echoOutsideDelaySearchMilliseconds`); the call was muted throughout (a muted stretch is
    /// left out: it sent silence); the far end never reached the mic above the noise;
    /// the tap-free gate could not tell the near end from the echo (`gate.limitation`); the echo stayed
    /// under the mic's noise wherever the near end was silent; the near end talked over all of it.
    /// With far-end single talk and an ERL but no ERLE, why there is no ERLE: the echo at the mic
    /// stayed under its floor; without single talk but with an ERL (a bound over the frames where
    /// the far end played alone), why: the echo stayed under the mic's noise there. `states`
    /// empty: files, not a call (`echolab metrics`).
    /// `referenceIsSilent`: nothing was played at all (a call without a far end, a loopback of
    /// digital silence), said as such rather than as a far end too quiet to reach the mic.
    /// `referenceNotFed`: the app started the user AEC reference and never fed it (the lint's
    /// `user-reference-not-fed`), so the reference is silent while the loudspeaker plays — said
    /// as such, not as a far end that never played. `captureIsSilent`: a real mic captured
    /// digital silence while the room held sound (an app's own mute, left out of the figures).
    public static func echoUnmeasuredReason(_ metrics: EchoMetrics, states: [DeviceState], durationSeconds: Double,
                                            referenceIsSilent: Bool = false, referenceNotFed: Bool = false,
                                            micIsSilent: Bool = false, captureIsSilent: Bool = false) -> String? {
        let gate = metrics.gate
        if gate.singleTalkFrames > 0 {
            guard metrics.erlDB != nil, metrics.erleDB == nil else { return nil }
            let frames = gate.singleTalkFrames == 1 ? "its one far-end single-talk analysis frame" : "all \(gate.singleTalkFrames) far-end single-talk analysis frames"
            return "the echo at the mic stays under its floor (its noise, or digital silence at −101.2 dBFS) in \(frames): there is no echo to cancel, so no ERLE"
        }
        if gate.frames == 0 {
            return "the \(states.isEmpty ? "recording" : "call") (\(duration(durationSeconds))) is shorter than one analysis frame"
        }
        if let reason = noEchoPathReason(states) { return reason }
        if metrics.echoOutsideDelaySearchMilliseconds != nil || gate.limitation == .echoOutsideDelaySearch {
            // The tap-free gate's own search may be the one that found it (its frames unjudged).
            let range = metrics.echoOutsideDelaySearchMilliseconds ?? EchoMetricsConfiguration.default.maxDelayMilliseconds
            return "the mic's echo is not within 0–\(Int(range)) ms of the reference: it leads the reference (a loopback recorded late?), or lags it by more"
        }
        if gate.farEndActiveFrames == 0, !states.isEmpty, Self.mutedThroughout(states) {
            return "the call was muted throughout: it sent silence, which holds no echo to measure"
        }
        if gate.farEndActiveFrames == 0, captureIsSilent {
            return silentCaptureReason
        }
        if gate.farEndActiveFrames == 0, referenceIsSilent {
            return states.isEmpty ? "the loopback is digital silence throughout: nothing was played, so there is no echo to measure"
                : "the far end is silent throughout: nothing was played into the room, so there is no echo to measure"
        }
        if gate.farEndActiveFrames == 0, referenceNotFed {
            return Self.referenceNotFedReason
        }
        if gate.farEndActiveFrames == 0, micIsSilent {
            return "the mic is digital silence throughout: nothing was recorded, so there is no echo to measure"
        }
        // ERL stands on the frames where the far end played alone under the noise: the reason is
        // ERLE's alone (the far end did reach the mic's loudness, only its echo did not).
        if gate.echoUnderNoiseFrames > 0, metrics.erlDB != nil, gate.limitation == nil {
            let talks = gate.doubleTalkFrames > 0 ? "; the near end talks over the other \(gate.doubleTalkFrames)" : ""
            return "the echo stays under the mic's noise wherever the far end plays alone (\(gate.echoUnderNoiseFrames) analysis frame\(gate.echoUnderNoiseFrames == 1 ? "" : "s")\(talks)): there is no echo to cancel, so no ERLE (ERL stands on those frames)"
        }
        if gate.farEndActiveFrames == 0 {
            return "the far end never reached the mic: its reference stays below −50 dBFS, or its echo under the noise"
        }
        if gate.limitation == .tooShortToFit {
            return "the recording (\(duration(durationSeconds))) is too short to fit its echo path: after the stretches the fit leaves out (a talker, or noise above −55 dBFS), no more samples are left than the path has taps"
        }
        if gate.limitation == .echoNotExplained {
            return "the echo path fitted from mic and loopback does not explain the echo (a non-linear loudspeaker?): the gate cannot tell a near-end talker from its error"
        }
        if gate.echoUnderNoiseFrames > 0 {
            return "no echo above the mic's noise wherever the near end is silent (\(gate.echoUnderNoiseFrames) analysis frame\(gate.echoUnderNoiseFrames == 1 ? "" : "s") where the far end played), and the near end talks over the other \(gate.doubleTalkFrames)"
        }
        return "the near end talks over every far-end analysis frame (all \(gate.doubleTalkFrames) are double talk)"
    }

    /// A length for a reason: to the hundredth of a second, or of a millisecond under a second,
    /// where hundredths of a second would hide it.
    static func duration(_ seconds: Double) -> String {
        seconds < 1 ? "\(FixedDecimal.text(seconds * 1000, fractionDigits: 2)) ms" : "\(FixedDecimal.text(seconds, fractionDigits: 2)) s"
    }

    /// A segment's figures are measured against the canceller's reference, which the app left
    /// silent all through it (started and not fed, or not stopped when the speaker went).
    static let segmentReferenceSilentReason = "the canceller's reference, the user AEC reference the app started, stays silent all through "
        + "the segment (see the findings user-reference-not-fed and user-reference-not-stopped): the far end may play and echo, "
        + "but ERL and ERLE are measured against that reference"

    /// A stretch where the mic captured digital silence while the room held sound.
    static let silentCaptureReason = "the mic captured digital silence throughout while the room held sound (the app muted it by "
        + "pushing zeros): no echo reached what was sent, so there is nothing to measure"

    /// Whether `stretches` (in samples) cover all of `range` together.
    static func isCovered(_ range: Range<Int>, by stretches: [Range<Int>]) -> Bool {
        var reached = range.lowerBound
        for stretch in stretches.sorted(by: { $0.lowerBound < $1.lowerBound }) where stretch.lowerBound <= reached {
            reached = max(reached, stretch.upperBound)
        }
        return !range.isEmpty && reached >= range.upperBound
    }

    /// The figures are measured against the canceller's reference, which the app left silent.
    static let referenceNotFedReason = "the canceller's reference, the user AEC reference the app started, stays silent (never fed: "
        + "see the finding user-reference-not-fed): the far end may play and echo, but ERL, ERLE and the delay are measured against that reference"

    /// Why no echo could reach what the call sent, whatever its signals hold (nil where one could):
    /// a custom mic (a file, a generator) stood in for the microphone all call, or the custom
    /// speaker played nothing into the room. `states` empty: files, not a call — nil.
    public static func noEchoPathReason(_ states: [DeviceState]) -> String? {
        func names(_ devices: [String?]) -> String {
            var seen: [String] = []
            for case let name? in devices where !seen.contains(name) { seen.append(name) }
            return seen.joined(separator: ", ")
        }
        if !states.isEmpty, !states.contains(where: \.realMicrophoneInUse) {
            return "no echo reached the sent path: custom mic (\(names(states.map(\.customMic))))"
        }
        if !states.isEmpty, !states.contains(where: \.loudspeakerInUse) {
            return "no echo reached the mic: the custom speaker (\(names(states.map(\.customSpeaker)))) plays nothing into the room"
        }
        return nil
    }

    /// Where a segment's transition is heard in `sent` (whose clicks are counted): ±1 tick around
    /// its start, and where its event switched a custom device, on to ±1 tick around that switch
    /// — a new mic is switched to once it has pushed a frame, up to a mic period after the event
    /// (or the switch's timeout), and the crossfade into it is where a switch clicks. What the
    /// event does to `sent` itself (a mute, an interruption) is heard at once; what it does to the
    /// capture, `latency(frame)` later, the send path's latency then: the window spans both.
    /// Where the event rebuilt the hardware's streams, on to ±1 tick around where their first audio
    /// reaches `sent` (`newStreamsAudioStart`, a capture frame, plus the send latency there).
    static func transitionWindow(_ range: Range<Int>, states: [DeviceState], switchesDevice: Bool, crossover: Int, tick: Int,
                                 latency: (Int) -> Int, newStreamsAudioStart: Int? = nil) -> Range<Int> {
        var settled = range.lowerBound
        if switchesDevice, let index = states.indices.first(where: { states[$0].frame > Int64(range.lowerBound)
                                                                     && states[$0].frame <= Int64(range.lowerBound + crossover)
                                                                     && Self.isDeviceChange(states, at: $0) }) {
            settled = Int(states[index].frame)
        }
        if let newStreamsAudioStart { settled = max(settled, newStreamsAudioStart) }
        let end = settled + latency(settled) + tick + 1
        return max(0, range.lowerBound - tick)..<end
    }

    /// Where the hardware rebuilt its streams at the start of `range` (a route change, or formats
    /// granted anew), or a route swapped its input for another data source: a bound on the sample
    /// by which the new audio has come through — `range`'s start plus the path's added latency
    /// (capture and playout; a data source's reaches the engine through the capture's part, and
    /// clicked 30 ms after the change). nil where neither happened there. A new input stream captures
    /// silence while it primes and a new output stream plays none, so the change is heard where
    /// either comes back, in the mic or in the echo it carries: a change to the speaker clicked in
    /// `sent` 30 and 52 ms after it, past a window of ±1 tick around the change and its send
    /// latency. nil where no stream was rebuilt there.
    static func newStreamsAudioStart(after range: Range<Int>, hardware: HardwareReport?) -> Int? {
        guard let segments = hardware?.segments,
              let index = segments.lastIndex(where: { $0.startFrame == Int64(range.lowerBound) }),
              let before = segments[..<index].last(where: { $0.startFrame < Int64(range.lowerBound) }) else { return nil }
        // Several segments may open at one frame (a route and a data source): the last is in force.
        let segment = segments[index]
        guard segment.route != before.route || segment.input != before.input || segment.output != before.output
                || (segment.inputDataSource != before.inputDataSource && segment.route != "echo_path"),
              let added = segment.addedLatencyFrames else { return nil }
        return range.lowerBound + Int(added)
    }

    /// `range` cut where the route changes within it, each piece with its route's name; the
    /// whole range, unnamed, without route segments.
    static func routePieces(of range: Range<Int>, routes: [RouteSegment]) -> [(range: Range<Int>, route: String)] {
        let starts = routes.map { (Int($0.startFrame), $0.route) }
        var pieces: [(range: Range<Int>, route: String)] = []
        for (index, (start, route)) in starts.enumerated() {
            let end = index + 1 < starts.count ? starts[index + 1].0 : Int.max
            let lower = max(start, range.lowerBound), upper = min(end, range.upperBound)
            if lower < upper { pieces.append((lower..<upper, route)) }
        }
        return pieces.isEmpty ? [(range, "")] : pieces
    }

    /// Whether a device state came from a switch of custom mic or speaker: the engine notes a
    /// state whenever the mic, the speaker, the AEC mode, the user reference or mute change, so
    /// one with the last three as before changed a device (two mics of one name included).
    private static func isDeviceChange(_ states: [DeviceState], at index: Int) -> Bool {
        guard index > 0 else { return false }
        let before = states[index - 1], state = states[index]
        return before.echoCancellerMode == state.echoCancellerMode && before.isUserReferenceStarted == state.isUserReferenceStarted
            && before.isMuted == state.isMuted
    }

    /// The device states a segment over `range` runs in: the one it opens in and those that follow
    /// inside it — less those the segment's first `crossover` samples replace. That is the switch
    /// that opened the segment taking effect (make-before-break: the old mic delivers until the
    /// new one has primed, up to the engine's switch timeout), so a file mic's stretch is not
    /// taken for one with echo on the strength of the old mic's last frames.
    static func states(_ states: [DeviceState], during range: Range<Int>, crossover: Int) -> [DeviceState] {
        var opening = states.lastIndex { $0.frame <= Int64(range.lowerBound) } ?? 0
        while opening + 1 < states.count, states[opening + 1].frame <= Int64(range.lowerBound + crossover),
              states[opening + 1].frame < Int64(range.upperBound) {
            opening += 1
        }
        return states.indices.filter { $0 >= opening && states[$0].frame < Int64(range.upperBound) }.map { states[$0] }
    }

    /// Why a timeline segment with an echo path (`noEchoPathReason` says why one has none) has
    /// no ERL or ERLE (nil where it has them): no audio flowed in it (`audioFlows` false: the
    /// session inactive, interrupted or its audio disabled); it was muted throughout; no far-end
    /// single talk in it; or its echo stayed under the mic's floor.
    /// `referenceIsSilent`: the app left the canceller's reference silent over the whole segment
    /// (the lint's user-reference-not-fed or -not-stopped), which is then the reason.
    /// `captureIsSilent`: the mic captured digital silence all through it while the room held
    /// sound (`CallMeasurement.silentCapture`: an app's own mute).
    /// The segment reasons under which a route change's leak had nothing to judge.
    static let reasonsWithNothingToJudge: Set<String> = [silentCaptureReason, segmentReferenceSilentReason,
                                                         "muted throughout: the segment sent silence, which holds no echo to measure"]

    static func segmentEchoUnmeasuredReason(_ metrics: SegmentMetrics, states: [DeviceState], audioFlows: Bool = true,
                                            referenceIsSilent: Bool = false, captureIsSilent: Bool = false) -> String? {
        if metrics.singleTalkFrames == 0, !audioFlows {
            return "no audio flowed in the segment (the session inactive or interrupted, or its audio disabled): nothing was played or captured"
        }
        if metrics.singleTalkFrames == 0 {
            if !states.isEmpty, mutedThroughout(states) { return "muted throughout: the segment sent silence, which holds no echo to measure" }
            if captureIsSilent { return silentCaptureReason }
            if referenceIsSilent { return segmentReferenceSilentReason }
            if metrics.erlDB != nil {
                return "the echo stays under the mic's noise wherever the far end plays alone in the segment (\(metrics.erlFrames) analysis frame\(metrics.erlFrames == 1 ? "" : "s")): there is no echo to cancel, so no ERLE (ERL stands on those frames)"
            }
            return "no far-end single-talk analysis frame in the segment (the far end silent or under −50 dBFS, its echo under the noise, or the near end talking over it): ERL and ERLE stand on those frames alone"
        }
        guard metrics.erlDB != nil, metrics.erleDB == nil else { return nil }
        return "the echo at the mic stays under its floor in the segment's \(metrics.singleTalkFrames) far-end single-talk analysis frame\(metrics.singleTalkFrames == 1 ? "" : "s"): there is no echo to cancel, so no ERLE"
    }

    /// The call's whole-call metrics as reported: where no echo could reach what was sent
    /// (`noEchoPathReason`), there is no bulk delay reference→mic to speak of, whatever lag the
    /// search found between the reference and what stood in for the mic.
    static func reportedMetrics(_ metrics: EchoMetrics, states: [DeviceState]) -> EchoMetrics {
        var metrics = metrics
        // A muted stretch is left out of the gate: counted, a call muted from 1 s whose near end
        // talks from 3.5 s to 8.5 s would read "the near end never talked over the far end".
        // So is a stretch with a file or generator as the mic (the room is not what is sent): a
        // near end talking from 4 to 6 s under a file mic would read the same.
        // Where the near end talked there, it is said: none of that talk reached the peer.
        if metrics.telephony?.doubleTalkUnmeasuredReason == TelephonyMeasures.noDoubleTalkReason {
            let muted = wasMuted(states)
            let notTheRoom = states.indices.contains { !states[$0].realMicrophoneInUse && !lastedNoTime(states, $0) }
            let unsent = metrics.nearEnd?.talkNotSentFrames ?? 0
            if let noEcho = noEchoPathReason(states) {
                metrics.telephony?.doubleTalkUnmeasuredReason = "no double talk: \(noEcho)"
            } else if notTheRoom {
                metrics.telephony?.doubleTalkUnmeasuredReason = "no double talk where the room was sent: the near end never talked over the "
                    + "far end there (\(muted ? "a muted stretch or " : "")a stretch with a file or generator as the mic is left out of the analysis"
                    + (unsent > 0 ? "; the near end talked over \(unsent) analysis frame\(unsent == 1 ? "" : "s") of it, none of it sent)" : ")")
            } else if muted, unsent > 0 {
                metrics.telephony?.doubleTalkUnmeasuredReason = TelephonyMeasures.noDoubleTalkOutsideMuteReason(talkNotSentFrames: unsent)
            }
        }
        guard noEchoPathReason(states) != nil else { return metrics }
        metrics.delayMilliseconds = nil
        metrics.delayUnmeasured = nil
        return metrics
    }

    /// Whether some stretch of the call was muted.
    private static func wasMuted(_ states: [DeviceState]) -> Bool {
        states.indices.contains { states[$0].isMuted && !lastedNoTime(states, $0) }
    }

    /// Whether every stretch of the call was muted.
    private static func mutedThroughout(_ states: [DeviceState]) -> Bool {
        states.indices.allSatisfy { states[$0].isMuted || lastedNoTime(states, $0) }
    }

    /// A state that a later one at the same frame replaces lasted no time.
    private static func lastedNoTime(_ states: [DeviceState], _ index: Int) -> Bool {
        index + 1 < states.count && states[index + 1].frame == states[index].frame
    }

    /// Why `convergenceSeconds` is nil, in words (nil when there is a convergence, or no steady
    /// ERLE, whose own reason is `echo_unmeasured`): a null there read as "never converged" beside
    /// a steady ERLE of 30 dB in a call that ended while it still settled.
    public static func convergenceUnmeasuredReason(_ metrics: EchoMetrics,
                                                   toleranceDB: Double = EchoMetricsConfiguration.default.convergenceToleranceDB) -> String? {
        convergenceUnmeasuredReason(convergence: metrics.convergenceSeconds, steady: metrics.erleSteadyDB,
                                    steadyIsLowerBound: metrics.erleSteadyIsLowerBound, toleranceDB: toleranceDB, end: "the call",
                                    lastWindow: ERLEPoint.convergenceWindows(metrics.erleSeries).last)
    }

    /// Why a segment's `reconvergenceSeconds` is nil, in words (nil where it has one, or where
    /// its `echo_unmeasured` says why it has no ERLE): AEC off at its start, too few frames, or a
    /// steady state the ERLE never reached or that is none. Its null read as "never re-converged".
    static func reconvergenceUnmeasuredReason(_ segment: RunReport.Segment, cancels: Bool,
                                              toleranceDB: Double = EchoMetricsConfiguration.default.convergenceToleranceDB) -> String? {
        let metrics = segment.metrics
        guard segment.reconvergenceSeconds == nil, segment.echoUnmeasuredReason == nil, metrics.erleSteadyDB != nil else { return nil }
        guard cancels else { return "AEC is disabled where the segment starts: nothing re-converges" }
        guard !metrics.isLowConfidence else {
            return "the segment's ERLE stands on \(metrics.singleTalkFrames) analysis frame\(metrics.singleTalkFrames == 1 ? "" : "s"), fewer than "
                + "\(FigureConfidence.minimumAnalysisFrames): its steady state is no reference to settle to"
        }
        return convergenceUnmeasuredReason(convergence: metrics.convergenceSeconds, steady: metrics.erleSteadyDB,
                                           steadyIsLowerBound: metrics.erleSteadyIsLowerBound, toleranceDB: toleranceDB, end: "the segment")
    }

    /// `lastWindow`: the ERLE series' last window the convergence scan counts, where there is a
    /// series (a call's or a recording's; a segment has none).
    private static func convergenceUnmeasuredReason(convergence: Double?, steady: Double?, steadyIsLowerBound: Bool,
                                                    toleranceDB: Double, end: String, lastWindow: ERLEPoint? = nil) -> String? {
        guard convergence == nil, let steady else { return nil }
        let steadyText = (steadyIsLowerBound ? "≥ " : "") + FixedDecimal.text(steady, fractionDigits: 1) + " dB"
        let tolerance = FixedDecimal.text(toleranceDB, fractionDigits: 0)
        let floor = FixedDecimal.text(2 * toleranceDB, fractionDigits: 0)
        if EchoMetricsConfiguration(convergenceToleranceDB: toleranceDB).nothingConverged(steadyERLEDB: steady) {
            // A bound there may stand for more: the output is at the mic's floor, so its steady
            // state cannot be told from nothing removed.
            if steadyIsLowerBound {
                return "the steady ERLE, \(steadyText), is a bound at the mic's floor within \(floor) dB of nothing removed: no convergence can be told"
            }
            return "the steady ERLE, \(steadyText), is \(floor) dB or less: nothing converged"
        }
        if let lastWindow, lastWindow.isLowerBound, let value = lastWindow.erleDB, value > steady + toleranceDB {
            // The output at the mic's floor: more was removed at the end than the steady figure,
            // which windows before it pull down (a double talk's), says. "Still settling" would read
            // as a canceller that has not converged.
            return "the ERLE ends as a bound at the mic's floor, ≥ \(FixedDecimal.text(value, fractionDigits: 1)) dB, above ±\(tolerance) dB "
                + "of its steady \(steadyText): the canceller removed more there than the steady figure says, so no settling to it can be told"
        }
        return "the ERLE did not stay within ±\(tolerance) dB of its steady \(steadyText) for two windows before \(end) ended: still settling, or swinging"
    }

    /// The delay search's range where the delay is unmeasured because the echo lay outside it —
    /// `delayUnmeasuredReason`'s words, typed (`echo_outside_delay_search_ms`): nil where that
    /// reason says something else first (no echo path for what the call sent, a reference the app
    /// never fed), so a page and eval's note name one cause.
    public static func echoOutsideDelaySearch(_ metrics: EchoMetrics, states: [DeviceState] = [], referenceNotFed: Bool = false) -> Double? {
        guard metrics.delayMilliseconds == nil,
              delayReasonBeforeTheSearch(metrics, states: states, referenceNotFed: referenceNotFed) == nil else { return nil }
        return metrics.echoOutsideDelaySearchMilliseconds
    }

    /// A cause of no delay that comes before what the search itself found: no echo path for
    /// what the call sent, or a reference the app never fed.
    private static func delayReasonBeforeTheSearch(_ metrics: EchoMetrics, states: [DeviceState], referenceNotFed: Bool) -> String? {
        if let reason = noEchoPathReason(states) { return reason }
        if referenceNotFed, metrics.gate.farEndActiveFrames == 0 { return Self.referenceNotFedReason }
        return nil
    }

    /// Why `delayMilliseconds` is nil, in words (nil when it was measured): no echo could reach
    /// what the call sent (`noEchoPathReason`; `states` empty, files: never); the echo lies outside
    /// the delay search; the far end is tonal, so its delay repeats; or no lag stands out.
    /// `scenarioDelayMilliseconds`: a simulated call's echo path delay, which the words of an echo
    /// outside the search give (no loopback of a simulation is recorded late, so an 800 ms path
    /// must not read "a loopback recorded late?"). `customSpeakerBufferingMilliseconds`: what an app's
    /// custom speaker added after the engine's reference on average (`customSpeakerBuffering`):
    /// where it puts the echo past the search, that is the reason, not "no lag stands out" (a
    /// pass-through speaker pulling 450 ms at a time held the audio 910 ms). `clockDriftPPM`: the
    /// hardware model's drift, which smears the lag over the seconds the estimate sums: named where
    /// no lag stands out (a white-noise A2DP call at 150 ppm read "too little far end there, or no
    /// echo of it", both false).
    public static func delayUnmeasuredReason(_ metrics: EchoMetrics, states: [DeviceState] = [], referenceNotFed: Bool = false,
                                             scenarioDelayMilliseconds: Double? = nil,
                                             customSpeakerBufferingMilliseconds: Double? = nil, clockDriftPPM: Double? = nil) -> String? {
        guard metrics.delayMilliseconds == nil else { return nil }
        if let reason = delayReasonBeforeTheSearch(metrics, states: states, referenceNotFed: referenceNotFed) { return reason }
        let search = EchoMetricsConfiguration.default.maxDelayMilliseconds
        if let buffering = customSpeakerBufferingMilliseconds, let path = scenarioDelayMilliseconds, path + buffering > search,
           metrics.delayUnmeasured == nil || metrics.delayUnmeasured == .echoOutsideSearch(searchMilliseconds: search) {
            let f = { (value: Double) in FixedDecimal.text(value, fractionDigits: 0) }
            return "the custom speaker's buffering, \(f(buffering)) ms on average after the engine's reference, and the scenario's echo path "
                + "delay, \(f(path)) ms, put the echo about \(f(path + buffering)) ms after the reference, past the 0–\(Int(search)) ms delay search"
        }
        switch metrics.delayUnmeasured {
        case .echoOutsideSearch(let range)?:
            guard let nominal = scenarioDelayMilliseconds else {
                return "the echo is not within 0–\(Int(range)) ms of the reference: it leads it (a loopback recorded late?), or lags it by more"
            }
            let delay = FixedDecimal.text(nominal, fractionDigits: 0)
            if nominal > range {
                return "the scenario's echo path delay, \(delay) ms, lies past the 0–\(Int(range)) ms delay search (the devices' latencies add to it): "
                    + "the echo lags the reference by more than the search reaches"
            }
            return "the echo is not within 0–\(Int(range)) ms of the reference: it leads it (a reference fed late?), or lags it by more "
                + "(the scenario's echo path delay is \(delay) ms; the devices' latencies add to it)"
        case .tonalFarEnd?:
            return "the far end is tonal (a tone or held chord): its correlation with the mic peaks at every period of its notes, so no lag is the delay"
        case .noEchoInWarmup(let seconds)?:
            return "no echo reached the mic while the delay was estimated, over the call's first \(String(format: "%g", seconds)) s at most (a file or generator was the mic there, or the call was muted): the delay is read there only"
        case .noEchoAtMic?:
            return "no echo above the mic's noise wherever the near end is silent: a lag that stands out in the search cannot be told from the signals' likeness"
        case nil where metrics.gate.farEndActiveFrames == 0 && metrics.gate.echoUnderNoiseFrames == 0 && metrics.gate.frames > 0:
            // The gate's own count says why: said as "too little far end", a call with none read
            // as if its far end had been too short.
            return "the far end never plays above −50 dBFS (its reference stays below it in every analysis frame): no echo whose delay to measure"
        case nil:
            // The estimate reads the call's first seconds (and those after each route change):
            // a call whose echo came later, outside them, had it, but not there.
            let drift = clockDriftPPM.flatMap { $0 == 0 ? nil : FixedDecimal.text(abs($0), fractionDigits: 0) }
            return "no lag of the reference stands out in the mic over the first "
                + "\(String(format: "%g", EchoMetricsConfiguration.default.delayWarmupSeconds)) s at most, where the delay is estimated: "
                + "too little far end there, or no echo of it at the mic there"
                + (drift.map { ", or the call's \($0) ppm of clock drift smeared the echo's lag over the seconds the estimate sums" } ?? "")
        }
    }

    /// The echo's bulk delay at the canceller: the measured one, or — where the far end plays but
    /// the delay lies past the estimator's search, or is ambiguous because the far end is tonal —
    /// the scenario's echo path delay, a lower bound of it (the devices add their latencies).
    /// No scenario delay stands in on a route, which brings its own path. A call whose delay was
    /// searched again is judged per segment (`segmentDelayFindings`).
    /// `metrics`: the whole call's, as reported (`reportedMetrics`).
    func echoDelayMilliseconds(_ run: CallRun, metrics: EchoMetrics) -> (milliseconds: Double, isLowerBound: Bool, customSpeakerBuffering: Double?)? {
        if let measured = metrics.delayMilliseconds { return (measured, false, nil) }
        if let segments = run.hardware?.segments, segments.contains(where: { $0.route != "echo_path" }) { return nil }
        let buffering = Self.customSpeakerBuffering(run)
        let nominal = run.scenario.echoPath.delayMilliseconds + (buffering ?? 0)
        guard nominal > configuration.maxDelayMilliseconds || metrics.delayUnmeasured == .tonalFarEnd,
              metrics.gate.farEndActiveFrames > 0 else { return nil }
        return (nominal, true, buffering)
    }

    /// A call whose echo delay was searched again at an echo-path change has no one delay: each
    /// segment with its own is judged by it, from its start to its end, and findings of
    /// neighbouring segments that say the same (a mute between them) are one (a Bluetooth
    /// speaker's 220 ms, past WebRTC's reach, leaves 6 dB of ERLE there: judged by one delay for
    /// the whole call, no finding says why).
    func segmentDelayFindings(_ run: CallRun, ranges: [Range<Int>], segments: [RunReport.Segment]) -> [LintFinding] {
        let processing = run.scenario.voiceProcessing
        let findings = zip(ranges, segments).flatMap { range, segment -> [(finding: LintFinding, opensSegment: Bool)] in
            guard segment.metrics.hasOwnDelay, let delay = segment.metrics.delayMilliseconds else { return [] }
            var states = Self.states(run.deviceStates, during: range, crossover: 0)
            guard !states.isEmpty else { return [] }
            states[0].frame = max(states[0].frame, Int64(range.lowerBound))
            let route = run.hardware?.segment(at: Int64(range.lowerBound)).map(\.route).flatMap { $0 == "echo_path" ? nil : $0 }
            // Too short alone, a piece may not be once joined with its neighbour: filtered below.
            return Linter.delayFindings(states: states, endFrame: range.upperBound, sampleRate: run.sampleRate, delayMilliseconds: delay,
                                        backend: processing.backend, filterOverride: processing.filterMilliseconds, route: route,
                                        minimumDurationSeconds: 0)
                .map { ($0, $0.frames.lowerBound == range.lowerBound) }
        }
        // Across a segment's boundary only: inside one, a switch between two modes that both fall
        // short stays two findings, each with its own canceller's ERLE.
        var joined: [LintFinding] = []
        for (finding, opensSegment) in findings {
            if opensSegment, let last = joined.last, last.message == finding.message, last.frames.upperBound == finding.frames.lowerBound {
                joined[joined.count - 1].frames = last.frames.lowerBound..<finding.frames.upperBound
            } else {
                joined.append(finding)
            }
        }
        return joined.filter { $0.frames.count >= Int(Linter.minimumDurationSeconds * Double(run.sampleRate)) }
    }

    /// What an app's custom speaker added after the engine's reference, on average, in ms
    /// (`CustomSpeakerDelay`): where one drove the loudspeaker all call with the engine's
    /// reference; nil otherwise — a call that changes speaker, or feeds the user reference, has
    /// no one figure for the whole call.
    static func customSpeakerBuffering(_ run: CallRun) -> Double? {
        guard let first = run.deviceStates.first?.customSpeakerIndex,
              run.deviceStates.allSatisfy({ $0.customSpeakerIndex == first && $0.customSpeakerDrivesLoudspeaker && !$0.isUserReferenceStarted })
        else { return nil }
        return run.counters.customSpeakerDelay.meanMilliseconds
    }

    static func format(_ value: Double) -> String { FixedDecimal.text(value, fractionDigits: 1) }

    /// "(0.6 s of the peer's audio, in 1 overrun)": what a buffer's overruns dropped, in seconds.
    static func overrunLoss(_ buffer: BufferCounters, of what: String, rate: Double) -> String {
        "(\(format(Double(buffer.dropped) / rate)) s of \(what), in \(buffer.overruns) overrun\(buffer.overruns == 1 ? "" : "s"))"
    }

    /// " (low confidence: 14 analysis frames)" where a consequence's figure stands on fewer frames
    /// than a figure needs (`FigureConfidence`), as the pages mark the figure itself; "" otherwise.
    static func confidenceNote(frames: Int) -> String {
        FigureConfidence.isLow(frames: frames) ? " (\(FigureConfidence.mark(frames: frames)))" : ""
    }

    /// What an ERLE did to the echo, in words: "echo reduced by (only) 12.3 dB", or — when the
    /// output holds more echo than the mic (ERLE below zero) — "echo made 17.7 dB louder than at
    /// the mic", never "reduced by -17.7 dB" (nor a bare "louder", which read as louder than
    /// before a route change whose weaker path left the peer less echo).
    /// A steady ERLE this high past a canceller's nominal reach: it removed the echo after all
    /// (`echo-delay-beyond-filter` says so instead of that its filter ends before the echo).
    public static let reachedSteadyERLEDB = 20.0

    static func echoChange(_ erleDB: Double, only: Bool) -> String {
        // A change that prints as zero either way is none: "reduced by only -0.0 dB" read as a
        // reduction (a trial's).
        if format(abs(erleDB)) == format(0) { return "echo not reduced (0.0 dB)" }
        if erleDB < 0 { return "echo made \(format(-erleDB)) dB louder than at the mic" }
        return "echo reduced by \(only ? "only " : "")\(format(erleDB)) dB"
    }
}

extension SegmentMetrics {
    /// The segment with no echo figures, for a stretch no echo could reach: nothing measured, on
    /// no frames.
    var withoutEchoFigures: SegmentMetrics {
        var metrics = SegmentMetrics(startSample: startSample, endSample: endSample, erlDB: nil, erleDB: nil, erleSteadyDB: nil,
                                     convergenceSeconds: nil, singleTalkFrames: 0)
        // Where the call's segments have delays of their own, this one's is none, said as such.
        metrics.hasOwnDelay = hasOwnDelay
        return metrics
    }
}

extension TimelineAction {
    /// Whether the action switches the app's custom mic or speaker (which takes effect once the
    /// new device is ready, up to the switch's timeout later).
    var switchesCustomDevice: Bool {
        switch self {
        case .setCustomMic, .resetCustomMic, .setCustomSpeaker, .resetCustomSpeaker: true
        default: false
        }
    }
}
