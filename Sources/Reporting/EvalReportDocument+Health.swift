import AudioInterop
import EchoLabJSON
import Foundation
import Metrics
import Evaluation
import Simulation

/// A run's health (`RunHealth`, Evaluation's count), as the run table's cell words and sorts it:
/// pipeline issues, the app's lint findings and the canceller's own findings, counted apart.
extension EvalReportDocument {
    /// A run's health in one line of the table, what it counts on hover. It sorts by all it
    /// counts: the pipeline's issues, the lint's findings and the canceller's own findings (a run
    /// that reads "ok for the app; the canceller's: 1 finding" is not as clean as one that reads "ok").
    static func healthCell(_ result: CorpusRun.Result) -> ReportDocument.Cell {
        let health = result.health
        let (issues, findings, canceller) = (health.issues, health.lintFindings, health.cancellerFindings.count)
        // A recording that clipped has no issue of the pipeline's, but says so; nor is the
        // canceller's own finding one, but it is said (hidden behind "ok", a leak after a route
        // change went unseen).
        let counts = [issues > 0 ? "\(issues) issue\(issues == 1 ? "" : "s")" : nil,
                      findings > 0 ? "\(findings) finding\(findings == 1 ? "" : "s")" : nil].compactMap { $0 }.joined(separator: ", ")
        let short = issues + findings == 0 ? (health.isClipped ? "ok (the recording clipped)" : canceller > 0 ? "ok for the app" : "ok") : counts
        let said = canceller > 0 ? short + "; the canceller's: \(canceller) finding\(canceller == 1 ? "" : "s")" : short
        return .init(said, value: Double(issues + findings + canceller), isNumeric: false,
                     detail: issues + findings == 0 && !health.isClipped && canceller == 0 ? nil : healthText(health))
    }

    /// A run's health in words: each fault, what the recording clipped, the canceller's findings
    /// and the lint's ("ok" where nothing is said).
    static func healthText(_ health: RunHealth) -> String {
        func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
        var parts: [String] = health.faults.map { fault in
            switch fault {
            case .underruns(let n): counted(n, "underrun")
            case .overruns(let n): counted(n, "overrun")
            case .clicks(let n): counted(n, "click")
            case .gaps(let n): counted(n, "gap")
            case .cancellerResets(let n): counted(n, "canceller reset")
            case .notConserved(let buffer): "\(buffer) not conserved"
            case .hardwareStreamUnderruns(let n): counted(n, "hardware stream underrun")
            case .nearEndCuts(let n): counted(n, "near-end cut")
            case .droppedSamples(let n): counted(n, "sample") + " dropped by a hardware stream"
            }
        }
        parts += health.clippedSamples.map { "\($0.count) \($0.stage) samples clipped" }
        if !health.cancellerFindings.isEmpty { parts.append("the canceller's: " + health.cancellerFindings.joined(separator: ", ")) }
        if !health.lintRules.isEmpty {
            parts.append("findings: " + health.lintRules.map { $0.count > 1 ? "\($0.rule) ×\($0.count)" : $0.rule }.joined(separator: ", "))
        }
        return parts.isEmpty ? "ok" : parts.joined(separator: "; ")
    }
}
