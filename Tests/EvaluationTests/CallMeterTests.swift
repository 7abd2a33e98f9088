import Evaluation
import Simulation
import XCTest

/// A hand-driven call measured by `CallMeter`: the report names the modes the call ran with.
final class CallMeterTests: XCTestCase {
    /// Modes set after the meter is attached and before the call starts are the modes it starts
    /// with (the report once named the ones at attachment: speex while the call ran without AEC).
    func testTheReportNamesTheModesTheCallStartedWith() throws {
        let call = try SimulatedCall(world: CallWorld(farEnd: .generator(.whiteNoise(levelDBFS: -20), seed: 1),
                                                      echoPath: EchoPathSettings(delayMilliseconds: 10, gainDB: -10)),
                                     voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .intensityRecommended),
                                     recordTaps: false)
        let meter = CallMeter(call: call)
        try call.sendVoiceProcessor.setAcousticEchoCanceller(mode: .disabled)
        try call.start()
        try call.run(for: .seconds(2))
        try call.sendVoiceProcessor.setAcousticEchoCanceller(mode: .intensityRecommended)
        try call.run(for: .seconds(1))
        let report = try meter.finish()
        XCTAssertEqual(report.aecMode, "disabled")
        // Without a canceller the first two seconds keep all their echo.
        XCTAssertEqual(try XCTUnwrap(report.metrics.erlDB), 10, accuracy: 0.1)
        // The mode set before the start is the call's configuration; the one set mid-call, an event.
        XCTAssertEqual(report.events.filter { $0.kind == "aec" }.map { "\($0.frame) \($0.detail)" }, ["96000 mode intensityRecommended"])
        // A second finish is an error to catch, not a trap that ends the app's test process.
        XCTAssertThrowsError(try meter.finish()) { XCTAssertEqual("\($0)", "the call has ended: a call runs once, from start() to end()") }
        // Every call has the gate's talk per half second: here far-end single talk throughout.
        XCTAssertEqual(report.activity.count, 6)
        XCTAssertEqual(report.activity.first?.startSeconds, 0)
        XCTAssertTrue(report.activity.allSatisfy { $0.frames > 0 && $0.farEndFrames == $0.frames && $0.nearEndFrames == 0 }, "\(report.activity)")
    }
}
