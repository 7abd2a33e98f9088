import Foundation
import Metrics
import Simulation

/// The hardware model's lint rules: session mistakes found while the call ran (`SessionIssue`)
/// and echo leaks after route changes, each with its measured consequence.
public enum HardwareFindings {
    /// The rule an echo leak after a route change is reported under.
    public static let echoLeakRule = "echo-leak-after-route-change"
    /// A route change leaks echo when the canceller removes less than this over the first second.
    public static let leakERLEThresholdDB = 10.0

    /// `states`: the call's device timeline, to tell whether a canceller was on after a route
    /// change (with AEC disabled nothing is cancelled anyway: `aec-disabled-with-real-devices`).
    /// `sentErrorDB`: 10·log10(Σ(sent − mic)² / Σmic²) over a stretch (`CallMeasurement.sentErrorDB(in:)`),
    /// to judge a change with too little far-end single talk for an ERLE; nil: such a change is
    /// not judged so. `sendPathAddsGain`: gain control may raise what is sent (nor then).
    /// The findings — the session's issues and the leaks — and the route changes whose leak could
    /// not be judged, each with the frame it happened at and why (too little far-end single talk
    /// in the first `leakWindowSecondsAtMost` seconds on the new route): without it, no finding
    /// read as no leak.
    public static func findings(_ hardware: HardwareReport?, analysis: EchoAnalysis, rate: Double, length: Int,
                                states: [DeviceState] = [], sentErrorDB: ((Range<Int>) -> Double?)? = nil,
                                sendPathAddsGain: Bool = false, oneClock: OneClockControl? = nil) -> (findings: [RunReport.Finding], unjudgedLeaks: [(frame: Int64, reason: String)]) {
        guard let hardware else { return ([], []) }
        var findings = hardware.issues
            .filter { $0.kind != .audioDisabledWhileActive || Double($0.frames.count) >= audioDisabledGraceSeconds * rate }
            .map { issue in finding(issue, hardware: hardware, analysis: analysis, rate: rate) }
        var unjudged: [(frame: Int64, reason: String)] = []
        for (index, segment) in hardware.segments.enumerated() where hardware.changesRoute(at: index) {
            switch judgeLeak(after: index, hardware: hardware, analysis: analysis, rate: rate, length: length,
                             states: states, sentErrorDB: sentErrorDB, sendPathAddsGain: sendPathAddsGain) {
            case .leak(let leak): findings.append(leak)
            case .unjudged(let reason, let from): unjudged.append((max(segment.startFrame, from), reason))
            case .noLeak: break
            }
        }
        findings += ClockDriftFinding.findings(hardware, analysis: analysis, states: states, rate: rate, length: length, oneClock: oneClock)
        return (findings, unjudged)
    }

    /// What the leak rule made of a route change.
    private enum LeakVerdict {
        case leak(RunReport.Finding)
        /// Judged, no leak; or nothing to judge (no audio on the route, nothing before it, the canceller off).
        case noLeak
        /// Not judged, why, and from which frame it would have been (the change's, or where the
        /// device mic came back).
        case unjudged(String, from: Int64)
    }

    /// Manual audio left disabled while the session is active is a finding once it lasts this
    /// long: an app that enables audio a moment after `didActivate` loses nothing a peer hears.
    public static let audioDisabledGraceSeconds = Linter.minimumDurationSeconds

    /// The leak after the route change that opened `hardware.segments[index]`, judged on the
    /// first second of audio that flows on the new route (a change while the session is inactive,
    /// interrupted or disabled is judged from when audio flows again; none before the next route
    /// change: nothing to judge). It is a leak when the canceller removes less than
    /// `leakERLEThresholdDB` there *and* the echo reaching the peer got louder than before the
    /// change — the echo loss reference → sent (ERL + ERLE) over that second is under the one over
    /// the last second of audio that flowed before the change — or the canceller adds echo there
    /// (ERLE below 0 dB), however much weaker the new route's echo path is. Where nothing flowed before, the
    /// canceller had learnt no path to lose (its first convergence is the call's start, not the
    /// change's); where the loss before cannot be measured, the ERLE alone decides. Where either
    /// second holds too little far-end single talk to judge (the near end talked over the change),
    /// it is widened to up to `leakWindowSecondsAtMost`; a widened after-stretch with nothing before
    /// to compare with leaks only where the canceller adds echo.
    private static func judgeLeak(after index: Int, hardware: HardwareReport, analysis: EchoAnalysis, rate: Double, length: Int,
                                  states: [DeviceState], sentErrorDB: ((Range<Int>) -> Double?)?, sendPathAddsGain: Bool) -> LeakVerdict {
        let segment = hardware.segments[index]
        let route = segment.route
        let nextChange = hardware.segments[(index + 1)...].first { $0.route != route }.map { Int($0.startFrame) } ?? length
        let start = Int(segment.startFrame)
        guard start < min(length, nextChange) else { return .noLeak }
        let flowing = hardware.flowing(in: Int64(start)..<Int64(min(length, nextChange)))
        // Judged from when the peer hears a mic that hears the room: a change while a file mic
        // feeds the call leaks nothing until the device mic is back (judged from the change, one
        // during a file mic would be judged over 2 s of the file's audio and half a second of the
        // route's), nor while the call is muted (from the change, a mute over it would leave the
        // leak after the unmute unjudged).
        // The first stretch of audio on the route the peer hears the room in (a mute may last
        // past a gap in the audio).
        guard let (flow, resumed) = flowing.lazy.compactMap({ heardByThePeer(from: $0, states: states) }).first else { return .noLeak }
        // The first second of audio on the route; where it holds too little far-end single talk
        // to judge (the near end talked over the change), up to `leakWindowSecondsAtMost` seconds, half
        // a second at a time: judged on its first second alone, a change made while someone talks
        // leaves a leak of 7 dB of ERLE unjudged.
        let flowAfter = Int(flow.lowerBound)..<Int(flow.upperBound)
        let (after, first) = judgeable(flowAfter.lowerBound..<min(flowAfter.lowerBound + Int(rate), flowAfter.upperBound),
                                       forward: true, within: flowAfter, analysis: analysis, rate: rate)
        // The old route as the device mic last heard it: before a file mic took over, if one did.
        guard let flowedBefore = hardware.flowing(in: 0..<Int64(start)).reversed().lazy.compactMap({ heardUntil($0, states: states) }).first
        else { return .noLeak }
        let cancellerOn = (states.last { $0.frame <= flow.lowerBound } ?? states.first).map { $0.echoCancellerMode != .disabled } ?? true
        guard !after.isEmpty, cancellerOn else { return .noLeak }
        // Too little far-end single talk to measure an ERLE on (a wired headset's echo under the
        // mic's noise, or the near end talking over the change): a canceller still modelling the
        // old route's path shows anyway in what it sends beyond what the mic held (speex sends 25 dB
        // more than the mic holds after a change to the speaker: without this check no finding
        // says so). Not where the send
        // path's gain control may raise what is sent.
        if first.singleTalkFrames < FigureConfidence.minimumAnalysisFrames || first.erleDB == nil, !first.erleIsLowerBound, !sendPathAddsGain,
           let added = addedToWhatTheMicHeld(after: after, within: flowAfter, segment: segment, rate: rate, sentErrorDB: sentErrorDB) {
            return .leak(RunReport.Finding(
                rule: echoLeakRule, atSeconds: Double(added.stretch.lowerBound) / rate, untilSeconds: Double(added.stretch.upperBound) / rate,
                message: "after the route change to \(route) the canceller kept modelling the old route's echo path: it sends what the mic did not hold",
                consequenceMetric: "sent_over_mic_db", consequenceDB: added.louderDB,
                consequence: "what was sent in the first second of audio on \(route) is \(RunEvaluator.format(added.louderDB)) dB louder than the mic held "
                    + "(too little far-end single talk there for an ERLE: \(first.singleTalkFrames) analysis frames)"))
        }
        // An echo under the mic's noise (a wired headset) that nothing was added to: no leak —
        // unless the near end talked there: what is sent beyond the mic cannot show a residual
        // under a talker (the old speaker path's, 14 dB under one, passed as no leak).
        if first.erlIsLowerBound {
            let talked = analysis.talkActivity.nearEndFrames(startingIn: after)
            guard talked >= FigureConfidence.minimumAnalysisFrames else { return .noLeak }
            return .unjudged("the near end talked over the first \(RunEvaluator.format(Double(after.count) / rate)) s of audio on \(route)"
                + (resumed.map { " " + $0.after } ?? "") + " (\(talked) analysis frames) while its echo stays under the mic's noise: "
                + "a residual under the talker cannot be told from what was sent", from: resumed == nil ? 0 : flow.lowerBound)
        }
        // Too little far-end single talk over the whole window: no verdict, said as such. (An
        // ERLE missing on enough frames is an echo under the output's floor: no leak.)
        if first.singleTalkFrames < FigureConfidence.minimumAnalysisFrames, !first.erleIsLowerBound {
            return .unjudged("the first \(RunEvaluator.format(Double(after.count) / rate)) s of audio on \(route)"
                + (resumed.map { " " + $0.after } ?? "") + " hold "
                + "\(first.singleTalkFrames) far-end single-talk analysis frames, fewer than the \(FigureConfidence.minimumAnalysisFrames) "
                + "an ERLE needs (the near end talked over the change, or the far end was quiet)", from: resumed == nil ? 0 : flow.lowerBound)
        }
        // A bound (the output under the noise) shows no leak.
        guard !first.erleIsLowerBound, let erle = first.erleDB, erle < leakERLEThresholdDB else { return .noLeak }
        var louder = ""
        let extended = after.count > Int(rate)
        // The last second of audio before the change, likewise widened back (the talker spoke
        // over the change).
        let flowBefore = Int(flowedBefore.lowerBound)..<Int(flowedBefore.upperBound)
        let (_, previous) = judgeable(max(flowBefore.lowerBound, flowBefore.upperBound - Int(rate))..<flowBefore.upperBound,
                                      forward: false, within: flowBefore, analysis: analysis, rate: rate)
        if !previous.isLowConfidence, let erlBefore = previous.erlDB, let erleBefore = previous.erleDB, let erlAfter = first.erlDB {
            // A bound before is at least that loss: the echo is surely louder when under it.
            let lossBefore = erlBefore + erleBefore, lossAfter = erlAfter + erle
            // A canceller that adds echo (ERLE below 0) leaks whatever the route did: still
            // modelling the old route's path, it sends more than the mic holds, however much
            // weaker the new route's path is.
            if lossAfter >= lossBefore {
                // Said, so that "louder than at the mic" is not read as louder at the peer; a bound
                // before (the loss at least that) makes the difference at most this.
                let difference = RunEvaluator.format(lossAfter - lossBefore)
                let quieter = difference == RunEvaluator.format(0) ? ""
                    : "; the new route's weaker path still leaves the peer \(previous.erleIsLowerBound ? "at most " : "")\(difference) dB less echo "
                    + "than before the change (echo loss \(RunEvaluator.format(lossAfter)) dB, was \(previous.erleIsLowerBound ? "at least " : "")"
                    + "\(RunEvaluator.format(lossBefore)) dB)"
                return erle < 0 ? .leak(leakFinding(erle: erle, route: route, after: after, start: start, rate: rate, louder: quieter, resumed: resumed)) : .noLeak
            }
            // A bound before (the loss at least that) makes the difference at least this.
            louder = "; the echo reaching the peer is \(previous.erleIsLowerBound ? "at least " : "")"
                + "\(RunEvaluator.format(lossBefore - lossAfter)) dB louder than before the change "
                + "(echo loss \(RunEvaluator.format(lossAfter)) dB, was \(previous.erleIsLowerBound ? "at least " : "")\(RunEvaluator.format(lossBefore)) dB)"
        } else if extended, erle >= 0 {
            // Judged past its first second, with nothing before to compare with (a wired
            // headset's echo under the mic's noise): the ERLE alone does not decide there (a change
            // to the receiver, its echo path 30 dB weaker, read as a leak at 9 dB of ERLE over 2 s
            // where the peer got 21 dB less echo than before), unless the canceller adds echo.
            return .noLeak
        }
        return .leak(leakFinding(erle: erle, route: route, after: after, start: start, rate: rate, louder: louder, resumed: resumed))
    }

    /// Over a route whose echo stays under the mic's noise, a canceller leaks where what it sends
    /// differs from the mic by more than this over the mic's own energy: a suppressor (sent = g·mic,
    /// 0 ≤ g ≤ 1) stays at or under 0 dB, and comfort noise no louder than the mic's adds at most 3.
    static let addedSignalThresholdDB = 6.0

    /// What was sent beyond what the mic held over the first second of the new route's audio —
    /// from its added latency on, where its streams bring it (before, the mic still holds the old
    /// route's echo, which would hide what is added) — where that passes `addedSignalThresholdDB`:
    /// how much louder it is, and where.
    private static func addedToWhatTheMicHeld(after: Range<Int>, within flow: Range<Int>, segment: RouteSegment, rate: Double,
                                              sentErrorDB: ((Range<Int>) -> Double?)?) -> (louderDB: Double, stretch: Range<Int>)? {
        let from = min(after.lowerBound + Int(segment.addedLatencyFrames ?? 0), flow.upperBound)
        let second = from..<min(from + Int(rate), flow.upperBound)
        guard second.count >= Int(rate) / 2, let error = sentErrorDB?(second), error > addedSignalThresholdDB else { return nil }
        return (10 * log10(1 + pow(10, error / 10)), second)
    }

    /// Why a leak is judged from later than audio flowed on the route: what the peer did not
    /// hear before.
    private enum Resumption {
        /// A file or generator mic fed the call.
        case deviceMicBack
        /// The call was muted.
        case unmute

        /// Said after "the first N s of audio on ROUTE".
        var after: String { self == .deviceMicBack ? "back on the device mic" : "after the unmute" }
        /// Said after "(from N s, ".
        var when: String { self == .deviceMicBack ? "when the device mic was back" : "at the unmute" }
    }

    /// `flow` from the first frame the peer hears a mic that hears the room (the device mic, a
    /// pass-through of it, unmuted), and what it waited for (nil: nothing); nil where the peer
    /// hears none within it.
    private static func heardByThePeer(from flow: Range<Int64>, states: [DeviceState]) -> (Range<Int64>, Resumption?)? {
        guard let atStart = states.last(where: { $0.frame <= flow.lowerBound }) else { return (flow, nil) }
        if atStart.sendsTheRoom { return (flow, nil) }
        // A state another replaces at the same frame lasted no time (an unmute and a file mic at once).
        let lasting = states.indices.filter { $0 + 1 == states.count || states[$0 + 1].frame != states[$0].frame }
        guard let back = lasting.lazy.map({ states[$0] }).first(where: { $0.frame > flow.lowerBound && $0.sendsTheRoom }),
              back.frame < flow.upperBound else { return nil }
        // The last thing that kept the room from the peer: the state just before `back`.
        let before = states.last { $0.frame < back.frame } ?? atStart
        return (back.frame..<flow.upperBound, before.realMicrophoneInUse ? .unmute : .deviceMicBack)
    }

    /// `flow` up to where the peer stopped hearing the room (a mic that hears no room took over,
    /// or the call was muted) and did not again before its end; nil where the peer did not hear
    /// the room in it.
    private static func heardUntil(_ flow: Range<Int64>, states: [DeviceState]) -> Range<Int64>? {
        var end = flow.upperBound
        var index = states.lastIndex { $0.frame < end }
        while let current = index, !states[current].sendsTheRoom {
            end = states[current].frame
            index = current > 0 ? current - 1 : nil
        }
        return end > flow.lowerBound ? flow.lowerBound..<end : nil
    }

    /// The longest stretch after a route change the leak is judged over (`leak`): a second, or
    /// more where the first holds too little far-end single talk.
    static let leakWindowSecondsAtMost = 3.0

    /// `stretch` and its metrics, widened half a second at a time away from the change — its end
    /// `forward` (after the change), else its start back — up to `leakWindowSecondsAtMost` inside
    /// `within`, while they hold too little far-end single talk to judge (the near end talked
    /// over the change).
    static func judgeable(_ stretch: Range<Int>, forward: Bool, within: Range<Int>, analysis: EchoAnalysis,
                                  rate: Double) -> (Range<Int>, SegmentMetrics) {
        var stretch = stretch, metrics = analysis.metrics(in: stretch)
        while metrics.erleDB == nil || metrics.isLowConfidence, Double(stretch.count) < leakWindowSecondsAtMost * rate,
              forward ? stretch.upperBound < within.upperBound : stretch.lowerBound > within.lowerBound {
            stretch = forward ? stretch.lowerBound..<min(stretch.upperBound + Int(rate) / 2, within.upperBound)
                : max(within.lowerBound, stretch.lowerBound - Int(rate) / 2)..<stretch.upperBound
            metrics = analysis.metrics(in: stretch)
        }
        return (stretch, metrics)
    }

    /// `resumed`: what the judged stretch waited for, beyond audio flowing on the route.
    private static func leakFinding(erle: Double, route: String, after: Range<Int>, start: Int, rate: Double, louder: String,
                                    resumed: Resumption?) -> RunReport.Finding {
        let when = resumed?.when ?? "when audio flowed again"
        let from = after.lowerBound > start ? " (from \(RunEvaluator.format(Double(after.lowerBound) / rate)) s, \(when))" : ""
        let stretch = after.count > Int(rate) ? "the first \(RunEvaluator.format(Double(after.count) / rate)) s of audio" : "the first second of audio"
        let longer = after.count > Int(rate) ? " (its first second held too little far-end single talk to judge)" : ""
        return RunReport.Finding(
            rule: echoLeakRule, atSeconds: Double(after.lowerBound) / rate, untilSeconds: Double(after.upperBound) / rate,
            message: "after the route change to \(route) the canceller had to learn a new echo path: echo leaked to the peer",
            consequenceMetric: "erle_db", consequenceDB: erle,
            consequence: "\(RunEvaluator.echoChange(erle, only: true)) in \(stretch) on \(route)\(longer)\(from)\(louder)")
    }

    private static func finding(_ issue: SessionIssue, hardware: HardwareReport, analysis: EchoAnalysis, rate: Double) -> RunReport.Finding {
        let range = Int(issue.frames.lowerBound)..<Int(issue.frames.upperBound)
        let seconds = RunEvaluator.format(Double(range.count) / rate)
        var finding = RunReport.Finding(rule: issue.kind.rawValue, atSeconds: Double(range.lowerBound) / rate,
                                        untilSeconds: Double(range.upperBound) / rate, message: issue.detail + ": " + advice(issue, usesManualAudio: hardware.usesManualAudio),
                                        consequenceMetric: "", consequenceDB: nil, consequence: "")
        switch issue.kind {
        case .audioBeforeActivation:
            // The silence is not the mistake's own: an app that enables audio in didActivate is
            // silent until then too (a new user's two orders gave byte-identical taps). What the
            // early start risks on a device is what the model does not simulate.
            finding.consequenceMetric = "capture_silenced_samples"
            finding.consequence = "the engine ran \(seconds) s (\(issue.samples) samples) on a session not yet activated, capturing and playing "
                + "silence, as the right order waits in silence for the activation; the risk is on a device, which this model does not "
                + "simulate: an audio unit started before the activation can fail to start, or lose the session's route (the CallKit + "
                + "WebRTC article's speaker reset)"
        case .preferencesChangedWhileActive:
            finding.consequenceMetric = "seconds_at_old_format"
            finding.consequence = "the device kept its old format for \(seconds) s: the new preferences wait for the next activation"
        case .routeResetAfterConnect:
            let measured = range.isEmpty ? nil : analysis.metrics(in: range)
            let erl = measured?.erlDB
            finding.consequenceMetric = "erl_db"
            finding.consequenceDB = erl
            finding.consequence = "the call ran on the receiver for \(seconds) s instead of the speaker the user chose"
                + (erl.map { "; echo at the mic \(measured?.erlIsLowerBound == true ? "at least " : "")\(RunEvaluator.format($0)) dB below the far end there"
                    + RunEvaluator.confidenceNote(frames: measured?.erlFrames ?? 0) } ?? "")
        case .deactivatedWithCustomDevice:
            // What the simulation counts for each device set: the custom mic's capture the engine
            // discarded, the peer's audio a custom speaker was handed as silence.
            var lost: [String] = []
            if issue.customMicSet { lost.append("\(issue.samples) samples the custom mic delivered in \(seconds) s were discarded") }
            if issue.customSpeakerSet {
                let given = RunEvaluator.format(Double(issue.playoutSamples) / rate)
                lost.append("the custom speaker was handed silence for \(given) s: \(issue.playoutSamples) samples of the peer's audio were not given to it")
            }
            finding.consequenceMetric = issue.customMicSet ? "custom_mic_samples_discarded" : "playout_dropped_samples"
            finding.consequence = lost.joined(separator: "; ")
            finding.message = issue.detail + " (" + devices(issue) + "): " + advice(issue)
        case .interruptedWithCustomMic:
            finding.consequenceMetric = "custom_mic_samples_discarded"
            finding.consequence = "\(issue.samples) samples the custom mic delivered in \(seconds) s were discarded: the peer never heard them"
        case .audioDisabledWhileActive:
            finding.consequenceMetric = "capture_silenced_samples"
            finding.consequence = "\(issue.samples) samples (\(seconds) s) of capture were silence and the peer's audio was not played while the session was active"
        }
        return finding
    }

    private static func devices(_ issue: SessionIssue) -> String {
        [issue.customMicSet ? "custom mic" : nil, issue.customSpeakerSet ? "custom speaker" : nil].compactMap { $0 }.joined(separator: " and ")
    }

    static func advice(_ issue: SessionIssue, usesManualAudio: Bool = false) -> String {
        switch issue.kind {
        case .audioBeforeActivation:
            usesManualAudio ? "set isAudioEnabled only in provider(_:didActivate:)"
                : "use manual audio (useManualAudio = true) and set isAudioEnabled only in provider(_:didActivate:)"
        case .preferencesChangedWhileActive:
            "set preferred sample rate and I/O buffer duration before activating the session (or deactivate first)"
        case .routeResetAfterConnect:
            "with useManualAudio the engine leaves the session alone when the connection comes up, so the user's route stays"
        case .deactivatedWithCustomDevice:
            "when provider(_:didDeactivate:) fires, reset "
                + [issue.customMicSet ? "the custom mic (resetCustomMicToDefaultMic())" : nil,
                   issue.customSpeakerSet ? "the custom speaker (resetCustomSpeakerToDefaultSpeaker())" : nil]
                    .compactMap { $0 }.joined(separator: " and ")
                + " where the CallKit + WebRTC article resets its audio configuration, and set "
                + (issue.customMicSet && issue.customSpeakerSet ? "them" : "it") + " again in provider(_:didActivate:)"
        case .interruptedWithCustomMic:
            "pause the custom mic's source when the interruption begins (AVAudioSession.interruptionNotification, .began) "
                + "and resume it when it ends (.ended), so what it plays is not lost"
        case .audioDisabledWhileActive:
            "set rtcAudioSession.isAudioEnabled = true in provider(_:didActivate:), with setActive(true) (isAudioEnabled = active)"
        }
    }
}

extension HardwareReport {
    /// Whether `segments[index]` opens with a change of route (another route than the segment
    /// before's: not an input data source change, formats granted anew, or the same route chosen
    /// again), which the route leak rule judges.
    func changesRoute(at index: Int) -> Bool { index > 0 && segments[index].route != segments[index - 1].route }

    /// The frames where the route changes.
    var routeChangeFrames: [Int] { segments.indices.filter(changesRoute(at:)).map { Int(segments[$0].startFrame) } }
}
