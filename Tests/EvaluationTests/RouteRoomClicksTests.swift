import AudioInterop
import EchoLabTestSupport
import Evaluation
import Foundation
import ScenarioFiles
import XCTest

/// With the hardware modelled, a click in what was sent where the room itself clicked (a talker's
/// plosive) is the room's, as it is without: the echo and near-end tracks pass through the same
/// input device as the mic, and where that device passed the room on unbroken they are the
/// room's sound as captured. Counted everywhere, a trial's three impulses in the near end on the
/// speaker route read as three clicks of the pipeline's. What the device itself breaks — a stream
/// priming at a route change — is still the pipeline's (`TransitionClicksTests`).
final class RouteRoomClicksTests: XCTestCase {
    func testATalkersClicksOnARouteAreTheRooms() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rate = 48_000
        var near = [Float](repeating: 0, count: 4 * rate)
        for second in 1...3 { near[second * rate] = 0.5 }
        try SoundFileWriter.write(near, to: folder.appendingPathComponent("clicks.wav").path, sampleRate: rate)
        for route in ["", #", "route": "speaker""#, #", "route": "receiver", "audio_session": {}"#] {
            let report = try runReport(ofScenario: """
                {"name": "clicks", "duration_s": 4, "near_end": "\(folder.path)/clicks.wav", "noise": {"level_dbfs": -90, "seed": 1},
                 "aec": {"mode": "disabled"}\(route)}
                """)
            XCTAssertEqual(report.sentClicks, 0, "\(route): \(report.sentClickEvents.map(\.sampleIndex))")
        }
    }

    /// What the device breaks reaches the mic through the room too: on a change to A2DP the
    /// loudspeaker resumes mid-word 20 ms after the event, and the room carries that click to the
    /// mic 180 ms later, where the tracks hold it as well. It is the pipeline's, counted (a
    /// reviewer's case: the window that ended with the input's priming wrote it off as the room's).
    func testALoudspeakerResumingIsThePipelinesAfterTheRoomsDelay() throws {
        let far = packageRoot.appendingPathComponent("vectors/inputs/farend_speech_16k.wav").path
        let report = try runReport(ofScenario: """
            {"name": "a2dp", "duration_s": 8, "audio_session": {}, "route": "speaker", "far_end": "\(far)",
             "noise": {"level_dbfs": -110, "seed": 3}, "aec": {"mode": "disabled"},
             "timeline": [{"at_ms": 4050, "action": "route_change", "route": "bluetooth_a2dp"}]}
            """)
        let clicks = report.sentClickEvents.map(\.sampleIndex)
        XCTAssertTrue(clicks.contains { (4_050 * 48 + 180 * 48)..<(4_050 * 48 + 260 * 48) ~= $0 }, "\(clicks)")
        XCTAssertEqual(report.sentClicks, 2, "\(clicks)")
    }
}
