import EchoLabTestSupport
import Foundation
import Evaluation
import Reporting
import XCTest

/// Every scenario in vectors/scenarios reproduces vectors/golden.json: metrics within their
/// tolerances, the same findings and pipeline counters, and byte-identical output taps.
final class GoldenVectorTests: XCTestCase {
    /// `echolab vectors verify`, as CI and people run it (on the release binary in `make test-long`).
    func testVectorsMatchGolden() throws {
        let verify = try runEchoLab(["vectors", "verify", "--vectors", packageRoot.appendingPathComponent("vectors").path], timeout: 900)
        XCTAssertEqual(verify.status, 0, verify.standardOutput + verify.standardError)
    }

    /// `echolab vectors generate` recreates the committed inputs bit for bit.
    func testGeneratorRecreatesTheCommittedInputs() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try VectorCorpus.generate(into: folder.path)
        let committed = packageRoot.appendingPathComponent("vectors")
        for sub in ["inputs", "scenarios"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: committed.appendingPathComponent(sub).path).sorted()
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(sub).path).sorted(), names)
            for name in names {
                XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent(sub).appendingPathComponent(name)),
                               try Data(contentsOf: committed.appendingPathComponent(sub).appendingPathComponent(name)), "\(sub)/\(name)")
            }
        }
    }
}
