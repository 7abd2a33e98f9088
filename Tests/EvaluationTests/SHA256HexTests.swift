@testable import Evaluation
import Foundation
import XCTest

/// SHA-256 is swift-crypto's; what is ours is the text the golden vectors' tap hashes and a
/// corpus plan's digest are stored as: lowercase, two digits a byte, leading zeros kept.
final class SHA256HexTests: XCTestCase {
    func testHexKeepsLeadingZerosAndIsLowercase() {
        XCTAssertEqual(lowercaseHex([UInt8]()), "")
        XCTAssertEqual(lowercaseHex([0x00, 0x01, 0x0f, 0x10, 0xa0, 0xab, 0xff]), "00010f10a0abff")
    }

    /// NIST answers (FIPS 180-2 appendix B): the same text the hand-written hasher produced,
    /// so every hash already in `golden.json` still matches.
    func testKnownAnswers() {
        XCTAssertEqual(sha256Hex(of: Array("".utf8)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(sha256Hex(of: Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(sha256Hex(of: Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
}
