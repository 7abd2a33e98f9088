import AudioInterop
import EchoLabJSON
import Foundation
import Metrics
import Evaluation
import Simulation

/// A run's pipeline health, as the run table's cell says and sorts it: pipeline issues, the
/// app's lint findings and the canceller's own findings, counted apart.
extension EvalReportDocument {
    /// A run's health in one line of the table, what it counts on hover. It sorts by all it
    /// counts: the pipeline's issues, the lint's findings and the canceller's own findings (a run
    /// that reads "ok for the app; the canceller's: 1 finding" is not as clean as one that reads "ok").
    static func healthCell(_ result: CorpusRun.Result) -> ReportDocument.Cell {
        let (issues, findings, text) = health(result)
        // A recording that clipped has no issue of the pipeline's, but says so; nor is the
        // canceller's own finding one, but it is said (hidden behind "ok", a leak after a route
        // change went unseen).
        let clipped = result.summary?.recordingHealth?.isClipped ?? false
        let canceller = result.summary?.findings(of: .canceller).count ?? 0
        let counts = [issues > 0 ? "\(issues) issue\(issues == 1 ? "" : "s")" : nil,
                      findings > 0 ? "\(findings) finding\(findings == 1 ? "" : "s")" : nil].compactMap { $0 }.joined(separator: ", ")
        let short = issues + findings == 0 ? (clipped ? "ok (the recording clipped)" : canceller > 0 ? "ok for the app" : "ok") : counts
        let said = canceller > 0 ? short + "; the canceller's: \(canceller) finding\(canceller == 1 ? "" : "s")" : short
        return .init(said, value: Double(issues + findings + canceller), isNumeric: false,
                     detail: issues + findings == 0 && !clipped && canceller == 0 ? nil : text)
    }

    /// Pipeline health of a run: how many things went wrong in the pipeline (`issues`), how many
    /// lint findings it has, and both in words. A missed telephony requirement is not the
    /// pipeline's health: the telephony table counts those.
    static func health(_ result: CorpusRun.Result) -> (issues: Int, findings: Int, text: String) {
        guard let summary = result.summary else { return (0, 0, "") }
        let findings = summary.findings(of: .lint)
        var parts: [String] = []
        var issues = 0
        func count(_ n: Int, _ noun: String) {
            if n > 0 { issues += n; parts.append("\(n) \(noun)\(n == 1 ? "" : "s")") }
        }
        if let pipeline = summary.pipeline {
            count(pipeline.underruns, "underrun"); count(pipeline.overruns, "overrun"); count(pipeline.sentClicks, "click")
            count(pipeline.sentGaps, "gap"); count(pipeline.aecResets, "canceller reset")
            for (name, buffer) in pipeline.buffers where !buffer.isConserved {
                issues += 1
                parts.append("\(name) not conserved")
            }
        }
        if let streams = summary.hardwareStreams {
            count(streams.underruns, "hardware stream underrun")
            count(streams.nearEndCuts, "near-end cut")
            // Samples, not events: one issue, said with its count.
            if streams.droppedSamples > 0 {
                issues += 1
                parts.append("\(streams.droppedSamples) sample\(streams.droppedSamples == 1 ? "" : "s") dropped by a hardware stream")
            }
        }
        if let health = summary.recordingHealth {
            count(health.aecResets, "canceller reset")
            // Clipping is the recording's, not the pipeline's: said, not counted as an issue.
            for (stage, count) in [("mic", health.clippedSamples.mic), ("loopback", health.clippedSamples.loopback ?? 0)] where count > 0 {
                parts.append("\(count) \(stage) samples clipped")
            }
        }
        // The canceller's own findings (an echo leak after a route change) are said, not
        // counted as the app's lint.
        let canceller = summary.findings(of: .canceller)
        if !canceller.isEmpty { parts.append("the canceller's: " + canceller.joined(separator: ", ")) }
        if !findings.isEmpty {
            var rules: [String] = []
            for rule in findings where !rules.contains(rule) { rules.append(rule) }
            parts.append("findings: " + rules.map { rule in
                let n = findings.filter { $0 == rule }.count
                return n > 1 ? "\(rule) ×\(n)" : rule
            }.joined(separator: ", "))
        }
        return (issues, findings.count, parts.isEmpty ? "ok" : parts.joined(separator: "; "))
    }
}
