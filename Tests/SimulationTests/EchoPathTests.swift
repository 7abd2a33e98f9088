import AudioCore
import AudioInterop
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

final class ImpulseResponseFileRateTests: XCTestCase {
    /// A 1 kHz tone's call through the response `file` at `delay` ms and `gainDB`, AEC off, and the
    /// echo's level under what was played over its last half second, in dB.
    private func toneThrough(_ file: String, delay: Double, gainDB: Double) throws -> (run: CallRun, db: Double) {
        let scenario = Scenario(name: "rir", farEnd: .generator(.tone(frequency: 1000, levelDBFS: -20), seed: 1),
                                echoPath: EchoPathSettings(delayMilliseconds: delay, gainDB: gainDB,
                                                           impulseResponse: .file(path: file, channel: .monoOnly)),
                                voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .disabled),
                                duration: .seconds(1))
        let run = try ScenarioRunner(scenario: scenario).run()
        let echo = run.recording.echo[24_000...].reduce(0.0) { $0 + Double($1) * Double($1) }
        let played = run.recording.played[24_000...].reduce(0.0) { $0 + Double($1) * Double($1) }
        return (run, 10 * log10(echo / played))
    }

    /// A response file is a filter: a single tap of 0.5 is −6 dB at any rate it was written at.
    /// Resampled as a signal it was not (a 16 kHz file at 48 kHz read up to 9.5 dB louder in
    /// band, a 96 kHz one 6 dB quieter). A 1 kHz tone lies in every rate's band, so its echo is exactly
    /// the tap's gain and the path's −8 dB.
    func testAResponseFileHasTheSameGainAtEveryRateItIsWrittenAt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("echolab-ir-rate-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for rate in [8_000, 16_000, 44_100, 48_000, 96_000] {
            var taps = [Float](repeating: 0, count: rate / 10)
            taps[rate / 100] = 0.5
            let file = "\(folder)/rir-\(rate).wav"
            try SoundFileWriter.write(taps, to: file, sampleRate: rate)
            XCTAssertEqual(try toneThrough(file, delay: 20, gainDB: -8).db, -14.02, accuracy: 0.05, "a response file at \(rate) Hz")
        }
    }

    /// A tap on a file's first sample (a room trimmed to its direct sound) keeps its gain at
    /// 48 kHz too, and its time: converted from the file's first sample, the tap's pulse lost its
    /// first half (a 16 kHz unit impulse at sample 0 read 3.6 dB weaker), and it rings on both
    /// sides of the bulk delay now. A bulk delay shorter than that ringing still keeps the gain.
    func testATapOnTheFilesFirstSampleKeepsItsGainAndTime() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("echolab-ir-first-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for rate in [16_000, 44_100] {
            var taps = [Float](repeating: 0, count: rate / 10)
            taps[0] = 1
            let file = "\(folder)/rir-\(rate).wav"
            try SoundFileWriter.write(taps, to: file, sampleRate: rate)
            for delay in [40.0, 1.0] {
                let (run, db) = try toneThrough(file, delay: delay, gainDB: 0)
                XCTAssertEqual(db, 0, accuracy: 0.05, "a \(rate) Hz file, bulk delay \(delay) ms")
                let played = run.recording.played[24_000...].reduce(0.0) { $0 + Double($1) * Double($1) }
                // The tone's echo is the played tone 40 ms later: the two line up sample for sample.
                if delay == 40 {
                    let lag = 1920
                    let error = (24_000..<40_000).reduce(0.0) { $0 + pow(Double(run.recording.echo[$1] - run.recording.played[$1 - lag]), 2) }
                    XCTAssertLessThan(10 * log10(error / played * Double(72_000) / Double(16_000)), -40, "a \(rate) Hz file: on time")
                }
            }
        }
        XCTAssertEqual(AudioFileStream.resamplingLead(from: 44_100, to: 48_000), 294)
        XCTAssertEqual(AudioFileStream.resamplingLead(from: 16_000, to: 48_000), 160)
        XCTAssertEqual(AudioFileStream.resamplingLead(from: 96_000, to: 48_000), 320, "lowering the rate, the filter reaches twice as far")
    }
}
