import AudioCore
import Foundation
import Metrics
import Simulation

/// A canceller that does not follow the capture clock's drift.
///
/// Why: with the mic on a clock of its own (a USB or Bluetooth mic beside the device's speaker, a
/// custom mic fed from another clock), the echo's delay moves all call long — at 30 ppm by 1.4
/// samples a second at 48 kHz — and a filter that does not follow it never settles. speexdsp on a
/// white-noise far end keeps 35 dB of steady ERLE without drift, 18 dB at 3 ppm, 7 dB at 30 ppm and
/// 0.4 dB at 100 ppm, and without this finding the call's only one is the TCLw requirement, which
/// does not say why.
///
/// A low ERLE on a drifting mic is not the drift's by itself: WebRTC's AEC keeps 14.8 dB of a
/// white-noise echo on one clock and 13.9 at 300 ppm. So the same call is run again
/// with the mic on the loudspeaker's clock (`OneClockControl`), and the drift is named only where
/// it costs the canceller `driftCostThresholdDB` or more.
public enum ClockDriftFinding {
    /// The rule the finding is reported under; its kind is `canceller` (`RunReport.Finding.Kind`).
    public static let rule = "clock-drift-not-followed"
    /// A canceller follows drift where it keeps at least this much steady ERLE: EchoLab's own
    /// canceller is held to it at 100 ppm (on a 20 s white-noise call it keeps 34.9 dB there,
    /// speexdsp 0.4).
    public static let followedERLEThresholdDB = 20.0
    /// The steady ERLE the drift must cost against the same call on one clock: a quarter of the
    /// echo's residual power and more. AEC3 lost 4 dB at 300 ppm on a white-noise echo it kept
    /// only 11.7 dB of on one clock, speexdsp 37 dB.
    public static let driftCostThresholdDB = 6.0

    /// The findings for a call whose input device's clock drifts (`hardware.clockDriftPPM`), one
    /// per stretch where the canceller is on and the device mic captures (a file mic's audio
    /// carries no echo that moves) on one echo path (a route change splits it: each route's
    /// canceller learns its own path, and a control's leak after the change would weigh on a
    /// whole-call figure): its steady ERLE there under `followedERLEThresholdDB` as printed, and
    /// `oneClock`'s over the same stretch at least `driftCostThresholdDB` more, each on
    /// `FigureConfidence.minimumAnalysisFrames` steady frames or more. None where the clocks
    /// agree, either figure is missing or stands on too few frames, the drifting one is a bound
    /// (the output under the mic's floor), or there is no control to compare with (a call driven
    /// by hand: `CallMeter`).
    static func findings(_ hardware: HardwareReport, analysis: EchoAnalysis, states: [DeviceState],
                         rate: Double, length: Int, oneClock: OneClockControl?) -> [RunReport.Finding] {
        guard hardware.clockDriftPPM != 0, let oneClock else { return [] }
        return cancellingStretches(states, length: length).flatMap { split($0, at: hardware.routeChangeFrames) }.compactMap { stretch in
            finding(over: stretch, hardware: hardware, analysis: analysis, rate: rate, oneClock: oneClock)
        }
    }

    private static func finding(over stretch: Range<Int>, hardware: HardwareReport, analysis: EchoAnalysis, rate: Double,
                                oneClock: OneClockControl) -> RunReport.Finding? {
        let measured = analysis.metrics(in: stretch)
        // Judged as printed (0.1 dB): a finding must not read "20.0 dB" against a 20 dB line.
        guard let erle = measured.erleSteadyDB, !measured.erleSteadyIsLowerBound,
              FixedDecimal.scaled(erle, fractionDigits: 1) < FixedDecimal.scaled(followedERLEThresholdDB, fractionDigits: 1),
              measured.erleSteadyFrames >= FigureConfidence.minimumAnalysisFrames,
              let control = oneClock.metrics(in: stretch), let kept = control.erleSteadyDB,
              control.erleSteadyFrames >= FigureConfidence.minimumAnalysisFrames, kept - erle >= driftCostThresholdDB else { return nil }
        let ppm = hardware.clockDriftPPM
        let seconds = Double(stretch.count) / rate
        // The echo moves at the drift's pace — a ppm is a microsecond a second — until the capture
        // buffer runs over (a fast mic) or dry (a slow one); then it jumps back by what slipped.
        let slips = ppm > 0 && hardware.captureDroppedFrames > 0
            ? " (and jumps back each time the capture buffer runs over: \(hardware.captureDroppedFrames) samples dropped in the call)"
            : ppm < 0 && hardware.captureUnderruns > 0
            ? " (and jumps each time the capture buffer runs dry: \(hardware.captureUnderruns) underrun\(hardware.captureUnderruns == 1 ? "" : "s") in the call)" : ""
        let bound = control.erleSteadyIsLowerBound ? "at least " : ""
        return RunReport.Finding(
            rule: rule, atSeconds: Double(stretch.lowerBound) / rate, untilSeconds: Double(stretch.upperBound) / rate,
            message: "the mic's clock runs \(significant(abs(ppm))) ppm \(ppm > 0 ? "fast" : "slow") against the loudspeaker's, "
                + "so the echo's delay moves \(significant(abs(ppm))) µs a second\(slips), and the canceller does not follow it: capture and play "
                + "on one device's clock, resample the mic to the loudspeaker's clock, or use a mode that follows drift",
            consequenceMetric: "erle_steady_db", consequenceDB: erle,
            consequence: "steady ERLE \(RunEvaluator.format(erle)) dB over \(measured.erleSteadyFrames) steady far-end single-talk analysis frames "
                + "of these \(RunEvaluator.format(seconds)) s; the same call on one clock keeps \(bound)\(RunEvaluator.format(kept)) dB there "
                + "(\(control.erleSteadyFrames) frames): the drift costs \(bound)\(RunEvaluator.format(kept - erle)) dB")
    }

    /// A drift as printed: a tenth of a ppm from 1 ppm up, two significant digits under it (0.04
    /// ppm is not "0.0").
    static func significant(_ value: Double) -> String {
        let digits = value >= 1 || value <= 0 ? 1 : min(9, Int((-log10(value)).rounded(.up)) + 1)
        return FixedDecimal.text(value, fractionDigits: digits)
    }

    /// The runs of device states with the canceller on and the device mic capturing, as frame
    /// ranges inside `0..<length`.
    static func cancellingStretches(_ states: [DeviceState], length: Int) -> [Range<Int>] {
        var stretches: [Range<Int>] = []
        var start: Int?
        for (index, state) in states.enumerated() {
            if state.cancelsTheRoomsEcho, start == nil { start = min(length, Int(max(0, state.frame))) }
            let isLast = index + 1 == states.count
            if let opened = start, isLast || !states[index + 1].cancelsTheRoomsEcho {
                let end = isLast ? length : min(length, Int(states[index + 1].frame))
                if opened < end { stretches.append(opened..<end) }
                start = nil
            }
        }
        return stretches
    }

    /// `stretch` cut at each of `frames` inside it.
    static func split(_ stretch: Range<Int>, at frames: [Int]) -> [Range<Int>] {
        let cuts = frames.filter { $0 > stretch.lowerBound && $0 < stretch.upperBound }.sorted()
        return zip([stretch.lowerBound] + cuts, cuts + [stretch.upperBound]).map { $0..<$1 }
    }
}

/// The call a drifting run is compared with: the same scenario with the mic on the loudspeaker's
/// clock (`clock_drift_ppm` 0, through the same converter), run and measured the first time its
/// metrics are asked for, and only then — a drifting call whose canceller keeps enough costs no
/// second run.
public final class OneClockControl {
    private let run: () throws -> EchoAnalysis
    private var analysis: EchoAnalysis?
    /// Why the control could not run (an interruption, a plugin that failed this time): the
    /// run that asked fails with it, not its verdict quietly (`RunOutput`).
    public private(set) var failure: (any Error)?
    /// The wall time the control took: the run's real-time factor leaves it out.
    public private(set) var seconds = 0.0

    /// `run`: runs the control call and returns its measurement.
    public init(run: @escaping () throws -> EchoAnalysis) {
        self.run = run
    }

    /// The control's metrics over `stretch`; nil where it could not run (`failure` says why).
    public func metrics(in stretch: Range<Int>) -> SegmentMetrics? {
        if analysis == nil, failure == nil {
            let started = DispatchTime.now()
            do { analysis = try run() } catch { failure = error }
            seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        }
        return analysis?.metrics(in: stretch)
    }
}

extension DeviceState {
    /// The canceller is on and a mic that hears the room (the device mic, a pass-through of it)
    /// feeds the call: the stretches the drift and mic-switch rules judge.
    var cancelsTheRoomsEcho: Bool { echoCancellerMode != .disabled && realMicrophoneInUse }
}
