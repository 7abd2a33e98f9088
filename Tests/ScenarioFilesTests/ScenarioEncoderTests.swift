import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import ScenarioFiles
import Simulation
import XCTest

/// One typed scenario, one format: what `ScenarioEncoder` writes, `ScenarioLoader` reads back as
/// the same scenario, for every key the loader knows.
final class ScenarioEncoderTests: XCTestCase {
    private static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("vectors/scenarios")

    /// Encodes `scenario`, loads the text from a file in `folder`, and encodes that again.
    private func roundTrip(_ scenario: Scenario, in folder: URL) throws -> (String, Scenario) {
        let text = ScenarioEncoder.text(scenario, relativeTo: folder.path)
        let file = folder.appendingPathComponent("\(scenario.name).json").path
        let loaded = try ScenarioLoader.parse(data: Data(text.utf8), file: file)
        return (text, loaded)
    }

    func testEveryShippedScenarioEncodesToItsOwnFile() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.vectors.path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertEqual(files.count, 24)
        for name in files {
            let path = Self.vectors.appendingPathComponent(name).path
            let scenario = try ScenarioLoader.load(path: path)
            XCTAssertEqual(ScenarioEncoder.text(scenario, relativeTo: Self.vectors.path), try String(contentsOfFile: path, encoding: .utf8), name)
        }
    }

    func testEveryKeyRoundTrips() throws {
        let folder = try makeTemporaryDirectory(for: self)
        let stereo = folder.appendingPathComponent("stereo.wav").path
        let writer = try SoundFileWriter(path: stereo, sampleRate: 16_000, channelCount: 2)
        try writer.write([Float](repeating: 0.1, count: 3200), frames: 1600)
        try writer.finish()
        var options = AppDeviceOptions()
        options.periodMilliseconds = 50
        options.leewayMilliseconds = 3
        options.jitterMilliseconds = 1.25
        options.jitterSeed = 12
        options.sampleRate = 44_100
        options.channelCount = 2
        options.sampleType = .int16
        let scenario = Scenario(
            name: "every-key", farEnd: .file(path: stereo, channel: .channel(1)), nearEnd: .file(path: stereo, channel: .downmix),
            noise: NoiseSettings(levelDBFS: -61.5, seed: 3),
            echoPath: EchoPathSettings(delayMilliseconds: 12.345, gainDB: -7.25, impulseResponse: .synthetic(rt60Milliseconds: 333, seed: 4),
                                       clipDBFS: -2.5),
            voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .intensityMax, backend: .speex, filterMilliseconds: 150,
                                                     noiseSuppressor: .enabled, autoGainControl: .software),
            duration: .milliseconds(2500), mic: .generator(.tone(frequency: 997.5, levelDBFS: -30), seed: 8, options: options),
            speaker: .mixing(music: .generator(.musicLike(levelDBFS: -25), seed: 2), musicGainDB: -3, putsReference: true, options: options),
            isUserReferenceStarted: true,
            timeline: [
                TimelineEvent(at: .milliseconds(100), action: .setCustomMic(.file(.file(path: stereo, channel: .downmix), loops: true, options: options))),
                TimelineEvent(at: .milliseconds(200), action: .setCustomSpeaker(.recording(fileName: "peer.wav", options: options))),
                TimelineEvent(at: .milliseconds(300), action: .setCustomSpeaker(.passThrough(putsReference: false, options: AppDeviceOptions()))),
                TimelineEvent(at: .milliseconds(400), action: .setCustomMic(.passThrough(options: options))),
                TimelineEvent(at: .milliseconds(500), action: .setCustomMic(.generator(.speechLike(levelDBFS: -20, pitchHz: 180), seed: 0, options: options))),
                TimelineEvent(at: .milliseconds(600), action: .resetCustomMic),
                TimelineEvent(at: .milliseconds(700), action: .resetCustomSpeaker),
                TimelineEvent(at: .milliseconds(800), action: .setEchoCanceller(.intensityAdaptive)),
                TimelineEvent(at: .milliseconds(900), action: .setNoiseSuppressor(.disabled)),
                TimelineEvent(at: .milliseconds(1000), action: .setAutoGainControl(.disabled)),
                TimelineEvent(at: .milliseconds(1100), action: .stopUserReference),
                TimelineEvent(at: .milliseconds(1200), action: .startUserReference),
                TimelineEvent(at: .milliseconds(1300), action: .mute),
                TimelineEvent(at: .nanoseconds(1_400_500_000), action: .unmute),
            ])
        let (text, loaded) = try roundTrip(scenario, in: folder)
        XCTAssertEqual(loaded.farEnd, scenario.farEnd)
        XCTAssertEqual(loaded.nearEnd, scenario.nearEnd)
        XCTAssertEqual(loaded.noise, scenario.noise)
        XCTAssertEqual(loaded.echoPath, scenario.echoPath)
        XCTAssertEqual(loaded.voiceProcessing, scenario.voiceProcessing)
        XCTAssertEqual(loaded.duration, scenario.duration)
        XCTAssertEqual(loaded.mic, scenario.mic)
        XCTAssertEqual(loaded.speaker, scenario.speaker)
        XCTAssertEqual(loaded.isUserReferenceStarted, true)
        XCTAssertEqual(loaded.timeline, scenario.timeline)
        XCTAssertEqual(ScenarioEncoder.text(loaded, relativeTo: folder.path), text)
        // Paths inside the folder are written relative to it.
        XCTAssertTrue(text.contains("\"file\": \"stereo.wav\""), text)
        // Top-level keys `ScenarioLoader.topLevelKeys` lists (what tells a manifest from a
        // scenario; the loader checks the list against what it reads, in debug builds).
        XCTAssertTrue(Set(JSONValue.objectKeys(in: Array(text.utf8))).isSubset(of: ScenarioLoader.topLevelKeys))
    }
}

/// Seeds are UInt64: one past 9e15 (a JSON number is not exact in a double there, and the parser
/// says to give it as a string) is read from a string of digits and written back as one.
final class SeedKeyTests: XCTestCase {
    private func load(_ noise: String) throws -> Scenario {
        try ScenarioLoader.parse(data: Data(#"{"name": "s", "duration_s": 1, "noise": \#(noise)}"#.utf8), file: "s.json")
    }

    private func problem(_ noise: String) -> String {
        do {
            _ = try load(noise)
            return "loaded"
        } catch {
            return "\(error)"
        }
    }

    func testASeedPastADoublesReachIsAString() throws {
        XCTAssertEqual(try load(#"{"seed": 7}"#).noise?.seed, 7)
        let largest = try load(#"{"seed": "18446744073709551615"}"#)
        XCTAssertEqual(largest.noise?.seed, .max)
        let folder = try makeTemporaryDirectory(for: self)
        let text = ScenarioEncoder.text(largest, relativeTo: folder.path)
        XCTAssertTrue(text.contains(#""seed": "18446744073709551615""#), text)
        XCTAssertEqual(try ScenarioLoader.parse(data: Data(text.utf8), file: "s.json").noise?.seed, .max)
        XCTAssertTrue(ScenarioEncoder.text(try load(#"{"seed": 7}"#), relativeTo: folder.path).contains(#""seed": 7"#))
    }

    func testASeedThatIsNotOneIsNamed() {
        XCTAssertEqual(problem(#"{"seed": 9223372036854775808}"#),
                       "s.json: noise.seed: 9.223372036854776e+18 is too large to be read exactly as a number: give a seed from 9e15 on as a string of digits")
        XCTAssertEqual(problem(#"{"seed": -1}"#), "s.json: noise.seed: -1 is negative: a seed is a whole number 0…18446744073709551615")
        XCTAssertEqual(problem(#"{"seed": "12a"}"#),
                       #"s.json: noise.seed: "12a" is not a seed (a whole number 0…18446744073709551615, as a string past 9e15)"#)
        XCTAssertEqual(problem(#"{"seed": "18446744073709551616"}"#),
                       #"s.json: noise.seed: "18446744073709551616" is not a seed (a whole number 0…18446744073709551615, as a string past 9e15)"#)
        XCTAssertEqual(problem(#"{"seed": true}"#), "s.json: noise.seed: expected a whole number (or a string of digits), found a boolean")
    }
}
