import AudioInterop
import EchoLabTestSupport
import Foundation
import Evaluation
import ScenarioFiles
import Simulation
import XCTest

/// A segment's `clicksAtStart` counts the clicks its transition made where the transition is
/// heard: a new custom mic takes over once it has pushed a frame, a mic period after the event.
final class TransitionClicksTests: XCTestCase {
    /// A file mic holding one impulse `impulseMilliseconds` into it, switched to at 1 s with AEC off:
    /// the report's segment opened by the switch, and the sent clicks' samples.
    private func switchedToImpulse(at impulseMilliseconds: Int, aec: String = "disabled",
                                   alsoAt10ms: String? = nil) throws -> (segments: [RunReport.Segment], clicks: [Int]) {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var file = [Float](repeating: 0, count: 48_000)
        file[impulseMilliseconds * 48] = 0.5
        try SoundFileWriter.write(file, to: folder.appendingPathComponent("impulse.wav").path, sampleRate: 48_000)
        let path = try writeScenario("""
            {"name": "switch-click", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "echo_path": {"delay_ms": 40, "gain_db": -20}, "noise": {"level_dbfs": -70, "seed": 2},
             "aec": {"mode": "\(aec)"}, "duration_s": 2,
             "timeline": [{"at_ms": 1000, "action": "set_custom_mic", "device": "file", "file": "impulse.wav"}\(
                alsoAt10ms.map { #", {"at_ms": 1010, "action": "\#($0)"}"# } ?? "")]}
            """, in: folder)
        let report = try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent("out").path,
                                   taps: .none, renderer: nil).run()
        return (report.segments.filter { $0.startSeconds >= 1 }, report.sentClickEvents.map(\.sampleIndex))
    }

    /// The file mic's first frame goes out at 1.02 s (its 20 ms period), so its impulse 5 ms in
    /// is heard at 1.025 s: past ±10 ms of the event, inside the switch.
    /// With a canceller the impulse is heard one frame later still (speex's 10 ms of latency).
    func testClickWhereTheNewMicTakesOverCountsAtTheStart() throws {
        for aec in ["disabled", "intensityRecommended"] {
            let (segments, clicks) = try switchedToImpulse(at: 5, aec: aec)
            XCTAssertEqual(clicks.filter { (48_000...50_000).contains($0) }.count, 1, "the impulse is a click in sent (\(aec)): \(clicks)")
            let click = try XCTUnwrap(clicks.first { $0 > 48_000 })
            XCTAssertGreaterThan(click, 48_000 + (aec == "disabled" ? 480 : 960), "heard after the event's ±10 ms (and the latency)")
            XCTAssertEqual(segments.first?.clicksAtStart, 1, aec)
        }
    }

    /// Another event 10 ms after the switch opens a segment of its own, which the switch's click
    /// is not: it is the switch's, heard past its segment's end.
    func testTheSwitchesClickIsNotTheNextEvents() throws {
        let (segments, _) = try switchedToImpulse(at: 5, alsoAt10ms: "start_user_reference")
        XCTAssertEqual(segments.map(\.clicksAtStart), [1, 0])
    }

    /// The same impulse half a second into the file is the file's own, passed on as a near
    /// end's plosive is: no click of the pipeline's, and none of the switch's.
    func testClickLaterInTheSegmentIsNotTheTransitions() throws {
        let (segments, clicks) = try switchedToImpulse(at: 500)
        XCTAssertFalse(clicks.contains { $0 > 48_000 + 24_000 }, "the file's impulse is no click of the pipeline's: \(clicks)")
        XCTAssertEqual(segments.first?.clicksAtStart, 0)
    }

    /// A route change rebuilds the hardware's streams: the new input stream captures silence
    /// while it primes, so a near talker is cut at the change and comes back once it has primed —
    /// 30 ms after a change to the speaker (its send latency included), past ±1 tick around the
    /// change and its send latency. Those clicks are the change's, counted up to its added
    /// latency (capture and playout, 40 ms) and the send latency after it.
    func testClicksWhereANewRouteStreamComesBackCountAtTheStart() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try spokenCall(in: folder, talker: true)
        let report = try run("wired_headset", #"[{"at_ms": 3500, "action": "route_change", "route": "speaker"}]"#, "route-click")
        let change = 3500 * 48, tick = 480, sendLatency = 480
        let added = try XCTUnwrap(report.hardware?.segments.last?.addedLatencyFrames)
        XCTAssertEqual(added, 40 * 48, "the speaker route's added latency")
        let clicks = report.sentClickEvents.map(\.sampleIndex)
        let heard = clicks.filter { (change - tick)..<(change + Int(added) + sendLatency + tick + 1) ~= $0 }
        XCTAssertTrue(heard.contains { $0 > change + sendLatency + tick }, "the talker comes back past the old window: \(clicks)")
        XCTAssertEqual(report.segments.last?.clicksAtStart, heard.count, "\(clicks)")
    }

    /// An input data source change hears the same room through another mic of the phone: the
    /// echo goes on, 4 dB softer on the speaker's front mic, and makes no click. (The room's path
    /// made anew started silent: its 2 ms bulk delay went silent at the mic and its ringing was
    /// dropped, a click 30 ms after the change, counted as the pipeline's, that no app makes.)
    func testADataSourceChangeMakesNoClick() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let call = try spokenCall(in: folder, talker: true)
        func run(_ timeline: String, named name: String) throws -> RunReport { try call("speaker", timeline, name) }
        let report = try run(#"[{"at_ms": 2000, "action": "set_input_data_source", "source": "front"}]"#, named: "source-click")
        let change = 2000 * 48, tick = 480, sendLatency = 480
        let segment = try XCTUnwrap(report.hardware?.segments.last)
        XCTAssertEqual(segment.inputDataSource, .front)
        XCTAssertEqual(segment.startFrame, Int64(change))
        let added = try XCTUnwrap(segment.addedLatencyFrames)
        let window = (change - tick)..<(change + Int(added) + sendLatency + tick + 1)
        let clicks = report.sentClickEvents.map(\.sampleIndex)
        XCTAssertFalse(clicks.contains { window ~= $0 }, "\(clicks)")
        XCTAssertEqual(report.segments.last?.clicksAtStart, 0)
        XCTAssertEqual(report.captureRestarts, [], "the streams go on")
        let erl = try report.segments.map { try XCTUnwrap($0.metrics.erlDB) }
        // Speech of other spectra in the two segments meets the room's colouring: within a dB (3.5 read).
        XCTAssertEqual(erl[1] - erl[0], 4, accuracy: 1, "the front mic hears the speaker 4 dB softer: \(erl)")
    }

    /// The data source in use chosen again changes nothing, as on a phone: no click, no hardware
    /// segment, no new delay search. The room's path was made anew there, its ringing dropped: a
    /// click 32 ms after the event (a trial's), which no transition window counted.
    func testTheDataSourceInUseChosenAgainChangesNothing() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let call = try spokenCall(in: folder, talker: false)
        func run(_ timeline: String, named name: String) throws -> RunReport { try call("speaker", timeline, name) }
        let unchanged = try run("[]", named: "bottom")
        let source = try XCTUnwrap(unchanged.hardware?.segments.first?.inputDataSource)
        let again = try run(#"[{"at_ms": 2000, "action": "set_input_data_source", "source": "\#(source.rawValue)"}]"#, named: "again")
        XCTAssertEqual(again.hardware?.segments.count, 1)
        XCTAssertEqual(again.sentClickEvents.map(\.sampleIndex), unchanged.sentClickEvents.map(\.sampleIndex))
        XCTAssertFalse(again.segments.contains { $0.metrics.hasOwnDelay })
        XCTAssertEqual(again.metrics.erleDB, unchanged.metrics.erleDB)
    }

    /// Speaks a far end (and with `talker` a near end, another voice) into `folder`, and returns a
    /// runner of a 5 s speex call on a route with a timeline, named as its output folder.
    private func spokenCall(in folder: URL, talker: Bool) throws -> (_ route: String, _ timeline: String, _ name: String) throws -> RunReport {
        try speak("Hello, this is the far end talking. I am calling to ask whether the report is ready. Please send it soon.",
                  to: "far.wav", in: folder)
        if talker {
            try speak("Yes, I can hear you well. The report is nearly done, and I will send it to you this afternoon.",
                      voice: "en-gb", to: "near.wav", in: folder)
        }
        return { route, timeline, name in
            let path = try writeScenario("""
                {"name": "\(name)", "far_end": "far.wav"\(talker ? #", "near_end": "near.wav""# : ""), "noise": {"level_dbfs": -65, "seed": 3},
                 "route": "\(route)", "audio_session": {}, "aec": {"backend": "speex", "mode": "intensityRecommended"},
                 "duration_s": 5, "timeline": \(timeline)}
                """, named: "\(name).json", in: folder)
            return try RunOutput(scenario: ScenarioLoader.load(path: path), outputDirectory: folder.appendingPathComponent(name).path,
                                 taps: .none, renderer: nil).run()
        }
    }
}
