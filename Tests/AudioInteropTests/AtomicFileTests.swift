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

    /// Files written as one change: the second cannot be written (its temporary's name is taken
    /// by a folder), so the first keeps its old text too, and no temporary is left.
    func testAGroupThatCannotBeWrittenWholeLeavesEveryFileAsItWas() throws {
        let (json, page) = (folder + "/eval.json", folder + "/eval.html")
        try AtomicFile.write("old json\n", to: json)
        try AtomicFile.write("old page\n", to: page)
        try FileManager.default.createDirectory(atPath: folder + "/.eval.html.partial", withIntermediateDirectories: false)
        XCTAssertThrowsError(try AtomicFile.write([(json, { write in try write("new json\n") }), (page, { write in try write("new page\n") })])) { error in
            XCTAssertEqual("\(error)", page + ": cannot write: File exists")
        }
        XCTAssertEqual(try String(contentsOfFile: json, encoding: .utf8), "old json\n")
        XCTAssertEqual(try String(contentsOfFile: page, encoding: .utf8), "old page\n")
        XCTAssertEqual(try contents(), [".eval.html.partial", "eval.html", "eval.json"])
        try FileManager.default.removeItem(atPath: folder + "/.eval.html.partial")
        try AtomicFile.write([(json, { write in try write("new json\n") }), (page, { write in try write("new page\n") })])
        XCTAssertEqual(try String(contentsOfFile: json, encoding: .utf8), "new json\n")
        XCTAssertEqual(try String(contentsOfFile: page, encoding: .utf8), "new page\n")
        XCTAssertEqual(try contents(), ["eval.html", "eval.json"])
    }

    /// A move into place that fails (a folder where the second file goes) puts back the first.
    func testAGroupWhoseSecondMoveFailsPutsBackTheFirst() throws {
        let (json, page) = (folder + "/eval.json", folder + "/eval.md")
        try AtomicFile.write("old json\n", to: json)
        try FileManager.default.createDirectory(atPath: page, withIntermediateDirectories: false)
        XCTAssertThrowsError(try AtomicFile.write([(json, { write in try write("new json\n") }), (page, { write in try write("page\n") })])) { error in
            XCTAssertEqual("\(error)", page + ": cannot write: is a folder, not a file")
        }
        XCTAssertEqual(try String(contentsOfFile: json, encoding: .utf8), "old json\n")
        XCTAssertEqual(try contents(), ["eval.json", "eval.md"])
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
