import AudioInterop
import XCTest

/// The hidden companions of an output (`.NAME.partial`, `.NAME.replaced`, `.NAME.echolab.lock`)
/// fit in a file name's 255 bytes whatever the output's legal name: one of 242–255 bytes failed
/// with "File name too long" for them.
final class HiddenNameTests: XCTestCase {
    func testAShortNameIsHiddenAsItIs() {
        XCTAssertEqual(AtomicFile.hiddenName(for: "sent.wav", suffix: ".partial"), ".sent.wav.partial")
        XCTAssertEqual(AtomicFile.hiddenPath(beside: "/out/report.json", suffix: ".replaced"), "/out/.report.json.replaced")
    }

    func testALongNameFitsAndStaysItsOwn() {
        let long = String(repeating: "b", count: 251) + ".wav"
        let other = String(repeating: "b", count: 250) + "c.wav"
        let hidden = AtomicFile.hiddenName(for: long, suffix: ".echolab.lock")
        XCTAssertLessThanOrEqual(hidden.utf8.count, 255)
        XCTAssertTrue(hidden.hasPrefix(".bbbb") && hidden.hasSuffix(".echolab.lock"), hidden)
        XCTAssertEqual(AtomicFile.hiddenName(for: long, suffix: ".echolab.lock"), hidden, "the same every time")
        XCTAssertNotEqual(AtomicFile.hiddenName(for: other, suffix: ".echolab.lock"), hidden, "names alike but for their ends differ")
        // Whole characters: 84 three-byte ones are 252 bytes, and none is cut.
        let wide = AtomicFile.hiddenName(for: String(repeating: "中", count: 84), suffix: ".partial")
        XCTAssertLessThanOrEqual(wide.utf8.count, 255)
        XCTAssertNotNil(String(validatingUTF8: wide), wide)
        XCTAssertTrue(wide.hasPrefix(".中"), wide)
    }
}
