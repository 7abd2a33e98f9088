import AudioCore
import ScenarioFiles
import VirtualTime
import XCTest
@testable import Simulation

/// Compares what the call sends with the near-end talker's own signal, `lag` samples earlier.
final class SentVersusSourceTap: CallTap {
    private var source: SignalGenerator
    private var ring: [Float]
    private var block: [Float]
    private var written = 0
    let lag: Int
    let skip: Int64
    private(set) var errorEnergy = 0.0
    private(set) var sourceEnergy = 0.0

    init(kind: SignalKind, seed: UInt64, lag: Int, skip: Int64) {
        source = SignalGenerator(kind: kind, sampleRate: 48_000, seed: seed)
        ring = [Float](repeating: 0, count: lag + 480)
        block = [Float](repeating: 0, count: 480)
        self.lag = lag
        self.skip = skip
    }

    func record(_ tick: TickSignals) throws {
        source.fill(&block, count: tick.count)
        for i in 0..<tick.count {
            ring[written % ring.count] = block[i]
            let n = written - lag
            if tick.frame + Int64(i) >= skip && n >= 0 {
                let expected = Double(ring[n % ring.count])
                let error = Double(tick.sent[i]) - expected
                errorEnergy += error * error
                sourceEnergy += expected * expected
            }
            written += 1
        }
    }

    var errorDB: Double { 10 * log10(errorEnergy / sourceEnergy) }
}

final class HardwareIOTests: XCTestCase {
    private func configuration(rate: Int, duration: Double, drift: Double = 0) -> HardwareConfiguration {
        var configuration = HardwareConfiguration()
        configuration.preferences = AudioPreferences(sampleRate: rate, ioBufferDurationSeconds: duration)
        configuration.clockDriftPPM = drift
        return configuration
    }

    /// A 44.1 kHz device with 5 ms buffers (granted 256 frames, 5.8 ms) against the 48 kHz
    /// engine, in a one-minute call: every sample accounted for, the documented latency, and the
    /// sent audio equal to the near end after the round trip through the converters.
    func testFortyFourKilohertzDeviceInACall() throws {
        let near = SignalKind.musicLike(levelDBFS: -20)
        let call = try SimulatedCall(world: CallWorld(nearEnd: .generator(near, seed: 5)),
                                     voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .disabled), recordsTaps: false)
        let hardware = try CallHardware(configuration: configuration(rate: 44_100, duration: 0.005))
        call.hardware = hardware
        XCTAssertEqual(hardware.inputFormat, HardwareFormat(sampleRate: 44_100, ioBufferFrames: 256))
        // The documented rule: the engine reads once it holds one tick (480) + one I/O buffer at
        // 48 kHz (279) + 32 frames of converter look-ahead = 791 frames; a 5.8 ms device delivers
        // that by the end of the second tick, so the first real tick is tick 1: 10 ms per way.
        let tap = SentVersusSourceTap(kind: near, seed: 5, lag: 480, skip: 48_000)
        call.taps = [tap]
        try call.start()
        try call.run(for: .seconds(60))
        let report = hardware.report(endFrame: call.tickCount * 480)
        let (output, mic) = hardware.streams
        XCTAssertEqual(mic.latencyFrames, 480)
        XCTAssertEqual(output.latencyFrames, 480)
        XCTAssertEqual(report.addedLatencyFrames, 960)     // 20 ms in all
        // Conservation: 172.8 M engine frames in; the device made 44.1/48 of them (less what the
        // converter still holds), every full buffer was one callback, and what came back is read,
        // buffered, or held by the converters — nothing dropped, no underrun.
        let hour: Int64 = 60 * 48_000
        XCTAssertEqual(mic.framesIn, hour)
        XCTAssertEqual(Double(mic.deviceFrames), Double(hour) * 44_100 / 48_000, accuracy: 64)
        XCTAssertEqual(mic.callbacks, mic.deviceFrames / 256)
        XCTAssertEqual(mic.callbacks * 256 + Int64(mic.bufferedDeviceFrames), mic.deviceFrames)
        XCTAssertEqual(mic.framesOut + mic.silentFrames, hour)
        XCTAssertEqual(mic.silentFrames, 480)
        XCTAssertEqual(mic.underruns, 0)
        XCTAssertEqual(mic.droppedFrames, 0)
        let inFlight = Double(mic.bufferedEngineFrames) + Double(mic.bufferedDeviceFrames) * 48_000 / 44_100
        XCTAssertEqual(Double(mic.framesOut) + inFlight, Double(hour), accuracy: 128)
        XCTAssertEqual(report.underruns, 0)
        XCTAssertEqual(report.droppedFrames, 0)
        // Sent = near end 10 ms earlier, after 48 → 44.1 → 48 kHz, within −50 dB (AEC off).
        print("hardware 44.1 kHz / 256: sent vs near-end error \(tap.errorDB) dB, callbacks \(mic.callbacks)")
        XCTAssertLessThan(tap.errorDB, -50)
        _ = call.end()
    }

    /// A device at the engine's own format only rebuffers: 480-frame ticks from 512-frame
    /// buffers, bit-exact samples.
    func testEngineFormatDeviceOnlyRebuffers() throws {
        let stream = try HardwareStream(format: HardwareFormat(sampleRate: 48_000, ioBufferFrames: 512))
        var input = [Float](repeating: 0, count: 480), output = input
        var produced: [Float] = []
        for tick in 0..<100 {
            for i in 0..<480 { input[i] = Float(tick * 480 + i) }
            try stream.process(input, into: &output, count: 480)
            produced += output
        }
        // 480 + 512 = 992 needed: by the end of tick 2 (1440 in, 1024 delivered): 2 ticks of silence.
        XCTAssertEqual(stream.latencyFrames, 960)
        for n in 960..<produced.count { XCTAssertEqual(produced[n], Float(n - 960)) }
        XCTAssertEqual(stream.underruns, 0)
    }

    /// Without hardware keys the call is unchanged; with them the granted format and latency
    /// show up in the run.
    func testScenarioKeysReachTheRun() throws {
        let json = """
        {"name": "hw", "duration_s": 1, "far_end": {"generator": "speech", "level_dbfs": -20},
         "audio_session": {"preferred_sample_rate": 44100, "preferred_io_buffer_duration_s": 0.005},
         "route": "speaker"}
        """
        let scenario = try ScenarioLoader.parse(data: Data(json.utf8), file: "/tmp/hw.json")
        XCTAssertEqual(scenario.hardware?.route, .speaker)
        let run = try ScenarioRunner(scenario: scenario).run()
        let report = try XCTUnwrap(run.hardware)
        XCTAssertEqual(report.input, HardwareFormat(sampleRate: 44_100, ioBufferFrames: 256))
        XCTAssertEqual(report.addedLatencyFrames, 960)
        XCTAssertEqual(report.segments.map(\.route), ["speaker"])
        let plain = try ScenarioLoader.parse(data: Data(#"{"name": "plain", "duration_s": 1}"#.utf8), file: "/tmp/p.json")
        XCTAssertNil(plain.hardware)
    }
}
