import AudioInterop
import Foundation
import Simulation

/// Which WAV taps a run writes.
public enum TapSelection: Sendable {
    case none
    /// `mic.wav`, `reference.wav`, `echo.wav`, `sent.wav`.
    case standard
    /// The standard taps plus `near.wav` (near end + noise at the mic) and `played.wav` (loudspeaker).
    case all

    func includes(_ name: String) -> Bool {
        switch self {
        case .none: false
        case .standard: CallRecording.standardTapNames.contains(name)
        case .all: true
        }
    }
}

/// Runs a scenario and writes its folder: the taps (see `TapSelection`), `report.json`,
/// `report.md` and `report.html`.
/// Nothing is half-written: the folder is checked first, everything is computed in memory, and
/// each file is written under a temporary name and renamed into place.
public struct RunOutput {
    public var scenario: Scenario
    public var outputDirectory: String
    public var taps: TapSelection
    public var evaluator = RunEvaluator()

    public init(scenario: Scenario, outputDirectory: String, taps: TapSelection = .standard) {
        self.scenario = scenario
        self.outputDirectory = outputDirectory
        self.taps = taps
    }

    @discardableResult
    public func run() throws -> RunReport {
        let existed = FileManager.default.fileExists(atPath: outputDirectory)
        do {
            return try runInto()
        } catch {
            // A folder this run created holds nothing worth keeping after a failure.
            if !existed { try? FileManager.default.removeItem(atPath: outputDirectory) }
            throw error
        }
    }

    private func runInto() throws -> RunReport {
        try AtomicFile.prepareDirectory(outputDirectory)
        let started = DispatchTime.now()
        let runner = ScenarioRunner(scenario: scenario, outputDirectory: outputDirectory, recordTaps: false)
        let duration = try runner.duration()
        let rate = SimulatedCall.sampleRate
        let names = CallRecording.tapNames.filter(taps.includes)
        let writer = names.isEmpty ? nil : try WAVTapWriter(directory: outputDirectory, names: names, sampleRate: rate)
        let measurement = CallMeasurement(sampleRate: rate, configuration: evaluator.configuration,
                                          expectedTicks: Int(duration.nanoseconds / SimulatedCall.tickDuration.nanoseconds) + 1)
        var streaming = runner
        streaming.taps = [measurement] + (writer.map { [$0] } ?? [])
        let run = try streaming.run(for: duration)
        try writer?.finish()
        // Taps of an earlier run into the same folder that this run did not write would
        // contradict its report: remove them (only EchoLab's own tap names).
        for name in CallRecording.tapNames where !names.contains(name) {
            try? FileManager.default.removeItem(atPath: path("\(name).wav"))
        }
        var report = evaluator.evaluate(run, measurement: measurement, wallSeconds: 0, taps: writer?.files ?? [:])
        report.wallSeconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        try AtomicFile.write(try report.json().canonicalText(), to: path("report.json"))
        try AtomicFile.write(MarkdownReport.render(report), to: path("report.md"))
        try AtomicFile.write(HTMLReport.render(report), to: path("report.html"))
        return report
    }

    private func path(_ name: String) -> String { (outputDirectory as NSString).appendingPathComponent(name) }
}
