import XCTest
@testable import Evaluation

/// A scorer's stdout as lines: the same lines, in order, however the pipe split the output, and
/// bounded — a line over the limit, or too much unread, ends what is kept after the lines before.
final class OutputLinesTests: XCTestCase {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Every way of cutting the same output gives the same lines and the same overflow.
    private func read(_ output: String, cutEvery size: Int, lineLimit: Int = 8, bufferLimit: Int = 1024) -> ([String], OutputLines.Overflow?) {
        var lines = OutputLines(lineLimit: lineLimit, bufferLimit: bufferLimit)
        let all = bytes(output)
        for start in stride(from: 0, to: all.count, by: size) { lines.append(Array(all[start..<min(all.count, start + size)])) }
        var read: [String] = []
        while let line = lines.next() { read.append(String(decoding: line, as: UTF8.self)) }
        return (read, lines.overflow)
    }

    func testLinesAreTheSameWhereverThePipeSplitThem() {
        for size in 1...12 {
            let (lines, overflow) = read("a\nbc\n\ndef", cutEvery: size)
            XCTAssertEqual(lines, ["a", "bc", ""], "cut every \(size)")
            XCTAssertNil(overflow)
        }
    }

    func testALineOverTheLimitEndsWhatIsKeptAfterTheLinesBefore() {
        for size in 1...20 {
            // Ended or not, a 9-byte line is over 8: the two lines before it are still read.
            XCTAssertTrue(read("a\nb\n123456789\nc\n", cutEvery: size) == (["a", "b"], .longLine), "cut every \(size)")
            XCTAssertTrue(read("a\nb\n123456789", cutEvery: size) == (["a", "b"], .longLine), "cut every \(size)")
            XCTAssertTrue(read("12345678\n", cutEvery: size) == (["12345678"], nil), "at the limit, cut every \(size)")
        }
    }

    func testMoreThanTheBufferUnreadEndsIt() {
        for size in 1...20 {
            // Each line costs its bytes and 48 more: two of 7 take 110 of 160, a third of 3 would
            // take 161.
            XCTAssertTrue(read("1234567\n1234567\n123\n", cutEvery: size, bufferLimit: 160) == (["1234567", "1234567"], .unread),
                          "cut every \(size)")
            XCTAssertTrue(read("1234567\n1234567\n12\n", cutEvery: size, bufferLimit: 160) == (["1234567", "1234567", "12"], nil),
                          "at the limit, cut every \(size)")
            // Empty lines cost too: a flood of them is bounded.
            XCTAssertEqual(read(String(repeating: "\n", count: 10), cutEvery: size, bufferLimit: 160).1, .unread)
        }
        // Read as they come, the same lines never pile up.
        var lines = OutputLines(lineLimit: 8, bufferLimit: 160)
        for _ in 0..<100 {
            lines.append(bytes("1234567\n"))
            XCTAssertEqual(lines.next().map { String(decoding: $0, as: UTF8.self) }, "1234567")
        }
        XCTAssertNil(lines.overflow)
    }
}
