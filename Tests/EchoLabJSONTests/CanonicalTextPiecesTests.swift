import EchoLabJSON
import XCTest

/// A long report is printed in pieces (`writeCanonicalText(chunkBytes:to:)`): the pieces join to
/// exactly `canonicalText()`, each but the last holds at least `chunkBytes`, and a failing
/// writer stops the printing.
final class CanonicalTextPiecesTests: XCTestCase {
    private let value = JSONValue.object([
        "series": .array((0..<300).map { index in
            .object(["t_s": .number(Double(index) / 2), "erle_db": .number(Double(index) * 0.123_456), "bound": .bool(index % 7 == 0)])
        }),
        "name": .string("room \"a\"\n"),
        "empty": .array([]),
        "nested": .object(["x": .null, "y": .object([:])]),
    ])

    func testThePiecesJoinToTheCanonicalText() throws {
        let whole = value.canonicalText()
        for chunkBytes in [1, 7, 100, 4096, 1 << 20] {
            var pieces: [String] = []
            try value.writeCanonicalText(chunkBytes: chunkBytes) { pieces.append($0) }
            XCTAssertEqual(pieces.joined(), whole, "chunkBytes \(chunkBytes)")
            XCTAssertTrue(pieces.dropLast().allSatisfy { $0.utf8.count >= chunkBytes }, "chunkBytes \(chunkBytes)")
            XCTAssertEqual(pieces.last?.last, "\n")
        }
        var pieces = 0
        try value.writeCanonicalText(chunkBytes: 4096) { _ in pieces += 1 }
        XCTAssertEqual(pieces, whole.utf8.count / 4096 + 1, "pieces are cut near chunkBytes, not far past it")
    }

    func testAWriterThatFailsStopsThePrinting() {
        struct Full: Error {}
        var calls = 0
        XCTAssertThrowsError(try value.writeCanonicalText(chunkBytes: 64) { _ in
            calls += 1
            throw Full()
        }) { XCTAssertTrue($0 is Full) }
        XCTAssertEqual(calls, 1)
    }
}
