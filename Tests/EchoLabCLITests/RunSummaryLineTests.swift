import EchoLabTestSupport
import Foundation
import XCTest

/// `run`'s one line on stdout says what the report would make a reader look for: the pipeline's
/// faults, and figures that stand on part of the call.
final class RunSummaryLineTests: XCTestCase {
    /// One pass-through mic set over another: the old one stops before the new one has primed
    /// (both would hold the one microphone), and the line counts the underrun with the glitches.
    func testThePipelinesFaultsAreOnTheLine() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = try writeScenario("""
            {"name": "pass-through-twice", "near_end": {"generator": "tone", "frequency_hz": 317, "level_dbfs": -20}, "duration_s": 3,
             "aec": {"mode": "disabled"},
             "timeline": [{"at_ms": 1000, "action": "set_custom_mic", "device": "passthrough"},
                          {"at_ms": 2000, "action": "set_custom_mic", "device": "passthrough"}]}
            """, in: folder)
        let run = try runEchoLab(["run", scenario, "--out", "out", "--no-taps"], in: folder)
        XCTAssertEqual(run.status, 0, run.standardError)
        let pipeline = try XCTUnwrap(loadJSON(folder.appendingPathComponent("out/report.json").path)["pipeline"] as? [String: Any])
        let underruns = try XCTUnwrap(pipeline["underruns"] as? Int)
        XCTAssertGreaterThan(underruns, 0)
        XCTAssertTrue(run.standardOutput.contains(" finding, \(underruns) underrun\(underruns == 1 ? "" : "s"), "), run.standardOutput)
    }

    /// A mic clock 300 ppm slow runs its capture stream dry (a fast one runs it over): the
    /// hardware model's stream faults are on the line too. A trial's slow mic left 20 ms of
    /// silence in what was sent and the line said nothing.
    func testTheHardwareStreamsFaultsAreOnTheLine() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, drift) in [("slow", -300), ("fast", 300)] {
            let scenario = try writeScenario("""
                {"name": "\(name)", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1}, "duration_s": 60,
                 "clock_drift_ppm": \(drift), "echo_path": {"delay_ms": 20, "gain_db": -10}, "aec": {"mode": "disabled"}}
                """, named: "\(name).json", in: folder)
            let run = try runEchoLab(["run", scenario, "--out", name, "--no-taps"], in: folder)
            XCTAssertEqual(run.status, 0, run.standardError)
            let hardware = try XCTUnwrap(loadJSON(folder.appendingPathComponent("\(name)/report.json").path)["hardware"] as? [String: Any])
            let streams = try XCTUnwrap(hardware["streams"] as? [String: Any])
            let underruns = try XCTUnwrap(streams["underruns"] as? Int), dropped = try XCTUnwrap(streams["dropped_samples"] as? Int)
            if drift < 0 {
                XCTAssertGreaterThan(underruns, 0)
                XCTAssertTrue(run.standardOutput.contains(", \(underruns) stream underrun\(underruns == 1 ? "" : "s"), "), run.standardOutput)
            } else {
                XCTAssertGreaterThan(dropped, 0)
                XCTAssertTrue(run.standardOutput.contains(", \(dropped) samples dropped by a stream running over, "), run.standardOutput)
            }
        }
    }

    /// A reference the app started and never fed: ERL and ERLE stand on the second before it, and
    /// the line says over how many seconds they were not measured.
    func testFiguresOnPartOfTheCallSaySo() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = try writeScenario("""
            {"name": "not-fed", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1}, "noise": {"level_dbfs": -65, "seed": 7},
             "echo_path": {"delay_ms": 40, "gain_db": -6}, "aec": {"mode": "intensityRecommended"}, "duration_s": 6,
             "timeline": [{"at_ms": 2000, "action": "start_user_reference"}]}
            """, in: folder)
        let run = try runEchoLab(["run", scenario, "--out", "out", "--no-taps"], in: folder)
        XCTAssertEqual(run.status, 0, run.standardError)
        let findings = try XCTUnwrap(loadJSON(folder.appendingPathComponent("out/report.json").path)["findings"] as? [[String: Any]])
        let notFed = try XCTUnwrap(findings.first { $0["rule"] as? String == "user-reference-not-fed" }, "\(findings)")
        let seconds = try XCTUnwrap(notFed["until_s"] as? Double) - XCTUnwrap(notFed["at_s"] as? Double)
        XCTAssertTrue(run.standardOutput.contains(String(format: "; not measured over the %.2f s the canceller's reference was silent), ", seconds)),
                      run.standardOutput)
        let markdown = try String(contentsOf: folder.appendingPathComponent("out/report.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("The canceller's reference was silent for "), markdown)
        // Each echo figure with its frame count, whatever the count.
        let metrics = try XCTUnwrap(loadJSON(folder.appendingPathComponent("out/report.json").path)["metrics"] as? [String: Any])
        let steady = try XCTUnwrap(metrics["erle_steady_db"] as? Double), frames = try XCTUnwrap(metrics["erle_steady_analysis_frames"] as? Int)
        XCTAssertGreaterThanOrEqual(frames, 20)
        let bound = (metrics["erle_steady_is_lower_bound"] as? Bool) == true ? "≥ " : ""
        XCTAssertTrue(markdown.contains("| ERLE steady state | \(bound)\(String(format: "%.1f", steady)) dB (\(frames) analysis frames) |"), markdown)
    }

    /// The line prints a figure as report.md does, from the value report.json holds: a pure gain
    /// of −9.04996 dB has an ERL of 9.04996 dB, 9.05 in the JSON, which report.md rounds to 9.1;
    /// formatted from the raw value the line said 9.0.
    func testTheLinesFiguresAreTheReportsOwn() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = try writeScenario("""
            {"name": "tie", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1}, "duration_s": 4,
             "echo_path": {"delay_ms": 20, "gain_db": -9.04996}, "aec": {"mode": "disabled"}}
            """, in: folder)
        let run = try runEchoLab(["run", scenario, "--out", "out", "--no-taps"], in: folder)
        XCTAssertEqual(run.status, 0, run.standardError)
        let metrics = try XCTUnwrap(loadJSON(folder.appendingPathComponent("out/report.json").path)["metrics"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(metrics["erl_db"] as? Double), 9.05)
        let markdown = try String(contentsOf: folder.appendingPathComponent("out/report.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("| ERL | 9.1 dB"), markdown)
        XCTAssertTrue(run.standardOutput.hasPrefix("tie: ERL 9.1 dB, "), run.standardOutput)
    }
}
