import Foundation
import ScenarioFiles
import XCTest

/// Which JSON files a corpus search passes over as EchoLab's own output.
final class ScenarioDiscoveryTests: XCTestCase {
    /// An eval.json over 64 MB (a large corpus's, which `compare` and `merge` read up to 1 GB) was
    /// taken for a scenario: the search failed on it as a broken scenario.
    func testLargeEvalJSONIsEchoLabOutput() throws {
        let folder = try makeTemporaryDirectory(for: self)
        let eval = folder.appendingPathComponent("eval.json")
        let padding = String(repeating: "x", count: 65 << 20)
        try Data(#"{"items": ["\#(padding)"], "schema": "echolab.eval/1"}"#.utf8).write(to: eval)
        let scenario = folder.appendingPathComponent("call.json")
        try Data(#"{"name": "call", "schema": "mine"}"#.utf8).write(to: scenario)

        XCTAssertTrue(ScenarioDiscovery.isEchoLabOutput(eval.path))
        XCTAssertFalse(ScenarioDiscovery.isEchoLabOutput(scenario.path))
        let found = try ScenarioDiscovery.files(in: [folder.path])
        XCTAssertEqual(found.map { ($0 as NSString).lastPathComponent }, ["call.json"])
    }

    /// A path eval cannot find may have meant a folder: "no such file" read as if only files were
    /// taken (a trial's `eval nope-dir`).
    func testAMissingPathIsNoSuchFileOrFolder() throws {
        let folder = try makeTemporaryDirectory(for: self)
        let file = folder.appendingPathComponent("call.json")
        try Data(#"{"name": "call"}"#.utf8).write(to: file)
        for (path, problem) in [(folder.appendingPathComponent("nope-dir").path, "no such file or folder"),
                                (file.path + "/inside", "no such file or folder (a part of the path is not a folder)")] {
            XCTAssertThrowsError(try ScenarioDiscovery.files(in: [path])) { error in
                XCTAssertEqual("\(error)", "\(path): \(problem)")
            }
        }
    }
}
