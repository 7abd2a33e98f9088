import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

final class MetricsCommandTests: XCTestCase {
    /// A 4 s AEC-disabled call (40 ms, −6 dB echo path) run into FOLDER/out; the folder goes
    /// when the test ends.
    private func runCall() throws -> (folder: URL, out: URL) {
        let folder = try temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let run = try runEchoLab(["run", try writeScenario(delayScenario(aec: "disabled", seconds: 4), in: folder), "--out", out.path])
        XCTAssertEqual(run.status, 0, run.standardError)
        return (folder, out)
    }

    /// `echolab metrics` on the taps of a run prints the metrics object as JSON on stdout.
    func testMetricsCommandPrintsJSON() throws {
        let (_, out) = try runCall()
        let result = try runEchoLab(["metrics", "--reference", out.appendingPathComponent("reference.wav").path,
                                     "--mic", out.appendingPathComponent("mic.wav").path,
                                     "--processed", out.appendingPathComponent("sent.wav").path,
                                     "--echo", out.appendingPathComponent("echo.wav").path])
        XCTAssertEqual(result.status, 0, result.standardError)
        let metrics = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(metrics["erl_db"] as? Double), 6.0, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(metrics["delay_ms"] as? Double), 40.0, accuracy: 0.5)
        XCTAssertNotNil(metrics["erle_series"] as? [Any])
        XCTAssertEqual((metrics["erle_bands"] as? [Any])?.count, 7)
    }

    /// Through the real binary: a sent tap cut 0.25 s short of 4 s (tolerance: 10 %, 0.4 s) is scored on the overlap with a
    /// warning naming the files and a `length_mismatch` object; cut to 2 s it is refused (exit 1,
    /// one line naming the file).
    func testMetricsCommandReportsAndRefusesLengthMismatch() throws {
        let (folder, out) = try runCall()
        func tap(_ name: String) -> String { out.appendingPathComponent("\(name).wav").path }
        func cut(to samples: Int) throws -> String {
            let sent = try AudioFileStream.readAll(path: tap("sent")).samples
            let path = folder.appendingPathComponent("sent-\(samples).wav").path
            try SoundFileWriter.write(Array(sent.prefix(samples)), to: path, sampleRate: 48_000)
            return path
        }
        let short = try cut(to: 180_000)
        let scored = try runEchoLab(["metrics", "--reference", tap("reference"), "--mic", tap("mic"), "--processed", short])
        XCTAssertEqual(scored.status, 0, scored.standardError)
        XCTAssertEqual(scored.standardError, "echolab metrics: warning: inputs differ in length (reference \(tap("reference")) 192000, "
                       + "mic \(tap("mic")) 192000, processed \(short) 180000 samples); scored the first 180000 samples only\n")
        let metrics = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(scored.standardOutput.utf8)) as? [String: Any])
        let mismatch = try XCTUnwrap(metrics["length_mismatch"] as? [String: Any])
        XCTAssertEqual(mismatch["analysed_samples"] as? Int, 180_000)
        XCTAssertEqual((mismatch["files"] as? [[String: Any]])?.compactMap { $0["samples"] as? Int }, [192_000, 192_000, 180_000])
        XCTAssertEqual(try XCTUnwrap(metrics["erle_db"] as? Double), 0, accuracy: 0.01)   // AEC disabled

        let tooShort = try cut(to: 96_000)
        let refused = try runEchoLab(["metrics", "--reference", tap("reference"), "--mic", tap("mic"), "--processed", tooShort])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.standardOutput, "")
        XCTAssertTrue(refused.standardError.hasPrefix("echolab: \(tooShort): 96000 samples, 96000 fewer than \(tap("reference")) (192000)"),
                      refused.standardError)
        XCTAssertEqual(refused.standardError.split(separator: "\n").count, 1, refused.standardError)
    }

    /// Stereo recordings: without `--channel` the one-line error names the file and says to
    /// choose; `--channel 1` scores exactly what the mono files of channel 1 score; mono files
    /// beside them ignore the option.
    func testChannelOfStereoRecordings() throws {
        let (folder, out) = try runCall()
        func stereo(_ name: String) throws -> String {
            let mono = try AudioFileStream.readAll(path: out.appendingPathComponent("\(name).wav").path).samples
            let path = folder.appendingPathComponent("\(name)-stereo.wav").path
            let writer = try SoundFileWriter(path: path, sampleRate: 48_000, channelCount: 2)
            try writer.write(mono.flatMap { [$0 * 0.5, $0] }, frames: mono.count)   // channel 1 is the tap
            try writer.finish()
            return path
        }
        let reference = try stereo("reference"), mic = try stereo("mic")
        let sent = out.appendingPathComponent("sent.wav").path
        let samples = try AudioFileStream.readAll(path: out.appendingPathComponent("reference.wav").path).samples
        let wide = folder.appendingPathComponent("reference-16.wav").path
        let writer = try SoundFileWriter(path: wide, sampleRate: 48_000, channelCount: 16)
        try writer.write(Array(samples.prefix(samples.count / 16 * 16)), frames: samples.count / 16)
        try writer.finish()
        let inputs = try snapshot(folder)
        let refused = try runEchoLab(["metrics", "--reference", reference, "--mic", mic, "--processed", sent])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.standardError.contains("reference-stereo.wav: has 2 channels; choose one, counted from 0, or downmix "
                                                     + "(--channel N|downmix for metrics and process, a \"channel\" key in a scenario or manifest)"),
                      refused.standardError)
        let picked = try runEchoLab(["metrics", "--reference", reference, "--mic", mic, "--processed", sent, "--channel", "1"])
        XCTAssertEqual(picked.status, 0, picked.standardError)
        let mono = try runEchoLab(["metrics", "--reference", out.appendingPathComponent("reference.wav").path,
                                   "--mic", out.appendingPathComponent("mic.wav").path, "--processed", sent])
        XCTAssertEqual(mono.status, 0, mono.standardError)
        XCTAssertEqual(picked.standardOutput, mono.standardOutput)
        // A file of 16 channels holds a sixteenth of the frames: its channels are what is wrong,
        // not a length that differs (the length check came first and said so); with a channel it
        // has picked, the lengths decide.
        for (arguments, expected) in [([String](), "has 16 channels; choose one"), (["--channel", "16"], "has no channel 16 (it has 16, counted from 0)"),
                                      (["--channel", "1"], "12000 samples, 180000 fewer than")] {
            let result = try runEchoLab(["metrics", "--reference", wide, "--mic", mic, "--processed", sent] + arguments)
            XCTAssertEqual(result.status, 1)
            XCTAssertTrue(result.standardError.hasPrefix("echolab: \(wide): ") && result.standardError.contains(expected), result.standardError)
        }
        let bad = try runEchoLab(["metrics", "--reference", reference, "--mic", mic, "--processed", sent, "--channel=-1"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.standardError.contains("--channel takes a channel number from 0 or downmix (got -1)"), bad.standardError)
        XCTAssertEqual(try snapshot(folder), inputs, "inputs untouched")
    }

    func testHelpIsComplete() throws {
        let commands = [[], ["run"], ["process"], ["metrics"], ["eval"], ["merge"], ["compare"], ["vectors"],
                        ["vectors", "generate"], ["vectors", "bless"], ["vectors", "verify"]]
        for command in commands {
            let result = try runEchoLab(command + ["--help"])
            XCTAssertEqual(result.status, 0)
            XCTAssertTrue(result.standardOutput.contains("USAGE"), "\(command): \(result.standardOutput)")
            // The overview and discussion are prose, wrapped by swift-argument-parser: a run of
            // spaces there is a source line's indentation pasted into the text (`run --help` once
            // read "played.wav         with --all-taps").
            let prose = result.standardOutput.components(separatedBy: "USAGE:")[0]
            for line in prose.split(separator: "\n") {
                XCTAssertFalse(line.trimmingCharacters(in: .whitespaces).contains("  "), "\(command): \(line)")
            }
        }
    }
}
