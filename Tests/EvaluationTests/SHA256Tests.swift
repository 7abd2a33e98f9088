@testable import Evaluation
import Reporting
import XCTest

/// Known answers from NIST's SHA-256 examples (FIPS 180-2 appendix B and the CAVP short and long
/// messages): the golden vectors' tap hashes are only as good as this.
final class SHA256Tests: XCTestCase {
    func testNISTKnownAnswers() {
        XCTAssertEqual(SHA256.hex(of: Array("".utf8)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(of: Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex(of: Array(("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                                             + "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu").utf8)),
                       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    func testOneMillionAsFedInUnevenPieces() {
        var hash = SHA256()
        var fed = 0
        var piece = 1
        while fed < 1_000_000 {
            let count = min(piece, 1_000_000 - fed)
            hash.update(repeatElement(UInt8(ascii: "a"), count: count))
            fed += count
            piece = piece * 3 % 997 + 1     // sizes that cross the 64-byte block boundary every way
        }
        XCTAssertEqual(hash.finalize(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Message lengths around the padding boundary (55, 56, 63, 64 bytes) must all pad correctly.
    func testPaddingBoundaries() {
        let expected = [
            55: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
            56: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
            63: "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34",
            64: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
        ]
        for (length, digest) in expected {
            XCTAssertEqual(SHA256.hex(of: Array(repeating: UInt8(ascii: "a"), count: length)), digest, "\(length) bytes")
        }
    }
}
