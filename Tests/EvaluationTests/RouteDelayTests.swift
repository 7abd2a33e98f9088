import EchoLabJSON
import EchoLabTestSupport
import Evaluation
import Foundation
import ScenarioFiles
import XCTest

/// A route change brings its own echo path, and the delay is searched again after it: a call that
/// starts on a wired headset (its echo under the mic's noise: no delay to find in the first
/// seconds) and changes to the speaker scores the speaker's segment against the speaker's delay.
final class RouteDelayTests: XCTestCase {
    private func run(from route: String, to next: String = "speaker", atSeconds change: Int = 8, seconds: Int = 14,
                     in folder: URL) throws -> RunReport {
        let path = try writeScenario("""
            {"name": "route-delay-\(route)", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -65, "seed": 2}, "route": "\(route)", "audio_session": {},
             "aec": {"backend": "speex", "mode": "intensityRecommended"}, "duration_s": \(seconds),
             "timeline": [{"at_ms": \(change * 1000), "action": "route_change", "route": "\(next)"}]}
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

    /// Speaker → receiver at 5 s: the receiver's segment is measured from where the change reaches
    /// what was sent (the send latency after it), on the receiver's 41 ms, and reads what the same
    /// segment of a call on the receiver all along reads, frames and ERL to the bit. Measured from
    /// the event, it took in a frame of the speaker's echo: 30.15 dB over 161 frames.
    func testTheSegmentAfterAChangeHoldsNoneOfTheOldRoutesEcho() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let changed = try run(from: "speaker", to: "receiver", atSeconds: 5, seconds: 10, in: folder)
        let receiver = try run(from: "receiver", to: "receiver", atSeconds: 5, seconds: 10, in: folder)
        XCTAssertEqual(try XCTUnwrap(changed.segments[1].metrics.delayMilliseconds), 41, accuracy: 0.05)
        XCTAssertEqual(changed.segments[1].metrics.singleTalkFrames, receiver.segments[1].metrics.singleTalkFrames)
        XCTAssertEqual(try XCTUnwrap(changed.segments[1].metrics.erlDB), try XCTUnwrap(receiver.segments[1].metrics.erlDB))
    }

    /// A segment where no audio flowed has no delay of its own (`delay_ms` null, the key written:
    /// the call searched again), though a search was in force over it and found one: it measured
    /// nothing of the segment. Receiver, then the speaker from 3 s, interrupted 5–7 s: the
    /// interruption's segment has none, the speaker's segments on either side the speaker's 42 ms.
    /// And a session activated only at 2 s, then to the speaker at 6 s: the first 2 s have none,
    /// the receiver's segment its 41 ms.
    func testASegmentWhereNoAudioFlowedHasNoDelay() throws {
        func run(_ session: String, _ timeline: String) throws -> RunReport {
            try runReport(ofScenario: """
                {"name": "no-audio-delay", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
                 "noise": {"level_dbfs": -65, "seed": 2}, "route": "receiver", "audio_session": {\(session)},
                 "aec": {"backend": "speex", "mode": "intensityRecommended"}, "duration_s": 10, "timeline": \(timeline)}
                """)
        }
        /// Each segment's `delay_ms` as report.json writes it: nil where the key is missing.
        func writtenDelays(_ report: RunReport) throws -> [JSONValue?] {
            try XCTUnwrap(report.json()["segments"]?.arrayValue).map { $0["delay_ms"] }
        }
        let noFlow = "no audio flowed in the segment"
        let interrupted = try run("", """
            [{"at_ms": 3000, "action": "route_change", "route": "speaker"}, {"at_ms": 5000, "action": "interruption_begin"},
             {"at_ms": 7000, "action": "interruption_end"}]
            """)
        XCTAssertEqual(interrupted.hardware?.silenced, [240_000..<336_000])
        XCTAssertEqual(interrupted.segments.map { $0.echoUnmeasuredReason?.hasPrefix(noFlow) ?? false }, [false, false, true, false])
        XCTAssertTrue(interrupted.segments.allSatisfy(\.metrics.hasOwnDelay))
        XCTAssertNil(interrupted.segments[2].metrics.delayMilliseconds)
        for index in [1, 3] { XCTAssertEqual(try XCTUnwrap(interrupted.segments[index].metrics.delayMilliseconds), 42, accuracy: 0.05) }
        let written = try writtenDelays(interrupted)
        XCTAssertEqual(written[2], .null, "written, and null")
        XCTAssertEqual(try XCTUnwrap(written[3]?.doubleValue), 42, accuracy: 0.05)

        let lateStart = try run(#""active_at_start": false"#, """
            [{"at_ms": 2000, "action": "activate_session"}, {"at_ms": 6000, "action": "route_change", "route": "speaker"}]
            """)
        XCTAssertEqual(lateStart.segments.map { $0.echoUnmeasuredReason?.hasPrefix(noFlow) ?? false }, [true, false, false])
        XCTAssertNil(lateStart.segments[0].metrics.delayMilliseconds)
        XCTAssertEqual(try XCTUnwrap(lateStart.segments[1].metrics.delayMilliseconds), 41, accuracy: 0.05)
        XCTAssertEqual(try writtenDelays(lateStart)[0], .null)
        XCTAssertEqual(try XCTUnwrap(lateStart.metrics.delayMilliseconds), 41, accuracy: 0.05, "the call's: the first search's")
    }
}
