import EchoLabTestSupport
import XCTest
import Foundation
@testable import AudioInterop

/// Folders put into a root as one change: staged, placed, and put back on failure.
final class FolderReplacementTests: XCTestCase {
    private var folder: String!
    override func setUpWithError() throws { folder = try temporaryDirectory().path }
    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    private func path(_ relative: String) -> String { folder + "/" + relative }

    private func makeFolder(_ relative: String, holding text: String) throws {
        try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
        try text.write(toFile: path(relative + "/report.json"), atomically: false, encoding: .utf8)
    }

    private func report(in relative: String) -> String? { try? String(contentsOfFile: path(relative + "/report.json"), encoding: .utf8) }

    /// Every file under `relative`, with its text: what a failure must leave as it was.
    private func tree(_ relative: String) throws -> [String: String] {
        var files: [String: String] = [:]
        let root = path(relative)
        for case let name as String in FileManager.default.enumerator(atPath: root)! {
            var isFolder: ObjCBool = false
            FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isFolder)
            files[name] = isFolder.boolValue ? "/" : try String(contentsOfFile: root + "/" + name, encoding: .utf8)
        }
        return files
    }

    func testPlacesNewFoldersAndReplacesEarlierOnesLeavingNoStaging() throws {
        try makeFolder("shard/a/speex", holding: "new a")
        try makeFolder("shard/b/webrtc", holding: "new b")
        try makeFolder("out/a/speex", holding: "old a")
        try makeFolder("out/keep", holding: "untouched")
        var replacement = try FolderReplacement(root: path("out"), stagingName: ".staging")
        let copy = try replacement.stage(path("shard/a/speex"), as: "a/speex")
        XCTAssertEqual(copy, path("out/.staging/a/speex"))
        XCTAssertEqual(report(in: "out/a/speex"), "old a", "staging changes nothing in place")
        try replacement.stage(path("shard/b/webrtc"), as: "b/webrtc")
        try replacement.place("a/speex")
        try replacement.place("b/webrtc")
        replacement.finish()
        XCTAssertEqual(try tree("out"), ["a": "/", "a/speex": "/", "a/speex/report.json": "new a", "b": "/", "b/webrtc": "/",
                                         "b/webrtc/report.json": "new b", "keep": "/", "keep/report.json": "untouched"])
        XCTAssertEqual(report(in: "shard/a/speex"), "new a", "the sources are copied, not moved")
    }

    func testUndoPutsBackTheEarlierFoldersAndRemovesTheFoldersItMade() throws {
        try makeFolder("shard/a/speex", holding: "new a")
        try makeFolder("shard/b/webrtc", holding: "new b")
        try makeFolder("out/a/speex", holding: "old a")
        let before = try tree("out")
        var replacement = try FolderReplacement(root: path("out"), stagingName: ".staging")
        try replacement.stage(path("shard/a/speex"), as: "a/speex")
        try replacement.stage(path("shard/b/webrtc"), as: "b/webrtc")
        try replacement.place("a/speex")
        try replacement.place("b/webrtc")
        XCTAssertEqual(report(in: "out/a/speex"), "new a")
        XCTAssertEqual(replacement.undo(), [])
        XCTAssertEqual(try tree("out"), before, "the earlier run back, b/ (made for the new run) gone, no staging")
    }

    func testAMoveThatCannotBeUndoneKeepsTheEarlierFolderAsideAndTheNextReplacementRefusesToStart() throws {
        try makeFolder("shard/a/speex", holding: "new a")
        try makeFolder("out/a/speex", holding: "old a")
        var movesLeft = 1   // moving aside works; every later move fails
        var replacement = try FolderReplacement(root: path("out"), stagingName: ".staging") { source, destination in
            guard movesLeft > 0 else { throw CocoaError(.fileWriteNoPermission) }
            movesLeft -= 1
            try FileManager.default.moveItem(atPath: source, toPath: destination)
        }
        try replacement.stage(path("shard/a/speex"), as: "a/speex")
        XCTAssertThrowsError(try replacement.place("a/speex")) { error in
            XCTAssertTrue("\(error)".hasPrefix(path("out/a/speex") + ": cannot move it into place: "), "\(error)")
        }
        XCTAssertEqual(replacement.undo(), ["a/speex"])
        XCTAssertEqual(report(in: "out/.staging/.replaced/a/speex"), "old a", "the only copy is kept")
        XCTAssertThrowsError(try FolderReplacement(root: path("out"), stagingName: ".staging")) { error in
            XCTAssertEqual((error as? FolderReplacement.AsideNotEmpty)?.folder, path("out/.staging/.replaced"))
        }
        XCTAssertEqual(report(in: "out/.staging/.replaced/a/speex"), "old a", "refusing to start deletes nothing")
    }

    func testStartingRemovesWhatAReplacementKilledBeforeItsMovesLeft() throws {
        try makeFolder("out/.staging/a/speex", holding: "half copied")
        _ = try FolderReplacement(root: path("out"), stagingName: ".staging")
        XCTAssertEqual(try tree("out"), [".staging": "/"])
    }

    func testAFailedCopyNamesTheFoldersPlaceAndTheReason() throws {
        let replacement = try FolderReplacement(root: path("out"), stagingName: ".staging")
        XCTAssertThrowsError(try replacement.stage(path("shard/missing"), as: "a/speex")) { error in
            let prefix = path("out/a/speex") + ": cannot copy \(path("shard/missing")) here: "
            XCTAssertTrue("\(error)".hasPrefix(prefix) && "\(error)".count > prefix.count && !"\(error)".contains("\n"), "\(error)")
        }
    }

    /// Empty folders aside (a replacement that failed after making room for one, in a folder it
    /// could then not clean) are no earlier runs: the next replacement starts. A trial's merge
    /// into a folder made read-only mid-way blocked every later merge so.
    func testEmptyFoldersAsideDoNotBlockTheNextReplacement() throws {
        try FileManager.default.createDirectory(atPath: path("out/.staging/.replaced/item/mode"), withIntermediateDirectories: true)
        try makeFolder("out/.staging/.discarded/item/old", holding: "replaced by a finished merge killed while deleting it")
        _ = try FolderReplacement(root: path("out"), stagingName: ".staging")
        XCTAssertEqual(try tree("out"), [".staging": "/"])
    }

    /// Copies hold the files' bytes and modes, owned by whoever copies: Foundation's copy gave each
    /// its source's owner, which a user who may only read another's files cannot.
    func testACopyIsTheCopiersWithTheSourcesBytesAndModes() throws {
        try makeFolder("shard/a/speex", holding: "report")
        try FileManager.default.createDirectory(atPath: path("shard/a/speex/inner"), withIntermediateDirectories: true)
        let bytes = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: URL(fileURLWithPath: path("shard/a/speex/inner/sent.wav")))
        chmod(path("shard/a/speex/report.json"), 0o640)
        chown(path("shard/a/speex/report.json"), 65_534, 65_534)   // another user's, where this one may give it away
        let replacement = try FolderReplacement(root: path("out"), stagingName: ".staging")
        let copy = try replacement.stage(path("shard/a/speex"), as: "a/speex")
        XCTAssertEqual(FileManager.default.contents(atPath: copy + "/inner/sent.wav"), bytes)
        var status = stat()
        XCTAssertEqual(stat(copy + "/report.json", &status), 0)
        XCTAssertEqual(status.st_mode & 0o777, 0o640)
        XCTAssertEqual(status.st_uid, getuid())
    }

    /// A move that fails says the system's reason, not Foundation's "(NSCocoaErrorDomain error 512.)".
    func testAFailedMoveSaysTheSystemsReason() {
        XCTAssertThrowsError(try FolderReplacement.fileOperation("move it into place", path("out/a")) {
            try FolderReplacement.rename(path("missing"), path("out/a"))
        }) { error in
            XCTAssertEqual("\(error)", path("out/a") + ": cannot move it into place: No such file or directory")
        }
    }

    func testFinishingLeavesNothingAside() throws {
        try makeFolder("shard/a/speex", holding: "new a")
        try makeFolder("out/a/speex", holding: "old a")
        var replacement = try FolderReplacement(root: path("out"), stagingName: ".staging")
        try replacement.stage(path("shard/a/speex"), as: "a/speex")
        try replacement.place("a/speex")
        replacement.finish()
        XCTAssertEqual(try tree("out"), ["a": "/", "a/speex": "/", "a/speex/report.json": "new a"])
    }
}
