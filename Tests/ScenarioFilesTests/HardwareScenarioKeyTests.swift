import Foundation
import ScenarioFiles
import Simulation
import XCTest

/// The hardware keys are read strictly, like every scenario key: the error names the file and
/// the key; the encoder writes them back as the loader reads them.
final class HardwareScenarioKeyTests: XCTestCase {
    private func problem(_ json: String) -> String {
        do {
            _ = try ScenarioLoader.parse(data: Data(json.utf8), file: "/tmp/bad.json")
            return "no error"
        } catch {
            return String(describing: error)
        }
    }

    func testBadHardwareKeysNameFileAndKey() {
        let cases: [(String, String)] = [
            (#"{"duration_s": 1, "route": "car"}"#, "route"),
            (#"{"duration_s": 1, "route": "speaker", "echo_path": {"gain_db": -6}}"#, "route"),
            (#"{"duration_s": 1, "audio_session": {"preferred_sample_rate": 1000}}"#, "audio_session.preferred_sample_rate"),
            (#"{"duration_s": 1, "audio_session": {"preferred_io_buffer": 0.005}}"#, "audio_session.preferred_io_buffer"),
            (#"{"duration_s": 1, "clock_drift_ppm": 5000}"#, "clock_drift_ppm"),
            (#"{"duration_s": 1, "timeline": [{"at_ms": 10, "action": "route_change"}]}"#, "timeline[0].route"),
            (#"{"duration_s": 1, "timeline": [{"at_ms": 10, "action": "set_audio_enabled"}]}"#, "timeline[0].enabled"),
            (#"{"duration_s": 1, "timeline": [{"at_ms": 10, "action": "set_preferred"}]}"#, "timeline[0].sample_rate"),
            (#"{"duration_s": 1, "timeline": [{"at_ms": 10, "action": "activate_sesion"}]}"#, "timeline[0].action"),
            // An event past the end names its index (it named `timeline` alone).
            (#"{"duration_s": 1, "timeline": [{"at_ms": 10, "action": "mute"}, {"at_ms": 1000, "action": "unmute"}]}"#, "timeline[1]: event"),
        ]
        for (json, key) in cases {
            let message = problem(json)
            XCTAssertTrue(message.contains("/tmp/bad.json"), message)
            XCTAssertTrue(message.contains(key), "\(key): \(message)")
        }
    }

    /// An interruption_end without its begin, or a second begin while one is open, is a scenario
    /// mistake (it would run as a no-op): the error names the event, its time and the open one.
    func testInterruptionsMustPairInTimeOrder() throws {
        func timeline(_ events: String) -> String { #"{"duration_s": 10, "timeline": ["# + events + "]}" }
        let strayEnd = problem(timeline(#"{"at_ms": 2000, "action": "interruption_end"}"#))
        XCTAssertTrue(strayEnd.contains("/tmp/bad.json") && strayEnd.contains("timeline[0].action"), strayEnd)
        XCTAssertTrue(strayEnd.contains("interruption_end at 2000 ms has no interruption_begin before it"), strayEnd)
        // File order is not time order: the end at 1 s comes before the begin at 3 s.
        let endFirst = problem(timeline(#"{"at_ms": 3000, "action": "interruption_begin"}, {"at_ms": 1000, "action": "interruption_end"}"#))
        XCTAssertTrue(endFirst.contains("timeline[1].action") && endFirst.contains("at 1000 ms"), endFirst)
        let nested = problem(timeline(#"{"at_ms": 1000, "action": "interruption_begin"}, {"at_ms": 1500, "action": "interruption_begin"}, {"at_ms": 2000, "action": "interruption_end"}"#))
        XCTAssertTrue(nested.contains("timeline[1].action") && nested.contains("begun by timeline[0] at 1000 ms has not ended"), nested)
        // Paired (in either file order), repeated, or left open to the end of the call: accepted.
        for events in [#"{"at_ms": 4000, "action": "interruption_end"}, {"at_ms": 3000, "action": "interruption_begin"}"#,
                       #"{"at_ms": 1000, "action": "interruption_begin"}, {"at_ms": 2000, "action": "interruption_end"}, {"at_ms": 3000, "action": "interruption_begin"}"#] {
            XCTAssertEqual(problem(timeline(events)), "no error", events)
        }
    }

    func testHardwareKeysRoundTrip() throws {
        var scenario = Scenario(name: "hw", duration: .seconds(2))
        var hardware = HardwareConfiguration()
        hardware.preferences = AudioPreferences(sampleRate: 44_100, ioBufferDurationSeconds: 0.005)
        hardware.usesManualAudio = true
        hardware.activeAtStart = false
        hardware.route = .bluetoothHFP
        hardware.inputDataSource = .front
        hardware.clockDriftPPM = -20
        scenario.hardware = hardware
        scenario.timeline = [TimelineEvent(at: .milliseconds(10), action: .hardware(.activateSession)),
                             TimelineEvent(at: .milliseconds(20), action: .hardware(.setPreferred(AudioPreferences(sampleRate: 16_000)))),
                             TimelineEvent(at: .milliseconds(30), action: .hardware(.setInputDataSource(.back))),
                             TimelineEvent(at: .milliseconds(40), action: .hardware(.setAudioEnabled(true)))]
        let text = ScenarioEncoder.text(scenario, relativeTo: "/tmp")
        let loaded = try ScenarioLoader.parse(data: Data(text.utf8), file: "/tmp/hw.json")
        XCTAssertEqual(loaded.hardware, hardware)
        XCTAssertEqual(loaded.timeline, scenario.timeline)
        XCTAssertEqual(ScenarioEncoder.text(loaded, relativeTo: "/tmp"), text)
    }
}
