import Foundation
import Metrics

/// `report.md`: the run for people, in the order they ask: did echo go away, how fast, where
/// not, what broke in the pipeline, which rule the app breaks.
public enum MarkdownReport {
    public static func render(_ report: RunReport) -> String {
        typealias F = ReportFormatting
        let m = report.metrics
        var out = "# EchoLab run: \(report.scenarioName)\n\n"
        out += "Scenario `\(report.scenarioFile)` · \(F.number(report.durationSeconds, digits: 2)) s at \(report.sampleRate) Hz · "
        let settings = report.aecSettings.keys.sorted().map { key -> String in
            switch report.aecSettings[key]! {
            case .number(let value): "\(key) \(F.number(value, digits: 0))"
            case .text(let value): "\(key) \(value)"
            case .flag(let value): "\(key) \(value ? "on" : "off")"
            }
        }
        let described = ([report.aecBackend] + settings).joined(separator: ", ")
        out += "AEC `\(report.aecMode)` (\(described)) · "
        out += "NS `\(report.noiseSuppressor)` · AGC `\(report.autoGainControl)`\n\n"
        out += "## Echo\n\n| metric | value |\n|---|---|\n"
        out += "| ERL | \(F.db(m.erlDB)) |\n| ERLE (whole call) | \(F.db(m.erleDB)) |\n"
        out += "| ERLE steady state | \(F.db(m.erleSteadyDB)) |\n| convergence | \(F.seconds(m.convergenceSeconds)) |\n"
        out += "| bulk delay reference→mic | \(F.number(m.delayMilliseconds, digits: 2, unit: " ms")) |\n"
        out += "| activity gate | \(m.gate.method.rawValue): \(m.gate.singleTalkFrames) single-talk of \(m.gate.frames) frames, \(m.gate.doubleTalkFrames) double-talk |\n"
        out += nearEndRows(m.nearEnd) + "\n"
        out += "### ERLE per octave band\n\n| band | ERLE |\n|---|---|\n"
        for band in m.erleBands { out += "| \(Int(band.lowHz))–\(Int(band.highHz)) Hz | \(F.db(band.erleDB)) |\n" }
        out += "\n### ERLE over time\n\n" + sparkline(m.erleSeries) + "\n\n"
        if !report.segments.isEmpty {
            out += "## Segments\n\n| from | to | opened by | ERL | ERLE | steady | (re)convergence | clicks at start |\n|---|---|---|---|---|---|---|---|\n"
            for s in report.segments {
                out += "| \(F.seconds(s.startSeconds)) | \(F.seconds(s.endSeconds)) | \(s.events.isEmpty ? "start" : s.events.joined(separator: ", ")) | "
                out += "\(F.db(s.metrics.erlDB)) | \(F.db(s.metrics.erleDB)) | \(F.db(s.metrics.erleSteadyDB)) | \(F.seconds(s.reconvergenceSeconds)) | \(s.clicksAtStart) |\n"
            }
            out += "\n"
        }
        out += "## Findings\n\n"
        if report.findings.isEmpty { out += "None: the AEC rules of the custom audio device guide hold.\n\n" }
        for f in report.findings {
            out += "- **\(f.rule)** \(F.seconds(f.atSeconds))–\(F.seconds(f.untilSeconds)): \(f.message). Measured: \(f.consequence).\n"
        }
        if !report.findings.isEmpty { out += "\n" }
        let p = report.pipeline
        out += "## Pipeline\n\n\(count(p.frames, "frame")) · \(count(p.underruns, "underrun")) · \(count(p.overruns, "overrun")) · "
        out += "\(count(report.sentClicks, "click")) and \(count(report.sentGaps, "gap")) in the sent audio · "
        out += "\(count(p.ignoredFrames, "frame")) pushed to unselected devices · "
        let c = p.clippedSamples
        out += "clipped at full scale: playout \(c.playout), loudspeaker \(c.loudspeaker), mic \(c.mic), capture \(c.capture), reference \(c.reference) samples · "
        out += "\(count(p.cancellerResets, "canceller reset"))\n\n"
        out += "| buffer | written | read | dropped | buffered | underruns | overruns | priming | rejected | conserved |\n|---|---|---|---|---|---|---|---|---|---|\n"
        for (name, c) in [("uplink (custom mic)", p.uplink), ("playout (custom speaker)", p.playout),
                          ("user AEC reference", p.userReference), ("app loudspeaker", p.loudspeaker)] {
            out += "| \(name) | \(c.written) | \(c.read) | \(c.dropped) | \(c.buffered) | \(c.underruns) | \(c.overruns) | \(c.primingSamples) | \(c.rejectedFrames) | \(c.isConserved ? "yes" : "**no**") |\n"
        }
        if !report.adaptiveDecisions.isEmpty {
            out += "\n## Adaptive AEC decisions\n\n| at | ERL estimate | double talk | suppression |\n|---|---|---|---|\n"
            for d in report.adaptiveDecisions {
                out += "| \(F.seconds(Double(d.frame) / Double(report.sampleRate))) | \(F.db(d.erlEstimateDB)) | \(Int(d.doubleTalkShare * 100)) % | \(d.suppressionDB)/\(d.doubleTalkSuppressionDB) dB |\n"
            }
        }
        if !report.events.isEmpty {
            out += "\n## Events\n\n"
            for e in report.events {
                out += "- \(F.seconds(Double(e.frame) / Double(report.sampleRate))) \(e.kind): \(e.detail)\n"
            }
        }
        out += "\nPerformance: \(F.number(report.wallSeconds, digits: 3)) s wall, \(F.number(report.realtimeFactor, digits: 0))× real time.\n"
        return out
    }

    /// The near-end preservation rows of the metrics table (the other axis beside ERLE).
    static func nearEndRows(_ nearEnd: NearEndPreservation?) -> String {
        typealias F = ReportFormatting
        guard let n = nearEnd else { return "| near-end preservation | no near-end track: not measured |\n" }
        var out = "| near-end attenuation, double talk | \(F.db(n.attenuationDB)) (\(n.doubleTalkFrames) frames) |\n"
        out += "| near-end distortion, double talk (includes residual echo) | \(F.db(n.distortionDB)) |\n"
        out += "| near-end attenuation, near-end single talk | \(F.db(n.singleTalkAttenuationDB)) (\(n.singleTalkFrames) frames) |\n"
        out += "| near-end distortion, near-end single talk | \(F.db(n.singleTalkDistortionDB)) |\n"
        return out
    }

    static func count<N: BinaryInteger>(_ n: N, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// ERLE over time as a one-line sparkline (0–40 dB), one character per point; · for none.
    static func sparkline(_ series: [ERLEPoint]) -> String {
        let levels = Array("▁▂▃▄▅▆▇█")
        let line = series.map { point -> Character in
            guard let value = point.erleDB else { return "·" }
            let index = Int((min(max(value, 0), 40) / 40 * Double(levels.count - 1)).rounded())
            return levels[index]
        }
        return "`" + String(line) + "` (0–40 dB, one mark per 0.5 s)"
    }
}
