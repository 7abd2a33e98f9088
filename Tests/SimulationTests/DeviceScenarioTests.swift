import AudioCore
import AudioInterop
import Foundation
import ScenarioFiles
import VirtualTime
import XCTest
@testable import Simulation

/// Custom devices driven by a scenario file's timeline, through `ScenarioLoader.parse`.
final class DeviceScenarioTests: XCTestCase {
    private func parse(_ json: String, in folder: URL, name: String = "scenario.json") throws -> Scenario {
        let path = folder.appendingPathComponent(name).path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return try ScenarioLoader.parse(data: Data(json.utf8), file: path)
    }

    /// A looping file mic plays its file without a break or a click at each restart:
    /// - 200 ms at 48 kHz, ten 960-frame pushes: each pass ends exactly on a push, so the next
    ///   push read nothing from the file, which ended the loop (silence after the first pass);
    /// - 20 ms at 16 kHz, resampled: each pass was converted on its own (the converter flushed
    ///   at its end, primed from silence at its start), a click every 20 ms; the stream now
    ///   restarts the file before the converter.
    /// Both tones hold whole cycles, so the looped signal is one steady tone: no sample may step
    /// further than the tone's steepest slope. `eval`'s decoded cache gives the same bytes.
    func testALoopingFileJoinsItsPassesSeamlessly() throws {
        let folder = try makeTemporaryDirectory()
        let cases = [(name: "exact48k", rate: 48_000, frames: 9_600, frequency: 440.0),
                     (name: "short16k", rate: 16_000, frames: 320, frequency: 400.0)]
        for file in cases {
            let amplitude: Float = 0.25
            let tone = (0..<file.frames).map { amplitude * Float(cos(2 * Double.pi * file.frequency * Double($0) / Double(file.rate))) }
            try writeWAV(tone, in: folder, "\(file.name).wav", rate: file.rate)
            let scenario = try parse("""
            {"name": "\(file.name)", "duration_s": 2, "aec": {"mode": "disabled"},
             "timeline": [{"at_ms": 0, "action": "set_custom_mic", "device": "file", "file": "\(file.name).wav", "loop": true}]}
            """, in: folder, name: "\(file.name).json")
            let streamed = try ScenarioRunner(scenario: scenario, outputDirectory: folder.appendingPathComponent("\(file.name)-streamed").path).run()
            let cached = try ScenarioRunner(scenario: scenario, outputDirectory: folder.appendingPathComponent("\(file.name)-cached").path,
                                            decodedAudio: DecodedAudioCache(budgetBytes: 8 << 20)).run()
            let sent = streamed.recording.sent
            XCTAssertEqual(sent.count, 96_000)
            // With eval's decoded cache on, a looping file is still streamed: the same bytes.
            XCTAssertEqual(sent, cached.recording.sent, "\(file.name): eval's bytes are run's")
            // From the second pass on (the first push is sent 20–40 ms in).
            let steady = (100 * 48)..<sent.count
            let steepest = amplitude * Float(2 * Double.pi * file.frequency / 48_000)
            var largestStep: Float = 0
            for i in steady.dropLast() { largestStep = max(largestStep, abs(sent[i + 1] - sent[i])) }
            XCTAssertLessThan(largestStep, steepest * 1.05, "\(file.name): a click where the file restarts")
            XCTAssertGreaterThan(goertzelShare(sent, in: steady, frequency: file.frequency), 0.999, file.name)
            XCTAssertLessThan(longestZeroRun(sent, in: steady).length, 8, "\(file.name): silence")
        }
    }

    /// A timeline that sets one custom mic over another (a file mic playing a tone, then a
    /// generator mic with the same tone): the old mic goes on pushing until the engine has
    /// switched, so the switch is make-before-break for the scenario's app too. The runner
    /// stopped the old mic first, as for a reset: it ran dry under the switch, the uplink counted
    /// an underrun and the sent tone dropped to 0 for the crossfade (a 29.5 dB click). The file
    /// mic is named as one in the events, whatever it plays.
    func testACustomToCustomSwitchInATimelineRunsNothingDry() throws {
        let folder = try makeTemporaryDirectory()
        let scenario = try parse("""
            {"name": "tone-switch", "duration_s": 3, "aec": {"mode": "disabled"},
             "timeline": [{"at_ms": 1000, "action": "set_custom_mic", "device": "file",
                           "file": {"generator": "tone", "frequency_hz": 500, "level_dbfs": -20}},
                          {"at_ms": 2000, "action": "set_custom_mic", "device": "generator", "signal": "tone",
                           "frequency_hz": 500, "level_dbfs": -20}]}
            """, in: folder)
        let run = try ScenarioRunner(scenario: scenario, outputDirectory: folder.appendingPathComponent("out").path).run()
        XCTAssertEqual(run.counters.uplink.underruns, 0)
        XCTAssertTrue(run.counters.uplink.isConserved)
        let switched = run.events.filter { $0.kind == "capture" }.map(\.detail)
        XCTAssertEqual(switched, ["switched from default mic to file microphone", "switched from file microphone to generator microphone"])
        // Around the second switch (2.02 s), the sent tone never drops out: at a 500 Hz zero
        // crossing it read 0, 0 where the tone steps by 0.009.
        let sent = run.recording.sent
        XCTAssertLessThan(longestZeroRun(sent, in: 96_000..<100_000).length, 2)
        XCTAssertGreaterThan(goertzelShare(sent, in: 92_000..<96_000, frequency: 500), 0.99)

        // From a pass-through mic (the app pushing the microphone) the same: it read an underrun,
        // two clicks and a gap.
        let passThrough = try parse("""
            {"name": "pass-through-switch", "duration_s": 3, "aec": {"mode": "disabled"},
             "near_end": {"generator": "tone", "frequency_hz": 317, "level_dbfs": -20},
             "timeline": [{"at_ms": 1000, "action": "set_custom_mic", "device": "passthrough"},
                          {"at_ms": 2000, "action": "set_custom_mic", "device": "generator", "signal": "tone",
                           "frequency_hz": 500, "level_dbfs": -20}]}
            """, in: folder, name: "pass-through.json")
        let handed = try ScenarioRunner(scenario: passThrough, outputDirectory: folder.appendingPathComponent("out-pt").path).run()
        XCTAssertEqual(handed.counters.uplink.underruns, 0)
        XCTAssertTrue(handed.counters.uplink.isConserved)
        XCTAssertLessThan(longestZeroRun(handed.recording.sent, in: 96_000..<100_000).length, 2)
    }


    /// A switch *to* a pass-through mic, from a generator mic and from the default mic, is
    /// make-before-break too: the microphone it forwards hands out nothing until it has audio,
    /// so the engine keeps the old source until then. It handed out its wait as silence, and
    /// the engine switched to that: 20 ms of digital silence in sent (a gap, with AEC off; a
    /// smeared dip with AEC on), at every such switch. Its latency is what it was: the near end
    /// in sent 50 ms after the room (`NearEndAlignmentTests`).
    func testASwitchToAPassThroughMicSendsNoSilence() throws {
        let folder = try makeTemporaryDirectory()
        // The last one at 44.1 kHz, 16-bit stereo, with a jittery timer, as `passthrough-jittery`'s app
        // pushes: its first pull used more than a burst, and a timer 2 ms early ran dry (7 ms of silence).
        let resampled = #", "sample_rate": 44100, "sample_type": "int16", "channels": 2, "jitter_ms": 2, "jitter_seed": 9"#
        for (name, before, options) in [("from-generator", #", "mic": {"device": "generator", "signal": "tone", "frequency_hz": 500, "level_dbfs": -20}"#, ""),
                                        ("from-default", "", ""),
                                        ("from-generator-44k", #", "mic": {"device": "generator", "signal": "tone", "frequency_hz": 500, "level_dbfs": -20}"#, resampled)] {
            let scenario = try parse("""
                {"name": "\(name)", "duration_s": 3, "aec": {"mode": "disabled"},
                 "near_end": {"generator": "tone", "frequency_hz": 317, "level_dbfs": -20}\(before),
                 "timeline": [{"at_ms": 1000, "action": "set_custom_mic", "device": "passthrough"\(options)}]}
                """, in: folder, name: "\(name).json")
            let run = try ScenarioRunner(scenario: scenario, outputDirectory: folder.appendingPathComponent(name).path).run()
            XCTAssertEqual(run.counters.uplink.underruns, 0, name)
            XCTAssertTrue(run.counters.uplink.isConserved, name)
            XCTAssertEqual(run.events.filter { $0.kind == "capture" }.last?.detail.hasSuffix("to pass-through microphone"), true, name)
            // From the switch's request to well after it (the engine switches some 60 ms in).
            XCTAssertLessThan(longestZeroRun(run.recording.sent, in: 48_000..<60_000).length, 2, "\(name): silence in sent")
            XCTAssertLessThan(longestZeroRun(run.recording.mic, in: 48_000..<60_000).length, 2, "\(name): silence at the send path's input")
            XCTAssertLessThan(longestZeroRun(run.recording.sent, in: 60_000..<144_000).length, 2, "\(name): silence in sent, after")
            XCTAssertGreaterThan(goertzelShare(run.recording.sent, in: 72_000..<96_000, frequency: 317), 0.99, "\(name): the room, after")
        }
    }

    /// The longest period a scenario allows (990 ms) delivers, at another rate too: the device
    /// microphone holds a burst and the reserve, and the engine's input buffer a burst and a tick.
    /// A 1000 ms mic never pushed anything, and is refused.
    func testAPassThroughMicOfTheLongestPeriodDelivers() throws {
        let folder = try makeTemporaryDirectory()
        let scenario = try parse("""
            {"name": "long-period", "duration_s": 6, "aec": {"mode": "disabled"},
             "near_end": {"generator": "tone", "frequency_hz": 317, "level_dbfs": -20},
             "mic": {"device": "passthrough", "period_ms": 990, "sample_rate": 44100}}
            """, in: folder)
        let run = try ScenarioRunner(scenario: scenario, outputDirectory: folder.appendingPathComponent("out").path).run()
        XCTAssertGreaterThan(goertzelShare(run.recording.sent, in: 192_000..<240_000, frequency: 317), 0.99, "the room reaches sent")
        XCTAssertThrowsError(try parse(#"{"name": "too-long", "mic": {"device": "passthrough", "period_ms": 1000}}"#, in: folder, name: "too-long.json"))
    }

    func testTimelineWithFileMicAECRecordingAndMute() throws {
        let folder = try makeTemporaryDirectory()
        try writeWAV(SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: 48_000, count: 48_000 * 4, seed: 1), in: folder, "far.wav")
        try writeWAV(SignalGenerator.render(.tone(frequency: 441.7, levelDBFS: -20), sampleRate: 44_100, count: 44_100 * 4, seed: 0), in: folder, "mic.wav",
                     rate: 44_100, encoding: .pcm16)
        let output = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let scenario = try parse("""
        {
          "name": "devices",
          "far_end": "far.wav",
          "echo_path": {"delay_ms": 40, "gain_db": -6},
          "duration_s": 4,
          "timeline": [
            {"at_ms": 500, "action": "set_custom_mic", "device": "file", "file": "mic.wav", "loop": true},
            {"at_ms": 500, "action": "set_aec", "mode": "disabled"},
            {"at_ms": 1000, "action": "set_custom_speaker", "device": "recording", "file": "peer.wav"},
            {"at_ms": 1500, "action": "mute"},
            {"at_ms": 2000, "action": "unmute"},
            {"at_ms": 2500, "action": "reset_custom_mic"},
            {"at_ms": 2500, "action": "set_aec", "mode": "intensityRecommended"},
            {"at_ms": 3000, "action": "reset_custom_speaker"}
          ]
        }
        """, in: folder)
        XCTAssertEqual(scenario.timeline.count, 8)
        let run = try ScenarioRunner(scenario: scenario, outputDirectory: output.path).run()
        let sent = run.recording.sent

        // Muted: exactly zero from 1500 ms to 2000 ms, and only then.
        XCTAssertTrue(sent[(1500 * 48)..<(2000 * 48)].allSatisfy { $0 == 0 })
        XCTAssertGreaterThan(meanSquare(sent[(1400 * 48)..<(1500 * 48)]), 1e-4)
        XCTAssertGreaterThan(meanSquare(sent[(2000 * 48)..<(2100 * 48)]), 1e-4)
        // The file mic is what is sent while selected (AEC off), not the echo.
        XCTAssertGreaterThan(goertzelShare(sent, in: (1000 * 48)..<(1400 * 48), frequency: 441.7), 0.999)
        // The modes the timeline set, in the device-state log.
        let modes = run.deviceStates.map(\.echoCancellerMode)
        XCTAssertEqual(modes.first, .intensityRecommended)
        XCTAssertTrue(modes.contains(.disabled))
        XCTAssertEqual(modes.last, .intensityRecommended)
        XCTAssertTrue(run.deviceStates.contains { $0.customSpeaker == "recording speaker" && !$0.loudspeakerInUse })

        // The recording: one 20 ms pull from 1000 ms up to (not at) 3000 ms: 100 × 960 frames.
        let recording = output.appendingPathComponent("peer.wav").path
        let reader = try SoundFileReader(path: recording)
        XCTAssertEqual(reader.sampleRate, 48_000)
        XCTAssertEqual(reader.frameCount, 100 * 960)
        let samples = try AudioFileStream.readAll(path: recording).samples
        XCTAssertGreaterThan(meanSquare(samples[4800...]), 1e-3, "the peer was recorded")
        XCTAssertTrue(run.counters.playout.isConserved)
        XCTAssertTrue(run.counters.uplink.isConserved)
        XCTAssertEqual(run.counters.uplink.underruns, 0)
    }
}
