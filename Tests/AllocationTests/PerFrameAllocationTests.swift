import AllocationCounter
import AudioCore
import AudioInterop
import EchoCancellation
import Evaluation
import Foundation
import ScenarioFiles
import XCTest
@testable import Simulation

/// Per-frame code allocates nothing (the project's rule, and what `EchoControl` and the devices
/// promise): each canceller as the pipeline drives it, and the simulation's per-tick parts, are
/// run past their warm-up and then counted while they process frames — the C libraries' own
/// allocations included, since the counter stands in for the C library's allocator
/// (Tests/AllocationCounter).
final class PerFrameAllocationTests: XCTestCase {
    static let rate = 48_000, frame = 480

    /// Heap allocations the calling thread makes in `body`.
    private func allocations(_ body: () throws -> Void) rethrows -> Int {
        echolab_allocations_begin()
        defer { _ = echolab_allocations_end() }
        try body()
        return echolab_allocations_end()
    }

    /// The counter sees what it must: an array made in the counted stretch is one allocation, and a C
    /// library's allocations are counted too.
    func testTheCounterCountsAnAllocation() throws {
        var made: [Float] = []
        // Once before counting: the first array of a process also sets up what every later one
        // shares (2 allocations where this test runs alone, under `swift test --parallel`).
        made = [Float](repeating: 1, count: Int.random(in: 100...200))
        let counted = allocations { made = [Float](repeating: 1, count: Int.random(in: 100...200)) }
        XCTAssertEqual(counted, 1)
        XCTAssertGreaterThanOrEqual(made.count, 100)
        XCTAssertEqual(allocations {}, 0)
        // A C library's own: speexdsp's state is allocated by speexdsp.
        var control: EchoControl?
        let created = try allocations {
            control = try EchoControlFactory.make(EchoControlMode(backend: .speex, intensity: .intensityRecommended), sampleRate: Self.rate,
                                                  frameSize: Self.frame)
        }
        XCTAssertNotNil(control)
        XCTAssertGreaterThan(created, 10, "speexdsp's echo state and preprocessor are many allocations")
    }

    /// A speech-like far end and its echo 40 ms later, 6 dB down, with a near talker from 3 s:
    /// the cancellers adapt, detect double talk and suppress while they are counted.
    private static func signals(seconds: Int) -> (far: [Float], mic: [Float]) {
        let count = rate * seconds, delay = rate * 40 / 1000
        let far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 140), sampleRate: rate, count: count, seed: 3)
        let near = SignalGenerator.render(.speechLike(levelDBFS: -26, pitchHz: 210), sampleRate: rate, count: count, seed: 5)
        let noise = SignalGenerator.render(.whiteNoise(levelDBFS: -70), sampleRate: rate, count: count, seed: 4)
        let mic = (0..<count).map { i in
            (i >= delay ? far[i - delay] * 0.5 : 0) + noise[i] + (i >= 3 * rate ? near[i] : 0)
        }
        return (far, mic)
    }

    func testEveryBackendProcessesAFrameWithoutAllocating() throws {
        let (far, mic) = Self.signals(seconds: 5)
        var render = [Float](repeating: 0, count: Self.frame), capture = render, output = render
        let backends: [EchoCancellerBackend] = [.speex, .webrtc, .webrtcMobile, .aec3, .echolab]
        for backend in backends {
            for intensity in [EchoCancellerMode.intensityRecommended, .intensityAdaptive] {
                let mode = EchoControlMode(backend: backend, intensity: intensity)
                let control = try XCTUnwrap(EchoControlFactory.make(mode, sampleRate: Self.rate, frameSize: Self.frame))
                func process(frame index: Int) throws {
                    let start = index * Self.frame
                    for i in 0..<Self.frame { render[i] = far[start + i]; capture[i] = mic[start + i] }
                    try control.analyzeRender(render)
                    try control.processCapture(capture, into: &output)
                }
                // The first two seconds are its warm-up: buffers that grow to their size once.
                for index in 0..<200 { try process(frame: index) }
                // Far-end single talk, then the talker's onset and double talk.
                let counted = try allocations { for index in 200..<far.count / Self.frame { try process(frame: index) } }
                XCTAssertEqual(counted, 0, "\(mode): \(counted) allocations in \(far.count / Self.frame - 200) frames")
            }
        }
    }

    /// A whole simulated call's ticks — the far and near ends, the room's reverberant echo path,
    /// the mic's noise, the devices, the send voice processor and the echo metrics a `CallMeter`
    /// takes of each tick — once the metrics' delay estimate has warmed up: its first seconds of
    /// far-end audio make its history and its transforms' plans (FFTW's planner allocates
    /// thousands of times, once per size in the process), and from then on nothing is allocated.
    func testAMeasuredCallTicksWithoutAllocating() throws {
        let world = CallWorld(farEnd: .generator(.speechLike(levelDBFS: -20, pitchHz: 120), seed: 1),
                              nearEnd: .generator(.speechLike(levelDBFS: -26, pitchHz: 210), seed: 2),
                              noise: NoiseSettings(levelDBFS: -70, seed: 3),
                              echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -6,
                                                         impulseResponse: .synthetic(rt60Milliseconds: 300, seed: 4)))
        for backend in [EchoCancellerBackend.speex, .echolab] {
            let call = try SimulatedCall(world: world, voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .intensityRecommended,
                                                                                                backend: backend),
                                         recordsTaps: false)
            let meter = try CallMeter(call: call)
            let warmUp = try allocations {
                try call.start()
                try call.run(for: .seconds(7))
            }
            XCTAssertGreaterThan(warmUp, 0, "the counter sees the warm-up's allocations")
            let counted = try allocations { try call.run(for: .seconds(20)) }
            XCTAssertEqual(counted, 0, "\(backend): \(counted) allocations in 2000 ticks")
            let report = try meter.finish()
            XCTAssertGreaterThan(try XCTUnwrap(report.metrics.erleDB), 10, "\(backend): the metrics measured a canceller at work")
        }
    }

    /// Counts what the call's thread allocates from one of its ticks to the next, over the ticks
    /// from `firstTick` to `lastTick` (the call itself, not its set-up or its end).
    private final class TickAllocations: CallTap {
        let firstTick: Int64, lastTick: Int64
        private(set) var count = 0
        private var tick: Int64 = 0

        init(firstTick: Int64, lastTick: Int64) {
            self.firstTick = firstTick
            self.lastTick = lastTick
        }

        func record(_ signals: TickSignals) throws {
            if tick > firstTick && tick <= lastTick { count += echolab_allocations_end() }
            if tick >= firstTick && tick < lastTick { echolab_allocations_begin() }
            tick += 1
        }
    }

    /// A call on a Bluetooth hands-free route (16 kHz: resampled both ways) whose clock drifts,
    /// changing mid-call to a 44.1 kHz one: the hardware streams and their rate conversions.
    func testACallOnADriftingRouteOfAnotherRateTicksWithoutAllocating() throws {
        let scenario = try ScenarioLoader.parse(data: Data("""
            {"name": "route", "duration_s": 6, "far_end": {"generator": "speech", "level_dbfs": -20, "pitch_hz": 120, "seed": 3},
             "near_end": {"generator": "speech", "level_dbfs": -26, "pitch_hz": 210, "seed": 4},
             "aec": {"mode": "intensityRecommended", "backend": "speex"}, "route": "bluetooth_hfp", "clock_drift_ppm": 50,
             "timeline": [{"at_ms": 3000, "action": "route_change", "route": "wired_headset"}]}
            """.utf8), file: "/tmp/route.json")
        var runner = ScenarioRunner(scenario: scenario)
        runner.recordsTaps = false
        func allocations(fromTick first: Int64, to last: Int64) throws -> Int {
            let counter = TickAllocations(firstTick: first, lastTick: last)
            runner.taps = [counter]
            XCTAssertEqual(try runner.run().hardware?.segments.count, 2)
            return counter.count
        }
        // From 1 s to 2.9 s, and from 3.5 s to the last tick; the route change itself sets up the
        // new route's streams, once (which also shows the counter counting through the tap).
        XCTAssertEqual(try allocations(fromTick: 100, to: 290), 0)
        XCTAssertEqual(try allocations(fromTick: 350, to: 599), 0)
        XCTAssertGreaterThan(try allocations(fromTick: 290, to: 310), 0)
    }

    /// An interruption stops the audio for a second: the ticks that stop it and those it holds
    /// count silenced samples and open no storage of their own (the causes' counters and the
    /// issues had grown their dictionaries there, on the first interruption however late).
    func testAnInterruptionTicksWithoutAllocating() throws {
        let scenario = try ScenarioLoader.parse(data: Data("""
            {"name": "interrupted", "duration_s": 4, "far_end": {"generator": "speech", "level_dbfs": -20, "pitch_hz": 120, "seed": 3},
             "near_end": {"generator": "speech", "level_dbfs": -26, "pitch_hz": 210, "seed": 4},
             "aec": {"mode": "intensityRecommended", "backend": "speex"}, "route": "speaker", "audio_session": {},
             "timeline": [{"at_ms": 2000, "action": "interruption_begin"}, {"at_ms": 3000, "action": "interruption_end"}]}
            """.utf8), file: "/tmp/interrupted.json")
        var runner = ScenarioRunner(scenario: scenario)
        runner.recordsTaps = false
        func allocations(fromTick first: Int64, to last: Int64) throws -> Int {
            let counter = TickAllocations(firstTick: first, lastTick: last)
            runner.taps = [counter]
            XCTAssertEqual(try runner.run().hardware?.session.captureSilenced[.interrupted], 48_000)
            return counter.count
        }
        // Before it (the first run of a process also warms its lazy statics)…
        XCTAssertEqual(try allocations(fromTick: 100, to: 198), 0)
        // …and from the tick before the interruption to the last it holds: the event's log line,
        // once (the counters and issues grew their storage there too: 4 allocations).
        XCTAssertLessThanOrEqual(try allocations(fromTick: 199, to: 299), 1)
    }

    /// The app's own devices: a custom mic that captures the physical mic and pushes it, and a
    /// custom speaker that plays the peer itself and feeds the canceller its reference, with
    /// the echolab canceller — the buffering, conversion and timers between app and engine.
    func testACallThroughCustomDevicesTicksWithoutAllocating() throws {
        let scenario = try ScenarioLoader.parse(data: Data("""
            {"name": "custom", "duration_s": 5, "far_end": {"generator": "speech", "level_dbfs": -20, "pitch_hz": 120, "seed": 3},
             "near_end": {"generator": "speech", "level_dbfs": -26, "pitch_hz": 210, "seed": 4},
             "echo_path": {"delay_ms": 40, "gain_db": -6}, "aec": {"mode": "intensityRecommended", "backend": "echolab"},
             "mic": {"device": "passthrough"}, "speaker": {"device": "passthrough"}}
            """.utf8), file: "/tmp/custom.json")
        var runner = ScenarioRunner(scenario: scenario)
        runner.recordsTaps = false
        let counter = TickAllocations(firstTick: 100, lastTick: 499)
        runner.taps = [counter]
        _ = try runner.run()
        XCTAssertEqual(counter.count, 0)
    }
}
