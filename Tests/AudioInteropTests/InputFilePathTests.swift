@testable import AudioInterop
import Foundation
import XCTest

/// `InputFile.absolute`: a path made absolute names its files without `.` components, which name
/// nothing (`echolab eval .` named a missing input `/data/./nope.wav` in its error), and keeps
/// `..` and links for the kernel to resolve.
final class InputFilePathTests: XCTestCase {
    func testDotComponentsAreDroppedAndTheRestKept() {
        let cwd = FileManager.default.currentDirectoryPath
        let base = cwd == "/" ? "" : cwd
        XCTAssertEqual(InputFile.absolute("./nope.wav"), base + "/nope.wav")
        XCTAssertEqual(InputFile.absolute("a/./b/."), base + "/a/b")
        XCTAssertEqual(InputFile.absolute("."), cwd)
        XCTAssertEqual(InputFile.absolute("/data/./rec/./mic.wav"), "/data/rec/mic.wav")
        XCTAssertEqual(InputFile.absolute("/."), "/")
        XCTAssertEqual(InputFile.droppingDotComponents("./."), ".", "the current folder, never an empty path")
        XCTAssertEqual(InputFile.droppingDotComponents("./"), ".")
        XCTAssertEqual(InputFile.droppingDotComponents("./a/"), "a/")
        XCTAssertEqual(InputFile.absolute("/data/../rec/.hidden/..x"), "/data/../rec/.hidden/..x", "`..` and dot-names are kept")
        XCTAssertEqual(InputFile.absolute("/data//rec"), "/data//rec", "nothing else is rewritten")
    }
}
