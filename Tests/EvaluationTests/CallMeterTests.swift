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
                                     recordsTaps: false)
        let meter = try CallMeter(call: call)
        try call.sendVoiceProcessor.setAcousticEchoCanceller(mode: .disabled)
        try call.start()
        try call.run(for: .seconds(2))
        meter.beginSegment("set_aec intensityRecommended")
        try call.sendVoiceProcessor.setAcousticEchoCanceller(mode: .intensityRecommended)
        try call.run(for: .seconds(1))
        let report = try meter.finish()
        XCTAssertEqual(report.aecMode, "disabled")
        // The segment's label is a timeline event of the call, as a scenario's action is.
        XCTAssertEqual(report.events.filter { $0.kind == "timeline" }.map { "\($0.frame) \($0.detail)" }, ["96000 set_aec intensityRecommended"])
        XCTAssertEqual(report.segments.map(\.events), [[], ["set_aec intensityRecommended"]])
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
        let late = try SimulatedCall(world: world, recordsTaps: false)
        try late.start()
        try late.run(for: .milliseconds(30))
        XCTAssertThrowsError(try CallMeter(call: late)) { XCTAssertEqual($0 as? CallMeterError, .attachedAfterFirstTick(ticks: 3)) }

        let call = try SimulatedCall(world: world, recordsTaps: false)
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

    /// A route change through the meter is what a scenario's timeline makes of it: a `timeline`
    /// event and a segment per route, each with its own ERLE — the report `echolab run` writes of
    /// the same call (it had `segments: []` when applied to the hardware alone).
    func testARouteChangeThroughTheMeterIsTheTimelinesReport() throws {
        var session = HardwareConfiguration()
        session.route = .receiver
        var scenario = Scenario(name: "route", farEnd: .generator(.speechLike(levelDBFS: -20, pitchHz: 120), seed: 1),
                                noise: NoiseSettings(levelDBFS: -60, seed: 7),
                                voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .intensityRecommended),
                                duration: .seconds(6),
                                timeline: [TimelineEvent(at: .seconds(3), action: .hardware(.routeChange(.speaker)))])
        scenario.hardware = session
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("route-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try RunOutput(scenario: scenario, outputDirectory: folder, taps: .none, renderer: nil).run()

        let call = try SimulatedCall(world: CallWorld(farEnd: scenario.farEnd, noise: scenario.noise, echoPath: scenario.echoPath),
                                     voiceProcessing: scenario.voiceProcessing, recordsTaps: false)
        call.hardware = try CallHardware(configuration: session)
        let meter = try CallMeter(call: call)
        try call.start()
        try call.run(for: .seconds(3))
        try meter.apply(.routeChange(.speaker))
        try call.run(for: .seconds(3))
        let report = try meter.finish(name: "route")

        XCTAssertEqual(report.segments.count, 2)
        XCTAssertEqual(report.segments.map(\.events), run.segments.map(\.events))
        XCTAssertEqual(report.segments.map(\.startSeconds), [0, 3])
        XCTAssertEqual(report.segments.map(\.metrics.erleDB), run.segments.map(\.metrics.erleDB))
        XCTAssertNotNil(report.segments[1].metrics.erleDB)
        XCTAssertEqual(report.metrics.erleDB, run.metrics.erleDB)
        XCTAssertEqual(report.events.filter { $0.kind == "timeline" }.map(\.detail), [HardwareAction.routeChange(.speaker).description])
        // The same events in the same order: the action, then what the hardware logs of it (the
        // meter logged the route before the action).
        XCTAssertEqual(report.events.map { "\($0.frame) \($0.kind): \($0.detail)" }, run.events.map { "\($0.frame) \($0.kind): \($0.detail)" })

        // Without simulated hardware there is no route to change: an error to catch.
        let plain = try SimulatedCall(world: CallWorld(farEnd: scenario.farEnd), recordsTaps: false)
        let plainMeter = try CallMeter(call: plain)
        XCTAssertThrowsError(try plainMeter.apply(.routeChange(.speaker))) { error in
            XCTAssertEqual(error as? CallMeterError, .noHardware(action: HardwareAction.routeChange(.speaker).description))
        }
    }

    /// Hardware set on a call after its meter, before `start()`, is measured as set before it:
    /// the ticks say where the capture came through the device unbroken. Read when the meter was
    /// made, every tick was the room's, and the AEC-off route change's hole in what was sent (the
    /// new input stream priming) was taken for the room's own silence. The two reports agree to
    /// the byte, the wall time aside. (Since a priming is left out of the sent gaps as the
    /// restart's, that hole no longer tells the two apart: re-reading the hardware when the meter
    /// is made passes this test. It stays as the whole-report check that the order of set-up
    /// changes nothing.)
    func testHardwareSetAfterTheMeterIsMeasuredAsBefore() throws {
        var session = HardwareConfiguration()
        session.route = .receiver
        let world = CallWorld(farEnd: .generator(.speechLike(levelDBFS: -20, pitchHz: 120), seed: 1),
                              nearEnd: .generator(.speechLike(levelDBFS: -20, pitchHz: 210), seed: 2),
                              noise: NoiseSettings(levelDBFS: -60, seed: 7))
        func report(hardwareFirst: Bool) throws -> RunReport {
            let call = try SimulatedCall(world: world, voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .disabled), recordsTaps: false)
            if hardwareFirst { call.hardware = try CallHardware(configuration: session) }
            let meter = try CallMeter(call: call)
            if !hardwareFirst { call.hardware = try CallHardware(configuration: session) }
            try call.start()
            try call.run(for: .seconds(2))
            try meter.apply(.routeChange(.speaker))
            try call.run(for: .seconds(2))
            return try meter.finish(name: "late-hardware")
        }
        var before = try report(hardwareFirst: true), after = try report(hardwareFirst: false)
        XCTAssertEqual(before.captureRestarts.count, 1, "the route change made the input stream anew")
        before.wallSeconds = 0
        after.wallSeconds = 0
        XCTAssertEqual(after.json().canonicalText(), before.json().canonicalText())
    }
}
