import AudioCore
import Foundation
import Metrics
import Simulation

/// Scores a finished call: echo metrics over the whole call and each timeline segment, clicks at
/// the transitions, lint findings with their measured consequences.
/// Works on the call's recorded signals only, as it would on WAVs read back from disk.
public struct RunEvaluator: Sendable {
    public var analyzer: EchoAnalyzer

    public init(analyzer: EchoAnalyzer = EchoAnalyzer()) {
        self.analyzer = analyzer
    }

    public func evaluate(_ run: CallRun, wallSeconds: Double, taps: [String: String] = [:]) -> RunReport {
        let recording = run.recording
        let length = recording.sent.count
        let rate = Double(run.sampleRate)
        let boundaries = Array(Set([0] + run.timelineFrames.map(Int.init).filter { $0 > 0 && $0 < length })).sorted()
        let ranges = run.timelineFrames.isEmpty ? [] : zip(boundaries, boundaries.dropFirst() + [length]).map { $0..<$1 }
        let signals = EchoSignals(sampleRate: run.sampleRate, reference: recording.reference, mic: recording.mic,
                                  processed: recording.sent, echo: nil, nearEnd: recording.nearEnd)
        let analysis = analyzer.analyze(signals, segments: ranges)
        let glitches = GlitchDetector(sampleRate: run.sampleRate).analyze(recording.sent)
        let tick = Int(rate / 100)

        let segments = zip(ranges, analysis.segments).map { range, metrics in
            RunReport.Segment(startSeconds: Double(range.lowerBound) / rate, endSeconds: Double(range.upperBound) / rate,
                              events: run.scenario.timeline.filter { Int($0.at.nanoseconds * Int64(run.sampleRate) / 1_000_000_000) == range.lowerBound }
                                .map(\.action.description),
                              metrics: metrics,
                              reconvergenceSeconds: range.lowerBound == 0 ? metrics.convergenceSeconds : analysis.reconvergenceSeconds(after: range.lowerBound),
                              clicksAtStart: glitches.count(in: max(0, range.lowerBound - tick)..<(range.lowerBound + tick + 1)))
        }
        let findings = Linter.findings(states: run.deviceStates, endFrame: length).map { finding in
            consequence(of: finding, recording: recording, analysis: analysis, rate: rate)
        }
        let processing = run.scenario.voiceProcessing
        return RunReport(scenarioName: run.scenario.name, scenarioFile: run.scenario.file, sampleRate: run.sampleRate,
                         durationSeconds: run.duration.seconds, aecMode: processing.echoCancellerMode.rawValue,
                         aecBackend: processing.backend.rawValue,
                         aecSettings: EchoCancellerSettings.forMode(processing.echoCancellerMode, filterOverride: processing.filterMilliseconds),
                         noiseSuppressor: processing.noiseSuppressor.rawValue, autoGainControl: processing.autoGainControl.rawValue,
                         metrics: analysis.whole, segments: segments, events: run.events, findings: findings,
                         pipeline: run.counters, sentClicks: glitches.events.count, sentGaps: glitches.gaps.count,
                         adaptiveDecisions: run.adaptiveDecisions, taps: taps, wallSeconds: wallSeconds)
    }

    private func consequence(of finding: LintFinding, recording: CallRecording, analysis: EchoAnalysis, rate: Double) -> RunReport.Finding {
        let range = finding.frames
        var report = RunReport.Finding(rule: finding.rule.rawValue, atSeconds: Double(range.lowerBound) / rate,
                                       untilSeconds: Double(range.upperBound) / rate, message: finding.message,
                                       consequenceMetric: "", consequenceDB: nil, consequence: "")
        switch finding.rule {
        case .aecOnNonMicrophoneSource, .aecOnWithoutLoudspeaker:
            let error = Self.errorDB(recording.sent, against: recording.mic, in: range)
            report.consequenceMetric = "sent_error_db"
            report.consequenceDB = error
            report.consequence = error.map { "the canceller altered what was sent: error energy \(Self.format($0)) dB relative to the source" }
                ?? "the sent audio equals the source here"
        case .alteredPlayoutWithoutReference:
            let erle = analysis.metrics(in: range).erleDB
            report.consequenceMetric = "erle_db"
            report.consequenceDB = erle
            report.consequence = erle.map { "echo reduced by only \(Self.format($0)) dB: the played audio the canceller was not told about echoes to the peer" }
                ?? "no far-end single talk to measure"
        case .aecDisabledWithRealDevices:
            let erl = analysis.metrics(in: range).erlDB
            report.consequenceMetric = "erl_db"
            report.consequenceDB = erl
            report.consequence = erl.map { "nothing removes the echo: the peer hears itself \(Self.format($0)) dB down" }
                ?? "no far-end single talk to measure"
        }
        return report
    }

    /// 10·log10(Σ(a−b)² / Σb²) over `range`; nil when a equals b there (or b is silent).
    static func errorDB(_ a: [Float], against b: [Float], in range: Range<Int>) -> Double? {
        var error = 0.0, power = 0.0
        for i in range.clamped(to: 0..<min(a.count, b.count)) {
            let d = Double(a[i]) - Double(b[i])
            error += d * d
            power += Double(b[i]) * Double(b[i])
        }
        return Decibels.powerRatio(error, power)
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
