import AudioInterop
import XCTest

/// The disk side of a long call's metric rows: blocks come back bit for bit, and a block that
/// cannot be read is a typed failure with zeros in the buffer (it stopped the process before).
final class SpillFileTests: XCTestCase {
    func testBlocksComeBackBitForBit() throws {
        let file = try SpillFile()
        let first: [Double] = [1.5, -0.0, .infinity, 3e-310], second: [Double] = [.pi, 2, 3, 4]
        try file.append(first)
        try file.append(second)
        var buffer: [Double] = []
        try file.read(block: 1, count: 4, into: &buffer)
        XCTAssertEqual(buffer.map(\.bitPattern), second.map(\.bitPattern))
        try file.read(block: 0, count: 4, into: &buffer)
        XCTAssertEqual(buffer.map(\.bitPattern), first.map(\.bitPattern))
    }

    func testABlockThatIsNotThereFailsWithZeros() throws {
        let file = try SpillFile()
        try file.append([Float](repeating: 7, count: 8))
        var buffer = [Float](repeating: 7, count: 8)
        XCTAssertThrowsError(try file.read(block: 1, count: 8, into: &buffer)) { error in
            XCTAssertEqual((error as? SpillFile.Failure)?.reason, "the file holds 0 of the block's 32 bytes")
        }
        XCTAssertEqual(buffer, [Float](repeating: 0, count: 8))
    }
}
