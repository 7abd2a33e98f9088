import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import Evaluation
import ScenarioFiles
import Simulation
import XCTest

/// A route change (or audio stopped and started again) makes the hardware's input stream anew,
/// and the audio the old one held is dropped: a near talker speaking then is cut. The near-end
/// track passes through the same stream and shows no cut, and a canceller's residue over the hole
/// hides the gap: the report says what the room lost (`hardware.capture_restarts`), in every mode.
final class CaptureRestartTests: XCTestCase {
    /// A 4 s call on the built-in speaker route at 60 ms I/O buffers (2048 frames at 48 kHz): the
    /// input stream holds 80 ms (a tick, the buffer, and the 48 kHz engine's rebuffering). The near
    /// end is white noise at −20 dBFS, silent where `pause` says; `timeline` at 2 s.
    private func call(aec: String, pause: Range<Double>? = nil, route: String = "speaker", noiseDBFS: Double? = nil,
                      farEnd: Bool = true, timeline: String) throws -> (report: RunReport, sent: [Float]) {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var random = SeededRandom(seed: 5)
        var talker = (0..<(4 * 48_000)).map { _ in Float(random.nextGaussian() * 0.1) }
        if let pause { talker.replaceSubrange(Int(pause.lowerBound * 48_000)..<Int(pause.upperBound * 48_000), with: repeatElement(0, count: Int((pause.upperBound - pause.lowerBound) * 48_000))) }
        try SoundFileWriter.write(talker, to: folder.appendingPathComponent("talker.wav").path, sampleRate: 48_000)
        let path = try writeScenario("""
            {"name": "restart",\(farEnd ? #" "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},"# : "") "near_end": "talker.wav",
             "route": "\(route)", "audio_session": {"preferred_io_buffer_duration_s": 0.06},
             "aec": {"mode": "\(aec)"}, "duration_s": 4, "timeline": \(timeline)\(noiseDBFS.map { #", "noise": {"level_dbfs": \#($0), "seed": 3}"# } ?? "")}
            """, in: folder)
        let out = folder.appendingPathComponent("out").path
        let report = try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: out, taps: .all, renderer: nil).run()
        let sent = try AudioFileStream.readAll(path: out + "/sent.wav").samples
        return (report, sent)
    }

    /// The call's one restart, at 2 s, by `cause`: it dropped 1.92–2.00 s, all of it the talker's.
    private func onlyRestart(_ report: RunReport, cause: CaptureRestart.Cause,
                             file: StaticString = #filePath, line: UInt = #line) throws -> CaptureRestartLoss {
        XCTAssertEqual(report.captureRestarts.count, 1, file: file, line: line)
        let restart = try XCTUnwrap(report.captureRestarts.first, file: file, line: line)
        XCTAssertEqual(restart.cause, cause, file: file, line: line)
        XCTAssertEqual(restart.atSeconds, 2, file: file, line: line)
        XCTAssertEqual(restart.discardedFromSeconds, 1.92, accuracy: 1e-9, file: file, line: line)
        XCTAssertEqual(restart.discardedUntilSeconds, 2, accuracy: 1e-9, file: file, line: line)
        XCTAssertEqual(restart.nearEndLostMilliseconds, 80, accuracy: 1e-9, file: file, line: line)
        return restart
    }

    private let routeChange = #"[{"at_ms": 2000, "action": "route_change", "route": "receiver"}]"#

    /// The talker's 80 ms before the change never reach `sent`: with AEC off, where they would
    /// have gone out (2.00–2.08 s, 80 ms after they were spoken) is the new stream's priming, exact
    /// silence. The report names that stretch and the talker lost in it.
    func testARouteChangeDropsWhatTheInputStreamHeld() throws {
        let (report, sent) = try call(aec: "disabled", timeline: routeChange)
        let restart = try onlyRestart(report, cause: .routeChange)
        XCTAssertTrue(restart.cutsTheNearEnd)
        // Before the change the room reached sent 80 ms late; the 80 ms after it are silence.
        XCTAssertEqual(report.hardware?.segments.first?.addedLatencyFrames, 2 * 80 * 48, "capture and playout, 80 ms each")
        XCTAssertTrue(sent[(2 * 48_000)..<(2 * 48_000 + 80 * 48)].allSatisfy { $0 == 0 }, "the dropped talker's place in sent")
        XCTAssertNotEqual(sent[2 * 48_000 - 1], 0, "the talker went out up to the change")
        XCTAssertNotEqual(sent[2 * 48_000 + 80 * 48], 0, "and again once the new stream primed")
    }

    /// Through a converter (HFP's 16 kHz, 1024-frame buffers) the stream holds its look-ahead
    /// too: the talker's 120 ms before a change to the speaker never reach sent, where the
    /// buffers alone hold 117.6 ms.
    func testAConvertingStreamDropsItsLookAheadToo() throws {
        let (report, sent) = try call(aec: "disabled", route: "bluetooth_hfp",
                                      timeline: #"[{"at_ms": 2000, "action": "route_change", "route": "speaker"}]"#)
        let restart = try XCTUnwrap(report.captureRestarts.first)
        XCTAssertEqual(restart.discardedFromSeconds, 1.88, accuracy: 1e-9)
        XCTAssertEqual(restart.nearEndLostMilliseconds, 120, accuracy: 1e-9)
        // HFP's capture reached sent 120 ms late; after the change the speaker's 80 ms of priming.
        XCTAssertTrue(sent[(2 * 48_000)..<(2 * 48_000 + 80 * 48)].allSatisfy { $0 == 0 })
    }

    /// A canceller sends residue, not silence, over the hole, where the AEC-off run sends the new
    /// stream's priming as exact silence: the cut is the room's, measured before any canceller,
    /// and reads the same in every mode. The silence is the restart's, listed with it, and no
    /// sent gap in either: counted as one, it made the AEC-off run alone a run with pipeline issues.
    func testTheCutReadsTheSameWhateverTheCancellerSends() throws {
        let (off, sent) = try call(aec: "disabled", timeline: routeChange)
        let on = try call(aec: "intensityRecommended", timeline: routeChange).report
        XCTAssertTrue(sent[(2 * 48_000)..<(2 * 48_000 + 80 * 48)].allSatisfy { $0 == 0 }, "the priming, sent as silence")
        XCTAssertEqual(off.sentGaps, 0, "the restart's silence")
        XCTAssertEqual(on.sentGaps, 0, "speex's residue over the hole")
        XCTAssertEqual(on.captureRestarts, off.captureRestarts)
        XCTAssertTrue(on.captureRestarts.first?.cutsTheNearEnd ?? false)
    }

    /// In a room without noise or far end, a talker who pauses over the change sends the priming's
    /// silence and then the pause's, one stretch of zeros: the restart's and the room's, no
    /// dropout (counted, it made the AEC-off run a run with a pipeline issue). Where the talker
    /// goes on, the priming's zeros alone are sent, and are no gap either.
    func testAPrimingFollowedByTheTalkersPauseIsNoGap() throws {
        let (paused, sent) = try call(aec: "disabled", pause: 1.95..<2.5, farEnd: false, timeline: routeChange)
        XCTAssertTrue(sent[(2 * 48_000)..<(2 * 48_000 + 500 * 48)].allSatisfy { $0 == 0 }, "the priming, then the pause 80 ms late")
        XCTAssertEqual(paused.sentGaps, 0)
        XCTAssertEqual(try call(aec: "disabled", farEnd: false, timeline: routeChange).report.sentGaps, 0)
    }

    /// The room's noise is no talker: at −50 dBFS, over the near-end silence level, it fills the
    /// dropped stretch where the talker pauses, and nothing is lost (the talker alone is judged).
    func testTheRoomsNoiseIsNoTalker() throws {
        let (report, _) = try call(aec: "disabled", pause: 1.85..<2.05, noiseDBFS: -50, timeline: routeChange)
        let restart = try XCTUnwrap(report.captureRestarts.first)
        XCTAssertEqual(restart.discardedMilliseconds, 80, accuracy: 1e-9)
        XCTAssertEqual(restart.nearEndLostMilliseconds, 0)
    }

    /// A mute from 1.95 s sent none of the room after it: of the dropped 1.92–2.00 s, only the
    /// 30 ms before the mute were the talker's to lose.
    func testAMutedStretchLosesNoTalker() throws {
        let (report, _) = try call(aec: "disabled", timeline: """
            [{"at_ms": 1950, "action": "mute"}, {"at_ms": 2000, "action": "route_change", "route": "receiver"}]
            """)
        let restart = try XCTUnwrap(report.captureRestarts.first)
        XCTAssertEqual(restart.discardedFromSeconds, 1.92, accuracy: 1e-9)
        XCTAssertEqual(restart.nearEndLostMilliseconds, 30, accuracy: 1e-9)
    }

    /// A talker silent over the dropped stretch loses nothing: the restart is listed, no cut.
    func testATalkerSilentOverTheDroppedAudioLosesNothing() throws {
        let (report, _) = try call(aec: "disabled", pause: 1.85..<2.05, timeline: routeChange)
        let restart = try XCTUnwrap(report.captureRestarts.first)
        XCTAssertEqual(restart.discardedFromSeconds, 1.92, accuracy: 1e-9)
        XCTAssertEqual(restart.nearEndLostMilliseconds, 0)
        XCTAssertFalse(restart.cutsTheNearEnd)
    }

    /// Only the part of the dropped audio the talker spoke in counts: a talker who stops at
    /// 1.95 s loses the 30 ms from 1.92 s, in whole 10 ms blocks.
    func testOnlyTheTalkersPartOfTheDroppedAudioIsLost() throws {
        let (report, _) = try call(aec: "disabled", pause: 1.95..<2.5, timeline: routeChange)
        XCTAssertEqual(try XCTUnwrap(report.captureRestarts.first).nearEndLostMilliseconds, 30, accuracy: 1e-9)
    }

    /// An interruption stops the audio with the stream's 80 ms in it, dropped when audio flows
    /// again: the loss is the stop's, at the frame audio stopped (the interruption's own silence is
    /// `capture_silenced_samples`).
    func testAudioStoppedDropsWhatTheStreamHeldWhenItStopped() throws {
        let (report, _) = try call(aec: "disabled", timeline: """
            [{"at_ms": 2000, "action": "interruption_begin"}, {"at_ms": 2500, "action": "interruption_end"}]
            """)
        _ = try onlyRestart(report, cause: .audioStopped)
        XCTAssertEqual(report.hardware?.session.captureSilenced[.interrupted], 500 * 48)
    }

    /// The call's first start drops nothing (the stream held no audio), and neither does a
    /// call that never restarts.
    func testACallThatNeverRestartsListsNone() throws {
        XCTAssertEqual(try call(aec: "disabled", timeline: "[]").report.captureRestarts, [])
    }
}
