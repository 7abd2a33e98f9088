import XCTest
import Foundation
@testable import AudioInterop

/// No half-written file under the final name; failures name the path.
final class SoundFileWriterAtomicityTests: XCTestCase {
    var dir: TemporaryDirectory!
    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    func testFinalFileAppearsOnlyOnFinish() throws {
        let path = dir.file("out.wav")
        let writer = try SoundFileWriter(path: path, sampleRate: 48_000)
        try writer.write(Signals.noise(seed: 3, count: 4_800), frames: 4_800)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        XCTAssertEqual(dir.contents(), [".out.wav.partial"])
        try writer.finish()
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        XCTAssertEqual(dir.contents(), ["out.wav"])
        XCTAssertEqual(try SoundFileReader(path: path).frameCount, 4_800)
    }

    func testDroppedWriterRemovesItsPartialFile() throws {
        let path = dir.file("abandoned.wav")
        do {
            let writer = try SoundFileWriter(path: path, sampleRate: 48_000, encoding: .pcm16)
            try writer.write([0.1, 0.2, 0.3], frames: 3)
            XCTAssertEqual(dir.contents(), [".abandoned.wav.partial"])
        }
        XCTAssertEqual(dir.contents(), [], "neither the partial nor the final file may remain")
    }

    func testAnExistingFileIsReplacedOnlyOnFinish() throws {
        let path = dir.file("replace.wav")
        try SoundFileWriter.write([Float](repeating: 0.25, count: 10), to: path, sampleRate: 8_000)
        let writer = try SoundFileWriter(path: path, sampleRate: 8_000)
        try writer.write([Float](repeating: -0.5, count: 20), frames: 20)
        XCTAssertEqual(try SoundFileReader(path: path).frameCount, 10, "old file intact while writing")
        try writer.finish()
        let (samples, rate) = try AudioFileStream.readAll(path: path)
        XCTAssertEqual(rate, 8_000)
        XCTAssertEqual(samples, [Float](repeating: -0.5, count: 20))
    }

    /// `AtomicFile` unlinks the old name before the rename (ext4 flushes a file renamed over
    /// another): a folder in the way must stay whole and the error must name the path.
    func testAFolderAtTheFinalNameIsKeptAndTheErrorNamesThePath() throws {
        let path = dir.file("taken.wav")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: path + "/inside.txt"))
        let writer = try SoundFileWriter(path: path, sampleRate: 8_000)
        try writer.write([0.5], frames: 1)
        XCTAssertThrowsError(try writer.finish()) { error in
            guard case .cannotWrite(let p, let reason)? = error as? AudioIOError else { return XCTFail("\(error)") }
            XCTAssertEqual(p, path)
            XCTAssertEqual(reason, "is a folder, not a file")
        }
        XCTAssertEqual(dir.contents(), ["taken.wav"], "no partial file left")
        XCTAssertEqual(try String(contentsOfFile: path + "/inside.txt", encoding: .utf8), "keep")
        // An empty folder too (a careless replacement could remove that one).
        let empty = dir.file("empty.wav")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        let second = try SoundFileWriter(path: empty, sampleRate: 8_000)
        try second.write([0.5], frames: 1)
        XCTAssertThrowsError(try second.finish())
        var isFolder: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: empty, isDirectory: &isFolder) && isFolder.boolValue)
        XCTAssertEqual(dir.contents(), ["empty.wav", "taken.wav"], "no partial or aside file left")
    }

    /// When the new file cannot be moved in, the file it was to replace is put back: a failed
    /// write never loses the previous run's file.
    func testAFailedReplacementPutsTheOldFileBack() throws {
        let path = dir.file("kept.wav")
        try SoundFileWriter.write([Float](repeating: 0.25, count: 10), to: path, sampleRate: 8_000)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        // The temporary is gone before the move (as if removed by someone else): rename fails.
        XCTAssertThrowsError(try AtomicFile.moveIntoPlace(dir.file(".missing.partial"), to: path)) { error in
            XCTAssertEqual("\(error)", "\(path): cannot write: No such file or directory")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
        XCTAssertEqual(dir.contents(), ["kept.wav"])
        // A leftover aside file of an interrupted replacement is cleared by the next one.
        try Data("stale".utf8).write(to: URL(fileURLWithPath: dir.file(".kept.wav.replaced")))
        try SoundFileWriter.write([Float](repeating: -0.5, count: 20), to: path, sampleRate: 8_000)
        XCTAssertEqual(dir.contents(), ["kept.wav"])
        XCTAssertEqual(try AudioFileStream.readAll(path: path).samples, [Float](repeating: -0.5, count: 20))
    }

    /// `finishKeepingReplaced` puts the new file in place at once and leaves the one it replaced
    /// (with its old bytes) at a hidden name for the caller to delete later; with nothing to
    /// replace there is nothing to delete.
    func testTheReplacedFileCanBeDeletedLater() throws {
        let path = dir.file("tap.wav")
        let first = try SoundFileWriter(path: path, sampleRate: 8_000)
        try first.write([Float](repeating: 0.25, count: 10), frames: 10)
        XCTAssertNil(try first.finishKeepingReplaced())
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let second = try SoundFileWriter(path: path, sampleRate: 8_000)
        try second.write([Float](repeating: -0.5, count: 20), frames: 20)
        let replaced = try XCTUnwrap(try second.finishKeepingReplaced())
        XCTAssertEqual(replaced, dir.file(".tap.wav.replaced"))
        XCTAssertEqual(try AudioFileStream.readAll(path: path).samples, [Float](repeating: -0.5, count: 20))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: replaced)), before, "the old file, whole, until deleted")
        AtomicFile.removeReplaced([replaced])
        XCTAssertEqual(dir.contents(), ["tap.wav"])
    }

    /// A symlink at the final name is replaced by the new file; the file it pointed to (which may
    /// be somebody's input) keeps its bytes.
    func testASymlinkAtTheFinalNameIsReplacedAndItsTargetKept() throws {
        let outside = try TemporaryDirectory()
        defer { outside.remove() }
        let target = outside.file("input.wav")
        try SoundFileWriter.write([Float](repeating: 0.25, count: 10), to: target, sampleRate: 8_000)
        let before = try Data(contentsOf: URL(fileURLWithPath: target))
        let path = dir.file("link.wav")
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        try SoundFileWriter.write([Float](repeating: -0.5, count: 20), to: path, sampleRate: 8_000)
        XCTAssertNil(try? FileManager.default.destinationOfSymbolicLink(atPath: path), "a plain file now")
        XCTAssertEqual(try AudioFileStream.readAll(path: path).samples, [Float](repeating: -0.5, count: 20))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: target)), before)
    }

    func testWriteAfterFinishThrows() throws {
        let path = dir.file("done.wav")
        let writer = try SoundFileWriter(path: path, sampleRate: 48_000)
        try writer.finish()
        XCTAssertThrowsError(try writer.write([0], frames: 1)) { error in
            guard case .cannotWrite(let p, _)? = error as? AudioIOError else { return XCTFail("\(error)") }
            XCTAssertEqual(p, path)
        }
    }

    func testMissingDirectoryThrowsCannotWriteNamingThePath() throws {
        let path = dir.file("no/such/dir/out.wav")
        XCTAssertThrowsError(try SoundFileWriter(path: path, sampleRate: 48_000)) { error in
            guard case .cannotWrite(let p, let reason)? = error as? AudioIOError else { return XCTFail("\(error)") }
            XCTAssertEqual(p, path)
            XCTAssertFalse(reason.isEmpty)
            XCTAssertTrue("\(error)".contains(path))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("no")))
    }

    func testUnwritableLocationThrowsCannotWriteNamingThePath() throws {
        // A regular file as the parent "directory" is unwritable even for root.
        let blocker = dir.file("blocker")
        XCTAssertTrue(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
        let path = blocker + "/out.wav"
        XCTAssertThrowsError(try SoundFileWriter.write([0.5], to: path, sampleRate: 48_000)) { error in
            guard case .cannotWrite(let p, _)? = error as? AudioIOError else { return XCTFail("\(error)") }
            XCTAssertEqual(p, path)
            XCTAssertTrue("\(error)".contains(path))
        }
        // Permission bits only stop non-root users; check them when they apply.
        if geteuid() != 0 {
            let locked = dir.file("locked")
            try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o555])
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked) }
            XCTAssertThrowsError(try SoundFileWriter(path: locked + "/out.wav", sampleRate: 48_000)) { error in
                guard case .cannotWrite(let p, _)? = error as? AudioIOError else { return XCTFail("\(error)") }
                XCTAssertEqual(p, locked + "/out.wav")
            }
        }
    }

    func testUnsupportedFormatThrowsCannotWrite() {
        let path = dir.file("bad.wav")
        XCTAssertThrowsError(try SoundFileWriter(path: path, sampleRate: 48_000, channelCount: 0)) { error in
            guard case .cannotWrite(let p, _)? = error as? AudioIOError else { return XCTFail("\(error)") }
            XCTAssertEqual(p, path)
        }
        XCTAssertEqual(dir.contents(), [])
    }
}
