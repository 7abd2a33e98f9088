import Foundation
import Evaluation
import Simulation
import XCTest

/// A custom speaker set without its playout started (the app forgot the timer that pulls it):
/// the peer is never played and the engine drops what it hands over, 400 overruns in 5 s, and
/// the run read only "the far end never reached the mic" — no finding named the app's mistake.
final class CustomSpeakerNotPulledTests: XCTestCase {
    private func report(starting: Bool) throws -> RunReport {
        let world = CallWorld(farEnd: .generator(.speechLike(levelDBFS: -20, pitchHz: 120), seed: 1),
                              echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -6))
        let call = try SimulatedCall(world: world, recordTaps: false)
        let meter = try CallMeter(call: call)
        let speaker = PassThroughSpeaker(call: call, putsReference: false)
        call.audioManager.setCustomSpeaker(speaker)
        if starting { speaker.start() }
        try call.start()
        try call.run(for: .seconds(5))
        speaker.stop()
        return try meter.finish(name: "speaker")
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

    func testASpeakerThatPullsIsNotFound() throws {
        let report = try report(starting: true)
        XCTAssertFalse(report.findings.contains { $0.rule == "custom-speaker-not-pulled" }, "\(report.findings.map(\.rule))")
        XCTAssertGreaterThan(report.pipeline.playout.read, report.pipeline.playout.written / 2)
    }
}
