import AudioInterop
import Foundation
import Metrics
import Simulation

/// What `eval` needs of any run, a simulated call or a recording: its metrics (the report's
/// `metrics` object), pipeline counters where there are any, lint findings, length.
public struct RunSummary: Sendable {
    /// nil where there is nothing to measure (a recording without a loopback).
    public var metrics: EchoMetrics?
    public var metricsJSON: JSONValue
    public var pipeline: JSONValue
    public var findings: [String]
    public var durationSeconds: Double

    init(_ report: RunReport) throws {
        metrics = report.metrics
        metricsJSON = try JSONValue(encoding: report.metrics)
        pipeline = report.pipelineJSON()
        findings = report.findings.map(\.rule)
        durationSeconds = report.durationSeconds
    }

    init(metrics: EchoMetrics?, durationSeconds: Double) throws {
        self.metrics = metrics
        metricsJSON = try metrics.map { try JSONValue(encoding: $0) } ?? .null
        pipeline = .null
        findings = []
        self.durationSeconds = durationSeconds
    }
}

/// One recording in one mode, into a folder: `sent.wav` (the canceller's output, aligned with the
/// mic) and `report.json` / `report.md` with the metrics from the loopback, the mic and `sent`
/// — with the corpus's echo and near-end tracks where it has them (AEC-Challenge synthetic),
/// so the gate is exact there. Near-end single talk (no loopback) has nothing to measure.
public struct RecordingRun {
    public static let schema = "echolab.recording/1"
    public var item: RecordingItem
    public var mode: EchoControlMode
    public var outputDirectory: String

    public init(item: RecordingItem, mode: EchoControlMode, outputDirectory: String) {
        self.item = item
        self.mode = mode
        self.outputDirectory = outputDirectory
    }

    public func run() throws -> RunSummary {
        let inputs = [("mic", item.mic), ("loopback", item.loopback), ("echo", item.echo), ("near_end", item.nearEnd)]
            .compactMap { key, path in path.map { (path: $0, key: Optional(key)) } }
        try OutputFolder.check(outputDirectory, holdsNone: inputs, of: item.name)
        return try OutputFolder.writing(into: outputDirectory, runInto)
    }

    private func runInto() throws -> RunSummary {
        let sent = (outputDirectory as NSString).appendingPathComponent("sent.wav")
        let outcome = try RecordingProcessor(mode: mode).process(mic: item.mic, reference: item.loopback, output: sent)
        let duration = Double(outcome.frames) / Double(outcome.sampleRate)
        var metrics: EchoMetrics?
        if let loopback = item.loopback {
            metrics = try EchoAnalyzer().analyzeFiles(reference: loopback, mic: item.mic, processed: sent,
                                                      echo: item.echo, nearEnd: item.nearEnd).whole
        }
        var files: [String: JSONValue] = ["mic": .string(item.mic), "sent": .string("sent.wav")]
        files["loopback"] = item.loopback.map(JSONValue.string)
        files["echo"] = item.echo.map(JSONValue.string)
        files["near_end"] = item.nearEnd.map(JSONValue.string)
        let report = JSONValue.object([
            "schema": .string(Self.schema),
            "tool": .object(["name": .string("echolab"), "version": .string(EchoLabVersion.current)]),
            "item": .string(item.name),
            "talk_type": item.talkType.map { .string($0.rawValue) } ?? .null,
            "files": .object(files),
            "aec": .object(["mode": .string(mode.description)]),
            "sample_rate": .number(Double(outcome.sampleRate)),
            "processing_rate": .number(Double(outcome.processingRate)),
            "latency_samples": .number(Double(outcome.latencySamples)),
            "aec_resets": .number(Double(outcome.divergenceResets)),
            "duration_s": .number(duration),
            "metrics": try metrics.map { try JSONValue(encoding: $0) } ?? .null,
        ])
        try AtomicFile.write(report.canonicalText(), to: (outputDirectory as NSString).appendingPathComponent("report.json"))
        var md = "# \(item.name) — \(mode)\n\nA recording through the canceller (nothing simulated); `sent.wav` is aligned with the mic "
        md += "(\(outcome.latencySamples) samples of latency removed).\n\n"
        if let metrics {
            md += "ERL \(ReportFormatting.db(metrics.erlDB)) · ERLE \(ReportFormatting.db(metrics.erleDB)) · "
            md += "steady ERLE \(ReportFormatting.db(metrics.erleSteadyDB)) · gate `\(metrics.gate.method)`\n"
            if let nearEnd = metrics.nearEnd {
                md += "\nNear end (from the corpus's near-end track): attenuation \(ReportFormatting.db(nearEnd.attenuationDB)) and "
                md += "distortion \(ReportFormatting.db(nearEnd.distortionDB)) over \(nearEnd.doubleTalkFrames) double-talk frames; "
                md += "attenuation \(ReportFormatting.db(nearEnd.singleTalkAttenuationDB)) over \(nearEnd.singleTalkFrames) near-end single-talk frames.\n"
            }
        } else {
            md += "No loopback (near-end single talk): no echo metric to measure.\n"
        }
        try AtomicFile.write(md, to: (outputDirectory as NSString).appendingPathComponent("report.md"))
        return try RunSummary(metrics: metrics, durationSeconds: duration)
    }
}
