import Metrics
import Simulation

/// Echo that leaks after the call switches back to the device mic from one that hears no room
/// (a file or generator mic).
///
/// Why: the room's echo path is gone while such a mic feeds the call, and a canceller left on
/// learns that the mic holds no echo; back on the device mic, it sends the echo until it has
/// learnt the path again. speex, on for a file mic's 5 s, kept 5.6 dB of ERLE over the first
/// second back where it had kept 21.5 dB before the switch, and 2 s passed before it settled: the
/// segment table showed it, no finding said it. Judged as a route change's leak is
/// (`HardwareFindings.echoLeakRule`), by the same figures.
public enum MicSwitchLeakFinding {
    public static let rule = "echo-leak-after-mic-switch"

    /// The leaks after each switch to a mic that hears the room from one that does not, with the
    /// canceller on, and the switches that could not be judged, with why (said on the segment
    /// the switch falls in: a missing finding there is no verdict). Not judged at all: a call
    /// that had no stretch on such a mic before (the canceller had no path to lose: its first
    /// convergence is no leak), and a switch with a route change since the switch away (the
    /// route leak's, `HardwareFindings`, which judges from when the device mic is back).
    static func findings(states: [DeviceState], hardware: HardwareReport?, analysis: EchoAnalysis, rate: Double,
                         length: Int) -> (findings: [RunReport.Finding], unjudged: [(frame: Int64, reason: String)]) {
        var findings: [RunReport.Finding] = []
        var unjudged: [(frame: Int64, reason: String)] = []
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
            let routeChanged = hardware?.segments.dropFirst().contains { Int($0.startFrame) > leftAt && Int($0.startFrame) <= switchedAt } ?? false
            // Judged from when the peer hears the device mic again (a mute after the switch).
            guard leftAt > 0, !routeChanged,
                  let start = states[index...].first(where: { !$0.isMuted && Int($0.frame) < until })
                      .map({ max(switchedAt, Int($0.frame)) }), start < until else { continue }
            // The first second back, widened as the route leak's is; the last second before the
            // switch away, or the last one before it that holds enough far-end single talk.
            let (afterRange, after) = HardwareFindings.judgeable(start..<min(start + Int(rate), until), forward: true,
                                                                 within: start..<until, analysis: analysis, rate: rate)
            let (beforeRange, before) = lastJudgeableSecond(before: leftAt, analysis: analysis, rate: rate)
            if after.isLowConfidence || after.erleDB == nil || before.isLowConfidence || before.erleDB == nil {
                if after.erlIsLowerBound || after.erleIsLowerBound { continue }   // an echo under the mic's floor: nothing leaks
                let side = after.isLowConfidence || after.erleDB == nil
                    ? "the first \(RunEvaluator.format(Double(afterRange.count) / rate)) s back hold \(after.singleTalkFrames)"
                    : "no second of the device mic's stretch before the switch away holds"
                unjudged.append((Int64(switchedAt), "back on the device mic, \(side) far-end single-talk analysis frames, fewer than the "
                    + "\(FigureConfidence.minimumAnalysisFrames) a leak's ERLE needs (the near end talked, or the far end was quiet)"))
                continue
            }
            guard let erle = after.erleDB, !after.erleIsLowerBound, erle < HardwareFindings.leakERLEThresholdDB,
                  let erlAfter = after.erlDB, let erlBefore = before.erlDB, let erleBefore = before.erleDB else { continue }
            let lossBefore = erlBefore + erleBefore, lossAfter = erlAfter + erle
            guard lossAfter < lossBefore || erle < 0 else { continue }
            let atLeast = before.erleIsLowerBound ? "at least " : ""
            // A canceller that adds echo leaks however the losses compare; the peer's echo is
            // said louder only where it is.
            let peer = lossAfter < lossBefore
                ? "the echo reaching the peer is \(atLeast)\(RunEvaluator.format(lossBefore - lossAfter)) dB louder "
                    + "(echo loss \(RunEvaluator.format(lossAfter)) dB, was \(atLeast)\(RunEvaluator.format(lossBefore)) dB)"
                : "the canceller adds echo (echo loss \(RunEvaluator.format(lossAfter)) dB, was \(atLeast)\(RunEvaluator.format(lossBefore)) dB)"
            let unmuted = start > switchedAt ? " (from the unmute at \(RunEvaluator.format(Double(start) / rate)) s)" : ""
            findings.append(RunReport.Finding(
                rule: rule, atSeconds: Double(afterRange.lowerBound) / rate, untilSeconds: Double(afterRange.upperBound) / rate,
                message: "back on the device mic after \(RunEvaluator.format(Double(switchedAt - leftAt) / rate)) s on a mic that hears no room, "
                    + "the canceller had to learn the echo path again: echo leaked to the peer",
                consequenceMetric: "erle_db", consequenceDB: erle,
                consequence: "\(RunEvaluator.echoChange(erle, only: true)) in the first \(seconds(afterRange, rate)) back on the device mic"
                    + "\(unmuted), against \(atLeast)\(RunEvaluator.format(erleBefore)) dB over \(RunEvaluator.format(Double(beforeRange.lowerBound) / rate))–"
                    + "\(RunEvaluator.format(Double(beforeRange.upperBound) / rate)) s before the switch away; \(peer)"))
        }
        return (findings, unjudged)
    }

    /// "second", or the stretch's length where it is not one (cut short by the call's end or
    /// the next switch, or widened).
    private static func seconds(_ range: Range<Int>, _ rate: Double) -> String {
        range.count == Int(rate) ? "second" : "\(RunEvaluator.format(Double(range.count) / rate)) s"
    }

    /// The last second before `frame` with enough far-end single talk to judge: the second just
    /// before it, widened back as the route leak's is, else the second before that, half a second
    /// at a time back to the call's start (the far end may have been quiet before the switch,
    /// and the canceller's state then is still the one the switch away left).
    private static func lastJudgeableSecond(before frame: Int, analysis: EchoAnalysis, rate: Double) -> (Range<Int>, SegmentMetrics) {
        var found = HardwareFindings.judgeable(max(0, frame - Int(rate))..<frame, forward: false, within: 0..<frame, analysis: analysis, rate: rate)
        var end = frame - Int(rate) / 2
        while found.1.isLowConfidence || found.1.erleDB == nil, end - Int(rate) >= 0 {
            let second = (end - Int(rate))..<end
            found = (second, analysis.metrics(in: second))
            end -= Int(rate) / 2
        }
        return found
    }
}
