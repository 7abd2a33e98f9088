import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// Outputs that cannot be written — a reader gone, a full disk, a read-only folder, a folder that
/// is a file — fail with one line and the result's status, or are refused before anything runs.
final class OutputFailureTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws { root = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    /// Runs the binary from `root` with stdout into `output` and stderr into `errors` (nil: a
    /// pipe whose text is returned); killed by a signal is a failure.
    private func run(_ arguments: [String], output: Any, errors: Any? = nil) throws -> (status: Int32, error: String) {
        let process = Process()
        process.executableURL = try echoLabBinary()
        process.arguments = arguments
        process.currentDirectoryURL = root
        let pipe = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors ?? pipe
        try process.run()
        let text = errors == nil ? String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) : ""
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "\(arguments[0]) was killed by signal \(process.terminationStatus)")
        return (process.terminationStatus, text)
    }

    /// Runs the binary with stdout and stderr into a pipe nobody reads (its reading end closed):
    /// every write fails with EPIPE.
    private func runWithClosedOutput(_ arguments: [String]) throws -> Int32 {
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        return try run(arguments, output: pipe, errors: pipe).status
    }

    /// SIGPIPE killed eval (exit 141) before it wrote eval.json when its reader went away, and
    /// `run … | true` exited 141. The writes fail instead: the reports are written and the
    /// status is the result's.
    func testAReaderThatGoesAwayNeitherKillsNorChangesTheResult() throws {
        let corpus = root.appendingPathComponent("c")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        let good = try writeSpeechWAV("good.wav", in: root)
        try Data(try Data(contentsOf: URL(fileURLWithPath: good)).prefix(30_000)).write(to: root.appendingPathComponent("cut.wav"))
        _ = try writeScenario(#"{"name": "bad", "far_end": "../cut.wav", "duration_s": 2}"#, named: "bad.json", in: corpus)
        _ = try writeScenario(#"{"name": "s1", "far_end": {"generator": "speech", "seed": 1}, "duration_s": 2}"#, named: "s1.json", in: corpus)
        XCTAssertEqual(try runWithClosedOutput(["eval", "c", "--out", "out", "--modes", "disabled", "--no-taps"]), 1, "one item failed")
        let items = try loadJSON(root.appendingPathComponent("out/eval.json").path)["items"] as! [[String: Any]]
        XCTAssertEqual(Set(items.map { $0["name"] as! String }), ["bad", "s1"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/.echolab.lock").path))
        XCTAssertEqual(try runWithClosedOutput(["run", "c/s1.json", "--out", "run"]), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("run/report.md").path))
    }

    /// `metrics > /dev/full` exited 0 with nothing written, and so did `compare`: the primary
    /// output is flushed and checked, and a failure is one line on stderr and a failing status.
    func testAPrimaryOutputThatCannotBeWrittenFails() throws {
        let reference = try writeSpeechWAV("ref.wav", in: root), mic = try writeSpeechWAV("mic.wav", in: root, level: -30)
        let full = FileHandle(forWritingAtPath: "/dev/full")!
        let metrics = try run(["metrics", "--reference", reference, "--mic", mic, "--processed", mic], output: full)
        XCTAssertEqual(metrics.status, 1, metrics.error)
        XCTAssertEqual(metrics.error, "echolab: standard output: cannot write the metrics JSON: No space left on device\n")
        _ = try writeScenario(#"{"name": "a", "far_end": {"generator": "speech", "seed": 1}, "duration_s": 2}"#, named: "a.json", in: root)
        XCTAssertEqual(try runEchoLab(["eval", "a.json", "--out", "ev", "--modes", "disabled", "--no-taps"], in: root).status, 0)
        let compare = try run(["compare", "ev/eval.json", "ev/eval.json", "--junit", "ci/junit.xml", "--markdown", "ci/compare.md"], output: full)
        XCTAssertEqual(compare.status, 2, compare.error)
        XCTAssertEqual(compare.error, "echolab: standard output: cannot write the comparison: No space left on device\n")
        // The report files are written before stdout: CI keeps its JUnit when the reader fails.
        for report in ["ci/junit.xml", "ci/compare.md"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent(report).path), report)
        }
    }

    /// `compare --markdown` into a read-only folder failed at the end with exit 2 (a file that
    /// cannot be read); it is refused first, a usage error (64) as cli.md says.
    func testACompareReportIntoAFolderThatCannotBeWrittenIsAUsageError() throws {
        _ = try writeScenario(#"{"name": "a", "far_end": {"generator": "speech", "seed": 1}, "duration_s": 2}"#, named: "a.json", in: root)
        XCTAssertEqual(try runEchoLab(["eval", "a.json", "--out", "ev", "--modes", "disabled", "--no-taps"], in: root).status, 0)
        let mounted = root.appendingPathComponent("ro")
        try FileManager.default.createDirectory(at: mounted, withIntermediateDirectories: true)
        let readOnly: String
        if (try? runProgram(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=64k,ro", "tmpfs", mounted.path]))?.status == 0 {
            readOnly = mounted.path
        } else if let existing = Self.existingReadOnlyFolder() {
            // Not allowed to mount (not root, an unprivileged container): a folder the system
            // already mounted read-only gives the same error.
            readOnly = existing
        } else {
            return XCTFail("no read-only folder: mounting a tmpfs is not allowed here, and /proc/mounts lists no read-only folder")
        }
        defer { if readOnly == mounted.path { _ = try? runProgram(URL(fileURLWithPath: "/bin/umount"), [mounted.path]) } }
        let report = readOnly == mounted.path ? "ro/diff" : readOnly + "/diff"
        for option in ["--markdown", "--junit"] {
            let compare = try runEchoLab(["compare", "ev/eval.json", "ev/eval.json", option, report], in: root)
            XCTAssertEqual(compare.status, 64, compare.standardError)
            XCTAssertTrue(compare.standardError.hasPrefix("Error: \(option) \(report): cannot write: the folder \(readOnly) is not writable (Read-only file system)"), compare.standardError)
            XCTAssertEqual(compare.standardOutput, "")
        }
    }

    /// A folder mounted read-only that exists on this machine (a squashfs snap, a container's
    /// read-only /proc/sys or /sys): one whose write check fails with EROFS, as the test needs.
    private static func existingReadOnlyFolder() -> String? {
        guard let mounts = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8) else { return nil }
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 4, fields[3].split(separator: ",").contains("ro") else { continue }
            // /proc/mounts writes a space in a path as \040: such a path is left alone.
            let path = String(fields[1])
            var isFolder: ObjCBool = false
            guard !path.contains("\\"), FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue,
                  access(path, W_OK) != 0, errno == EROFS else { continue }
            return path
        }
        return nil
    }

    /// `compare --junit FILE/x.xml`, under a path whose folder is a file, failed at the end with
    /// exit 2 (a file that cannot be read); it is refused first, a usage error naming the option.
    func testACompareReportUnderAFileIsAUsageErrorNamingTheOption() throws {
        _ = try writeScenario(#"{"name": "a", "far_end": {"generator": "speech", "seed": 1}, "duration_s": 2}"#, named: "a.json", in: root)
        XCTAssertEqual(try runEchoLab(["eval", "a.json", "--out", "ev", "--modes", "disabled", "--no-taps"], in: root).status, 0)
        for option in ["--markdown", "--junit"] {
            let compare = try runEchoLab(["compare", "ev/eval.json", "ev/eval.json", option, "a.json/deeper/x.xml"], in: root)
            XCTAssertEqual(compare.status, 64, compare.standardError)
            XCTAssertTrue(compare.standardError.hasPrefix("Error: \(option) a.json/deeper/x.xml: cannot write: \(root.path)/a.json is a file, not a folder\n"),
                          compare.standardError)
            XCTAssertEqual(compare.standardOutput, "")
        }
    }

    /// A run's report and its pages are one change: a full disk on report.html left the new run's
    /// report.json and report.md beside the previous run's report.html. Here a file-size limit
    /// (`ulimit -f`, SIGXFSZ ignored: a write past it fails with EFBIG, as on a full disk) lets
    /// report.json and report.md be written and fails report.html.
    func testAReportThatCannotBeWrittenWhollyLeavesThePreviousOneWhole() throws {
        let first = try writeScenario(#"{"name": "s", "far_end": {"generator": "speech", "seed": 1}, "echo_path": {"delay_ms": 30, "gain_db": -8}, "duration_s": 2}"#,
                                      named: "first.json", in: root)
        let second = try writeScenario(#"{"name": "s", "far_end": {"generator": "speech", "seed": 2}, "echo_path": {"delay_ms": 30, "gain_db": -8}, "duration_s": 2}"#,
                                       named: "second.json", in: root)
        XCTAssertEqual(try run(["run", first, "--out", "out", "--no-taps"], output: FileHandle.nullDevice).status, 0)
        let names = ["report.json", "report.md", "report.html"]
        let before = try names.map { try Data(contentsOf: root.appendingPathComponent("out/\($0)")) }
        let limitKiB = 16
        // The limit must fall between the pages for the test to mean anything.
        XCTAssertLessThan(before[0].count, limitKiB * 1024)
        XCTAssertGreaterThan(before[2].count, limitKiB * 1024)
        let (status, text) = try runCapturingErrors(URL(fileURLWithPath: "/bin/bash"),
                                                    ["-c", "trap '' XFSZ; ulimit -f \(limitKiB); exec \"$0\" \"$@\"", try echoLabBinary().path,
                                                     "run", second, "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(status, 1, text)
        XCTAssertTrue(text.contains("report.html"), text)
        XCTAssertEqual(text.split(separator: "\n").count, 1, text)
        for (name, bytes) in zip(names, before) {
            XCTAssertEqual(try Data(contentsOf: root.appendingPathComponent("out/\(name)")), bytes, "\(name): the previous run's, whole")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("out").path).filter { $0.hasPrefix(".") && $0 != ".echolab.lock" }, [],
                       "no hidden partial files left")
    }
}
