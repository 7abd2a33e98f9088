import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// Near-end preservation is measured only where the tracks line up with what the send path
/// got: a custom mic sends its own audio (a generator, a file), or the device mic after its own
/// buffering and rate conversion (passthrough-jittery: at 44.1 kHz and 16 bits, resampled), so
/// the acoustic near-end track no longer lines up with sent there. Counted, those stretches read
/// as the canceller removing the near end (passthrough-jittery: 52–68 dB of "attenuation", or
/// none surviving at all). A device mic forwarded at the engine's rate holds the tracks sample
/// for sample at the app's latency: there they are lined up, and measured.
final class NearEndAlignmentTests: XCTestCase {
    private func metrics(_ vector: String, aec: String) throws -> [String: Any] {
        let out = try temporaryDirectory("\(vector)-\(aec)")
        defer { try? FileManager.default.removeItem(at: out) }
        let scenario = packageRoot.appendingPathComponent("vectors/scenarios/\(vector).json").path
        let run = try runEchoLab(["run", scenario, "--aec", aec, "--out", out.path, "--no-taps"])
        XCTAssertEqual(run.status, 0, run.standardError)
        let report = try loadJSON(out.appendingPathComponent("report.json").path)
        return try XCTUnwrap(report["metrics"] as? [String: Any], vector)
    }

    private func nearEnd(_ vector: String, aec: String) throws -> [String: Any] {
        try XCTUnwrap(try metrics(vector, aec: aec)["near_end"] as? [String: Any], vector)
    }

    /// The gate hears double talk there, from the tracks; what is not measured is the near end in
    /// the output. It read "no double talk: the near end never talked over the far end". A
    /// pass-through at 16 kHz under full-band noise holds the tracks in no tick (the noise above
    /// 8 kHz is gone from it).
    func testDoubleTalkLeftUnmeasuredSaysWhy() throws {
        let out = try temporaryDirectory("sixteen")
        defer { try? FileManager.default.removeItem(at: out) }
        let inputs = packageRoot.appendingPathComponent("vectors/inputs").path
        let scenario = try writeScenario("""
            {"name": "sixteen", "duration_s": 10, "far_end": "\(inputs)/farend_speech_16k.wav", "near_end": "\(inputs)/nearend_speech_16k.wav",
             "echo_path": {"delay_ms": 60, "gain_db": -10, "impulse_response": "\(inputs)/room_rir_48k.wav"}, "noise": {"level_dbfs": -45, "seed": 7},
             "mic": {"device": "passthrough", "sample_rate": 16000}}
            """, named: "sixteen.json", in: out)
        let run = try runEchoLab(["run", scenario, "--aec", "speex:intensityMin", "--out", out.appendingPathComponent("run").path, "--no-taps"])
        XCTAssertEqual(run.status, 0, run.standardError)
        let report = try loadJSON(out.appendingPathComponent("run/report.json").path)
        let metrics = try XCTUnwrap(report["metrics"] as? [String: Any])
        let gate = try XCTUnwrap(metrics["gate"] as? [String: Any])
        let frames = try XCTUnwrap(gate["double_talk_analysis_frames"] as? Int)
        XCTAssertGreaterThan(frames, 10)
        let telephony = try XCTUnwrap(metrics["telephony"] as? [String: Any])
        XCTAssertTrue(telephony["double_talk"] is NSNull)
        XCTAssertEqual(telephony["double_talk_unmeasured_reason"] as? String,
                       "the near-end track does not line up with the output in double talk (a custom mic sent its own audio, or the mic after its own buffering; or the send was silenced)")
    }

    func testCustomMicStretchesAreNotScoredAgainstTheAcousticNearEnd() throws {
        // A generator as the mic: nothing to measure.
        let generated = try nearEnd("hw-session-mistakes", aec: "speex:intensityMin")
        XCTAssertEqual(generated["double_talk_analysis_frames"] as? Int, 0)
        XCTAssertTrue(generated["attenuation_db"] is NSNull, "\(generated)")
        // A pass-through at 44.1 kHz holds the tracks to 40 dB only in some ticks (its speech lies
        // under 8 kHz, the room's noise does not): those are measured, lined up — speex's light
        // intensity takes a few dB, not the 52–68 dB the tracks unaligned read.
        let jittery = try nearEnd("passthrough-jittery", aec: "speex:intensityMin")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(jittery["double_talk_analysis_frames"] as? Int), 20, "\(jittery)")
        XCTAssertLessThan(try XCTUnwrap(jittery["attenuation_db"] as? Double), 6, "\(jittery)")
        // device-transitions switches between a file mic and the device mic: only the device
        // mic's stretches are scored, and there speex's light intensity keeps the near end
        // within a few dB (with the file mic's stretches: 6.4 dB, and AECM's Max "lost" it).
        let transitions = try nearEnd("device-transitions", aec: "speex:intensityMin")
        let frames = try XCTUnwrap(transitions["double_talk_analysis_frames"] as? Int)
        XCTAssertGreaterThan(frames, 40)
        XCTAssertLessThan(try XCTUnwrap(transitions["attenuation_db"] as? Double), 5)
        let mobile = try nearEnd("device-transitions", aec: "webrtc-mobile:intensityRecommended")
        XCTAssertEqual(try XCTUnwrap(mobile["double_talk_analysis_frames"] as? Int), frames, accuracy: 2)
    }

    /// A pass-through switched in and out mid-call: the ERL of each stretch is the path's (6 dB
    /// flat) — each stretch's echo track, lined up with its capture, is paired with the reference
    /// at the delay searched again after each switch (the pass-through's 50 ms on top of the
    /// path's 40, a 10 ms timer's less) — and the near end is measured in the pass-through's
    /// stretches too.
    func testAPassThroughSwitchedInMidCallKeepsEachStretchsERL() throws {
        let out = try temporaryDirectory("switched")
        defer { try? FileManager.default.removeItem(at: out) }
        let scenario = try writeScenario("""
            {"name": "switched", "duration_s": 10, "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "near_end": {"generator": "speech", "level_dbfs": -26, "seed": 2, "pitch_hz": 210}, "noise": {"level_dbfs": -60, "seed": 3},
             "echo_path": {"delay_ms": 40, "gain_db": -6},
             "timeline": [{"at_ms": 3000, "action": "set_custom_mic", "device": "passthrough"}, {"at_ms": 6000, "action": "reset_custom_mic"},
                          {"at_ms": 8000, "action": "set_custom_mic", "device": "passthrough", "period_ms": 10}]}
            """, named: "switched.json", in: out)
        let run = try runEchoLab(["run", scenario, "--out", out.appendingPathComponent("run").path, "--no-taps"])
        XCTAssertEqual(run.status, 0, run.standardError)
        let report = try loadJSON(out.appendingPathComponent("run/report.json").path)
        let segments = try XCTUnwrap(report["segments"] as? [[String: Any]])
        XCTAssertEqual(segments.count, 4)
        for segment in segments {
            XCTAssertEqual(try XCTUnwrap(segment["erl_db"] as? Double), 6, accuracy: 0.01, "\(segment)")
        }
        let delays = try segments.map { try XCTUnwrap($0["delay_ms"] as? Double, "\($0)") }
        XCTAssertEqual(delays[0], 40, accuracy: 0.01)
        XCTAssertEqual(delays[1], 90, accuracy: 0.01)
        XCTAssertEqual(delays[2], 40, accuracy: 0.01)
        XCTAssertGreaterThan(delays[3], 40.5)
        XCTAssertLessThan(delays[3], 90)
        let metrics = try XCTUnwrap(report["metrics"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(metrics["erl_db"] as? Double), 6, accuracy: 0.01)
        let nearEnd = try XCTUnwrap(metrics["near_end"] as? [String: Any])
        XCTAssertGreaterThan(try XCTUnwrap(nearEnd["double_talk_analysis_frames"] as? Int), 250, "\(nearEnd)")
    }

    /// A device mic the app forwards at 48 kHz reaches the send path ~50 ms after the room
    /// (timer, buffers, priming). Scored against the tracks as they were, the talker's words fell
    /// into frames called far-end single talk (ERLE 4.4 dB where the canceller removed 10.7, and
    /// the tap-free gate reads 9.3) and the near end went unmeasured; lined up, the run agrees
    /// with the tap-free reading of its own taps, and measures its double talk. `metrics` given
    /// the run's echo.wav and near.wav, which are the room at the device mic, says they lead the
    /// mic by the app's latency.
    func testAForwardedDeviceMicIsScoredAgainstItsTracksLinedUp() throws {
        let out = try temporaryDirectory("forwarded")
        defer { try? FileManager.default.removeItem(at: out) }
        // A talker from 2.5 to 4.5 s of 8: far-end single talk on either side, enough for the
        // tap-free gate's own reading.
        let rate = 48_000
        var near = SignalGenerator.render(.speechLike(levelDBFS: -24, pitchHz: 210), sampleRate: rate, count: 8 * rate, seed: 8)
        for i in near.indices where !(rate * 5 / 2..<rate * 9 / 2).contains(i) { near[i] = 0 }
        try SoundFileWriter.write(near, to: out.appendingPathComponent("near.wav").path, sampleRate: rate)
        let scenario = try writeScenario("""
            {"name": "forwarded", "duration_s": 8, "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "near_end": "near.wav", "noise": {"level_dbfs": -60, "seed": 3},
             "echo_path": {"delay_ms": 40, "gain_db": -10}, "mic": {"device": "passthrough"}}
            """, named: "forwarded.json", in: out)
        let run = try runEchoLab(["run", scenario, "--out", out.appendingPathComponent("run").path, "--all-taps"])
        XCTAssertEqual(run.status, 0, run.standardError)
        let folder = out.appendingPathComponent("run")
        let report = try loadJSON(folder.appendingPathComponent("report.json").path)
        let metrics = try XCTUnwrap(report["metrics"] as? [String: Any])
        let nearEnd = try XCTUnwrap(metrics["near_end"] as? [String: Any])
        XCTAssertGreaterThan(try XCTUnwrap(nearEnd["double_talk_analysis_frames"] as? Int), 50, "\(nearEnd)")
        XCTAssertNotNil(nearEnd["attenuation_db"] as? Double, "\(nearEnd)")
        let erle = try XCTUnwrap(metrics["erle_db"] as? Double)
        func tap(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let tapFree = try runEchoLab(["metrics", "--reference", tap("reference.wav"), "--mic", tap("mic.wav"), "--processed", tap("sent.wav")])
        XCTAssertEqual(tapFree.status, 0, tapFree.standardError)
        let scored = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(tapFree.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(erle, try XCTUnwrap(scored["erle_db"] as? Double), accuracy: 1.5, "the run against the tap-free reading of its taps")
        let tracked = try runEchoLab(["metrics", "--reference", tap("reference.wav"), "--mic", tap("mic.wav"), "--processed", tap("sent.wav"),
                                      "--echo", tap("echo.wav"), "--near-end", tap("near.wav")])
        XCTAssertEqual(tracked.status, 0, tracked.standardError)
        for track in ["echo track", "near-end track"] {
            XCTAssertTrue(tracked.standardError.contains("warning: the \(track) \(tap(track == "echo track" ? "echo.wav" : "near.wav")) leads the mic by 50.0 ms"),
                          tracked.standardError)
        }
    }
}
