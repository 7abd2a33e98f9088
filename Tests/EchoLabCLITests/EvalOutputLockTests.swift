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
}
