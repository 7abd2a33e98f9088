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
            let after = widened(start..<min(start + Int(rate), until), forward: true, within: start..<until, analysis: analysis, rate: rate)
            let before = widened(max(0, leftAt - Int(rate))..<leftAt, forward: false, within: 0..<leftAt, analysis: analysis, rate: rate)
            guard let erle = after.metrics.erleDB, !after.metrics.erleIsLowerBound, !after.metrics.isLowConfidence,
                  erle < HardwareFindings.leakERLEThresholdDB, let erlAfter = after.metrics.erlDB,
                  !before.metrics.isLowConfidence, let erlBefore = before.metrics.erlDB, let erleBefore = before.metrics.erleDB
            else { continue }
            let lossBefore = erlBefore + erleBefore, lossAfter = erlAfter + erle
            guard lossAfter < lossBefore || erle < 0 else { continue }
            let atLeast = before.metrics.erleIsLowerBound ? "at least " : ""
            let stretch = after.range.count > Int(rate) ? "the first \(RunEvaluator.format(Double(after.range.count) / rate)) s" : "the first second"
            findings.append(RunReport.Finding(
                rule: rule, atSeconds: Double(after.range.lowerBound) / rate, untilSeconds: Double(after.range.upperBound) / rate,
                message: "back on the device mic after \(RunEvaluator.format(Double(start - leftAt) / rate)) s on a mic that hears no room, "
                    + "the canceller had to learn the echo path again: echo leaked to the peer",
                consequenceMetric: "erle_db", consequenceDB: erle,
                consequence: "\(RunEvaluator.echoChange(erle, only: true)) in \(stretch) back on the device mic, against \(atLeast)"
                    + "\(RunEvaluator.format(erleBefore)) dB in the last second before the switch away; the echo reaching the peer is "
                    + "\(atLeast)\(RunEvaluator.format(lossBefore - lossAfter)) dB louder (echo loss \(RunEvaluator.format(lossAfter)) dB, "
                    + "was \(atLeast)\(RunEvaluator.format(lossBefore)) dB)"))
        }
        return findings
    }

    /// `stretch` and its metrics, widened half a second at a time away from the switch (as the
    /// route leak's) up to `HardwareFindings.leakWindowSecondsAtMost` inside `within`, while they
    /// hold too little far-end single talk to judge.
    private static func widened(_ stretch: Range<Int>, forward: Bool, within: Range<Int>, analysis: EchoAnalysis,
                                rate: Double) -> (range: Range<Int>, metrics: SegmentMetrics) {
        var stretch = stretch, metrics = analysis.metrics(in: stretch)
        while metrics.erleDB == nil || metrics.isLowConfidence, Double(stretch.count) < HardwareFindings.leakWindowSecondsAtMost * rate,
              forward ? stretch.upperBound < within.upperBound : stretch.lowerBound > within.lowerBound {
            stretch = forward ? stretch.lowerBound..<min(stretch.upperBound + Int(rate) / 2, within.upperBound)
                : max(within.lowerBound, stretch.lowerBound - Int(rate) / 2)..<stretch.upperBound
            metrics = analysis.metrics(in: stretch)
        }
        return (stretch, metrics)
    }
}
