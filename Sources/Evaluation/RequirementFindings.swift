import Foundation
import Metrics
import Simulation

/// Findings of a telephony standard's requirement the call's send path misses. Unlike the lint's
/// (an app's mistake in its audio setup, which `run --strict` fails on), these judge the echo
/// cancellation itself; `compare` fails a run that gains one, as it fails any gained finding.
public enum RequirementFindings {
    /// The rule a weighted echo loss under TS 26.131's 46 dB is reported under.
    public static let echoLossRule = "echo-loss-below-ts26131"
    /// The rule a send path of digital silence in every far-end single-talk frame is reported under.
    public static let silentSendRule = "silent-send-in-single-talk"
    /// The rule a send path that cut the room's own sound where neither side talked is reported
    /// under (`EchoMetrics.mutedQuietRoom`).
    public static let mutedRoomRule = "send-mutes-the-room"
    /// Every rule of this kind (`RunReport.Finding.Kind`).
    public static let rules: Set<String> = [echoLossRule, silentSendRule, mutedRoomRule]
    /// The rules that say a run muted rather than cancelled: its ERLE is only the floor's bound, and
    /// it is never best on an item (`BestModes.Point.sendsSilence`).
    public static let mutingRules: Set<String> = [silentSendRule, mutedRoomRule]

    /// Whether the metrics' TCLw misses TS 26.131's 46 dB (the finding's condition; eval.md's
    /// telephony table counts recordings by it too, which have no findings).
    public static func missesEchoLoss(_ metrics: EchoMetrics?) -> Bool {
        metrics?.telephony?.echoLoss?.missesRequirement ?? false
    }

    /// TS 26.131's echo-loss requirement, judged as the report's Telephony section judges it: a
    /// TCLw measured under 46 dB on enough frames misses it, as does a lower bound whose measured
    /// bands alone keep it under 46 dB (`WeightedEchoLoss.atMostDB`). Another lower bound under
    /// 46 dB may not (the loss can be higher), and a figure on too few frames is not one to judge by.
    /// `measuredOn`: where a call that changed route measured its TCLw ("from 9.3 s, on the speaker
    /// route"), said in the echo-loss finding's consequence; nil for a call on one route all through.
    /// `echoLossFromSeconds`: where the first frame the TCLw stands on starts (the steady half of
    /// the call's far-end single talk), the echo-loss finding's start; nil: the call's. (From the
    /// call's start, a call whose first seconds came from a file mic was marked as missing the
    /// requirement there too.)
    public static func findings(_ metrics: EchoMetrics, durationSeconds: Double, measuredOn: String? = nil,
                                echoLossFromSeconds: Double? = nil) -> [RunReport.Finding] {
        muting(metrics, durationSeconds: durationSeconds)
            + echoLoss(metrics, durationSeconds: durationSeconds, measuredOn: measuredOn, fromSeconds: echoLossFromSeconds)
    }

    /// Where the TCLw of a call that changed route stands (`findings`' `measuredOn`): from the first
    /// of its frames (the steady half of the call's far-end single talk), on the routes in force
    /// where they start — each route from where its change reaches what was sent (`latency`, the
    /// send path's at a capture frame: frames that start before it hold the old route's echo).
    /// The loss is the whole call's, as the report's Telephony section gives it; a route change
    /// call's finding read as if about the whole call while its frames lay on one route. nil where
    /// the call kept one route, or the TCLw stands on no frame.
    public static func echoLossRoutes(frameStarts starts: ClosedRange<Int>?, hardware: HardwareReport?, rate: Double,
                                          latency: (Int) -> Int) -> String? {
        guard let starts, let segments = hardware?.segments,
              segments.indices.dropFirst().contains(where: { segments[$0].route != segments[$0 - 1].route }) else { return nil }
        func reaches(_ index: Int) -> Int { Int(segments[index].startFrame) + latency(Int(segments[index].startFrame)) }
        var routes: [String] = []
        for (index, segment) in segments.enumerated() {
            let end = index + 1 < segments.count ? reaches(index + 1) : Int.max
            guard index == 0 || reaches(index) <= starts.upperBound, end > starts.lowerBound,
                  !routes.contains(segment.route) else { continue }
            routes.append(segment.route)
        }
        let on = routes.count == 1 ? "on the \(routes[0]) route" : "across the routes \(routes.joined(separator: ", "))"
        return "from \(RunEvaluator.format(Double(starts.lowerBound) / rate)) s, \(on)"
    }

    /// A mute's finding, if the send path muted: one per mute, the room cut between talk only where
    /// the send path was not silent all through. A recording's (with its tracks) as a call's.
    public static func muting(_ metrics: EchoMetrics, durationSeconds: Double) -> [RunReport.Finding] {
        let silent = silentSend(metrics, durationSeconds: durationSeconds)
        return silent.isEmpty ? mutedRoom(metrics, durationSeconds: durationSeconds) : silent
    }

    /// A send path of digital silence whenever only the far end talked, from the first frame on:
    /// no canceller removes the echo before it has converged, a mute does. A canceller is expected
    /// to send comfort noise rather than dead air (G.168 tests it: the peer must not hear the line
    /// drop), and a mute cuts any near talker with the echo: without double talk in the call, ERLE
    /// alone would rank it with a perfect canceller.
    static func silentSend(_ metrics: EchoMetrics, durationSeconds: Double) -> [RunReport.Finding] {
        // As any figure: on fewer frames than a figure needs, it is no finding to fail a gate on.
        guard metrics.isProcessedSilentInSingleTalk, metrics.gate.singleTalkFrames >= FigureConfidence.minimumAnalysisFrames else { return [] }
        return [mutingFinding(silentSendRule, metrics, durationSeconds: durationSeconds,
                       message: "the send path was digital silence in every far-end single-talk analysis frame, the first ones included: "
                           + "the canceller muted rather than cancelled, where a terminal sends comfort noise",
                       heard: "nothing sent over \(metrics.gate.singleTalkFrames) far-end single-talk analysis frames: the peer hears dead air")]
    }

    /// A finding of a mute (`mutingRules`) over the whole call: its steady ERLE is only the floor's bound.
    private static func mutingFinding(_ rule: String, _ metrics: EchoMetrics, durationSeconds: Double, message: String, heard: String) -> RunReport.Finding {
        RunReport.Finding(rule: rule, atSeconds: 0, untilSeconds: durationSeconds, message: message,
                          consequenceMetric: "erle_steady_db", consequenceDB: metrics.erleSteadyDB,
                          consequence: heard + ", a near talker would be cut with the echo, and the ERLE is only the floor's bound "
                              + "(the mode is never best on an item)")
    }

    /// A send path that cut the room's own sound where neither side talked (`EchoMetrics.mutedQuietRoom`):
    /// a mute that let its first half-second through, or sent a faint floor instead of zeros, evades
    /// `silentSend` and reads the floor's bound as its ERLE. A canceller sends the room's noise on
    /// there, a noise suppressor takes 10–25 dB off it.
    static func mutedRoom(_ metrics: EchoMetrics, durationSeconds: Double) -> [RunReport.Finding] {
        guard let muted = metrics.mutedQuietRoom else { return [] }
        return [mutingFinding(mutedRoomRule, metrics, durationSeconds: durationSeconds,
                       message: "where neither side talked the send path stood 30 dB or more under the room's own sound (its noise, "
                           + "the echo aside) in \(muted.muted) of the last \(muted.frames) such analysis frames: it cut the room, as a mute does",
                       heard: "the peer hears the line drop between words")]
    }

    static func echoLoss(_ metrics: EchoMetrics, durationSeconds: Double, measuredOn: String? = nil, fromSeconds: Double? = nil) -> [RunReport.Finding] {
        guard let loss = metrics.telephony?.echoLoss, loss.missesRequirement else { return [] }
        let shortfall = WeightedEchoLoss.requirementDB - loss.tclwDB
        let frames = "\(loss.analysisFrames) steady far-end single-talk analysis frames"
        return [RunReport.Finding(
            rule: echoLossRule, atSeconds: min(fromSeconds ?? 0, durationSeconds), untilSeconds: durationSeconds,
            message: "the send path's weighted echo loss (TCLw, TS 26.132 §8.7.1) is under the \(RunEvaluator.format(WeightedEchoLoss.requirementDB)) dB "
                + "TS 26.131 requires of a terminal: a stronger canceller mode or suppression, or less acoustic coupling",
            consequenceMetric: "tclw_db", consequenceDB: loss.tclwDB,
            consequence: loss.isLowerBound
                ? "TCLw at least \(RunEvaluator.format(loss.tclwDB)) and at most \(RunEvaluator.format(loss.atMostDB ?? loss.tclwDB)) dB "
                    + "over \(frames) (\(measuredOn.map { "\($0); " } ?? "")its measured bands leak that much whatever the others do): "
                    + "the peer hears its own voice louder than a certified terminal would send it"
                : "TCLw \(RunEvaluator.format(loss.tclwDB)) dB over \(frames)\(measuredOn.map { " (\($0))" } ?? ""), "
                    + "\(RunEvaluator.format(shortfall)) dB short: the peer hears its own voice louder than a certified terminal would send it")]
    }
}
