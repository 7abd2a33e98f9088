import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import Metrics
import XCTest

/// The tap-free gate where the loudspeaker clips (issue #24, part 3): about 2 % of the drive's
/// samples clipped, echo louder than the reference, a near-end talker 10 dB under the echo. A
/// linear fit leaves the clipped peaks' distortion in every frame and took it for a talker (26
/// of 348 single-talk frames left, ERL 4.9 dB off the taps', WebRTC's ERLE 2.7 dB off); the
/// gate now models the clip (`LoudspeakerClipSearch`). Where no model explains the echo, the
/// gate says so (`gate.limitation`) instead of scoring the few frames left.
final class ClippingRoomGateTests: TapFreeGateFixture {
    static let far = "\"far_end\": \"\(inputs)/farend_speech_16k.wav\", \"noise\": {\"level_dbfs\": -60, \"seed\": 7}, \"duration_s\": 10"
    /// The far-end file's 2 % of largest samples lie above −14.5 dBFS; the echo comes out about
    /// 4 dB above the reference.
    static let clipDBFS = -14.5
    static let room = "\"echo_path\": {\"delay_ms\": 30, \"gain_db\": 4, \"clip_dbfs\": \(clipDBFS), \"synthetic_room\": {\"rt60_ms\": 300, \"seed\": 3}}"

    func testAClippingLoudspeakerIsModelledWithAndWithoutDoubleTalk() throws {
        // Far-end single talk first: it gives the echo's level, which sets the near end's.
        let single = try simulate("clip-single", "\(Self.far), \(Self.room)", mode: "speex:intensityRecommended")
        let reference = try AudioFileStream.readAll(path: single.appendingPathComponent("reference.wav").path).samples
        let clipLevel = Float(pow(10, Self.clipDBFS / 20))
        let clippedShare = Double(reference.filter { abs($0) > clipLevel }.count) / Double(reference.count)
        XCTAssertEqual(clippedShare, 0.02, accuracy: 0.005, "the room clips about 2 % of the drive")
        var comparisons = [try compare(single, name: "clip-single", mode: "speex:intensityRecommended", doubleTalk: false)]
        let echo = try AudioFileStream.readAll(path: single.appendingPathComponent("echo.wav").path).samples
        XCTAssertGreaterThan(Self.meanSquareDB(echo), Self.meanSquareDB(reference), "the echo is louder than the reference")

        // The near end 10 dB under the echo (whole-file mean squares).
        let near = try AudioFileStream.readAll(path: Self.inputs + "/nearend_speech_16k.wav")
        let gain = Float(pow(10, (Self.meanSquareDB(echo) - 10 - Self.meanSquareDB(near.samples)) / 20))
        try SoundFileWriter.write(near.samples.map { $0 * gain }, to: root.appendingPathComponent("near-clip.wav").path,
                                  sampleRate: near.sampleRate, encoding: .float32)
        for mode in Self.modes {
            let folder = try simulate("clip-double", "\(Self.far), \"near_end\": \"near-clip.wav\", \(Self.room)", mode: mode)
            comparisons.append(try compare(folder, name: "clip-double", mode: mode, doubleTalk: true))
        }
        print(comparisons.map(\.line).joined(separator: "\n"))
        for c in comparisons {
            let goal = c.doubleTalk ? 1.5 : 1.0
            XCTAssertNil(c.tapFree.gate.limitation, c.line)
            XCTAssertLessThanOrEqual(try XCTUnwrap(c.erlDifference, c.line), goal, c.line)
            XCTAssertLessThanOrEqual(try XCTUnwrap(c.erleDifference, c.line), goal, c.line)
            // Scored over the call's single talk, not over a handful of frames.
            XCTAssertGreaterThanOrEqual(Double(c.tapFree.gate.singleTalkFrames), 0.9 * Double(c.tapped.gate.singleTalkFrames), c.line)
        }
    }

    /// An echo no model of the gate explains (the loudspeaker squares its speech drive: x·|x|,
    /// whose power no linear path or clip reproduces in full): the tap-free gate says so, and
    /// scores nothing; the same files with the near-end track are scored. The linear echo of the
    /// same far end is explained, and scored as the track scores it. (A steady far end such as
    /// white noise leaves a steady error, which the gate takes off as noise: its frames are
    /// scored, rightly, as single talk.)
    func testAnEchoTheGateCannotExplainIsUnmeasuredWithItsReason() throws {
        let speech = try AudioFileStream.readAll(path: Self.inputs + "/farend_speech_16k.wav")
        let rate = speech.sampleRate, far = speech.samples, count = far.count, delay = rate / 100
        var random = SeededRandom(seed: 5)
        let noise = (0..<count).map { _ in random.nextGaussian() * 1e-3 }
        func write(_ samples: [Float], _ name: String) throws -> String {
            let path = root.appendingPathComponent("\(name).wav").path
            try SoundFileWriter.write(samples, to: path, sampleRate: rate)
            return path
        }
        let referencePath = try write(far, "lpb")
        let nearPath = try write(noise, "near")
        for (name, loudspeaker) in [("squared", { (x: Float) in 10 * x * abs(x) }), ("linear", { (x: Float) in 0.5 * x })] {
            let mic = (0..<count).map { index in (index >= delay ? loudspeaker(far[index - delay]) : 0) + noise[index] }
            let micPath = try write(mic, "mic-\(name)"), processedPath = try write(mic.map { 0.1 * $0 }, "out-\(name)")
            let analyzer = EchoAnalyzer()
            let tracked = try analyzer.analyzeFiles(reference: referencePath, mic: micPath, processed: processedPath, nearEnd: nearPath).whole
            let tapFree = try analyzer.analyzeFiles(reference: referencePath, mic: micPath, processed: processedPath).whole
            XCTAssertNotNil(tracked.erleDB, name)
            XCTAssertEqual(tapFree.gate.method, .echoPathFit, name)
            if name == "linear" {
                XCTAssertNil(tapFree.gate.limitation, name)
                XCTAssertEqual(try XCTUnwrap(tapFree.erlDB), try XCTUnwrap(tracked.erlDB), accuracy: 0.05, name)
                XCTAssertEqual(try XCTUnwrap(tapFree.erleDB), try XCTUnwrap(tracked.erleDB), accuracy: 0.05, name)
            } else {
                XCTAssertEqual(tapFree.gate.limitation, .echoNotExplained, name)
                XCTAssertEqual(tapFree.gate.singleTalkFrames, 0, name)
                XCTAssertNil(tapFree.erlDB, name)
                XCTAssertNil(tapFree.erleDB, name)
                // The reason reaches the JSON `echolab metrics` prints.
                let result = try runEchoLab(["metrics", "--reference", referencePath, "--mic", micPath, "--processed", processedPath])
                XCTAssertEqual(result.status, 0, result.standardError)
                let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
                let whole = (json["whole"] as? [String: Any]) ?? json
                XCTAssertEqual((whole["gate"] as? [String: Any])?["limitation"] as? String, "echo_not_explained")
            }
        }
    }

    static func meanSquareDB(_ samples: [Float]) -> Double {
        10 * log10(samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count)))
    }
}
