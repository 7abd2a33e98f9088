import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// Files given in the wrong roles give figures no recording does, and `metrics` says so: the
/// near-end track given as the echo read an ERL of −40 dB, and the mic and the output swapped an
/// ERLE of −24 dB, each with exit 0 and no word on stderr. Given right, the same files warn of
/// nothing.
final class FilesInTheWrongRolesTests: XCTestCase {
    func testSwappedTracksAndASwappedOutputAreWarnedOf() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rate = 48_000, count = 8 * rate, delay = 1_776
        let far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 140), sampleRate: rate, count: count, seed: 1)
        let talker = SignalGenerator.render(.speechLike(levelDBFS: -10, pitchHz: 220), sampleRate: rate, count: count, seed: 2)
        let noise = SignalGenerator.render(.whiteNoise(levelDBFS: -70), sampleRate: rate, count: count, seed: 3)
        let echo = (0..<count).map { $0 >= delay ? 0.35 * far[$0 - delay] : 0 }
        let near = (0..<count).map { $0 >= 5 * rate ? talker[$0] : 0 }
        let mic = (0..<count).map { echo[$0] + near[$0] + noise[$0] }
        let out = (0..<count).map { 0.05 * echo[$0] + near[$0] + noise[$0] }
        for (name, samples) in [("lpb", far), ("echo", echo), ("near", near), ("mic", mic), ("out", out)] {
            try SoundFileWriter.write(samples, to: folder.appendingPathComponent("\(name).wav").path, sampleRate: rate)
        }
        func warnings(_ arguments: [String]) throws -> [String] {
            let run = try runEchoLab(["metrics"] + arguments, in: folder)
            XCTAssertEqual(run.status, 0, run.standardError)
            return run.standardError.split(separator: "\n").map(String.init).filter { $0.contains("warning:") }
        }
        XCTAssertEqual(try warnings(["--reference", "lpb.wav", "--mic", "mic.wav", "--processed", "out.wav", "--echo", "echo.wav", "--near-end", "near.wav"]), [])
        // A loopback 22 dB under its echo (tapped before the playback gain) is no swap: no word.
        let loud = SignalGenerator.render(.speechLike(levelDBFS: -14, pitchHz: 140), sampleRate: rate, count: count, seed: 1)
        let loudEcho = (0..<count).map { $0 >= delay ? 0.5 * loud[$0 - delay] : 0 }
        for (name, samples) in [("quiet-lpb", loud.map { 0.04 * $0 }), ("loud-echo", loudEcho),
                                ("loud-mic", (0..<count).map { loudEcho[$0] + near[$0] + noise[$0] }),
                                ("loud-out", (0..<count).map { 0.05 * loudEcho[$0] + near[$0] + noise[$0] })] {
            try SoundFileWriter.write(samples, to: folder.appendingPathComponent("\(name).wav").path, sampleRate: rate)
        }
        XCTAssertEqual(try warnings(["--reference", "quiet-lpb.wav", "--mic", "loud-mic.wav", "--processed", "loud-out.wav",
                                     "--echo", "loud-echo.wav", "--near-end", "near.wav"]), [])
        XCTAssertEqual(try warnings(["--reference", "quiet-lpb.wav", "--mic", "loud-mic.wav", "--processed", "loud-out.wav"]), [])
        let quiet = try runEchoLab(["metrics", "--reference", "quiet-lpb.wav", "--mic", "loud-mic.wav", "--processed", "loud-out.wav",
                                    "--echo", "loud-echo.wav", "--near-end", "near.wav"], in: folder)
        let figures = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(quiet.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(figures["erl_db"] as? Double), 20 * log10(0.04 / 0.5), accuracy: 0.2, "as loud an echo as the swap's")
        let swappedTracks = try warnings(["--reference", "lpb.wav", "--mic", "mic.wav", "--processed", "out.wav", "--echo", "near.wav", "--near-end", "echo.wav"])
        XCTAssertTrue(swappedTracks.contains { $0.hasPrefix("echolab metrics: warning: the echo track near.wav is ") && $0.hasSuffix(": --echo and --near-end swapped?") },
                      "\(swappedTracks)")
        let swappedOutput = try warnings(["--reference", "lpb.wav", "--mic", "out.wav", "--processed", "mic.wav"])
        XCTAssertTrue(swappedOutput.contains { $0.hasPrefix("echolab metrics: warning: mic.wav is ") && $0.hasSuffix(" dB louder than out.wav where only the far end talks: a canceller or gain that adds that much, or --mic and --processed swapped?") },
                      "\(swappedOutput)")
        // An output whose echo is gone (under the mic's noise) given as the mic: no single talk
        // and no ERLE ("no echo to cancel"), but the output stands 40 dB over it where the far end
        // plays alone. Given right, it is a canceller that removed all the echo: no word.
        try SoundFileWriter.write((0..<count).map { near[$0] + noise[$0] }, to: folder.appendingPathComponent("clean.wav").path, sampleRate: rate)
        XCTAssertEqual(try warnings(["--reference", "lpb.wav", "--mic", "mic.wav", "--processed", "clean.wav"]), [])
        let swappedClean = try warnings(["--reference", "lpb.wav", "--mic", "clean.wav", "--processed", "mic.wav"])
        XCTAssertEqual(swappedClean.count, 1, "\(swappedClean)")
        let louder = try XCTUnwrap(swappedClean.first.flatMap { line in
            line.split(separator: " ").firstIndex(of: "dB").flatMap { Double(line.split(separator: " ")[$0 - 1]) } })
        XCTAssertEqual(louder, -20 + 20 * log10(0.35) + 70, accuracy: 3,
                       "the echo (a −20 dBFS far end, 9 dB down) over the −70 dBFS noise: \(swappedClean)")
        XCTAssertTrue(swappedClean[0].hasPrefix("echolab metrics: warning: mic.wav is ") && swappedClean[0].hasSuffix(" dB louder than clean.wav where only the far end talks: a canceller or gain that adds that much, or --mic and --processed swapped?"),
                      "\(swappedClean)")
    }
}
