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
}
