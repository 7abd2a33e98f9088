import AudioCore
import AudioInterop
import EchoLabTestSupport
import Evaluation
import Foundation
import ScenarioFiles
import XCTest

/// A device mic the app forwards as its custom mic (a pass-through) reaches the canceller 50 ms
/// after the room (its timer, buffers and priming): the echo's delay at the canceller moves by
/// that at each switch between it and the device mic, and the delay is searched again where the
/// new lag is found. The echo track is lined up with the capture as the near-end track is, so
/// each stretch pairs it with the reference at its own delay. Estimated once and paired with the
/// room's echo, a switch at 3 s read 90 ms for the whole call and 6.92 dB for a 6 dB path, and a
/// call on a pass-through throughout 6.93 dB.
final class PassThroughEchoPathTests: XCTestCase {
    /// A 10 s speech call over a pure 40 ms, −6 dB path, no canceller: every frame whose echo and
    /// reference line up reads an ERL of 6 dB, whatever its content.
    private func run(mic: String = "", timeline: String = "[]") throws -> RunReport {
        try runReport(ofScenario: """
            {"name": "pass-through", "duration_s": 10, "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -65, "seed": 3}, "echo_path": {"delay_ms": 40, "gain_db": -6},
             "aec": {"mode": "disabled"}\(mic), "timeline": \(timeline)}
            """)
    }

    func testEachStretchIsScoredAgainstItsOwnSourcesDelay() throws {
        // At 3 s the first search has not ended: it ends at the switch, on the device mic's blocks.
        let into = try run(timeline: #"[{"at_ms": 3000, "action": "set_custom_mic", "device": "passthrough"}]"#)
        XCTAssertEqual(into.segments.count, 2)
        XCTAssertEqual(try XCTUnwrap(into.segments[0].metrics.delayMilliseconds), 40, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(into.segments[1].metrics.delayMilliseconds), 90, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(into.metrics.delayMilliseconds), 40, accuracy: 0.01, "the call's: its first search's")
        let out = try run(mic: #", "mic": {"device": "passthrough"}"#, timeline: #"[{"at_ms": 5000, "action": "reset_custom_mic"}]"#)
        XCTAssertEqual(out.segments.count, 2)
        XCTAssertEqual(try XCTUnwrap(out.segments[0].metrics.delayMilliseconds), 90, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(out.segments[1].metrics.delayMilliseconds), 40, accuracy: 0.01)
        for segment in into.segments + out.segments {
            XCTAssertTrue(segment.metrics.hasOwnDelay)
            XCTAssertEqual(try XCTUnwrap(segment.metrics.erlDB), 6, accuracy: 0.001, "at \(segment.startSeconds) s")
            XCTAssertGreaterThan(segment.metrics.erlFrames ?? 0, 100)
        }
    }

    /// On a pass-through throughout, or muted a while on one, the echo path never changes: one
    /// search, the call's delay, the path's ERL.
    func testOneSourceThroughoutIsSearchedOnce() throws {
        for timeline in ["[]", #"[{"at_ms": 3000, "action": "mute"}, {"at_ms": 4000, "action": "unmute"}]"#] {
            let report = try run(mic: #", "mic": {"device": "passthrough"}"#, timeline: timeline)
            XCTAssertEqual(try XCTUnwrap(report.metrics.delayMilliseconds), 90, accuracy: 0.01)
            XCTAssertEqual(try XCTUnwrap(report.metrics.erlDB), 6, accuracy: 0.001, timeline)
            XCTAssertFalse(report.segments.contains { $0.metrics.hasOwnDelay }, timeline)
        }
    }

    /// A talker's click (a plosive) the pass-through passes on is the room's, not the pipeline's:
    /// at 2 s, just before a far-end burst whose echo the mic takes 30 ms later. With the echo
    /// track left where the room has it, the room's sound around the click held the burst's echo
    /// that the capture 50 ms later did not yet, the click stood out of it less than out of what
    /// was sent, and it was counted as the pipeline's.
    func testATalkersClickThroughAPassThroughIsTheRooms() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rate = 48_000
        // White noise at −14 dBFS from 1.99 to 2.5 s: its echo reaches the mic at 2.02 s.
        let noise = SignalGenerator.render(.whiteNoise(levelDBFS: -14), sampleRate: rate, count: rate, seed: 1)
        var burst = [Float](repeating: 0, count: 4 * rate), click = burst
        for i in (rate * 199 / 100)..<(rate * 5 / 2) { burst[i] = noise[i - rate * 199 / 100] }
        click[2 * rate] = 0.5
        try SoundFileWriter.write(burst, to: folder.appendingPathComponent("burst.wav").path, sampleRate: rate)
        try SoundFileWriter.write(click, to: folder.appendingPathComponent("click.wav").path, sampleRate: rate)
        for mic in ["default", "passthrough"] {
            let report = try runReport(ofScenario: """
                {"name": "click", "duration_s": 4, "far_end": "\(folder.path)/burst.wav", "near_end": "\(folder.path)/click.wav",
                 "noise": {"level_dbfs": -90, "seed": 1}, "echo_path": {"delay_ms": 30, "gain_db": 0},
                 "aec": {"mode": "disabled"}, "mic": {"device": "\(mic)"}}
                """)
            XCTAssertEqual(report.sentClicks, 0, mic)
        }
    }
}
