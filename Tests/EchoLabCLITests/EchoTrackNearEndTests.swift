import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// A recording given its echo track and no near-end track: mic − echo is its near end (the talker
/// with the mic's noise), and the near talker is measured against it. Without it, adding the
/// echo track took away the near-end figure the same recording without tracks estimates, and
/// eval.md said nothing of why.
final class EchoTrackNearEndTests: XCTestCase {
    func testMicLessEchoIsTheNearEnd() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rate = 48_000, count = 10 * rate, delay = 1_920
        let far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 140), sampleRate: rate, count: count, seed: 1)
        let talker = SignalGenerator.render(.speechLike(levelDBFS: -24, pitchHz: 220), sampleRate: rate, count: count, seed: 2)
        let noise = SignalGenerator.render(.whiteNoise(levelDBFS: -70), sampleRate: rate, count: count, seed: 3)
        let echo = (0..<count).map { $0 >= delay ? 0.35 * far[$0 - delay] : 0 }
        let nearEnd = (0..<count).map { ($0 >= 4 * rate ? talker[$0] : 0) + noise[$0] }
        let mic = (0..<count).map { echo[$0] + nearEnd[$0] }
        // The canceller left a twentieth of the echo and halved the talker (−6.02 dB).
        let out = (0..<count).map { 0.05 * echo[$0] + 0.5 * nearEnd[$0] }
        for (name, samples) in [("lpb", far), ("echo", echo), ("near", nearEnd), ("mic", mic), ("out", out)] {
            try SoundFileWriter.write(samples, to: folder.appendingPathComponent("\(name).wav").path, sampleRate: rate)
        }
        func metrics(_ tracks: [String]) throws -> [String: Any] {
            let run = try runEchoLab(["metrics", "--reference", "lpb.wav", "--mic", "mic.wav", "--processed", "out.wav"] + tracks, in: folder)
            XCTAssertEqual(run.status, 0, run.standardError)
            return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        }
        let echoOnly = try metrics(["--echo", "echo.wav"])
        XCTAssertEqual((echoOnly["gate"] as? [String: Any])?["method"] as? String, "mic_minus_echo")
        let derived = try XCTUnwrap(echoOnly["near_end"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(derived["attenuation_db"] as? Double), 20 * log10(2), accuracy: 0.01)
        XCTAssertGreaterThan(try XCTUnwrap(derived["double_talk_analysis_frames"] as? Int), 100)
        // Given as a track, the same near end reads the same.
        let both = try metrics(["--echo", "echo.wav", "--near-end", "near.wav"])
        XCTAssertEqual((both["gate"] as? [String: Any])?["method"] as? String, "near_end_track")
        let given = try XCTUnwrap(both["near_end"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(given["attenuation_db"] as? Double), try XCTUnwrap(derived["attenuation_db"] as? Double), accuracy: 1e-3)
        XCTAssertEqual(given["double_talk_analysis_frames"] as? Int, derived["double_talk_analysis_frames"] as? Int)
    }
}
