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
        let meter = try CallMeter(call: call)
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
        XCTAssertThrowsError(try meter.finish()) { XCTAssertEqual($0 as? CallMeterError, .alreadyFinished) }
        // Every call has the gate's talk per half second: here far-end single talk throughout.
        XCTAssertEqual(report.activity.count, 6)
        XCTAssertEqual(report.activity.first?.startSeconds, 0)
        XCTAssertTrue(report.activity.allSatisfy { $0.frames > 0 && $0.farEndFrames == $0.frames && $0.nearEndFrames == 0 }, "\(report.activity)")
    }

    /// Misuse is an error to catch, never a trap that ends the app's test process: a meter
    /// attached once the call has ticked (it would miss the first samples), and a finish before
    /// any tick (a call not started, or run for no time: once it has run, the meter finishes it).
    func testAMeterAttachedLateOrFinishedBeforeATickThrows() throws {
        let world = CallWorld(farEnd: .generator(.whiteNoise(levelDBFS: -20), seed: 1), echoPath: EchoPathSettings(delayMilliseconds: 10, gainDB: -10))
        let late = try SimulatedCall(world: world, recordTaps: false)
        try late.start()
        try late.run(for: .milliseconds(30))
        XCTAssertThrowsError(try CallMeter(call: late)) { XCTAssertEqual($0 as? CallMeterError, .attachedAfterFirstTick(ticks: 3)) }

        let call = try SimulatedCall(world: world, recordTaps: false)
        let meter = try CallMeter(call: call)
        XCTAssertThrowsError(try meter.finish()) { XCTAssertEqual($0 as? CallMeterError, .nothingToMeasure) }
        try call.start()
        try call.run(for: .zero)
        XCTAssertThrowsError(try meter.finish()) { error in
            XCTAssertEqual("\(error)", "the call has not ticked: start() it and run(for:) at least 10 ms before finishing its meter")
        }
        try call.run(for: .seconds(1))
        let report = try meter.finish()
        XCTAssertEqual(report.durationSeconds, 1)
        XCTAssertEqual(try XCTUnwrap(report.metrics.erlDB), 10, accuracy: 0.1)
    }
}
