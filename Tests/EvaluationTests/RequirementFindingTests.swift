import EchoLabTestSupport
import Foundation
import Metrics
import Evaluation
import ScenarioFiles
import XCTest

/// TS 26.131's 46 dB echo loss, judged as a finding: a pure delay and gain has TCLw equal to the
/// gain, so its miss and its shortfall are known exactly; a weak enough echo meets it.
final class RequirementFindingTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws { folder = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func run(gainDB: Int, noiseDBFS: Int = -60) throws -> RunReport {
        let path = try writeScenario("""
            {"name": "gain\(-gainDB)", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": \(noiseDBFS), "seed": 7}, "echo_path": {"delay_ms": 40, "gain_db": \(gainDB)},
             "aec": {"mode": "disabled"}, "duration_s": 6}
            """, named: "gain\(-gainDB).json", in: folder)
        return try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent("out\(-gainDB)").path,
                             taps: .none, renderer: nil).run()
    }

    func testAnEchoLossUnderFortySixDecibelsIsARequirementFindingWithItsShortfall() throws {
        let report = try run(gainDB: -6)
        let loss = try XCTUnwrap(report.metrics.telephony?.echoLoss)
        XCTAssertEqual(loss.tclwDB, 6, accuracy: 0.1)
        let finding = try XCTUnwrap(report.findings.first { $0.rule == RequirementFindings.echoLossRule })
        XCTAssertEqual(finding.kind, .requirement)
        XCTAssertEqual(try XCTUnwrap(finding.consequenceDB), loss.tclwDB)
        XCTAssertEqual(finding.consequenceMetric, "tclw_db")
        XCTAssertTrue(finding.consequence.contains("40.0 dB short"), finding.consequence)
        XCTAssertEqual(finding.untilSeconds, 6)
        // The lint's own finding beside it keeps its kind.
        XCTAssertEqual(report.findings.first { $0.rule == "aec-disabled-with-real-devices" }?.kind, .lint)
        let json = try XCTUnwrap(report.json()["findings"]?.arrayValue?.first { $0["rule"]?.stringValue == RequirementFindings.echoLossRule })
        XCTAssertEqual(json["kind"]?.stringValue, "requirement")
    }

    /// A generator mic for the call's first 3 s: no echo reached what was sent there, so the TCLw's
    /// frames (the steady half of the far-end single talk) lie after it, and the finding starts there
    /// (a trial's, a file mic's, read 0–8 s, as if the file's seconds missed the requirement too).
    func testAnEchoLossFindingLiesWhereItsFramesDo() throws {
        let path = try writeScenario("""
            {"name": "file-first", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -60, "seed": 7}, "echo_path": {"delay_ms": 40, "gain_db": -6},
             "aec": {"mode": "disabled"}, "duration_s": 8,
             "timeline": [{"at_ms": 0, "action": "set_custom_mic", "device": "generator", "signal": "tone", "frequency_hz": 440, "level_dbfs": -30},
                          {"at_ms": 3000, "action": "reset_custom_mic"}]}
            """, named: "file-first.json", in: folder)
        let report = try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent("file-first").path,
                                   taps: .none, renderer: nil).run()
        let finding = try XCTUnwrap(report.findings.first { $0.rule == RequirementFindings.echoLossRule })
        XCTAssertGreaterThan(finding.atSeconds, 3)
        XCTAssertLessThan(finding.atSeconds, 6.5)
        XCTAssertEqual(finding.untilSeconds, 8)
    }

    func testAnEchoLossOverFortySixDecibelsHasNoFinding() throws {
        let report = try run(gainDB: -50, noiseDBFS: -120)
        let loss = try XCTUnwrap(report.metrics.telephony?.echoLoss)
        XCTAssertEqual(loss.tclwDB, 50, accuracy: 0.1)
        XCTAssertEqual(loss.meetsRequirement, true)
        XCTAssertFalse(report.findings.contains { $0.rule == RequirementFindings.echoLossRule })
    }

    func testAKindIsReadFromTheRuleName() {
        XCTAssertEqual(RunReport.Finding.Kind(rule: RequirementFindings.echoLossRule), .requirement)
        XCTAssertEqual(RunReport.Finding.Kind(rule: "mic-clipping"), .lint)
        // An echo leak while the canceller learns a new route is no app mistake: `run --strict`
        // failed a correct app on every speaker-button test.
        XCTAssertEqual(RunReport.Finding.Kind(rule: HardwareFindings.echoLeakRule), .canceller)
    }

    /// A call that changed route: TCLw is the whole call's, over the steady half of its far-end
    /// single talk, and the finding says where that lies. Behind a wired headset the echo stays
    /// under the mic's noise (no single talk), so all of it lies on the speaker after the change at
    /// 3 s, its steady half from past the middle of the speaker's 5 s; changed at 5 s from the
    /// receiver, whose echo stands over the noise, the steady half starts before the change.
    func testAnEchoLossFindingOfARouteChangeCallSaysWhichRoutesItsFramesLieOn() throws {
        func finding(from route: String, atMilliseconds change: Int) throws -> RunReport.Finding {
            let path = try writeScenario("""
                {"name": "tclw-\(route)", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
                 "noise": {"level_dbfs": -65, "seed": 2}, "route": "\(route)", "audio_session": {}, "aec": {"mode": "disabled"},
                 "duration_s": 8, "timeline": [{"at_ms": \(change), "action": "route_change", "route": "speaker"}]}
                """, named: "tclw-\(route).json", in: folder)
            let report = try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent(route).path,
                                       taps: .none, renderer: nil).run()
            return try XCTUnwrap(report.findings.first { $0.rule == RequirementFindings.echoLossRule })
        }
        func from(_ finding: RunReport.Finding) throws -> Double {
            let match = try XCTUnwrap(finding.consequence.firstMatch(of: #/\(from ([0-9.]+) s, /#), finding.consequence)
            return try XCTUnwrap(Double(match.1))
        }
        let headset = try finding(from: "wired_headset", atMilliseconds: 3000)
        XCTAssertTrue(headset.consequence.contains(" s, on the speaker route), "), headset.consequence)
        XCTAssertTrue((4.0...6.5).contains(try from(headset)), headset.consequence)
        // The finding lies where its frames do, not over the headset's seconds.
        XCTAssertEqual(headset.atSeconds, try from(headset), accuracy: 0.05)
        XCTAssertEqual(headset.untilSeconds, 8)
        let receiver = try finding(from: "receiver", atMilliseconds: 5000)
        XCTAssertTrue(receiver.consequence.contains(" s, across the routes receiver, speaker), "), receiver.consequence)
        XCTAssertLessThan(try from(receiver), 5, receiver.consequence)
        // One route all call long: nothing to say.
        XCTAssertFalse(try run(gainDB: -6).findings.first { $0.rule == RequirementFindings.echoLossRule }?.consequence.contains("route") ?? true)
    }

    /// A frame of what was sent is on the route whose capture reached it: a route change reaches
    /// `sent` the send latency after its event (speex: one 10 ms tick, 480 samples; with AEC
    /// disabled it is 0 and cannot tell), so a frame starting between the two holds the old
    /// route's echo. A 10 s call (936 analysis frames of 1024, hop 512) on the speaker, changed to
    /// the receiver at 9.97 s (sample 478,560): its last frame starts at 935 × 512 = 478,720, 160
    /// samples after the event and 320 before the change reaches `sent` (479,040). That frame,
    /// the last of the TCLw's steady half, is the speaker's: the finding reads "on the speaker
    /// route"; mapped by the event alone it read "across the routes speaker, receiver".
    /// Mirrored: receiver → speaker at 4.99 s (239,520), the steady half's first frame starts
    /// after the event but before 240,000, where the change reaches `sent`: the receiver's too
    /// ("across the routes receiver, speaker"; by the event alone, "on the speaker route").
    func testAFrameBeforeARouteChangeReachesWhatWasSentIsTheOldRoutes() throws {
        func report(from route: String, to next: String, atMilliseconds change: Int) throws -> RunReport {
            let path = try writeScenario("""
                {"name": "tclw-latency-\(route)", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
                 "noise": {"level_dbfs": -70, "seed": 7}, "route": "\(route)", "audio_session": {},
                 "aec": {"backend": "speex", "mode": "intensityRecommended"}, "duration_s": 10,
                 "timeline": [{"at_ms": \(change), "action": "route_change", "route": "\(next)"}]}
                """, named: "tclw-latency-\(route).json", in: folder)
            return try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent("latency-\(route)").path,
                                 taps: .none, renderer: nil).run()
        }
        func consequence(_ report: RunReport) throws -> String {
            try XCTUnwrap(report.findings.first { $0.rule == RequirementFindings.echoLossRule }?.consequence, "\(report.findings.map(\.rule))")
        }
        let late = try report(from: "speaker", to: "receiver", atMilliseconds: 9970)
        XCTAssertEqual(late.metrics.gate.frames, 936)
        let hardware = try XCTUnwrap(late.hardware)
        XCTAssertEqual(hardware.segments.map(\.startFrame), [0, 478_560])
        // The rule itself: the last frame's start, 478,720, is the speaker's with the send latency
        // and the receiver's without it.
        XCTAssertEqual(RequirementFindings.echoLossRoutes(frameStarts: 240_000...478_720, hardware: hardware, rate: 48_000, latency: { _ in 480 }),
                       "from 5.0 s, on the speaker route")
        XCTAssertEqual(RequirementFindings.echoLossRoutes(frameStarts: 240_000...478_720, hardware: hardware, rate: 48_000, latency: { _ in 0 }),
                       "from 5.0 s, across the routes speaker, receiver")
        // The call's finding, its frames and latency the run's own.
        let lateConsequence = try consequence(late)
        XCTAssertTrue(lateConsequence.contains(" (from 5.0 s, on the speaker route), "), lateConsequence)
        let early = try report(from: "receiver", to: "speaker", atMilliseconds: 4990)
        let earlyConsequence = try consequence(early)
        XCTAssertTrue(earlyConsequence.contains(" (from 5.0 s, across the routes receiver, speaker), "), earlyConsequence)
    }
}
