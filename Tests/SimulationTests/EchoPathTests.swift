import AudioCore
import VirtualTime
import XCTest
@testable import Simulation

final class EchoPathTests: XCTestCase {
    /// A pure delay and gain: the echo is exactly the far end shifted and scaled.
    func testPureDelayAndGainIsExact() throws {
        let scenario = Scenario(name: "delay", farEnd: .generator(.whiteNoise(levelDBFS: -20), seed: 1),
                                echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -6),
                                voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .disabled),
                                duration: .seconds(2))
        let run = try ScenarioRunner(scenario: scenario).run()
        let delay = 1920
        let gain = Float(Decibels.amplitude(fromDB: -6))
        XCTAssertEqual(run.recording.echo.count, 96_000)
        for i in stride(from: 0, to: 96_000 - delay, by: 97) {
            XCTAssertEqual(run.recording.echo[i + delay], run.recording.played[i] * gain, accuracy: 1e-7)
        }
        XCTAssertTrue(run.recording.echo[0..<delay].allSatisfy { $0 == 0 })
        // No AEC: what is sent is the mic.
        XCTAssertEqual(run.recording.sent, run.recording.mic)
        XCTAssertEqual(run.counters.ticks, 200)
    }

    /// Partitioned convolution equals direct convolution.
    func testRoomResponseMatchesDirectConvolution() {
        let response = SyntheticRoom.impulseResponse(rt60Milliseconds: 50, sampleRate: 48_000, seed: 3)
        let path = AcousticEchoPath(blockSize: 480, delayFrames: 0, gain: 1, impulseResponse: response, clipLevel: nil)
        let input = SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: 48_000, count: 4800, seed: 2)
        var output = [Float]()
        var block = [Float](repeating: 0, count: 480)
        for start in stride(from: 0, to: 4800, by: 480) {
            path.process(Array(input[start..<start + 480]), into: &block)
            output += block
        }
        for n in stride(from: 0, to: 4800, by: 53) {
            var expected: Double = 0
            for k in 0..<min(response.count, n + 1) { expected += Double(response[k]) * Double(input[n - k]) }
            XCTAssertEqual(Double(output[n]), expected, accuracy: 1e-4, "sample \(n)")
        }
        // Unit energy.
        XCTAssertEqual(response.reduce(0.0) { $0 + Double($1 * $1) }, 1, accuracy: 1e-4)
    }

    func testClippingLimitsTheDrive() {
        let path = AcousticEchoPath(blockSize: 480, delayFrames: 0, gain: 1, impulseResponse: nil, clipLevel: 0.5)
        let input = SignalGenerator.render(.tone(frequency: 100, levelDBFS: -3), sampleRate: 48_000, count: 480, seed: 0)
        var out = [Float](repeating: 0, count: 480)
        path.process(input, into: &out)
        XCTAssertEqual(out.max()!, 0.5, accuracy: 1e-6)
        XCTAssertEqual(out.min()!, -0.5, accuracy: 1e-6)
    }
}
