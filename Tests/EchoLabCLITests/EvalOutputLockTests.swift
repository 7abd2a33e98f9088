import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// Two evals into one folder would interleave their runs (eval.json then describes only some of
/// the folders beside it): the second is refused by name, and the folder is left as the first
/// writes it.
final class EvalOutputLockTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try temporaryDirectory()
        try writeTwoItemCorpus(in: root.appendingPathComponent("corpus"))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    func testAnEvalIntoAFolderAnotherHoldsIsRefusedByName() throws {
        let out = root.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        // Another eval, as the lock file says: this process holds the lock.
        let lock = open(out.appendingPathComponent(".echolab.lock").path, O_RDWR | O_CREAT, 0o644)
        XCTAssertGreaterThanOrEqual(lock, 0)
        XCTAssertEqual(flock(lock, LOCK_EX | LOCK_NB), 0)
        _ = "echolab eval, pid 4242\n".withCString { write(lock, $0, strlen($0)) }

        let refused = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(refused.status, 1, refused.standardOutput + refused.standardError)
        XCTAssertEqual(refused.standardError, "echolab: out: echolab eval, pid 4242 is writing this folder; wait for it to finish or choose another --out\n")
        XCTAssertEqual(allFiles(under: out), [".echolab.lock"], "nothing written beside the holder's lock")

        close(lock)
        let ran = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(ran.status, 0, ran.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent(".echolab.lock").path), "the lock goes with the eval")
    }

    /// Two real evals: the second, started while the first runs, is refused and the first's
    /// eval.json lists every one of its runs.
    func testTheSecondOfTwoEvalsAtOnceIsRefused() throws {
        let long = delayScenario(aec: "intensityRecommended", seconds: 30).replacingOccurrences(of: "delay40-intensityRecommended", with: "long")
        _ = try writeScenario(long, named: "long.json", in: root.appendingPathComponent("corpus"))
        let out = root.appendingPathComponent("out")
        let first = Process()
        first.executableURL = try echoLabBinary()
        first.arguments = ["eval", "corpus", "--out", "out", "--no-taps", "--jobs", "1", "--modes", "speex:intensityRecommended,webrtc:intensityMax"]
        first.currentDirectoryURL = root
        first.standardOutput = FileHandle.nullDevice
        first.standardError = FileHandle.nullDevice
        try first.run()
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: out.appendingPathComponent(".echolab.lock").path), Date() < deadline { usleep(2_000) }
        let second = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps", "--modes", "disabled"], in: root)
        first.waitUntilExit()
        XCTAssertEqual(first.terminationStatus, 0)
        XCTAssertEqual(second.status, 1, second.standardOutput)
        XCTAssertTrue(second.standardError.contains("out: echolab eval, pid \(first.processIdentifier) is writing this folder"), second.standardError)
        let eval = try loadJSON(out.appendingPathComponent("eval.json").path)
        let results = (eval["items"] as! [[String: Any]]).flatMap { $0["results"] as! [[String: Any]] }
        XCTAssertEqual(results.count, 6, "three items × the first eval's two modes")
        XCTAssertEqual(Set(results.compactMap { $0["mode"] as? String }), ["speex:intensityRecommended", "webrtc:intensityMax"])
    }

    /// Holds `folder`'s lock from this process as `holder` says, as a running command would.
    private func hold(_ folder: URL, as holder: String) throws -> Int32 {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let lock = open(folder.appendingPathComponent(".echolab.lock").path, O_RDWR | O_CREAT, 0o644)
        XCTAssertGreaterThanOrEqual(lock, 0)
        XCTAssertEqual(flock(lock, LOCK_EX | LOCK_NB), 0)
        _ = "\(holder)\n".withCString { write(lock, $0, strlen($0)) }
        return lock
    }

    /// A `run` or `process` into a folder inside one an eval is writing would splice its files
    /// with the eval's run there, which then removed the folder on failing (a new user's trial):
    /// refused, naming the eval and its folder, and nothing written.
    func testARunOrProcessInsideAFolderAnEvalWritesIsRefused() throws {
        let out = root.appendingPathComponent("out")
        let lock = try hold(out, as: "echolab eval, pid 4242")
        defer { close(lock) }
        let held = URL(fileURLWithPath: out.path).resolvingSymlinksInPath().path
        let run = try runEchoLab(["run", "corpus/delay.json", "--out", "out/delay/speex", "--no-taps"], in: root)
        XCTAssertEqual(run.status, 1, run.standardOutput + run.standardError)
        XCTAssertEqual(run.standardError,
                       "echolab: out/delay/speex: echolab eval, pid 4242 is writing \(held), which holds this folder; wait for it to finish or choose another --out\n")
        let tone = SignalGenerator.render(.tone(frequency: 440, levelDBFS: -20), sampleRate: 48_000, count: 48_000, seed: 1)
        for name in ["mic.wav", "loopback.wav"] { try SoundFileWriter.write(tone, to: root.appendingPathComponent(name).path, sampleRate: 48_000) }
        let process = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "loopback.wav", "--out", "out/sent.wav"], in: root)
        XCTAssertEqual(process.status, 1, process.standardOutput + process.standardError)
        XCTAssertTrue(process.standardError.contains("echolab eval, pid 4242 is writing \(held), which holds this file"), process.standardError)
        XCTAssertEqual(allFiles(under: out), [".echolab.lock"], "nothing written beside the holder's lock")
    }

    /// An eval whose run folder a `run` is writing fails that run alone, naming the holder, and
    /// leaves the folder as the holder writes it; its other runs run.
    func testAnEvalRunWhoseFolderARunWritesFailsAlone() throws {
        let folder = root.appendingPathComponent("out/speech/disabled")
        let lock = try hold(folder, as: "echolab run, pid 4242")
        defer { close(lock) }
        let sentinel = folder.appendingPathComponent("mic.wav")
        try Data("the run's own".utf8).write(to: sentinel)
        let eval = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps", "--modes", "disabled"], in: root)
        XCTAssertEqual(eval.status, 1, eval.standardOutput + eval.standardError)
        XCTAssertTrue(eval.standardError.contains("out/speech/disabled: echolab run, pid 4242 is writing this folder"), eval.standardError)
        XCTAssertEqual(try Data(contentsOf: sentinel), Data("the run's own".utf8))
        let document = try loadJSON(root.appendingPathComponent("out/eval.json").path)
        let results = (document["items"] as! [[String: Any]]).flatMap { $0["results"] as! [[String: Any]] }
        XCTAssertEqual(results.filter { $0["error"] is NSNull }.count, 1, "the other item ran")
        XCTAssertEqual(results.compactMap { $0["error"] as? String }.count, 1)
    }

    /// A merge into a folder an eval is writing mixed the merged runs with the eval's, and the
    /// eval then rewrote eval.json (a new user's trial): refused by name, the folder untouched;
    /// and an eval into a folder a merge holds is refused the same way.
    func testAMergeIntoAFolderAnEvalWritesIsRefused() throws {
        for shard in ["1/2", "2/2"] {
            let result = try runEchoLab(["eval", "corpus", "--modes", "disabled", "--out", "s\(shard.prefix(1))", "--shard", shard, "--no-taps"],
                                        in: root)
            XCTAssertEqual(result.status, 0, result.standardError)
        }
        let out = root.appendingPathComponent("out")
        let lock = try hold(out, as: "echolab eval, pid 4242")
        let refused = try runEchoLab(["merge", "s1", "s2", "--out", "out"], in: root)
        XCTAssertEqual(refused.status, 1, refused.standardOutput + refused.standardError)
        XCTAssertEqual(refused.standardError, "echolab: out: echolab eval, pid 4242 is writing this folder; wait for it to finish or choose another --out\n")
        XCTAssertEqual(allFiles(under: out), [".echolab.lock"], "nothing merged beside the holder's lock")
        close(lock)

        let merging = try hold(out, as: "echolab merge, pid 4343")
        let eval = try runEchoLab(["eval", "corpus", "--modes", "disabled", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(eval.status, 1, eval.standardOutput + eval.standardError)
        XCTAssertEqual(eval.standardError, "echolab: out: echolab merge, pid 4343 is writing this folder; wait for it to finish or choose another --out\n")
        close(merging)

        let merged = try runEchoLab(["merge", "s1", "s2", "--out", "out"], in: root)
        XCTAssertEqual(merged.status, 0, merged.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent(".echolab.lock").path), "the lock goes with the merge")
        // A merge refused before it writes makes no folder.
        let failed = try runEchoLab(["merge", "s1", "--out", "fresh"], in: root)
        XCTAssertEqual(failed.status, 1, failed.standardOutput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("fresh").path), failed.standardError)
    }
}
