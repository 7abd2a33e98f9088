import Foundation
import Evaluation
import Simulation
import XCTest

/// A custom speaker set without its playout started (the app forgot the timer that pulls it):
/// the peer is never played and the engine drops what it hands over, 400 overruns in 5 s, and
/// the run read only "the far end never reached the mic" — no finding named the app's mistake.
final class CustomSpeakerNotPulledTests: XCTestCase {
    /// A metered call of a speech far end over a 40 ms, 6 dB echo path that `drive` runs.
    private func report(_ drive: (SimulatedCall) throws -> Void) throws -> RunReport {
        let world = CallWorld(farEnd: .generator(.speechLike(levelDBFS: -20, pitchHz: 120), seed: 1),
                              echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -6))
        let call = try SimulatedCall(world: world, recordsTaps: false)
        let meter = try CallMeter(call: call)
        try drive(call)
        return try meter.finish(name: "speaker")
    }

    /// One pass-through speaker for 5 s, its timer started or not.
    private func report(starting: Bool) throws -> RunReport {
        try report { call in
            let speaker = PassThroughSpeaker(call: call, putsReference: false)
            call.audioManager.setCustomSpeaker(speaker)
            if starting { speaker.start() }
            try call.start()
            try call.run(for: .seconds(5))
            speaker.stop()
        }
    }

    func testASpeakerNeverPulledIsFoundWithWhatItDropped() throws {
        let report = try report(starting: false)
        let finding = try XCTUnwrap(report.findings.first { $0.rule == "custom-speaker-not-pulled" }, "\(report.findings.map(\.rule))")
        XCTAssertEqual(finding.kind, .lint)
        XCTAssertEqual(finding.atSeconds, 0)
        XCTAssertEqual(finding.untilSeconds, 5)
        XCTAssertEqual(finding.consequenceMetric, "playout_dropped_samples")
        let playout = report.pipeline.playout
        XCTAssertEqual(playout.read, 0)
        XCTAssertGreaterThan(playout.dropped, 0)
        XCTAssertEqual(finding.consequence, "the app pulled 0 of the \(playout.written) samples of the peer's audio the engine handed its "
                       + "custom speaker (0.0 %); \(playout.dropped) were dropped (\(playout.overruns) overruns): the peer was not played")
    }

    /// Each speaker is judged by its own counters over its own stretches: a working speaker
    /// followed by one never pulled is one finding, over the second's stretch; a speaker set for
    /// less than its timer's period (it pulls once, at once, and finds nothing yet) is none.
    func testEachSpeakerIsJudgedByItsOwnCounters() throws {
        let report = try report { call in
            let working = PassThroughSpeaker(call: call, putsReference: false)
            call.audioManager.setCustomSpeaker(working)
            working.start()
            try call.start()
            try call.run(for: .seconds(2))
            working.stop()
            let forgotten = PassThroughSpeaker(call: call, putsReference: false)
            call.audioManager.setCustomSpeaker(forgotten)
            try call.run(for: .seconds(3))
            var slowTimer = AppDeviceOptions()
            slowTimer.periodMilliseconds = 1000
            let brief = PassThroughSpeaker(call: call, putsReference: false, options: slowTimer)
            call.audioManager.setCustomSpeaker(brief)
            brief.start()
            try call.run(for: .milliseconds(950))
            brief.stop()
            call.audioManager.resetCustomSpeakerToDefaultSpeaker()
            try call.run(for: .milliseconds(50))
        }
        let findings = report.findings.filter { $0.rule == "custom-speaker-not-pulled" }
        XCTAssertEqual(findings.map { [$0.atSeconds, $0.untilSeconds] }, [[2, 5]])
        let forgottenPlayout = report.pipeline.speakerPlayouts[1]
        XCTAssertEqual(forgottenPlayout.read, 0)
        XCTAssertTrue(try XCTUnwrap(findings.first).consequence.hasPrefix("the app pulled 0 of the \(forgottenPlayout.written) samples"))
        XCTAssertEqual(report.pipeline.speakerPlayouts.count, 3)
        XCTAssertEqual(report.pipeline.speakerPlayouts[2].read, 0, "the brief speaker pulled nothing either, and is no finding")
    }

    func testASpeakerThatPullsIsNotFound() throws {
        let report = try report(starting: true)
        XCTAssertFalse(report.findings.contains { $0.rule == "custom-speaker-not-pulled" }, "\(report.findings.map(\.rule))")
        XCTAssertGreaterThan(report.pipeline.playout.read, report.pipeline.playout.written / 2)
    }
}
