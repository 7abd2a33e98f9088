import Foundation
import XCTest
@testable import Simulation

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
        ]
        for (json, key) in cases {
            let message = problem(json)
            XCTAssertTrue(message.contains("/tmp/bad.json"), message)
            XCTAssertTrue(message.contains(key), "\(key): \(message)")
        }
    }

    func testHardwareKeysRoundTrip() throws {
        var scenario = Scenario(name: "hw", duration: .seconds(2))
        var hardware = HardwareConfiguration()
        hardware.preferences = AudioPreferences(sampleRate: 44_100, ioBufferDurationSeconds: 0.005)
        hardware.manualAudio = true
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
