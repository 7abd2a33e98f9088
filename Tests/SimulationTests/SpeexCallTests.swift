import AudioCore
import VirtualTime
import XCTest
@testable import Simulation

final class SpeexCallTests: XCTestCase {
    /// The real speex canceller on a simulated call removes most of a pure-delay echo.
    func testSpeexCancelsEcho() throws {
        let scenario = Scenario(name: "aec", farEnd: .generator(.whiteNoise(levelDBFS: -20), seed: 1),
                                noise: NoiseSettings(levelDBFS: -70, seed: 2),
                                echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -6),
                                voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .intensityRecommended),
                                duration: .seconds(8))
        let run = try ScenarioRunner(scenario: scenario).run()
        let tail = (run.recording.mic.count - 48_000 * 3)..<run.recording.mic.count
        let erle = decibels(meanSquare(run.recording.mic[tail]) / meanSquare(run.recording.sent[tail]))
        XCTAssertGreaterThan(erle, 25)
    }

    func testSameScenarioIsBitIdentical() throws {
        let scenario = Scenario(name: "det", farEnd: .generator(.speechLike(levelDBFS: -20, pitchHz: 120), seed: 1),
                                nearEnd: .generator(.speechLike(levelDBFS: -26, pitchHz: 210), seed: 5),
                                noise: NoiseSettings(levelDBFS: -60, seed: 2),
                                echoPath: EchoPathSettings(delayMilliseconds: 30, gainDB: -3, impulseResponse: .synthetic(rt60Milliseconds: 200, seed: 4)),
                                voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .intensityAdaptive, noiseSuppressor: .enabled, autoGainControl: .software),
                                duration: .seconds(3))
        let a = try ScenarioRunner(scenario: scenario).run()
        let b = try ScenarioRunner(scenario: scenario).run()
        XCTAssertEqual(a.recording.sent, b.recording.sent)
        XCTAssertEqual(a.counters, b.counters)
    }
}
