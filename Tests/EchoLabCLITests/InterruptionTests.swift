import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// SIGINT, SIGTERM and SIGHUP stop a run, an eval or a recording within moments and leave no
/// partial file; progress shows on a terminal and nowhere else. Each through the real binary.
final class InterruptionTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private func writeWAV(_ url: URL, _ kind: SignalKind, seconds: Double, seed: UInt64, rate: Int = 16_000) throws {
        let samples = SignalGenerator.render(kind, sampleRate: rate, count: Int(seconds * Double(rate)), seed: seed)
        try SoundFileWriter.write(samples, to: url.path, sampleRate: rate, encoding: .pcm16)
    }

    // MARK: SIGINT / SIGTERM

    func testInterruptedEvalWritesAnIncompleteSummaryAndNoPartialFiles() throws {
        for (signalNumber, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))] {
            let (process, out) = try startEvalOfLongItems(6, seconds: 120, named: "\(signalNumber)")
            usleep(200_000)
            kill(process.processIdentifier, signalNumber)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, status)
            let eval = try loadJSON(out.appendingPathComponent("eval.json").path)
            XCTAssertEqual(eval["complete"] as? Bool, false)
            let names = (eval["items"] as! [[String: Any]]).map { $0["name"] as! String }
            XCTAssertTrue(names.first == "long0" && names.count < 6, "\(names)")
            let files = allFiles(under: out)
            XCTAssertEqual(files.filter { $0.contains(".partial") }, [])
            // Every item folder left is a finished one, listed in eval.json.
            let folders = Set(files.filter { !$0.contains("/") && !$0.hasPrefix("eval.") })
            XCTAssertEqual(folders, Set(names))
        }
    }

    /// `eval --jobs 1` started over `count` AEC-disabled calls of `seconds` (long0, long1, …, in
    /// `long-NAME`, into `out-NAME`), returned once the first has finished and the second runs.
    private func startEvalOfLongItems(_ count: Int, seconds: Int, named name: String) throws -> (process: Process, out: URL) {
        let corpus = root.appendingPathComponent("long-\(name)")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        for index in 0..<count {
            _ = try writeScenario("""
                {"name": "long\(index)", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": \(index)},
                 "echo_path": {"delay_ms": 20, "gain_db": -10}, "aec": {"mode": "disabled"}, "duration_s": \(seconds)}
                """, named: "long\(index).json", in: corpus)
        }
        let out = root.appendingPathComponent("out-\(name)")
        let process = try startEchoLab(["eval", corpus.path, "--out", out.path, "--jobs", "1"])
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: out.appendingPathComponent("long0/disabled/report.json").path), Date() < deadline {
            usleep(20_000)
        }
        return (process, out)
    }

    /// GNU `timeout` sends its signal to the command and then to its process group: the command
    /// gets it twice within microseconds. Taken as a second signal, it ended eval at once, before
    /// it wrote eval.json (the earlier one already removed, partial files left). The same signal
    /// again within a quarter of a second is that one signal.
    func testOneSignalDeliveredTwiceIsOneSignal() throws {
        let (process, out) = try startEvalOfLongItems(4, seconds: 60, named: "twice")
        usleep(100_000)
        kill(process.processIdentifier, SIGINT)
        usleep(2_000)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "ended by the signal itself")
        XCTAssertEqual(process.terminationStatus, 130)
        let eval = try loadJSON(out.appendingPathComponent("eval.json").path)
        XCTAssertEqual(eval["complete"] as? Bool, false)
        XCTAssertEqual((eval["items"] as! [[String: Any]]).first?["name"] as? String, "long0")
        XCTAssertEqual(allFiles(under: out).filter { $0.contains(".partial") || $0.hasSuffix(".echolab.lock") }, [])
    }

    /// A 10-minute call started into `out`, once `file` is in its folder (any file: nil).
    private func startLongRun(waitingFor file: String? = nil) throws -> (process: Process, out: URL) {
        let path = try writeScenario("""
            {"name": "long", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "aec": {"mode": "disabled"}, "duration_s": 600}
            """, in: root)
        let out = root.appendingPathComponent("out")
        let process = try startEchoLab(["run", path, "--out", out.path])
        let deadline = Date().addingTimeInterval(60)
        while file.map({ !allFiles(under: out).contains($0) }) ?? allFiles(under: out).isEmpty, Date() < deadline { usleep(10_000) }
        return (process, out)
    }

    func testInterruptedRunLeavesNothing() throws {
        let (process, out) = try startLongRun()
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 143)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "\(allFiles(under: out))")
    }

    /// A run killed outright (SIGKILL: nothing runs after it) leaves its taps' partial files;
    /// the next run into the folder, which holds its lock, removes them — with `--no-taps` too,
    /// which writes none of those names (they stayed, 23 MB each for a 2-minute call).
    func testARunKilledOutrightLeavesPartialFilesTheNextRunRemoves() throws {
        let (process, out) = try startLongRun(waitingFor: ".mic.wav.partial")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertTrue(allFiles(under: out).contains(".mic.wav.partial"), "\(allFiles(under: out))")
        // A file of the user's beside them is not EchoLab's to remove.
        try Data("mine".utf8).write(to: out.appendingPathComponent(".notes.partial"))
        let short = try writeScenario("""
            {"name": "short", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "aec": {"mode": "disabled"}, "duration_s": 1}
            """, named: "short.json", in: root)
        let rerun = try runEchoLab(["run", short, "--out", out.path, "--no-taps"], in: root)
        XCTAssertEqual(rerun.status, 0, rerun.standardError)
        XCTAssertEqual(allFiles(under: out).filter { $0.hasSuffix(".partial") }, [".notes.partial"], "\(allFiles(under: out))")
    }

    /// A run of 300 s started with `signalName` ignored (`trap '' NAME`, inherited through exec),
    /// sent that signal once it holds its folder: it keeps it ignored, finishes (exit 0) and
    /// writes its report.
    private func assertRunKeepsIgnored(_ signalName: String, _ signalNumber: Int32, file: StaticString = #filePath, line: UInt = #line) throws {
        let path = try writeScenario("""
            {"name": "long", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "aec": {"mode": "disabled"}, "duration_s": 300}
            """, in: root)
        let out = root.appendingPathComponent("out-\(signalName)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "trap '' \(signalName); exec \"$0\" run \"$1\" --out \"$2\" --no-taps", try echoLabBinary().path, path, out.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: out.appendingPathComponent(".echolab.lock").path), Date() < deadline {
            usleep(5_000)
        }
        kill(process.processIdentifier, signalNumber)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, signalName, file: file, line: line)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("report.json").path), signalName, file: file, line: line)
    }

    /// A closed terminal (SIGHUP) stops a run like Ctrl-C, but a run started under `nohup` (SIGHUP
    /// ignored when it starts: what nohup does) is meant to outlive its terminal: it keeps SIGHUP
    /// ignored and finishes. Before, SIGHUP killed a run with its partial files and lock left.
    func testHangUpIsIgnoredUnderNohup() throws {
        try assertRunKeepsIgnored("HUP", SIGHUP)
    }

    /// A background command of a script starts with SIGINT ignored (a shell without job control
    /// does that, so a Ctrl-C meant for the foreground leaves it running): it keeps it ignored,
    /// as under nohup, and finishes. Before, run and eval stopped at it where metrics ran on.
    func testAnInterruptIgnoredAtTheStartStaysIgnored() throws {
        try assertRunKeepsIgnored("INT", SIGINT)
    }

    /// `metrics` on ten minutes of audio reads the files three times over (seconds): a signal
    /// stops it within a block, exit 130 and nothing printed. It was killed by the signal (no
    /// exit status, no word), which the help's 130 did not say.
    func testInterruptedMetricsPrintsNothingAndExits130() throws {
        var random = SeededRandom(seed: 12)
        let far = (0..<(16_000 * 600)).map { _ in random.nextSignedFloat() * 0.2 }
        try SoundFileWriter.write(far, to: root.appendingPathComponent("lpb.wav").path, sampleRate: 16_000, encoding: .pcm16)
        try SoundFileWriter.write(far.map { $0 * 0.5 }, to: root.appendingPathComponent("mic.wav").path, sampleRate: 16_000, encoding: .pcm16)
        let output = Pipe(), errors = Pipe()
        let process = try startEchoLab(["metrics", "--reference", root.appendingPathComponent("lpb.wav").path, "--mic",
                                        root.appendingPathComponent("mic.wav").path, "--processed", root.appendingPathComponent("mic.wav").path,
                                        "--processed-lag-ms", "0"], standardOutput: output, standardError: errors)
        // Once its handler is in place (the kernel's SigCgt mask says so), a moment into the
        // reading: a signal before that ends it by the signal's default action.
        let deadline = Date().addingTimeInterval(30)
        while !Self.catches(SIGINT, pid: process.processIdentifier), Date() < deadline { usleep(2_000) }
        usleep(200_000)
        let sent = Date()
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertLessThan(Date().timeIntervalSince(sent), 5, "stopped within a block's reading")
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertEqual(output.fileHandleForReading.readDataToEndOfFile(), Data())
        XCTAssertEqual(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                       "echolab: \(root.appendingPathComponent("mic.wav").path): interrupted; nothing printed\n")
    }

    /// Whether process `pid` has a handler for `signal` (/proc/PID/status's SigCgt mask).
    private static func catches(_ signal: Int32, pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
              let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
        return mask & (1 << UInt64(signal - 1)) != 0
    }

    /// A long recording through the canceller stops at a signal within a second of audio, in
    /// `process` (exit 130, no output or partial file) and in `eval` (exit 143, the run not
    /// listed, `complete: false`, no hidden scratch left). Before, `process` died with its
    /// partial output left, and `eval` processed the whole recording first.
    func testInterruptedRecordingProcessingLeavesNothing() throws {
        var random = SeededRandom(seed: 11)
        let far = (0..<(16_000 * 600)).map { _ in random.nextSignedFloat() * 0.2 }
        try SoundFileWriter.write(far, to: root.appendingPathComponent("lpb.wav").path, sampleRate: 16_000, encoding: .pcm16)
        try SoundFileWriter.write(far.map { $0 * 0.5 }, to: root.appendingPathComponent("mic.wav").path, sampleRate: 16_000, encoding: .pcm16)
        try Data(#"{"corpus": [{"name": "rec", "mic": "mic.wav", "loopback": "lpb.wav"}]}"#.utf8)
            .write(to: root.appendingPathComponent("manifest.json"))
        let inputs = try snapshot(root)

        let process = try startEchoLab(["process", "--mic", root.appendingPathComponent("mic.wav").path, "--reference",
                                        root.appendingPathComponent("lpb.wav").path, "--out", root.appendingPathComponent("out.wav").path,
                                        "--aec", "webrtc-mobile:intensityMax"])
        let partial = root.appendingPathComponent(".out.wav.partial").path
        var deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: partial), Date() < deadline { usleep(5_000) }
        usleep(100_000)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertEqual(try snapshot(root), inputs, "no output, no partial file: \(allFiles(under: root))")

        let out = root.appendingPathComponent("out")
        let eval = try startEchoLab(["eval", root.appendingPathComponent("manifest.json").path, "--out", out.path, "--no-taps",
                                     "--modes", "webrtc-mobile:intensityMax"])
        let scratch = out.appendingPathComponent("rec/webrtc-mobile-intensityMax/..sent.wav.scored.partial").path
        deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: scratch), Date() < deadline { usleep(5_000) }
        usleep(100_000)
        kill(eval.processIdentifier, SIGTERM)
        eval.waitUntilExit()
        XCTAssertEqual(eval.terminationStatus, 143)
        let summary = try loadJSON(out.appendingPathComponent("eval.json").path)
        XCTAssertEqual(summary["complete"] as? Bool, false)
        let results = (summary["items"] as? [[String: Any]] ?? []).flatMap { $0["results"] as? [[String: Any]] ?? [] }
        XCTAssertEqual(results.count, 0, "the interrupted run is not listed: \(summary)")
        XCTAssertEqual(allFiles(under: out).filter { $0.split(separator: "/").contains { $0.hasPrefix(".") } }, [],
                       "no hidden file left: \(allFiles(under: out))")
        try FileManager.default.removeItem(at: out)
        XCTAssertEqual(try snapshot(root), inputs, "inputs untouched")
    }

    /// Interrupted while re-running into a folder it keeps: the partial taps go before the
    /// process exits, and the earlier run's files stay as they were. (The taps' files were
    /// removed when their writer was freed, which a worker thread sometimes did after the main
    /// thread had exited: six `.partial` files were left in one try out of four.)
    func testInterruptedReRunLeavesThePreviousRunAsItWas() throws {
        let short = try writeScenario("""
            {"name": "short", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "aec": {"mode": "disabled"}, "duration_s": 1}
            """, named: "short.json", in: root)
        let long = try writeScenario("""
            {"name": "long", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "aec": {"mode": "disabled"}, "duration_s": 600}
            """, named: "long.json", in: root)
        let out = root.appendingPathComponent("out")
        XCTAssertEqual(try runEchoLab(["run", short, "--out", out.path, "--all-taps"]).status, 0)
        let before = try snapshot(out)
        for attempt in 0..<8 {
            let process = try startEchoLab(["run", long, "--out", out.path, "--all-taps"])
            // Signalled as soon as the taps are open, and a little later in later attempts.
            let partial = out.appendingPathComponent(".sent.wav.partial").path
            let deadline = Date().addingTimeInterval(60)
            while !FileManager.default.fileExists(atPath: partial), Date() < deadline { usleep(1_000) }
            usleep(useconds_t(attempt * 5_000))
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 143, "attempt \(attempt)")
            XCTAssertEqual(try snapshot(out), before, "attempt \(attempt): \(allFiles(under: out))")
            XCTAssertEqual(allFiles(under: out).filter { $0.hasPrefix(".") }, [], "attempt \(attempt)")
        }
    }

    /// A signal right after the start is never lost. With a DispatchSource the signal was
    /// ignored until the source was armed, asynchronously: a run killed then ran its whole call
    /// and exited 0 (seen in CI, where it took the previous test's folder with it).
    func testASignalRightAfterTheStartStopsTheRun() throws {
        let long = try writeScenario("""
            {"name": "long", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "aec": {"mode": "disabled"}, "duration_s": 600}
            """, named: "long.json", in: root)
        for attempt in 0..<10 {
            let out = root.appendingPathComponent("out-\(attempt)")
            let process = try startEchoLab(["run", long, "--out", out.path])
            usleep(useconds_t(attempt * 3_000))
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            // Before the handlers are in place the default action ends it (by the signal);
            // after, it exits 143. Never a whole call.
            let stopped = process.terminationReason == .uncaughtSignal ? process.terminationStatus == SIGTERM : process.terminationStatus == 143
            XCTAssertTrue(stopped, "attempt \(attempt): \(process.terminationReason == .uncaughtSignal ? "signal" : "exit") \(process.terminationStatus)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "attempt \(attempt): \(allFiles(under: out))")
        }
    }

    // MARK: Progress: on a terminal only

    func testProgressShowsOnATerminalAndNowhereElse() throws {
        let path = try writeScenario("""
            {"name": "progress", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "aec": {"mode": "disabled"}, "duration_s": 30}
            """, in: root)
        let piped = try runEchoLab(["run", path, "--out", root.appendingPathComponent("piped").path, "--no-taps"])
        XCTAssertEqual(piped.status, 0)
        XCTAssertEqual(piped.standardError, "", "nothing on stderr when it is not a terminal")
        let run = try onATerminal(["run", path, "--out", root.appendingPathComponent("tty").path, "--no-taps"])
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.text.contains("% "), run.text)
        XCTAssertTrue(run.text.contains("× real time  ETA"), run.text)
        XCTAssertTrue(run.text.contains("of 30 s"), run.text)
        // eval's line moves while its one run goes: it drew nothing until the run had finished.
        let eval = try onATerminal(["eval", path, "--out", root.appendingPathComponent("tty-eval").path, "--no-taps"])
        XCTAssertEqual(eval.status, 0, eval.text)
        let shares = eval.text.components(separatedBy: "\r\u{1B}[Keval ").dropFirst().compactMap { line in
            Int(line.prefix { $0 != "%" }.trimmingCharacters(in: .whitespaces))
        }
        XCTAssertTrue(shares.contains { $0 < 100 }, "no line before the run finished: \(eval.text)")
        XCTAssertEqual(shares.last, 100, eval.text)
        XCTAssertEqual(shares, shares.sorted(), "the share never goes back: \(eval.text)")
        // Nor with two jobs, each telling its run's share: a finished run's count alone, drawn
        // after them, read 8 % → 6 %, 62 → 56.
        let corpus = root.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        for index in 1...3 {
            _ = try writeScenario("""
                {"name": "progress\(index)", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": \(index)},
                 "aec": {"mode": "disabled"}, "duration_s": \(20 + 5 * index)}
                """, named: "p\(index).json", in: corpus)
        }
        let jobs = try onATerminal(["eval", corpus.path, "--modes", "disabled,speex:intensityRecommended", "--jobs", "2",
                                    "--out", root.appendingPathComponent("tty-jobs").path, "--no-taps"])
        XCTAssertEqual(jobs.status, 0, jobs.text)
        let jobShares = jobs.text.components(separatedBy: "\r\u{1B}[Keval ").dropFirst().compactMap { line in
            Int(line.prefix { $0 != "%" }.trimmingCharacters(in: .whitespaces))
        }
        XCTAssertGreaterThan(jobShares.count, 6, jobs.text)
        XCTAssertEqual(jobShares, jobShares.sorted(), "the share never goes back: \(jobs.text)")
        // `process` of a long recording too (it printed nothing for a two-minute file), and
        // nothing through a pipe.
        let noise = SignalGenerator.render(.whiteNoise(levelDBFS: -30), sampleRate: 48_000, count: 30 * 48_000, seed: 3)
        try SoundFileWriter.write(noise, to: root.appendingPathComponent("long.wav").path, sampleRate: 48_000)
        let long = root.appendingPathComponent("long.wav").path
        let pipedProcess = try runEchoLab(["process", "--mic", long, "--reference", long, "--out", root.appendingPathComponent("p1.wav").path])
        XCTAssertEqual(pipedProcess.status, 0)
        XCTAssertEqual(pipedProcess.standardError, "")
        let process = try onATerminal(["process", "--mic", long, "--reference", long, "--out", root.appendingPathComponent("p2.wav").path])
        XCTAssertEqual(process.status, 0)
        XCTAssertTrue(process.text.contains("\r\u{1B}[Kprocess "), process.text)
        XCTAssertTrue(process.text.contains("%  ETA"), process.text)
        // A terminal without erase-line (TERM=dumb) printed the progress line's escapes as text.
        let dumb = try onATerminal(["run", path, "--out", root.appendingPathComponent("dumb").path, "--no-taps"], term: "dumb")
        XCTAssertEqual(dumb.status, 0)
        XCTAssertFalse(dumb.text.contains("\u{1B}") || dumb.text.contains("ETA"), dumb.text)
    }

    /// `echolab ARGUMENTS` on a pseudo-terminal (util-linux `script`): its status, and what it
    /// wrote there, stdout and stderr together.
    /// `term`: the terminal's TERM (a dumb one gets no progress line).
    private func onATerminal(_ arguments: [String], term: String = "xterm") throws -> (status: Int32, text: String) {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "util-linux `script` (Debian's bsdutils) is missing")
        let command = ([try echoLabBinary().path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TERM": term]) { $1 }
        let out = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
