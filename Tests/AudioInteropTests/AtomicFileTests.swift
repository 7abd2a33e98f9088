import EchoLabTestSupport
import XCTest
import Foundation
@testable import AudioInterop

/// Reports are whole files under their names: written beside the target, then moved into place.
final class AtomicFileTests: XCTestCase {
    private var folder: String!
    override func setUpWithError() throws { folder = try temporaryDirectory().path }
    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    private func contents() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder).sorted() }

    func testReplacesAFileAndLeavesNoTemporary() throws {
        let path = folder + "/report.md"
        try AtomicFile.write("first, and longer than the second\n", to: path)
        try AtomicFile.write("second\n", to: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "second\n")
        XCTAssertEqual(try contents(), ["report.md"])
    }

    func testAFailedWriteNamesTheFileAndTheReason() throws {
        try FileManager.default.createDirectory(atPath: folder + "/.report.json.partial", withIntermediateDirectories: false)
        try AtomicFile.write("old\n", to: folder + "/report.json.keep")
        // The temporary's name is taken by a folder: nothing can be written, the old files stay.
        XCTAssertThrowsError(try AtomicFile.write("{}\n", to: folder + "/report.json")) { error in
            XCTAssertEqual("\(error)", folder + "/report.json: cannot write: File exists")
        }
        XCTAssertEqual(try contents(), [".report.json.partial", "report.json.keep"])
        XCTAssertThrowsError(try AtomicFile.write("{}\n", to: folder + "/missing/report.json")) { error in
            XCTAssertEqual("\(error)", folder + "/missing/report.json: cannot write: No such file or directory")
        }
    }

    func testWritesPiecesAndLeavesTheOldFileWhenTheWriterThrows() throws {
        let path = folder + "/report.json"
        try AtomicFile.write(to: path) { write in
            for piece in ["{\n", "  \"a\": 1\n", "}\n"] { try write(piece) }
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "{\n  \"a\": 1\n}\n")
        struct Interrupted: Error {}
        XCTAssertThrowsError(try AtomicFile.write(to: path) { write in
            try write("{\n")
            throw Interrupted()
        }) { XCTAssertTrue($0 is Interrupted) }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "{\n  \"a\": 1\n}\n", "the old file stands")
        XCTAssertEqual(try contents(), ["report.json"], "no temporary is left")
    }
}
