import EchoLabTestSupport
import Foundation
import XCTest

/// Near-end preservation is measured only where the device mic fed the send path: a custom mic
/// sends its own audio (a generator, a file) or the device mic after its own buffering (a
/// passthrough device: ~10 ms later, resampled), so the acoustic near-end track no longer lines
/// up with sent there. Counted, those stretches read as the canceller removing the near end
/// (passthrough-jittery: 52–68 dB of "attenuation", or none surviving at all).
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
    /// the output. It read "no double talk: the near end never talked over the far end".
    func testDoubleTalkLeftUnmeasuredSaysWhy() throws {
        let metrics = try metrics("passthrough-jittery", aec: "speex:intensityMin")
        let gate = try XCTUnwrap(metrics["gate"] as? [String: Any])
        let frames = try XCTUnwrap(gate["double_talk_analysis_frames"] as? Int)
        XCTAssertGreaterThan(frames, 50)
        let telephony = try XCTUnwrap(metrics["telephony"] as? [String: Any])
        XCTAssertTrue(telephony["double_talk"] is NSNull)
        XCTAssertEqual(telephony["double_talk_unmeasured_reason"] as? String,
                       "the near-end track does not line up with the output in double talk (a custom mic sent its own audio, or the mic after its own buffering; or the send was silenced)")
    }

    func testCustomMicStretchesAreNotScoredAgainstTheAcousticNearEnd() throws {
        // A passthrough custom mic for the whole call, and a generator: nothing to measure.
        for vector in ["passthrough-jittery", "hw-session-mistakes"] {
            let nearEnd = try nearEnd(vector, aec: "speex:intensityMin")
            XCTAssertEqual(nearEnd["double_talk_analysis_frames"] as? Int, 0, vector)
            XCTAssertTrue(nearEnd["attenuation_db"] is NSNull, "\(vector): \(nearEnd)")
        }
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
}
