import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// `process` writes its output aligned with the mic, and its help sends it to `metrics`:
/// `metrics` must score it. On an echo-only mic (a voice, delayed and quieter, nothing else)
/// the output is residual echo, whose correlation with the mic is no clean delay: it peaked a
/// sample early (WebRTC's AEC) or by chance 359 ms early (AECM), and both were refused as
/// outputs that lead the mic.
final class MetricsOfProcessOutputTests: XCTestCase {
    func testMetricsScoresWhatProcessWrote() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try speak("Hello, this is the far end. The numbers from last week looked good, but the double talk tests were missing.",
                  to: "voice.wav", in: folder)
        // At 48 kHz, and the mic the same voice 30 ms later and 12 dB quieter.
        let voice = try AudioFileStream.readAll(path: folder.appendingPathComponent("voice.wav").path, targetRate: 48_000).samples
        let far = folder.appendingPathComponent("far.wav").path, mic = folder.appendingPathComponent("mic.wav").path
        try SoundFileWriter.write(voice, to: far, sampleRate: 48_000)
        try SoundFileWriter.write([Float](repeating: 0, count: 1_440) + voice.prefix(voice.count - 1_440).map { $0 / 4 }, to: mic, sampleRate: 48_000)
        let inputs = try [far, mic].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        for mode in ["webrtc:intensityMax", "webrtc-mobile:intensityMax"] {
            let out = folder.appendingPathComponent("\(mode.prefix { $0 != ":" }).wav").path
            let processed = try runEchoLab(["process", "--mic", mic, "--reference", far, "--out", out, "--aec", mode])
            XCTAssertEqual(processed.status, 0, processed.standardError)
            let scored = try runEchoLab(["metrics", "--reference", far, "--mic", mic, "--processed", out])
            guard scored.status == 0 else { XCTFail("\(mode): \(scored.standardError)"); continue }
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(scored.standardOutput.utf8)) as? [String: Any], mode)
            let lag = try XCTUnwrap(json["processed_lag_ms"] as? Double, mode)
            XCTAssertLessThanOrEqual(lag, 1, "\(mode): the output is aligned, within a few samples")
            XCTAssertGreaterThan(try XCTUnwrap(json["erle_db"] as? Double, mode), 10, mode)
        }
        XCTAssertEqual(try [far, mic].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }, inputs, "inputs untouched")
    }
}
