import EchoLabJSON
import EchoLabTestSupport
import Foundation
@testable import Evaluation
import Reporting
import ScenarioFiles
import Simulation
import XCTest

/// `run` measures on two worker threads (the echo metrics; the glitches, levels and taps) from
/// one copy of each tick holding only the signals their consumers read (`BackgroundTap`); `eval`
/// measures inline. Both must give the same report and
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

    /// The `run` process plans its measurement's FFTs on a second thread while it starts
    /// (`RunOutput.planMeasurementInBackground`), and measures on two workers; its report must
    /// still be the one an inline, single-threaded run in this process gives, bit for bit.
    func testTheRunProcessGivesTheInlineReport() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        for name in Self.vectors {
            let file = packageRoot.appendingPathComponent("vectors/scenarios/\(name).json").path
            let folder = root.appendingPathComponent("\(name)-process")
            let result = try runEchoLab(["run", file, "--out", folder.path, "--no-taps"])
            XCTAssertEqual(result.status, 0, "\(name): \(result.standardError)")
            var output = RunOutput(scenario: try scenario(name), outputDirectory: root.appendingPathComponent("\(name)-inline").path,
                                   taps: .none)
            output.measuresInBackground = false
            let inline = try output.run()
            // Both as written, but for the wall time.
            func withoutWallTime(_ text: [UInt8]) throws -> String {
                var object = try XCTUnwrap(try JSONValue.parse(text, maximumBytes: 64 << 20).objectValue)
                XCTAssertNotNil(object.removeValue(forKey: "performance"), name)
                return JSONValue.object(object).canonicalText()
            }
            XCTAssertEqual(try withoutWallTime([UInt8](Data(contentsOf: folder.appendingPathComponent("report.json")))),
                           try withoutWallTime(Array(inline.json().canonicalText().utf8)), "\(name): report.json")
        }
    }

    /// A re-run into its folder replaces the taps (the previous ones are deleted on a second
    /// thread while the reports are written): afterwards the folder holds exactly the new run's
    /// taps and reports, nothing hidden (a leftover of a killed run included), and each tap is
    /// the new run's.
    func testARerunReplacesItsTapsAndLeavesNothingBehind() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        var taps: [[String: Data]] = []
        for aec in ["disabled", "intensityMax"] {
            if aec != "disabled" {
                // What a run killed between moving its taps in and deleting the old ones leaves
                // (near.wav is not among the taps this run writes).
                try Data("old".utf8).write(to: root.appendingPathComponent("out/.near.wav.replaced"))
            }
            let scenario = try writeScenario(delayScenario(aec: aec, seconds: 2), in: root)
            let result = try runEchoLab(["run", scenario, "--out", "out"], in: root)
            XCTAssertEqual(result.status, 0, result.standardError)
            let folder = root.appendingPathComponent("out")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(),
                           ["echo.wav", "mic.wav", "reference.wav", "report.html", "report.json", "report.md", "sent.wav"], aec)
            taps.append(try snapshot(folder).filter { $0.key.hasSuffix(".wav") })
        }
        XCTAssertNotEqual(taps[0]["/sent.wav"], taps[1]["/sent.wav"], "the second run's sent audio (speex on)")
        XCTAssertEqual(taps[0]["/mic.wav"], taps[1]["/mic.wav"], "the same mic either way")
    }

    /// Each consumer's own list of the signals it reads is complete: in one call, the metrics and
    /// the level plots each measured from a copy holding only their `signalsRead` equal the same
    /// consumer measuring inline (a missing signal would read as silence).
    func testEachConsumersSignalListIsComplete() throws {
        var glitchesCompared = 0
        for name in Self.vectors {
            let rate = SimulatedCall.sampleRate
            let measurement = (inline: CallMeasurement(sampleRate: rate), copied: CallMeasurement(sampleRate: rate))
            let levels = (inline: LevelMeter(sampleRate: rate), copied: LevelMeter(sampleRate: rate))
            // The glitch half on a worker of its own, as `run` has it, from a copy of `sent` alone.
            measurement.copied.measuresGlitchesApart = true
            let background = [BackgroundTap([measurement.copied], copying: CallMeasurement.signalsRead),
                              BackgroundTap([measurement.copied.glitchMeasurement], copying: GlitchMeasurement.signalsRead),
                              BackgroundTap([levels.copied], copying: LevelMeter.signalsRead)]
            var runner = ScenarioRunner(scenario: try scenario(name), recordTaps: false)
            runner.taps = [measurement.inline, levels.inline] + background
            _ = try runner.run(for: try runner.duration())
            for tap in background { try tap.finish() }
            let inline = measurement.inline.finish(segments: []), copied = measurement.copied.finish(segments: [])
            XCTAssertEqual(copied.analysis.whole, inline.analysis.whole, "\(name): metrics")
            XCTAssertEqual(copied.glitches, inline.glitches, "\(name): glitches")
            glitchesCompared += inline.glitches.events.count + inline.glitches.gaps.count
            XCTAssertEqual(levels.copied.points, levels.inline.points, "\(name): levels")
            XCTAssertFalse(levels.inline.points.isEmpty)
        }
        // device-transitions has a gap in sent: the glitch half has something to get wrong.
        XCTAssertGreaterThan(glitchesCompared, 0)
    }
}
