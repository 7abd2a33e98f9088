import XCTest
import Foundation
@testable import AudioInterop

/// `AtomicFile.writeFile`: the temporary of every report, written with write(2).
final class AtomicFileWriteFileTests: XCTestCase {
    var dir: TemporaryDirectory!
    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    func testWritesTheBytesInANewFile() throws {
        let path = dir.file("report.json")
        // Larger than one page and not a multiple of one, so a short or repeated write would show.
        let bytes = Data((0..<10_007).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        XCTAssertNil(AtomicFile.writeFile(bytes, to: path))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes)

        XCTAssertNil(AtomicFile.writeFile(Data("short".utf8), to: path))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data("short".utf8), "a new file, not the old one's tail")

        XCTAssertNil(AtomicFile.writeFile(Data(), to: path))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, 0)
    }

    func testALinkAtThePathIsReplacedNotWrittenThrough() throws {
        let input = dir.file("near.wav"), bytes = Data("the input".utf8)
        try bytes.write(to: URL(fileURLWithPath: input))
        try FileManager.default.createSymbolicLink(atPath: dir.file(".a.partial"), withDestinationPath: input)
        try FileManager.default.linkItem(atPath: input, toPath: dir.file(".b.partial"))
        XCTAssertNil(AtomicFile.writeFile(Data("report".utf8), to: dir.file(".a.partial")))
        XCTAssertNil(AtomicFile.writeFile(Data("report".utf8), to: dir.file(".b.partial")))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: input)), bytes, "the input is untouched")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir.file(".a.partial"))), Data("report".utf8))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: dir.file(".a.partial"))[.type] as? FileAttributeType,
                       .typeRegular, "no longer a link")
    }

    func testAFailureReturnsTheSystemsReasonAndCreatesNothing() throws {
        XCTAssertEqual(AtomicFile.writeFile(Data("x".utf8), to: dir.file("missing/report.json")),
                       "No such file or directory")
        try FileManager.default.createDirectory(atPath: dir.file("folder"), withIntermediateDirectories: false)
        XCTAssertEqual(AtomicFile.writeFile(Data("x".utf8), to: dir.file("folder")), "File exists")
        XCTAssertEqual(dir.contents(), ["folder"])
    }
}
