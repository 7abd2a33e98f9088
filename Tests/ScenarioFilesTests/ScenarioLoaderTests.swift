import AudioInterop
import Foundation
import ScenarioFiles
import Simulation
import XCTest

/// What the loader refuses or accepts in device and timeline keys, checked when the file loads
/// (nothing runs a call here).
final class ScenarioLoaderTests: XCTestCase {
    private func parse(_ json: String, in folder: URL, name: String = "scenario.json") throws -> Scenario {
        let path = folder.appendingPathComponent(name).path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return try ScenarioLoader.parse(data: Data(json.utf8), file: path)
    }

    private func writeWAV(_ samples: [Float], in folder: URL, _ name: String) throws {
        try SoundFileWriter.write(samples, to: folder.appendingPathComponent(name).path, sampleRate: 48_000, encoding: .float32)
    }

    func testUnknownKeysInTimelineEventsAndDevicesNameTheKeyPath() throws {
        let folder = try makeTemporaryDirectory(for: self)
        try writeWAV([Float](repeating: 0.1, count: 4800), in: folder, "mic.wav")
        let cases: [(json: String, key: String)] = [
            ("""
             {"duration_s": 2, "timeline": [{"at_ms": 100, "action": "mute"},
                                            {"at_ms": 500, "action": "set_custom_mic", "device": "file", "file": "mic.wav", "loop_x": true}]}
             """, "timeline[1].loop_x"),
            ("""
             {"duration_s": 2, "timeline": [{"at_ms": 100, "action": "set_custom_speaker", "device": "recording", "period": 20}]}
             """, "timeline[0].period"),
            ("""
             {"duration_s": 2, "mic": {"device": "file", "file": "mic.wav", "jitter": 2}}
             """, "mic.jitter"),
            ("""
             {"duration_s": 2, "speaker": {"device": "passthrough", "aec_ref": true}}
             """, "speaker.aec_ref"),
        ]
        for (index, item) in cases.enumerated() {
            let name = "bad\(index).json"
            XCTAssertThrowsError(try parse(item.json, in: folder, name: name)) { error in
                guard let error = error as? ScenarioError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.key, item.key)
                XCTAssertTrue(error.description.contains(item.key), error.description)
                XCTAssertTrue(error.description.contains(name), error.description)
                XCTAssertTrue(error.description.contains("unknown key"), error.description)
            }
        }
    }

    /// A required key misspelt is the misspelling's fault: named, with the key it stands for.
    /// It read as the key missing (`timeline[0].action: missing`), or as an empty value
    /// (`timeline[0].mode: '' is not one of …`), naming a key the file does not hold.
    func testAMisspeltRequiredKeyIsNamed() throws {
        let folder = try makeTemporaryDirectory(for: self)
        let cases: [(json: String, key: String, problem: String)] = [
            (#"{"duration_s": 2, "timeline": [{"at_ms": 100, "action": "set_aec", "mdoe": "intensityMax"}]}"#,
             "timeline[0].mdoe", "unknown key (did you mean 'mode'?)"),
            (#"{"duration_s": 2, "timeline": [{"at_ms": 100, "acton": "set_aec", "mode": "intensityMax"}]}"#,
             "timeline[0].acton", "unknown key (did you mean 'action'?)"),
            (#"{"duration_s": 2, "far_end": {"fiel": "far.wav"}}"#, "far_end.fiel", "unknown key (did you mean 'file'?)"),
            (#"{"duration_s": 2, "timeline": [{"at_ms": 100, "action": "route_change", "rout": "speaker"}]}"#,
             "timeline[0].rout", "unknown key (did you mean 'route'?)"),
            // Nothing like it: missing, as before.
            (#"{"duration_s": 2, "timeline": [{"at_ms": 100, "action": "set_aec", "intensity": "intensityMax"}]}"#,
             "timeline[0].mode", "missing"),
            // An optional key misspelt names the key meant too (a new user's `level_dbf` and
            // `duraton_s` read "unknown key" alone); a key given already is not suggested.
            (#"{"duration_s": 2, "noise": {"level_dbf": -50}}"#, "noise.level_dbf", "unknown key (did you mean 'level_dbfs'?)"),
            (#"{"duraton_s": 2, "duration_s": 2}"#, "duraton_s", "unknown key"),
            (#"{"duration_s": 2, "echo_path": {"delay_msec": 4, "gain_db": -6}}"#, "echo_path.delay_msec", "unknown key (did you mean 'delay_ms'?)"),
            // The hardware model's keys, where none of them is there to bring it in (a trial's
            // `clock_drift_pm` and `audio_sesion` read "unknown key" alone).
            (#"{"duration_s": 2, "clock_drift_pm": 50}"#, "clock_drift_pm", "unknown key (did you mean 'clock_drift_ppm'?)"),
            (#"{"duration_s": 2, "audio_sesion": {}}"#, "audio_sesion", "unknown key (did you mean 'audio_session'?)"),
            (#"{"duration_s": 2, "rout": "speaker"}"#, "rout", "unknown key (did you mean 'route'?)"),
            // A plugin's keys, where the scenario names none yet (`plugin_optons` read "unknown key" alone).
            (#"{"duration_s": 2, "aec": {"backend": "speex", "plugin_optons": {}}}"#, "aec.plugin_optons",
             "unknown key (did you mean 'plugin_options'?)"),
        ]
        for (index, item) in cases.enumerated() {
            XCTAssertThrowsError(try parse(item.json, in: folder, name: "typo\(index).json")) { error in
                guard let error = error as? ScenarioError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.key, item.key, error.description)
                XCTAssertEqual(error.problem, item.problem, error.description)
            }
        }
    }

    /// A plugin's keys without `aec.backend` are not unknown keys (they are documented): the
    /// error says what is missing. A backend that is no built-in one without a plugin names both;
    /// a plugin rate it cannot run at is named under its own key.
    func testAPluginWithoutABackendNameSaysTheNameIsMissing() throws {
        let folder = try makeTemporaryDirectory(for: self)
        try Data().write(to: folder.appendingPathComponent("mine.so"))
        let cases: [(json: String, key: String, problem: String)] = [
            (#"{"duration_s": 2, "aec": {"mode": "intensityMax", "plugin": "mine.so"}}"#, "aec.plugin",
             #"needs aec.backend (the name the plugin's modes use, e.g. "backend": "mine")"#),
            (#"{"duration_s": 2, "aec": {"mode": "intensityMax", "plugin_rate": 16000}}"#, "aec.plugin_rate",
             #"needs aec.backend (the name the plugin's modes use, e.g. "backend": "mine")"#),
            (#"{"duration_s": 2, "aec": {"mode": "intensityMax", "backend": "mine", "plugin": "mine.so", "plugin_rate": 22050}}"#,
             "aec.plugin_rate", "22050 Hz is not one of 8000, 16000, 32000, 48000"),
            (#"{"duration_s": 2, "aec": {"mode": "intensityMax", "backend": "mine"}}"#, "aec.backend",
             "'mine' is not one of speex, webrtc, webrtc-mobile, aec3, echolab (a plugin needs aec.plugin, its file)"),
            // filter_ms sets speexdsp's filter only: with another backend it would change nothing.
            (#"{"duration_s": 2, "aec": {"mode": "intensityMax", "backend": "mine", "plugin": "mine.so", "filter_ms": 100}}"#, "aec.filter_ms",
             "sets speexdsp's filter length; EchoLab sets none for plugin mine (a plugin takes its settings in aec.plugin_options)"),
            (#"{"duration_s": 2, "aec": {"mode": "intensityMax", "backend": "webrtc", "filter_ms": 100}}"#, "aec.filter_ms",
             "sets speexdsp's filter length; backend webrtc keeps a filter length of its own, which EchoLab does not set"),
        ]
        for (index, item) in cases.enumerated() {
            XCTAssertThrowsError(try parse(item.json, in: folder, name: "plugin\(index).json")) { error in
                guard let error = error as? ScenarioError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.key, item.key)
                XCTAssertEqual(error.problem, item.problem)
            }
        }
    }

    /// A recording speaker's file may have a file name's 255 bytes (its hidden `.NAME.partial` and
    /// `.NAME.replaced` fit whatever its length: `AtomicFile.hiddenName`); a longer one is
    /// refused when the scenario loads, not after the call was simulated ("File name too long").
    func testARecordingFileNameTooLongIsRefusedAtLoad() throws {
        let folder = try makeTemporaryDirectory(for: self)
        func scenario(_ file: String) -> String {
            #"{"duration_s": 1, "speaker": {"device": "recording", "file": "\#(file)"}}"#
        }
        let longest = String(repeating: "é", count: 125) + "x.wav"          // 255 bytes
        XCTAssertEqual(longest.utf8.count, 255)
        XCTAssertEqual(try parse(scenario(longest), in: folder).deviceOutputFiles, [longest])
        XCTAssertThrowsError(try parse(scenario("y" + longest), in: folder)) { error in
            guard let error = error as? ScenarioError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.key, "speaker.file")
            XCTAssertTrue(error.description.contains("a file name of 256 bytes; at most 255"), error.description)
        }
    }

    /// libsndfile reads up to 1024 channels; a scenario may pick any of them.
    func testAChannelUpTo1023MayBePicked() throws {
        let folder = try makeTemporaryDirectory(for: self)
        let path = folder.appendingPathComponent("wide.wav").path
        let writer = try SoundFileWriter(path: path, sampleRate: 48_000, channelCount: 300)
        var frames = [Float](repeating: 0, count: 300 * 480)
        for frame in 0..<480 { frames[frame * 300 + 299] = 0.25 }
        try writer.write(frames, frames: 480)
        try writer.finish()
        let picked = try parse(#"{"far_end": {"file": "wide.wav", "channel": 299}}"#, in: folder)
        XCTAssertEqual(picked.farEnd, .file(path: path, channel: .channel(299)))
        XCTAssertThrowsError(try parse(#"{"far_end": {"file": "wide.wav", "channel": 1024}}"#, in: folder)) { error in
            XCTAssertTrue("\(error)".contains("far_end.channel"), "\(error)")
        }
    }

    /// A file longer than a call may be is refused when it loads, named as a path or as the
    /// `file` of its object (the object's was let through, to fail only when its call ran).
    func testAFileLongerThanADayIsRefusedInEitherForm() throws {
        let folder = try makeTemporaryDirectory(for: self)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let lying = root.appendingPathComponent("Fuzz/corpus/regressions/scenario-runner-duration-overflow/peer.flac").path
        for (json, key) in [(#"{"far_end": "\#(lying)"}"#, "far_end"), (#"{"far_end": {"file": "\#(lying)"}}"#, "far_end.file")] {
            XCTAssertThrowsError(try parse(json, in: folder)) { error in
                guard let error = error as? ScenarioError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.key, key)
                XCTAssertTrue(error.description.contains("a call is at most 24 h"), error.description)
            }
        }
    }
}
