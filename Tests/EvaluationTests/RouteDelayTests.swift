import EchoLabTestSupport
import Evaluation
import Foundation
import ScenarioFiles
import XCTest

/// A route change brings its own echo path, and the delay is searched again after it: a call that
/// starts on a wired headset (its echo under the mic's noise: no delay to find in the first
/// seconds) and changes to the speaker scores the speaker's segment against the speaker's delay.
final class RouteDelayTests: XCTestCase {
    private func run(from route: String, in folder: URL) throws -> RunReport {
        let path = try writeScenario("""
            {"name": "route-delay-\(route)", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -65, "seed": 2}, "route": "\(route)", "audio_session": {},
             "aec": {"backend": "speex", "mode": "intensityRecommended"}, "duration_s": 14,
             "timeline": [{"at_ms": 8000, "action": "route_change", "route": "speaker"}]}
            """, named: "\(route).json", in: folder)
        return try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent(route).path,
                             taps: .none, renderer: nil).run()
    }

    /// The first search, over the headset's seconds, finds no lag; the one after the change finds
    /// the speaker's 42 ms (its 2 ms path behind the hardware's 40 ms), and the speaker's segment
    /// reads the ERL of a call on the speaker all along, to the bit. Estimated once, the headset
    /// call had no delay and read that segment's ERL 11.03 dB for 9.59.
    func testTheSpeakersSegmentAfterAHeadsetIsScoredAgainstTheSpeakersDelay() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let headset = try run(from: "wired_headset", in: folder)
        // A "change" to the route in use changes no path: one search, the delay the call's.
        let speaker = try run(from: "speaker", in: folder)
        XCTAssertEqual(try XCTUnwrap(speaker.metrics.delayMilliseconds), 42, accuracy: 0.05)
        XCTAssertFalse(speaker.segments.contains { $0.metrics.hasOwnDelay })
        XCTAssertNil(headset.segments[0].metrics.delayMilliseconds)
        XCTAssertEqual(try XCTUnwrap(headset.segments[1].metrics.delayMilliseconds), 42, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(headset.metrics.delayMilliseconds), 42, accuracy: 0.05, "the first route's that has one")
        XCTAssertNil(headset.delayUnmeasuredReason)
        let erl = try XCTUnwrap(headset.segments[1].metrics.erlDB)
        XCTAssertEqual(erl, try XCTUnwrap(speaker.segments[1].metrics.erlDB))
        XCTAssertEqual(erl, 9.59, accuracy: 0.01)
        XCTAssertTrue(headset.segments[0].metrics.erlIsLowerBound, "the headset's echo stays under the noise")
    }
}
