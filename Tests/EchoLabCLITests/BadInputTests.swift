import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// Bad input through the real command: one line naming the file (or key), a non-zero exit, and
/// no report left behind.
final class BadInputTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func scenario(farEnd: String) throws -> String {
        try writeScenario("""
            {"name": "bad", "far_end": "\(farEnd)", "echo_path": {"delay_ms": 10}, "aec": {"mode": "disabled"}, "duration_s": 1}
            """, in: folder)
    }

    private func assertFails(_ arguments: [String], mentions needles: [String], out: URL?,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try runEchoLab(arguments)
        XCTAssertNotEqual(result.status, 0, file: file, line: line)
        let lines = result.standardError.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, "expected one line, got: \(result.standardError)", file: file, line: line)
        for needle in needles {
            XCTAssertTrue(result.standardError.contains(needle), "\(result.standardError) should mention \(needle)", file: file, line: line)
        }
        if let out {
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("report.json").path), file: file, line: line)
            let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
            XCTAssertTrue(leftovers.filter { $0.hasSuffix(".partial") }.isEmpty, "partial files left: \(leftovers)", file: file, line: line)
        }
    }

    func testTruncatedWAV() throws {
        let wav = folder.appendingPathComponent("cut.wav")
        try SoundFileWriter.write(SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: 48_000, count: 48_000, seed: 1),
                                  to: wav.path, sampleRate: 48_000, encoding: .pcm16)
        let data = try Data(contentsOf: wav)
        try data.prefix(data.count / 2).write(to: wav)
        let out = folder.appendingPathComponent("out")
        try assertFails(["run", try scenario(farEnd: "cut.wav"), "--out", out.path], mentions: ["cut.wav", "truncated"], out: out)
    }

    func testTextFileNamedWAV() throws {
        try Data("this is not audio\n".utf8).write(to: folder.appendingPathComponent("text.wav"))
        let out = folder.appendingPathComponent("out")
        try assertFails(["run", try scenario(farEnd: "text.wav"), "--out", out.path], mentions: ["text.wav"], out: out)
    }

    func testMissingInputFile() throws {
        let out = folder.appendingPathComponent("out")
        try assertFails(["run", try scenario(farEnd: "nowhere.wav"), "--out", out.path], mentions: ["far_end", "nowhere.wav"], out: out)
    }

    func testMissingScenarioFile() throws {
        try assertFails(["run", folder.appendingPathComponent("absent.json").path, "--out", folder.path], mentions: ["absent.json"], out: nil)
    }

    func testUnknownScenarioKey() throws {
        let path = try writeScenario("""
            {"name": "typo", "far_end": {"generator": "white_noise"}, "echo_path": {"delay_msec": 40}, "duration_s": 1}
            """, in: folder)
        let out = folder.appendingPathComponent("out")
        try assertFails(["run", path, "--out", out.path], mentions: ["echo_path.delay_msec", "unknown key", "scenario.json"], out: out)
    }

    func testImpossibleValue() throws {
        let path = try writeScenario("""
            {"name": "bad", "far_end": {"generator": "white_noise"}, "echo_path": {"delay_ms": -5}, "duration_s": 1}
            """, in: folder)
        try assertFails(["run", path, "--out", folder.appendingPathComponent("out").path], mentions: ["echo_path.delay_ms", "out of range"], out: nil)
    }

    func testUnwritableOutputFolder() throws {
        let blocker = folder.appendingPathComponent("blocker")
        try Data("file".utf8).write(to: blocker)
        let path = try writeScenario(delayScenario(aec: "disabled", seconds: 1), in: folder)
        try assertFails(["run", path, "--out", blocker.appendingPathComponent("sub").path], mentions: ["blocker"], out: nil)
    }

    func testInputsAreNotModified() throws {
        let wav = folder.appendingPathComponent("far.wav")
        try SoundFileWriter.write(SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: 16_000, count: 16_000, seed: 1),
                                  to: wav.path, sampleRate: 16_000, encoding: .pcm16)
        let before = try Data(contentsOf: wav)
        let result = try runEchoLab(["run", try scenario(farEnd: "far.wav"), "--out", folder.appendingPathComponent("out").path])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(try Data(contentsOf: wav), before)
    }

    func testEvalRunsTheGoodScenariosWhenOneIsBroken() throws {
        let corpus = folder.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        _ = try writeScenario(delayScenario(aec: "disabled", seconds: 1), named: "good.json", in: corpus)
        _ = try writeScenario("{\"name\": \"broken\", \"duration_s\": \"long\"}", named: "broken.json", in: corpus)
        let out = folder.appendingPathComponent("reports")
        let result = try runEchoLab(["eval", corpus.path, "--out", out.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.standardError.contains("broken.json: duration_s: expected a number"), result.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("delay40-disabled/disabled/report.json").path))
        let eval = try loadJSON(out.appendingPathComponent("eval.json").path)
        XCTAssertEqual((eval["items"] as? [Any])?.count, 2)
        XCTAssertEqual(eval["failed"] as? Int, 1)
    }
}
