import AudioCore
import Metrics
import Simulation

/// Echo that leaks after the call switches back to the device mic from one that hears no room
/// (a file or generator mic).
///
/// Why: the room's echo path is gone while such a mic feeds the call, and a canceller left on
/// learns that the mic holds no echo; back on the device mic, it sends the echo until it has
/// learnt the path again. speex, on for a file mic's 5 s, keeps 5.6 dB of ERLE over the first
/// second back where it kept 21.5 dB before the switch, and settles only 2 s later: the segment
/// table shows it, and without this finding nothing says it. Judged as a route change's leak is
/// (`HardwareFindings.echoLeakRule`), by the same figures.
public enum MicSwitchLeakFinding {
    public static let rule = "echo-leak-after-mic-switch"

    /// The leaks after each switch to a mic that hears the room from one that does not, with the
    /// canceller on, and the switches that could not be judged, with why (said on the segment
    /// the switch falls in: a missing finding there is no verdict). Not judged at all: a call
    /// that had no stretch on such a mic before (the canceller had no path to lose: its first
    /// convergence is no leak), and a switch with a route change since the switch away (the
    /// route leak's, `HardwareFindings`, which judges from when the device mic is back).
    /// `sendLatency`: the send path's latency at a capture frame (`CallMeasurement.sendLatency(at:)`).
    static func findings(states: [DeviceState], hardware: HardwareReport?, analysis: EchoAnalysis, rate: Double,
                         length: Int, sendLatency: (Int) -> Int = { _ in 0 }) -> (findings: [RunReport.Finding], unjudged: [(frame: Int64, reason: String)]) {
        var findings: [RunReport.Finding] = []
        var unjudged: [(frame: Int64, reason: String)] = []
        let routeChanges = hardware?.routeChangeFrames ?? []
        for index in states.indices.dropFirst() where states[index].realMicrophoneInUse && !states[index - 1].realMicrophoneInUse
            && states[index].echoCancellerMode != .disabled {
            // The first state of the run of mics that hear no room ending at `index`; the device
            // mic must have fed the call before it.
            var first = index - 1
            while first > 0, !states[first - 1].realMicrophoneInUse { first -= 1 }
            guard first > 0, states[first - 1].realMicrophoneInUse else { continue }
            let leftAt = Int(states[first].frame), switchedAt = Int(states[index].frame)
            let next = states[(index + 1)...].first { !$0.realMicrophoneInUse || $0.echoCancellerMode == .disabled }
            let until = min(length, next.map { Int($0.frame) } ?? length)
            // A route change from the switch away to the switch back, at either end too, is the
            // route leak's to judge (`HardwareFindings`): one leak, one finding.
            let routeChanged = routeChanges.contains { $0 >= leftAt && $0 <= switchedAt }
            // Judged from when the peer hears the device mic again (a mute after the switch).
            guard leftAt > 0, !routeChanged,
                  let start = states[index...].first(where: { !$0.isMuted && Int($0.frame) < until })
                      .map({ max(switchedAt, Int($0.frame)) }), start < until else { continue }
            // The first second back, widened as the route leak's is.
            let (afterRange, after) = HardwareFindings.judgeable(start..<min(start + Int(rate), until), forward: true,
                                                                 within: start..<until, analysis: analysis, rate: rate)
            func notJudged(_ why: String) {
                unjudged.append((Int64(start), "back on the device mic, \(why), fewer than the \(FigureConfidence.minimumAnalysisFrames) "
                    + "a leak's ERLE needs (the near end talked, or the far end was quiet)"))
            }
            // An echo under the mic's floor leaks nothing; too little far-end single talk is no verdict.
            if after.erlIsLowerBound || after.erleIsLowerBound { continue }
            guard !after.isLowConfidence, let erle = after.erleDB, let erlAfter = after.erlDB else {
                notJudged("the first \(RunEvaluator.format(Double(afterRange.count) / rate)) s back hold \(after.singleTalkFrames) "
                    + "far-end single-talk analysis frames")
                continue
            }
            // Decided by the second back alone: enough removed is no leak, echo added is one.
            guard erle < HardwareFindings.leakERLEThresholdDB else { continue }
            // The device mic's last state with the canceller on, before the switch away: none (it
            // was off all the device mic's stretch) is no path to lose, and no leak to judge.
            var lastOn = first - 1
            while lastOn > 0, states[lastOn].realMicrophoneInUse, !states[lastOn].cancelsTheRoomsEcho { lastOn -= 1 }
            guard states[lastOn].realMicrophoneInUse, states[lastOn].cancelsTheRoomsEcho else { continue }
            // Nothing left once its first second (its convergence) is set aside: the canceller had
            // hardly begun to learn a path (turned on with the file mic, the device mic fed it a
            // tick or two first), and there is nothing to compare with — said as that, not as a
            // stretch too quiet to judge.
            let span = deviceMicSpan(lastOn: lastOn, states: states, routeChanges: routeChanges) {
                unsentTail(at: $0, sendLatency: sendLatency, frameSize: analysis.frameSize)
            }
            guard span.began + Int(rate) < span.end else {
                let onFor = FixedDecimal.text(Double(max(0, span.end - span.began)) / rate, fractionDigits: 2)
                unjudged.append((Int64(start), "back on the device mic, the canceller had been on it for \(onFor) s before the switch away"
                    + (span.sinceRouteChange ? " (since a route change)" : "") + ", under the second it takes to converge: "
                    + "no path learnt to lose, nothing to compare with"))
                continue
            }
            let (beforeRange, before) = lastJudgeableSecond(within: (span.began + Int(rate))..<span.end, analysis: analysis, rate: rate)
            guard !before.isLowConfidence,
                  let erlBefore = before.erlDB, let erleBefore = before.erleDB else {
                if erle < 0 {
                    findings.append(finding(erle: erle, after: afterRange, switchedAt: switchedAt, leftAt: leftAt, start: start, rate: rate,
                                            comparison: "the canceller adds echo (nothing before the switch away to compare with: "
                                                + "no second of the device mic's stretch there held enough far-end single talk)"))
                } else {
                    notJudged("no second of the device mic's stretch before the switch away holds \(FigureConfidence.minimumAnalysisFrames) "
                        + "far-end single-talk analysis frames or more")
                }
                continue
            }
            let lossBefore = erlBefore + erleBefore, lossAfter = erlAfter + erle
            guard lossAfter < lossBefore || erle < 0 else { continue }
            let atLeast = before.erleIsLowerBound ? "at least " : ""
            // A canceller that adds echo leaks however the losses compare; the peer's echo is
            // said louder only where it is.
            let losses = "(echo loss \(RunEvaluator.format(lossAfter)) dB, was \(atLeast)\(RunEvaluator.format(lossBefore)) dB)"
            let peer = lossAfter < lossBefore
                ? "the echo reaching the peer is \(atLeast)\(RunEvaluator.format(lossBefore - lossAfter)) dB louder " + losses
                : "the canceller adds echo " + losses
            findings.append(finding(erle: erle, after: afterRange, switchedAt: switchedAt, leftAt: leftAt, start: start, rate: rate,
                                    comparison: "against \(atLeast)\(RunEvaluator.format(erleBefore)) dB over "
                                        + "\(RunEvaluator.format(Double(beforeRange.lowerBound) / rate))–"
                                        + "\(RunEvaluator.format(Double(beforeRange.upperBound) / rate)) s before the switch away; \(peer)"))
        }
        return (findings, unjudged)
    }

    /// "second", or the stretch's length where it is not one (cut short by the call's end or
    /// the next switch, or widened).
    private static func seconds(_ range: Range<Int>, _ rate: Double) -> String {
        range.count == Int(rate) ? "second" : "\(RunEvaluator.format(Double(range.count) / rate)) s"
    }

    private static func finding(erle: Double, after: Range<Int>, switchedAt: Int, leftAt: Int, start: Int, rate: Double,
                                comparison: String) -> RunReport.Finding {
        let unmuted = start > switchedAt ? " (from the unmute at \(RunEvaluator.format(Double(start) / rate)) s)" : ""
        return RunReport.Finding(
            rule: rule, atSeconds: Double(after.lowerBound) / rate, untilSeconds: Double(after.upperBound) / rate,
            message: "back on the device mic after \(RunEvaluator.format(Double(switchedAt - leftAt) / rate)) s on a mic that hears no room, "
                + "the canceller had to learn the echo path again: echo leaked to the peer",
            consequenceMetric: "erle_db", consequenceDB: erle,
            consequence: "\(RunEvaluator.echoChange(erle, only: true)) in the first \(seconds(after, rate)) back on the device mic\(unmuted), \(comparison)")
    }

    /// The device mic's stretch before the switch away with the canceller on, through
    /// `states[lastOn]` (its last state with the canceller on): back from there while the device
    /// mic fed the call with the canceller on, from the last route change in it (`sinceRouteChange`).
    /// It ends where the canceller stopped: at the switch away, or where the app turned it off
    /// before (PlanetKit's guide turns it off for a file mic, which takes over a tick or two
    /// later), less what of the device mic never went out as its output (`unsent`, at that frame).
    /// The leak is judged against it less its first second (the canceller's convergence after the
    /// call's start, a switch back or a change).
    private static func deviceMicSpan(lastOn: Int, states: [DeviceState], routeChanges: [Int],
                                      unsent: (Int) -> Int) -> (began: Int, end: Int, sinceRouteChange: Bool) {
        let stoppedAt = Int(states[lastOn + 1].frame)
        let end = stoppedAt - unsent(stoppedAt)
        var opening = lastOn
        while opening > 0, states[opening - 1].cancelsTheRoomsEcho { opening -= 1 }
        let routeChange = routeChanges.last { $0 < end } ?? 0
        return (max(Int(states[opening].frame), routeChange), end, routeChange > Int(states[opening].frame))
    }

    /// The capture before a switch away at `frame` that never went out as the canceller's output:
    /// where the switch shortens the send path (AEC turned off with the file mic, as PlanetKit's
    /// guide advises), the last `latency` samples of the device mic land in `sent` after the
    /// switch, where the new path's audio stands instead, and an analysis frame that reaches into
    /// them scores the raw echo as the canceller's (a trial's "before" read 21.7 dB for ≥ 30).
    /// That latency and a frame; 0 where the latency holds across the switch.
    private static func unsentTail(at frame: Int, sendLatency: (Int) -> Int, frameSize: Int) -> Int {
        let before = sendLatency(frame - 1), after = sendLatency(frame)
        return after < before ? before - after + frameSize : 0
    }

    /// The last second of `stretch` with enough far-end single talk to judge: its last second,
    /// widened back as the route leak's is, else the seconds before that, half a second at a
    /// time (the far end may have been quiet before the switch; the canceller's state then is
    /// still the one the switch away left).
    private static func lastJudgeableSecond(within stretch: Range<Int>, analysis: EchoAnalysis, rate: Double) -> (Range<Int>, SegmentMetrics) {
        let second = Int(rate)
        var found = HardwareFindings.judgeable(max(stretch.lowerBound, stretch.upperBound - second)..<stretch.upperBound, forward: false,
                                               within: stretch, analysis: analysis, rate: rate)
        // Past the widened window: one second at a time, back to the stretch's start.
        var end = stretch.upperBound - Int(HardwareFindings.leakWindowSecondsAtMost * rate) + second / 2
        while found.1.isLowConfidence || found.1.erleDB == nil, end - second >= stretch.lowerBound {
            found = ((end - second)..<end, analysis.metrics(in: (end - second)..<end))
            end -= second / 2
        }
        return found
    }
}
