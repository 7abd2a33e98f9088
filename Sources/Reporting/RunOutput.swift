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
        try AtomicFile.prepareDirectory(outputDirectory)
        let started = DispatchTime.now()
        let run = try ScenarioRunner(scenario: scenario, outputDirectory: outputDirectory).run()
        var taps: [String: String] = [:]
        for (name, samples) in run.recording.taps where self.taps.includes(name) {
            let file = "\(name).wav"
            try SoundFileWriter.write(samples, to: path(file), sampleRate: run.sampleRate)
            taps[name] = file
        }
        var report = evaluator.evaluate(run, wallSeconds: 0, taps: taps)
        report.wallSeconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        try AtomicFile.write(try report.json().canonicalText(), to: path("report.json"))
        try AtomicFile.write(MarkdownReport.render(report), to: path("report.md"))
        try AtomicFile.write(HTMLReport.render(report), to: path("report.html"))
        return report
    }

    private func path(_ name: String) -> String { (outputDirectory as NSString).appendingPathComponent(name) }
}
