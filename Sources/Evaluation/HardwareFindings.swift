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
    public static func findings(_ hardware: HardwareReport?, analysis: EchoAnalysis, rate: Double, length: Int,
                                states: [DeviceState] = []) -> [RunReport.Finding] {
        guard let hardware else { return [] }
        func cancellerOn(at frame: Int64) -> Bool {
            (states.last { $0.frame <= frame } ?? states.first).map { $0.echoCancellerMode != .disabled } ?? true
        }
        var findings = hardware.issues.map { issue in finding(issue, hardware: hardware, analysis: analysis, rate: rate) }
        for (index, segment) in hardware.segments.enumerated() where index > 0 && segment.route != hardware.segments[index - 1].route {
            let start = Int(segment.startFrame)
            let end = min(length, start + Int(rate))
            // A bound (the output under the noise) or a figure on too few frames shows no leak.
            let first = analysis.metrics(in: start..<end)
            guard end > start, cancellerOn(at: segment.startFrame), !first.erleIsLowerBound, !first.isLowConfidence,
                  let erle = first.erleDB, erle < leakERLEThresholdDB else { continue }
            findings.append(RunReport.Finding(
                rule: echoLeakRule, atSeconds: Double(start) / rate, untilSeconds: Double(end) / rate,
                message: "after the route change to \(segment.route) the canceller had to learn a new echo path: echo leaked to the peer",
                consequenceMetric: "erle_db", consequenceDB: erle,
                consequence: "\(RunEvaluator.echoChange(erle, only: true)) in the first second on \(segment.route)"))
        }
        return findings
    }

    private static func finding(_ issue: SessionIssue, hardware: HardwareReport, analysis: EchoAnalysis, rate: Double) -> RunReport.Finding {
        let range = Int(issue.frames.lowerBound)..<Int(issue.frames.upperBound)
        let seconds = RunEvaluator.format(Double(range.count) / rate)
        var finding = RunReport.Finding(rule: issue.kind.rawValue, atSeconds: Double(range.lowerBound) / rate,
                                        untilSeconds: Double(range.upperBound) / rate, message: issue.detail + ": " + advice(issue.kind),
                                        consequenceMetric: "", consequenceDB: nil, consequence: "")
        switch issue.kind {
        case .audioBeforeActivation:
            finding.consequenceMetric = "capture_silenced_samples"
            finding.consequence = "\(issue.samples) samples (\(seconds) s) of capture were silence and the peer's audio was not played"
        case .preferencesChangedWhileActive:
            finding.consequenceMetric = "seconds_at_old_format"
            finding.consequence = "the device kept its old format for \(seconds) s: the new preferences wait for the next activation"
        case .routeResetAfterConnect:
            let erl = range.isEmpty ? nil : analysis.metrics(in: range).erlDB
            finding.consequenceMetric = "erl_db"
            finding.consequenceDB = erl
            finding.consequence = "the call ran on the receiver for \(seconds) s instead of the speaker the user chose"
                + (erl.map { "; echo at the mic \(RunEvaluator.format($0)) dB below the far end there" } ?? "")
        case .deactivatedWithCustomDevice:
            finding.consequenceMetric = "custom_mic_samples_discarded"
            finding.consequence = "\(issue.samples) samples the custom mic delivered in \(seconds) s were discarded"
        }
        return finding
    }

    static func advice(_ kind: SessionIssue.Kind) -> String {
        switch kind {
        case .audioBeforeActivation:
            "use manual audio (useManualAudio = true) and set isAudioEnabled only in provider(_:didActivate:)"
        case .preferencesChangedWhileActive:
            "set preferred sample rate and I/O buffer duration before activating the session (or deactivate first)"
        case .routeResetAfterConnect:
            "with useManualAudio the engine leaves the session alone when the connection comes up, so the user's route stays"
        case .deactivatedWithCustomDevice:
            "reset the custom mic and speaker before the session is deactivated (provider(_:didDeactivate:))"
        }
    }
}
