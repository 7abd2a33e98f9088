import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// Sound files whose header lies — an absurd sample rate, a Wave64 cut short — through the
/// binary: one line naming the file, and only its own item failed.
final class BrokenHeaderTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws { root = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    /// `source` copied to `name` with the fmt chunk's sample rate (byte 24 of the project's WAVs) set to `rate`.
    private func copy(_ source: String, to name: String, claimingRate rate: UInt32) throws -> String {
        var data = try Data(contentsOf: URL(fileURLWithPath: source))
        XCTAssertEqual(data[12..<16], Data("fmt ".utf8), "fmt is the first chunk: the rate is at byte 24")
        data.replaceSubrange(24..<28, with: withUnsafeBytes(of: rate.littleEndian) { Data($0) })
        let path = root.appendingPathComponent(name).path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// 2^31 - 1 Hz in a header aborted `metrics` ("failed to allocate 103079215088 bytes" and a
    /// stack trace) and a whole eval (exit 134, no eval.json, its lock left behind); 10 MHz took
    /// minutes and 1.4 GB. A rate above 384 kHz is refused by name, and an eval item holding
    /// such a file fails alone.
    func testASampleRateAbove384kHzIsAnErrorNamingTheFileAndFailsOnlyItsItem() throws {
        let reference = try writeSpeechWAV("ref.wav", in: root), mic = try writeSpeechWAV("mic.wav", in: root, level: -30)
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
        let highReference = try writeSpeechWAV("ref384.wav", in: root, seconds: 1.5, rate: 384_000)
        let highMic = try writeSpeechWAV("mic384.wav", in: root, seconds: 1.5, level: -30, rate: 384_000)
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

    /// A Wave64 file cut short ran as if whole (libsndfile logs nothing for it), where the same
    /// cut in a WAV is an error naming the file: its data chunk is checked against the file's size.
    func testATruncatedW64IsAnErrorLikeATruncatedWAV() throws {
        let format = SoundFileFixtures.formats.first { $0.name == "w64-pcm16" }!
        let whole = root.appendingPathComponent("far.w64").path
        try SoundFileFixtures.write(SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: 16_000, count: 64_000, seed: 1),
                                    to: whole, format: format)
        try Data(try Data(contentsOf: URL(fileURLWithPath: whole)).prefix(60_000)).write(to: root.appendingPathComponent("cut.w64"))
        for (name, status) in [("far.w64", Int32(0)), ("cut.w64", 1)] {
            _ = try writeScenario(#"{"name": "x", "far_end": "\#(name)"}"#, named: "s.json", in: root)
            let run = try runEchoLab(["run", "s.json", "--out", "out-\(name)", "--no-taps"], in: root)
            XCTAssertEqual(run.status, status, run.standardError)
            if status == 1 {
                XCTAssertEqual(run.standardError, "echolab: s.json: far_end: \(root.appendingPathComponent(name).path): truncated audio file: header declares 128000 bytes of audio data but the file holds 59896 (46%); the file was cut short\n")
            }
        }
    }
}
