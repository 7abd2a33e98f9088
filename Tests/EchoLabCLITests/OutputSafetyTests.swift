import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// Outputs never take the place of an input or of something that is not a file, through the
/// real binary: `eval --out` is checked against every item's inputs (not only the corpus
/// folder), and `process --out` refuses a pipe as `run --out` refuses a file.
final class OutputSafetyTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try temporaryDirectory()
        for folder in ["corpus", "c"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    private func wav(_ relative: String, seconds: Double = 1) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let count = Int(seconds * 16_000)
        try SoundFileWriter.write(SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: 16_000, count: count, seed: 1),
                                  to: url.path, sampleRate: 16_000)
    }

    /// An input beside the corpus, in the output folder under the name of eval's own report
    /// (eval.html): eval would replace it with the report at the end, and exit 0.
    func testEvalRefusesAnOutputFolderHoldingAnInputOfAnItem() throws {
        try wav("shared/eval.html")
        _ = try writeScenario(#"{"name": "a", "far_end": "../shared/eval.html", "aec": {"mode": "disabled"}}"#,
                              named: "a.json", in: root.appendingPathComponent("corpus"))
        _ = try writeScenario(delayScenario(aec: "disabled", seconds: 1), named: "b.json", in: root.appendingPathComponent("corpus"))
        let inputs = try snapshot(root)
        let result = try runEchoLab(["eval", "corpus", "--out", "shared"], in: root)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.standardError, "echolab: shared: output folder holds the input \(root.path)/corpus/../shared/eval.html "
                       + "(corpus/a.json: far_end); choose a folder that holds no input\n")
        XCTAssertEqual(try snapshot(root), inputs, "nothing written, nothing replaced")
    }

    /// A tap of an earlier eval that another scenario reads: re-running the corpus into the same
    /// folder would rewrite it while that scenario reads it.
    func testEvalRefusesToRewriteAnEarlierRunsTapThatAnotherItemReads() throws {
        _ = try writeScenario(delayScenario(aec: "disabled", seconds: 1), named: "x.json", in: root.appendingPathComponent("c"))
        let first = try runEchoLab(["eval", "c", "--out", "out"], in: root)
        XCTAssertEqual(first.status, 0, first.standardError)
        let tap = "out/delay40-disabled/disabled/mic.wav"
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent(tap).path))
        _ = try writeScenario(#"{"name": "y", "far_end": "../\#(tap)", "aec": {"mode": "disabled"}}"#, named: "y.json",
                              in: root.appendingPathComponent("c"))
        let inputs = try snapshot(root)
        let second = try runEchoLab(["eval", "c", "--out", "out"], in: root)
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(second.standardError.hasPrefix("echolab: out: output folder holds the input "), second.standardError)
        XCTAssertTrue(second.standardError.hasSuffix("y.json: far_end); choose a folder that holds no input\n"), second.standardError)
        XCTAssertEqual(try snapshot(root), inputs, "the earlier run's files are as they were")
    }

    func testProcessRefusesAPipeAsItsOutput() throws {
        try wav("mic.wav")
        try wav("lpb.wav")
        let pipe = root.appendingPathComponent("out.wav").path
        XCTAssertEqual(mkfifo(pipe, 0o644), 0)
        let result = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "lpb.wav", "--out", "out.wav"], in: root)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.standardError, "echolab: out.wav: cannot write: is a named pipe, not a file; EchoLab replaces only regular files\n")
        var status = stat()
        XCTAssertEqual(lstat(pipe, &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO, "still a pipe")
    }

    /// The check every replacement makes (taps, reports, process's output): nothing there, a
    /// file or a link may be replaced; a folder, a device or a pipe may not.
    func testOnlyFilesAndLinksMayBeReplaced() throws {
        XCTAssertNil(AtomicFile.replacementProblem(at: root.appendingPathComponent("new").path))
        try wav("file.wav")
        XCTAssertNil(AtomicFile.replacementProblem(at: root.appendingPathComponent("file.wav").path))
        XCTAssertEqual(symlink("file.wav", root.appendingPathComponent("link").path), 0)
        XCTAssertNil(AtomicFile.replacementProblem(at: root.appendingPathComponent("link").path), "the link, not file.wav")
        XCTAssertEqual(symlink("nothing", root.appendingPathComponent("dangling").path), 0)
        XCTAssertNil(AtomicFile.replacementProblem(at: root.appendingPathComponent("dangling").path))
        // /dev/stdout is a link: replacing it, as root, would break it for everyone.
        XCTAssertEqual(symlink("/dev/null", root.appendingPathComponent("to-null").path), 0)
        XCTAssertEqual(AtomicFile.replacementProblem(at: root.appendingPathComponent("to-null").path),
                       "links to a device, not a file; EchoLab replaces only regular files")
        XCTAssertEqual(AtomicFile.replacementProblem(at: root.path), "is a folder, not a file")
        // Nothing in /dev: /dev/stdout is a link to /proc/self/fd/1, a regular file when stdout
        // is redirected to one. Checked without touching them.
        XCTAssertEqual(AtomicFile.replacementProblem(at: "/dev/null"), "is in /dev, where EchoLab writes no file")
        XCTAssertEqual(AtomicFile.replacementProblem(at: "/dev/stdout"), "is in /dev, where EchoLab writes no file")
        XCTAssertTrue(AtomicFile.replacementProblem(at: "/proc/self/status")?.hasPrefix("is in /proc/") == true)
        let pipe = root.appendingPathComponent("pipe").path
        XCTAssertEqual(mkfifo(pipe, 0o644), 0)
        let temporary = root.appendingPathComponent(".pipe.partial").path
        XCTAssertTrue(FileManager.default.createFile(atPath: temporary, contents: Data("x".utf8)))
        XCTAssertThrowsError(try AtomicFile.moveIntoPlace(temporary, to: pipe)) { error in
            XCTAssertEqual("\(error)", "\(pipe): cannot write: is a named pipe, not a file; EchoLab replaces only regular files")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: temporary), "left for the caller to remove")
    }

    /// A run that fails mid-call removes its folder, and the item's folder if it made it and it
    /// is empty; with two jobs on one item's two modes, the item folder was made by one run and
    /// emptied by the other, and stayed behind empty (in about half of the interrupted evals).
    func testFailedRunsOfOneItemOnTwoJobsLeaveNoEmptyFolder() throws {
        var samples = SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: 48_000, count: 96_000, seed: 1)
        samples[60_000] = .nan
        try SoundFileWriter.write(samples, to: root.appendingPathComponent("c/nan.wav").path, sampleRate: 48_000)
        _ = try writeScenario(#"{"name": "late-nan", "far_end": "nan.wav", "aec": {"mode": "disabled"}}"#, named: "x.json",
                              in: root.appendingPathComponent("c"))
        for attempt in 0..<4 {
            let result = try runEchoLab(["eval", "c", "--modes", "disabled,speex:intensityMin", "--jobs", "2", "--out", "out"], in: root)
            XCTAssertEqual(result.status, 1, result.standardError)
            XCTAssertTrue(result.standardError.contains("NaN sample at frame 60000"), result.standardError)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("out").path).sorted(),
                           ["eval.html", "eval.json", "eval.md"], "attempt \(attempt)")
        }
    }

    /// Items write OUT/NAME/ beside eval's own reports: a scenario named like one of them fails
    /// alone, and the reports are written.
    func testAScenarioNamedLikeAnEvalReportFailsAlone() throws {
        _ = try writeScenario(#"{"name": "eval.md", "far_end": {"generator": "white_noise", "seed": 1}, "aec": {"mode": "disabled"}, "duration_s": 1}"#,
                              named: "x.json", in: root.appendingPathComponent("c"))
        _ = try writeScenario(delayScenario(aec: "disabled", seconds: 1), named: "y.json", in: root.appendingPathComponent("c"))
        let result = try runEchoLab(["eval", "c", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.standardError, "echolab: c/x.json: name: 'eval.md' is a report eval writes in its output folder; choose another\n")
        XCTAssertTrue(result.standardOutput.hasPrefix("1 of 2 runs succeeded"), result.standardOutput)
        var isFolder: ObjCBool = true
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/eval.md").path, isDirectory: &isFolder))
        XCTAssertFalse(isFolder.boolValue, "eval.md is the report")
    }
}
