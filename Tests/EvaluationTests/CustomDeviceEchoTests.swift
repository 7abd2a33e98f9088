import EchoLabTestSupport
import Foundation
import Metrics
import Evaluation
import Reporting
import ScenarioFiles
import Simulation
import XCTest

/// Issue 3's measured consequences of custom devices: the user AEC reference for a mixing
/// speaker, and the lint findings of the guide's AEC rules with their consequences.
final class CustomDeviceEchoTests: XCTestCase {
    private func mixingScenario(reference: Bool, in folder: URL) throws -> Scenario {
        try ScenarioLoader.load(path: writeScenario("""
            {"name": "mixing-\(reference)", "far_end": {"generator": "speech", "level_dbfs": -22, "seed": 1},
             "noise": {"level_dbfs": -65, "seed": 7}, "echo_path": {"delay_ms": 40, "gain_db": -6},
             "aec": {"mode": "intensityRecommended"}, "duration_s": 16,
             "speaker": {"device": "mixing", "music": {"generator": "music", "level_dbfs": -20}, "aec_reference": \(reference),
                         "period_ms": 50}}
            """, named: "mixing-\(reference).json", in: folder))
    }

    /// The music's energy lies in the 250–500 Hz octave: without the user reference the canceller
    /// cannot remove it (< 6 dB), with it it does (≥ 15 dB).
    func testMixingSpeakerNeedsTheUserReference() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        func musicBandERLE(_ reference: Bool) throws -> (Double, RunReport) {
            let report = try RunOutput(scenario: mixingScenario(reference: reference, in: folder),
                                       outputDirectory: folder.appendingPathComponent("out-\(reference)").path, taps: .none, renderer: nil).run()
            let band = try XCTUnwrap(report.metrics.erleBands.first { $0.lowHz == 250 })
            return (try XCTUnwrap(band.erleDB), report)
        }
        let (without, withoutReport) = try musicBandERLE(false)
        let (with, withReport) = try musicBandERLE(true)
        XCTAssertLessThan(without, 6)
        XCTAssertGreaterThanOrEqual(with, 15)
        XCTAssertEqual(withoutReport.findings.filter { $0.kind == .lint }.map(\.rule), ["altered-playout-without-reference"])
        XCTAssertEqual(withoutReport.findings.first?.consequenceMetric, "erle_db")
        XCTAssertTrue(withReport.findings.filter { $0.kind == .lint }.isEmpty)
    }

    /// A file as the mic with AEC on breaks rule 1: the finding says how much the canceller
    /// altered the file; with AEC off, nothing is altered and there is no finding.
    func testFileMicLint() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        func run(_ mode: String) throws -> RunReport {
            let path = try writeScenario("""
                {"name": "file-mic-\(mode)", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
                 "echo_path": {"delay_ms": 40, "gain_db": -6}, "aec": {"mode": "\(mode)"}, "duration_s": 6,
                 "mic": {"device": "generator", "signal": "speech", "pitch_hz": 200, "level_dbfs": -20, "seed": 4}}
                """, named: "\(mode).json", in: folder)
            return try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent(mode).path, taps: .none, renderer: nil).run()
        }
        let on = try run("intensityRecommended")
        XCTAssertEqual(on.findings.map(\.rule), ["aec-on-non-microphone-source"])
        XCTAssertEqual(on.findings.first?.consequenceMetric, "sent_error_db")
        // Measured with sent lined up with the mic (speex's one frame of latency): the file is
        // altered audibly but is still the file — a pure delay would have read as ≈ +3 dB.
        let error = try XCTUnwrap(on.findings.first?.consequenceDB)
        XCTAssertLessThan(error, -1)
        XCTAssertGreaterThan(error, -20)
        let off = try run("disabled")
        XCTAssertTrue(off.findings.isEmpty, "\(off.findings.map(\.rule))")
    }

    /// AEC disabled on a plain call with the real mic and speaker: the peer hears itself; the
    /// finding carries the measured ERL.
    func testAECDisabledWithRealDevicesIsFound() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = try ScenarioLoader.load(path: writeScenario(delayScenario(aec: "disabled", seconds: 3), in: folder))
        let report = try RunOutput(scenario: scenario, outputDirectory: folder.appendingPathComponent("out").path, taps: .none, renderer: nil).run()
        XCTAssertEqual(report.findings.filter { $0.kind == .lint }.map(\.rule), ["aec-disabled-with-real-devices"])
        XCTAssertEqual(try XCTUnwrap(report.findings.first?.consequenceDB), 6.0, accuracy: 0.2)
    }

    /// A finding's measured consequence on fewer frames than a figure needs says so, as the page
    /// marks the figure: a 0.3 s call's "the peer hears itself 6.0 dB down" stood on 14 frames.
    func testAConsequenceOnFewFramesSaysItsConfidence() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The echo path's 150 ms leaves the first frames without echo: 0.3 s holds few single-talk frames.
        let short = delayScenario(aec: "disabled", seconds: 1).replacingOccurrences(of: #""duration_s": 1"#, with: #""duration_s": 0.3"#)
            .replacingOccurrences(of: #""delay_ms": 40"#, with: #""delay_ms": 150"#)
        let scenario = try ScenarioLoader.load(path: writeScenario(short, in: folder))
        let report = try RunOutput(scenario: scenario, outputDirectory: folder.appendingPathComponent("out").path, taps: .none, renderer: nil).run()
        let finding = try XCTUnwrap(report.findings.first { $0.rule == "aec-disabled-with-real-devices" })
        let frames = report.metrics.gate.singleTalkFrames
        XCTAssertLessThan(frames, 20)
        XCTAssertGreaterThan(frames, 0)
        XCTAssertTrue(finding.consequence.hasSuffix(" dB down (low confidence: \(frames) analysis frames)"), finding.consequence)
    }

    /// A canceller left on with no loudspeaker that cuts the talker: its error is as loud as the
    /// source, said as such (AEC3 on the recording-speaker vector: "-0.2 dB", which read as a small
    /// change beside a near end cut by 31 dB).
    func testAnErrorAsLoudAsTheSourceIsSaidSo() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let written = try ScenarioLoader.load(path: packageRoot.appendingPathComponent("vectors/scenarios/recording-speaker.json").path)
        let scenario = written.running(EchoControlMode(backend: .aec3, intensity: .intensityRecommended))
        let report = try RunOutput(scenario: scenario, outputDirectory: folder.appendingPathComponent("out").path, taps: .none, renderer: nil).run()
        let finding = try XCTUnwrap(report.findings.first { $0.rule == "aec-on-without-loudspeaker" })
        let error = try XCTUnwrap(finding.consequenceDB)
        XCTAssertGreaterThanOrEqual(error, -3)
        XCTAssertTrue(finding.consequence.hasSuffix(", as loud as the source itself: what was sent is mostly not what the source held (the canceller cut or replaced it)"),
                      finding.consequence)
        XCTAssertGreaterThan(try XCTUnwrap(report.metrics.nearEnd?.attenuationDB), 20, "the talker was cut")
    }

    /// Timeline segments get their own metrics, and events are marked on the series.
    func testTimelineSegments() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeScenario("""
            {"name": "segments", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -65, "seed": 7}, "echo_path": {"delay_ms": 40, "gain_db": -6},
             "aec": {"mode": "disabled"}, "duration_s": 12,
             "timeline": [{"at_ms": 4000, "action": "set_aec", "mode": "intensityRecommended"},
                          {"at_ms": 9000, "action": "mute"}]}
            """, in: folder)
        let out = folder.appendingPathComponent("out")
        let report = try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: out.path, taps: .none, renderer: ReportPages()).run()
        XCTAssertEqual(report.segments.count, 3)
        XCTAssertEqual(report.segments.map(\.startSeconds), [0, 4, 9])
        XCTAssertEqual(report.segments[1].events, ["set_aec intensityRecommended"])
        XCTAssertEqual(try XCTUnwrap(report.segments[0].metrics.erleDB), 0, accuracy: 0.1)
        XCTAssertGreaterThan(try XCTUnwrap(report.segments[1].metrics.erleSteadyDB), 25)
        XCTAssertNotNil(report.segments[1].reconvergenceSeconds)
        // Without a canceller nothing re-converges: its ERLE sits at 0 dB from the start (this read 0.0 s).
        XCTAssertNil(report.segments[0].reconvergenceSeconds)
        let events = try XCTUnwrap(loadJSON(out.appendingPathComponent("report.json").path)["events"] as? [[String: Any]])
        XCTAssertTrue(events.contains { ($0["detail"] as? String) == "set_aec intensityRecommended" && ($0["t_s"] as? Double) == 4 })
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("class=\"event\""), "events are marked on the ERLE plot")
    }

    /// A stretch where a custom mic stands in for the microphone has no echo to measure: its
    /// segment reads no ERL or ERLE, with the reason, rather than figures from the 20 ms crossover
    /// (make-before-break: the default mic delivers until the generator's first push), which read
    /// "ERLE 27.8 dB (low confidence: 1 analysis frame)". A stretch whose speaker plays nothing
    /// into the room reads so too; the stretches around them keep their figures.
    func testSegmentsWithoutAnEchoPathHaveNoEchoFigures() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeScenario("""
            {"name": "stand-ins", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 3},
             "echo_path": {"delay_ms": 40, "gain_db": -6}, "aec": {"mode": "intensityRecommended"}, "duration_s": 12,
             "timeline": [{"at_ms": 3000, "action": "set_custom_mic", "device": "generator", "signal": "speech", "level_dbfs": -26},
                          {"at_ms": 6000, "action": "reset_custom_mic"},
                          {"at_ms": 9000, "action": "set_custom_speaker", "device": "recording"}]}
            """, in: folder)
        let out = folder.appendingPathComponent("out")
        let report = try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: out.path, taps: .none, renderer: ReportPages()).run()
        XCTAssertEqual(report.segments.map(\.startSeconds), [0, 3, 6, 9])
        for index in [1, 3] {
            let segment = report.segments[index]
            XCTAssertNil(segment.metrics.erlDB)
            XCTAssertNil(segment.metrics.erleDB)
            XCTAssertNil(segment.metrics.erleSteadyDB)
            XCTAssertEqual(segment.metrics.singleTalkFrames, 0)
            XCTAssertNil(segment.reconvergenceSeconds)
        }
        XCTAssertEqual(report.segments[1].echoUnmeasuredReason, "no echo reached the sent path: custom mic (generator microphone)")
        XCTAssertEqual(report.segments[3].echoUnmeasuredReason,
                       "no echo reached the mic: the custom speaker (recording speaker) plays nothing into the room")
        for index in [0, 2] {
            XCTAssertEqual(try XCTUnwrap(report.segments[index].metrics.erlDB), 6, accuracy: 0.05)
            XCTAssertGreaterThanOrEqual(report.segments[index].metrics.singleTalkFrames, 20)
            XCTAssertNil(report.segments[index].echoUnmeasuredReason)
        }
        let json = try loadJSON(out.appendingPathComponent("report.json").path)
        let segments = try XCTUnwrap(json["segments"] as? [[String: Any]])
        XCTAssertEqual(segments[1]["echo_unmeasured"] as? String, report.segments[1].echoUnmeasuredReason)
        XCTAssertTrue(segments[0]["echo_unmeasured"] is NSNull)
        let markdown = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("- 3.00 s–6.00 s, no ERL or ERLE: no echo reached the sent path: custom mic (generator microphone)."), markdown)

        // A mic pushing every 150 ms primes 0.15 s in: the old mic fed the stretch till then (it
        // read ERLE 26.7 dB on 13 frames). The engine waits 0.2 s at most.
        let slow = try writeScenario("""
            {"name": "slow-stand-in", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 3},
             "echo_path": {"delay_ms": 40, "gain_db": -6}, "aec": {"mode": "intensityRecommended"}, "duration_s": 6,
             "timeline": [{"at_ms": 3000, "action": "set_custom_mic", "device": "generator", "signal": "speech", "level_dbfs": -26,
                           "period_ms": 150}]}
            """, named: "slow.json", in: folder)
        let late = try RunOutput(scenario: ScenarioLoader.load(path: slow), outputDirectory: folder.appendingPathComponent("slow").path,
                                 taps: .none, renderer: nil).run()
        XCTAssertTrue(late.events.contains { $0.kind == "capture" && $0.frame >= 3 * 48_000 + 7_200 }, "switched 0.15 s in")
        XCTAssertNil(late.segments[1].metrics.erleDB)
        XCTAssertEqual(late.segments[1].echoUnmeasuredReason, "no echo reached the sent path: custom mic (generator microphone)")
    }
}

/// A regression pinned on the vector that exposed it: a pass-through mic through a 44.1 kHz Int16
/// round trip has no content above 22 kHz and a 16 kHz far end none above 8 kHz; GCC-PHAT's
/// whitened bins there held only block-edge leakage aligned at lag 0 and outvoted the echo
/// (0.02 ms was reported). Bins > 60 dB below a block's peak no longer vote.
final class PassThroughDelayTests: XCTestCase {
    func testPassThroughMicDelayIsTheEchoPathPlusCaptureLatency() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = try ScenarioLoader.load(path: packageRoot.appendingPathComponent("vectors/scenarios/passthrough-jittery.json").path)
        let report = try RunOutput(scenario: scenario, outputDirectory: folder.path, taps: .none, renderer: nil).run()
        // 60 ms of echo path + 60 ms of capture (app timer, two cadence buffers, two resamplers).
        XCTAssertEqual(try XCTUnwrap(report.metrics.delayMilliseconds), 120, accuracy: 1)
    }
}
