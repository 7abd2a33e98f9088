import Foundation
@testable import Evaluation
import Reporting
import Simulation
import XCTest

/// `run` measures on a second thread from a copy of each tick holding only the signals its
/// consumers read (`BackgroundTap`); `eval` measures inline. Both must give the same report and
/// the same taps, bit for bit — also where the send path lags (speex), the near end is scored,
/// custom devices switch mid-call — without taps (only what the measurement reads is copied)
/// and with every tap (played.wav too).
final class BackgroundMeasurementTests: XCTestCase {
    private static let vectors = ["device-transitions", "speech-room-doubletalk", "recording-speaker"]

    private func scenario(_ name: String) throws -> Scenario {
        try ScenarioLoader.load(path: packageRoot.appendingPathComponent("vectors/scenarios/\(name).json").path)
    }

    func testBackgroundAndInlineMeasurementGiveTheSameReportAndTaps() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        for name in Self.vectors {
            let scenario = try scenario(name)
            for (label, selection) in [("no taps", TapSelection.none), ("all taps", .all)] {
                var reports: [Data] = [], files: [[String: Data]] = []
                for background in [true, false] {
                    let folder = root.appendingPathComponent("\(name)-\(label)-\(background)")
                    var output = RunOutput(scenario: scenario, outputDirectory: folder.path, taps: selection)
                    output.measuresInBackground = background
                    var report = try output.run()
                    // The pages on disk are the report's, rendered on a second thread or not.
                    XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8),
                                   HTMLReport.render(report), "\(name), \(label): report.html")
                    XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("report.md"), encoding: .utf8),
                                   MarkdownReport.render(report), "\(name), \(label): report.md")
                    report.wallSeconds = 0
                    reports.append(Data(report.json().canonicalText().utf8))
                    var written = try snapshot(folder)
                    for page in ["report.json", "report.md", "report.html"] { written["/" + page] = nil }   // they carry the wall time
                    files.append(written)
                }
                XCTAssertEqual(reports[0], reports[1], "\(name), \(label): report")
                XCTAssertEqual(files[0], files[1], "\(name), \(label): files")
                let taps = selection == .none ? [] : ["mic.wav", "reference.wav", "echo.wav", "sent.wav", "near.wav", "played.wav"]
                XCTAssertEqual(Set(files[0].keys), Set((taps + scenario.deviceOutputFiles).map { "/" + $0 }), "\(name), \(label)")
            }
        }
    }

    /// Each consumer's own list of the signals it reads is complete: in one call, the metrics and
    /// the level plots each measured from a copy holding only their `signalsRead` equal the same
    /// consumer measuring inline (a missing signal would read as silence).
    func testEachConsumersSignalListIsComplete() throws {
        for name in Self.vectors {
            let rate = SimulatedCall.sampleRate
            let measurement = (inline: CallMeasurement(sampleRate: rate), copied: CallMeasurement(sampleRate: rate))
            let levels = (inline: LevelMeter(sampleRate: rate), copied: LevelMeter(sampleRate: rate))
            let background = [BackgroundTap([measurement.copied], copying: CallMeasurement.signalsRead),
                              BackgroundTap([levels.copied], copying: LevelMeter.signalsRead)]
            var runner = ScenarioRunner(scenario: try scenario(name), recordTaps: false)
            runner.taps = [measurement.inline, levels.inline] + background
            _ = try runner.run(for: try runner.duration())
            for tap in background { try tap.finish() }
            let inline = measurement.inline.finish(segments: []), copied = measurement.copied.finish(segments: [])
            XCTAssertEqual(copied.analysis.whole, inline.analysis.whole, "\(name): metrics")
            XCTAssertEqual(copied.glitches, inline.glitches, "\(name): glitches")
            XCTAssertEqual(levels.copied.points, levels.inline.points, "\(name): levels")
            XCTAssertFalse(levels.inline.points.isEmpty)
        }
    }
}
