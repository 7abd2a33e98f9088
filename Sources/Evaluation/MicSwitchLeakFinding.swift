import Metrics
import Simulation

/// Echo that leaks after the call switches back to the device mic from one that hears no room
/// (a file or generator mic).
///
/// Why: the room's echo path is gone while such a mic feeds the call, and a canceller left on
/// learns that the mic holds no echo; back on the device mic, it sends the echo until it has
/// learnt the path again. speex, on for a file mic's 5 s, kept 5 dB of ERLE over the first
/// second back where it had kept 17 dB before the switch, and 2 s passed before it settled: the
/// segment table showed it, no finding said it. Judged as a route change's leak is
/// (`HardwareFindings.echoLeakRule`), by the same figures.
public enum MicSwitchLeakFinding {
    public static let rule = "echo-leak-after-mic-switch"

    /// The leaks after each switch to a mic that hears the room from one that does not, with the
    /// canceller on; where the call had no stretch on such a mic before, the canceller had no
    /// path to lose (its first convergence is not a leak), and the switch is not judged.
    static func findings(states: [DeviceState], analysis: EchoAnalysis, rate: Double, length: Int) -> [RunReport.Finding] {
        var findings: [RunReport.Finding] = []
        for index in states.indices.dropFirst() where states[index].realMicrophoneInUse && !states[index - 1].realMicrophoneInUse
            && states[index].echoCancellerMode != .disabled {
            let start = min(length, Int(states[index].frame))
            // The first state of the run of mics that hear no room ending at `index`; the device
            // mic must have fed the call before it.
            var first = index - 1
            while first > 0, !states[first - 1].realMicrophoneInUse { first -= 1 }
            guard first > 0, states[first - 1].realMicrophoneInUse else { continue }
            let leftAt = Int(states[first].frame)
            let next = states[(index + 1)...].first { !$0.realMicrophoneInUse || $0.echoCancellerMode == .disabled }
            let until = min(length, next.map { Int($0.frame) } ?? length)
            guard start < until, leftAt > 0 else { continue }
            // Each second widened as the route leak's are, while it holds too little far-end single talk.
            let (afterRange, after) = HardwareFindings.judgeable(start..<min(start + Int(rate), until), forward: true,
                                                                 within: start..<until, analysis: analysis, rate: rate)
            let (beforeRange, before) = HardwareFindings.judgeable(max(0, leftAt - Int(rate))..<leftAt, forward: false,
                                                                   within: 0..<leftAt, analysis: analysis, rate: rate)
            guard let erle = after.erleDB, !after.erleIsLowerBound, !after.isLowConfidence,
                  erle < HardwareFindings.leakERLEThresholdDB, let erlAfter = after.erlDB,
                  !before.isLowConfidence, let erlBefore = before.erlDB, let erleBefore = before.erleDB
            else { continue }
            let lossBefore = erlBefore + erleBefore, lossAfter = erlAfter + erle
            guard lossAfter < lossBefore || erle < 0 else { continue }
            let atLeast = before.erleIsLowerBound ? "at least " : ""
            func stretch(_ range: Range<Int>, _ which: String) -> String {
                range.count > Int(rate) ? "the \(which) \(RunEvaluator.format(Double(range.count) / rate)) s" : "the \(which) second"
            }
            // A canceller that adds echo leaks however the losses compare; the peer's echo is
            // said louder only where it is.
            let peer = lossAfter < lossBefore
                ? "the echo reaching the peer is \(atLeast)\(RunEvaluator.format(lossBefore - lossAfter)) dB louder "
                    + "(echo loss \(RunEvaluator.format(lossAfter)) dB, was \(atLeast)\(RunEvaluator.format(lossBefore)) dB)"
                : "the canceller adds echo (echo loss \(RunEvaluator.format(lossAfter)) dB, was \(atLeast)\(RunEvaluator.format(lossBefore)) dB)"
            findings.append(RunReport.Finding(
                rule: rule, atSeconds: Double(afterRange.lowerBound) / rate, untilSeconds: Double(afterRange.upperBound) / rate,
                message: "back on the device mic after \(RunEvaluator.format(Double(start - leftAt) / rate)) s on a mic that hears no room, "
                    + "the canceller had to learn the echo path again: echo leaked to the peer",
                consequenceMetric: "erle_db", consequenceDB: erle,
                consequence: "\(RunEvaluator.echoChange(erle, only: true)) in \(stretch(afterRange, "first")) back on the device mic, "
                    + "against \(atLeast)\(RunEvaluator.format(erleBefore)) dB in \(stretch(beforeRange, "last")) before the switch away; \(peer)"))
        }
        return findings
    }
}
