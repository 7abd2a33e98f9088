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

    // MARK: Two processes into one output

    /// A speech call of `seconds` whose far end's pitch and seed tell it apart.
    private func writeCall(_ name: String, pitch: Int, seed: Int, seconds: Int = 6) throws -> String {
        try writeScenario("""
            {"name": "\(name)", "far_end": {"generator": "speech", "pitch_hz": \(pitch), "seed": \(seed)},
             "noise": {"level_dbfs": -55, "seed": \(seed)}, "echo_path": {"delay_ms": 40, "gain_db": -10}, "duration_s": \(seconds)}
            """, named: "\(name).json", in: root)
    }

    private func bytes(_ relative: String) -> Data? { FileManager.default.contents(atPath: root.appendingPathComponent(relative).path) }

    /// Two `run`s into one folder spliced its taps, and one said "→ out/report.md" for a folder
    /// the other had removed. `run` holds the folder's lock as eval does: the second is refused
    /// with eval's message and touches nothing; the folder holds the first's whole run.
    func testASecondRunIntoAFolderBeingWrittenIsRefusedAndLeavesTheFirstsFiles() throws {
        _ = try writeCall("s1", pitch: 110, seed: 1, seconds: 30)
        _ = try writeCall("s2", pitch: 120, seed: 2)
        XCTAssertEqual(try runEchoLab(["run", "s1.json", "--out", "solo1"], in: root).status, 0)
        let first = try startEchoLab(["run", "s1.json", "--out", "out"], in: root)
        let lock = root.appendingPathComponent("out/.echolab.lock").path
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: lock), Date() < deadline { usleep(1_000) }
        let second = try runEchoLab(["run", "s2.json", "--out", "out"], in: root)
        first.waitUntilExit()
        XCTAssertEqual(first.terminationStatus, 0)
        XCTAssertEqual(second.status, 1, second.standardOutput)
        XCTAssertEqual(second.standardError, "echolab: out: echolab run, pid \(first.processIdentifier) is writing this folder; wait for it to finish or choose another --out\n")
        for tap in ["mic.wav", "sent.wav", "echo.wav", "reference.wav"] {
            XCTAssertEqual(bytes("out/" + tap), bytes("solo1/" + tap), tap)
        }
        XCTAssertEqual(allFiles(under: root.appendingPathComponent("out")).filter { $0.hasPrefix(".") }, [], "the lock goes with the run")
        // An eval is refused by the run's lock the same way, and a run by an eval's.
        let holder = try startEchoLab(["run", "s1.json", "--out", "out"], in: root)
        while !FileManager.default.fileExists(atPath: lock), Date() < deadline { usleep(1_000) }
        let eval = try runEchoLab(["eval", "s2.json", "--out", "out", "--no-taps"], in: root)
        holder.waitUntilExit()
        XCTAssertEqual(eval.status, 1)
        XCTAssertTrue(eval.standardError.contains("out: echolab run, pid \(holder.processIdentifier) is writing this folder"), eval.standardError)
    }

    /// Started together, whichever takes the folder first runs: the other is refused, and the
    /// folder is the winner's whole run, never a mix and never gone.
    func testTwoRunsStartedTogetherLeaveOneWholeRun() throws {
        _ = try writeCall("s1", pitch: 110, seed: 1)
        _ = try writeCall("s2", pitch: 120, seed: 2)
        for name in ["s1", "s2"] { XCTAssertEqual(try runEchoLab(["run", "\(name).json", "--out", "solo-\(name)"], in: root).status, 0) }
        for attempt in 0..<3 {
            let out = "out\(attempt)"
            let runs = try ["s1", "s2"].map { try startEchoLab(["run", "\($0).json", "--out", out], in: root) }
            for run in runs { run.waitUntilExit() }
            let statuses = runs.map { $0.terminationStatus }
            XCTAssertTrue(statuses.sorted() == [0, 1], "\(statuses)")
            guard let winner = statuses.firstIndex(of: 0) else { continue }
            let name = ["s1", "s2"][winner]
            let report = try loadJSON(root.appendingPathComponent("\(out)/report.json").path)
            XCTAssertTrue((report["scenario_file"] as? String ?? "").hasSuffix("\(name).json"))
            for tap in ["mic.wav", "sent.wav"] { XCTAssertEqual(bytes("\(out)/\(tap)"), bytes("solo-\(name)/\(tap)"), "\(attempt) \(tap)") }
        }
    }

    /// Two `process --out p.wav` at once wrote one temporary between them: p.wav was stitched
    /// from both (and the one that failed removed the other's file). The output file is locked
    /// while it is written: the final file is one process's whole output.
    func testTwoProcessesIntoOneFileLeaveOneWholeOutput() throws {
        let reference = try writeWAV("ref.wav", seconds: 20, seed: 3)
        _ = try writeWAV("micA.wav", seconds: 20, level: -30, seed: 4)
        _ = try writeWAV("micB.wav", seconds: 20, level: -24, seed: 5)
        for name in ["A", "B"] {
            let solo = try runEchoLab(["process", "--mic", "mic\(name).wav", "--reference", reference, "--out", "solo\(name).wav", "--aec", "speex:intensityMax"], in: root)
            XCTAssertEqual(solo.status, 0, solo.standardError)
        }
        for attempt in 0..<3 {
            let out = "p\(attempt).wav"
            let runs = try ["A", "B"].map { try startEchoLab(["process", "--mic", "mic\($0).wav", "--reference", reference, "--out", out, "--aec", "speex:intensityMax"], in: root) }
            for run in runs { run.waitUntilExit() }
            let statuses = runs.map { $0.terminationStatus }
            XCTAssertTrue(statuses.allSatisfy { $0 == 0 || $0 == 1 } && statuses.contains(0), "\(statuses)")
            let written = bytes(out)
            XCTAssertTrue(written != nil && (written == bytes("soloA.wav") || written == bytes("soloB.wav")), "\(attempt): p.wav is neither process's whole output")
            XCTAssertEqual(allFiles(under: root).filter { $0.hasPrefix(".") }, [], "no temporary or lock left")
        }
        // The lock's holder named: another process writing the file refuses this one, which leaves it alone.
        try Data("earlier".utf8).write(to: root.appendingPathComponent("held.wav"))
        let lock = open(root.appendingPathComponent(".held.wav.echolab.lock").path, O_RDWR | O_CREAT, 0o644)
        XCTAssertEqual(flock(lock, LOCK_EX | LOCK_NB), 0)
        _ = "echolab process, pid 4242\n".withCString { write(lock, $0, strlen($0)) }
        defer { close(lock) }
        let refused = try runEchoLab(["process", "--mic", "micA.wav", "--reference", reference, "--out", "held.wav"], in: root)
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.standardError, "echolab: held.wav: echolab process, pid 4242 is writing this file; wait for it to finish or choose another --out\n")
        XCTAssertEqual(bytes("held.wav"), Data("earlier".utf8))
    }

    // MARK: A reader that goes away; a full disk

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
        let good = try writeWAV("good.wav")
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
        let reference = try writeWAV("ref.wav"), mic = try writeWAV("mic.wav", level: -30)
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

    // MARK: A scenario's memory

    /// Peak resident memory (KB) of the binary run with `arguments` from `root`, its output discarded.
    private func peakMemoryKB(_ arguments: [String]) throws -> (status: Int32, kilobytes: Int) {
        let binary = try echoLabBinary().path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([binary] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, binary, &actions, nil, argv, environ) == 0 else { throw CocoaError(.executableLoad) }
        var status: Int32 = 0
        var usage = rusage()
        XCTAssertEqual(wait4(pid, &status, 0, &usage), pid)
        return ((status >> 8) & 0xff, Int(usage.ru_maxrss))
    }

    /// Each timeline switch to a file mic decoded the file again and kept it: 2,000 switches to a
    /// 4.7 s file took 750 MB, 20,000 3.7 GB. A call decodes each file once and lets a stopped
    /// mic go.
    func testSwitchingToAFileMicManyTimesKeepsMemoryBounded() throws {
        _ = try writeWAV("f.wav", seconds: 4.7, rate: 22_050)
        var events: [String] = []
        for index in 0..<2_000 {
            events.append(index % 2 == 0
                ? #"{"at_ms": \#(Double(index) * 2.5), "action": "set_custom_mic", "device": "file", "file": "f.wav"}"#
                : #"{"at_ms": \#(Double(index) * 2.5), "action": "reset_custom_mic"}"#)
        }
        let scenario = try writeScenario(#"{"name": "many", "far_end": "f.wav", "duration_s": 10, "timeline": ["#
                                         + events.joined(separator: ",") + "]}", named: "many.json", in: root)
        let many = try peakMemoryKB(["run", scenario, "--out", root.appendingPathComponent("many").path, "--no-taps"])
        XCTAssertEqual(many.status, 0)
        _ = try writeScenario(#"{"name": "one", "far_end": "f.wav", "duration_s": 10, "mic": {"device": "file", "file": "f.wav"}}"#,
                              named: "one.json", in: root)
        let one = try peakMemoryKB(["run", root.appendingPathComponent("one.json").path, "--out", root.appendingPathComponent("one").path, "--no-taps"])
        XCTAssertEqual(one.status, 0)
        XCTAssertLessThan(many.kilobytes, one.kilobytes + 100_000, "1,000 switches to one file cost \(many.kilobytes - one.kilobytes) KB")
    }

    // MARK: Smaller ones

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

    /// `echolab help nope` printed the overview and exited 0; `help vectors nope` then named the
    /// top-level usage and help, not the vectors command's.
    func testHelpForACommandThatDoesNotExistIsAUsageError() throws {
        let cases: [([String], String)] = [
            (["help", "nope"], """
                Error: 'nope' is not a command of echolab; see 'echolab help'
                Usage: echolab <subcommand>
                  See 'echolab --help' for more information.

                """),
            (["help", "vectors", "nope"], """
                Error: 'nope' is not a command of echolab vectors; see 'echolab help vectors'
                Usage: echolab vectors <subcommand>
                  See 'echolab vectors --help' for more information.

                """),
            (["help", "vectors", "verify", "nope"], """
                Error: 'nope' is not a command of echolab vectors verify, which has none; see 'echolab help vectors verify'
                  See 'echolab vectors verify --help' for more information.

                """),
        ]
        for (arguments, message) in cases {
            let help = try runEchoLab(arguments, in: root)
            XCTAssertEqual(help.status, 64, "\(arguments)")
            XCTAssertEqual(help.standardError, message)
            XCTAssertEqual(help.standardOutput, "")
        }
        XCTAssertEqual(try runEchoLab(["help", "vectors", "verify"], in: root).status, 0)
    }
}
