import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// Two processes writing one output (a run folder, a processed file): one whole output, never
/// a mix of both, and the other refused by name.
final class ConcurrentOutputTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws { root = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

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
        let reference = try writeSpeechWAV("ref.wav", in: root, seconds: 20, seed: 3)
        _ = try writeSpeechWAV("micA.wav", in: root, seconds: 20, level: -30, seed: 4)
        _ = try writeSpeechWAV("micB.wav", in: root, seconds: 20, level: -24, seed: 5)
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
}
