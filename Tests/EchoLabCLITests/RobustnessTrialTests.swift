import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// Found by a new user's robustness trial, each through the binary: what a broken header, a
/// second process, a closed pipe or a full disk did to a command that promises one line of error
/// and nothing lost.
final class RobustnessTrialTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws { root = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    /// A 16 kHz 16-bit WAV of `seconds` of speech-like audio at `level`.
    private func writeWAV(_ name: String, seconds: Double = 3, level: Double = -20, seed: UInt64 = 1, rate: Int = 16_000) throws -> String {
        let path = root.appendingPathComponent(name).path
        let samples = SignalGenerator.render(.speechLike(levelDBFS: level, pitchHz: 120), sampleRate: rate,
                                             count: Int(seconds * Double(rate)), seed: seed)
        try SoundFileWriter.write(samples, to: path, sampleRate: rate, encoding: .pcm16)
        return path
    }

    /// `source` copied to `name` with the fmt chunk's sample rate (byte 24 of the project's WAVs) set to `rate`.
    private func copy(_ source: String, to name: String, claimingRate rate: UInt32) throws -> String {
        var data = try Data(contentsOf: URL(fileURLWithPath: source))
        XCTAssertEqual(data[12..<16], Data("fmt ".utf8), "fmt is the first chunk: the rate is at byte 24")
        data.replaceSubrange(24..<28, with: withUnsafeBytes(of: rate.littleEndian) { Data($0) })
        let path = root.appendingPathComponent(name).path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    // MARK: A header's absurd sample rate

    /// 2^31 - 1 Hz in a header aborted `metrics` ("failed to allocate 103079215088 bytes" and a
    /// stack trace) and a whole eval (exit 134, no eval.json, its lock left behind); 10 MHz took
    /// minutes and 1.4 GB. A rate above 384 kHz is refused by name, and an eval item holding
    /// such a file fails alone.
    func testASampleRateAbove384kHzIsAnErrorNamingTheFileAndFailsOnlyItsItem() throws {
        let reference = try writeWAV("ref.wav"), mic = try writeWAV("mic.wav", level: -30)
        for rate: UInt32 in [0x7fff_ffff, 10_000_000, 384_001] {
            let badReference = try copy(reference, to: "ref-\(rate).wav", claimingRate: rate)
            let badMic = try copy(mic, to: "mic-\(rate).wav", claimingRate: rate)
            let metrics = try runEchoLab(["metrics", "--reference", badReference, "--mic", badMic, "--processed", badMic], in: root)
            XCTAssertEqual(metrics.status, 1, "\(rate): \(metrics.standardError)")
            XCTAssertEqual(metrics.standardError.split(separator: "\n").count, 1, metrics.standardError)
            XCTAssertTrue(metrics.standardError.contains("ref-\(rate).wav") && metrics.standardError.contains("\(rate) Hz")
                          && metrics.standardError.contains("384000 Hz"), metrics.standardError)
            XCTAssertEqual(metrics.standardOutput, "")
        }
        // 384 kHz itself is read.
        let highReference = try writeWAV("ref384.wav", seconds: 1.5, rate: 384_000)
        let highMic = try writeWAV("mic384.wav", seconds: 1.5, level: -30, rate: 384_000)
        let high = try runEchoLab(["metrics", "--reference", highReference, "--mic", highMic, "--processed", highMic], in: root)
        XCTAssertEqual(high.status, 0, high.standardError)

        _ = try copy(reference, to: "ref_badrate.wav", claimingRate: 0x7fff_ffff)
        _ = try copy(mic, to: "mic_badrate.wav", claimingRate: 0x7fff_ffff)
        try Data("""
            {"corpus": [{"name": "good1", "mic": "mic.wav", "loopback": "ref.wav"},
                        {"name": "bad", "mic": "mic_badrate.wav", "loopback": "ref_badrate.wav"},
                        {"name": "good2", "mic": "mic.wav", "loopback": "ref.wav"}]}
            """.utf8).write(to: root.appendingPathComponent("corpus.json"))
        let inputs = try snapshot(root)
        let eval = try runEchoLab(["eval", "corpus.json", "--out", "out", "--modes", "disabled", "--jobs", "1"], in: root)
        XCTAssertEqual(eval.status, 1, eval.standardError)
        XCTAssertTrue(eval.standardOutput.hasPrefix("2 of 3 runs succeeded"), eval.standardOutput)
        XCTAssertTrue(eval.standardError.contains("_badrate.wav") && eval.standardError.contains("2147483647 Hz"), eval.standardError)
        XCTAssertFalse(eval.standardError.contains("Fatal error"), eval.standardError)
        let out = root.appendingPathComponent("out")
        let items = try loadJSON(out.appendingPathComponent("eval.json").path)["items"] as! [[String: Any]]
        XCTAssertEqual(items.map { $0["name"] as! String }, ["good1", "bad", "good2"])
        XCTAssertEqual(allFiles(under: out).filter { $0.hasPrefix(".") || $0.contains("/.") }, [], "no lock or hidden temporary left")
        XCTAssertEqual(try snapshot(root).filter { !$0.key.hasPrefix("/out/") }, inputs)
    }
}
