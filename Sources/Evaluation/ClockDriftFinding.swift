import AudioCore
import Metrics
import Simulation

/// A canceller that does not follow the capture clock's drift.
///
/// Why: with the mic on a clock of its own (a USB or Bluetooth mic beside the device's speaker, a
/// custom mic fed from another clock), the echo's delay moves all call long — at 30 ppm by 1.4
/// samples a second at 48 kHz — and a filter that does not follow it never settles. speexdsp on a
/// white-noise far end kept 35 dB of steady ERLE without drift, 18 dB at 3 ppm, 7 dB at 30 ppm and
/// 0.4 dB at 100 ppm, and the only finding the call had was the TCLw requirement: nothing said why.
public enum ClockDriftFinding {
    /// The rule the finding is reported under; its kind is `canceller` (`RunReport.Finding.Kind`).
    public static let rule = "clock-drift-not-followed"
    /// A canceller follows drift where it keeps at least this much steady ERLE: issue #27 asks
    /// this of EchoLab's own at 100 ppm (it keeps 35 dB there, speexdsp 0.4).
    public static let followedERLEThresholdDB = 20.0

    /// The finding for a call whose input device's clock drifts (`hardware.clockDriftPPM`), judged
    /// over the longest stretch where the canceller is on and the device mic captures (a file
    /// mic's audio carries no echo that moves): its steady ERLE there under
    /// `followedERLEThresholdDB`. nil where the clocks agree, no such stretch exists, or the
    /// stretch has no steady ERLE, or only a bound (the output under the mic's floor).
    static func finding(_ hardware: HardwareReport, analysis: EchoAnalysis, states: [DeviceState],
                        rate: Double, length: Int) -> RunReport.Finding? {
        guard hardware.clockDriftPPM != 0, let stretch = longestCancellingStretch(states, length: length) else { return nil }
        let measured = analysis.metrics(in: stretch)
        guard let erle = measured.erleSteadyDB, !measured.erleSteadyIsLowerBound, erle < followedERLEThresholdDB else { return nil }
        let ppm = hardware.clockDriftPPM
        let seconds = Double(stretch.count) / rate
        let movedMilliseconds = abs(ppm) * 1e-6 * seconds * 1000
        let pace = FixedDecimal.text(abs(ppm) * 1e-6 * 1000, fractionDigits: 3)
        return RunReport.Finding(
            rule: rule, atSeconds: Double(stretch.lowerBound) / rate, untilSeconds: Double(stretch.upperBound) / rate,
            message: "the mic's clock runs \(RunEvaluator.format(abs(ppm))) ppm \(ppm > 0 ? "fast" : "slow") against the loudspeaker's, "
                + "so the echo's delay moves \(RunEvaluator.format(movedMilliseconds)) ms over these \(RunEvaluator.format(seconds)) s "
                + "(\(pace) ms a second), and the canceller does not follow it: capture and play on one device's clock, "
                + "resample the mic to the loudspeaker's clock, or use a mode that follows drift",
            consequenceMetric: "erle_steady_db", consequenceDB: erle,
            consequence: "steady ERLE \(RunEvaluator.format(erle)) dB over \(measured.erleSteadyFrames) steady far-end single-talk analysis frames, "
                + "under the \(RunEvaluator.format(followedERLEThresholdDB)) dB a canceller that follows drift keeps"
                + RunEvaluator.confidenceNote(frames: measured.erleSteadyFrames))
    }

    /// The longest run of device states with the canceller on and the device mic capturing, as a
    /// frame range inside `0..<length`; the first of equal length.
    static func longestCancellingStretch(_ states: [DeviceState], length: Int) -> Range<Int>? {
        var best: Range<Int>?
        var start: Int?
        for (index, state) in states.enumerated() {
            let frame = min(length, Int(max(0, state.frame)))
            let judged = state.echoCancellerMode != .disabled && state.realMicrophoneInUse
            if judged, start == nil { start = frame }
            let end = index + 1 < states.count ? min(length, Int(states[index + 1].frame)) : length
            let closes = index + 1 == states.count || !(states[index + 1].echoCancellerMode != .disabled && states[index + 1].realMicrophoneInUse)
            if let opened = start, closes {
                if opened < end, best.map({ end - opened > $0.count }) ?? true { best = opened..<end }
                start = nil
            }
        }
        return best
    }
}
