import Crypto
import Foundation

// SHA-256 itself is swift-crypto's `SHA256` (BoringSSL on Linux, CryptoKit on Apple platforms);
// all that is left here is the text form the golden vectors and plan identities store.

/// Lowercase hexadecimal, two digits a byte: how a digest is written in `golden.json` and in a
/// corpus plan's identity.
func lowercaseHex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.underestimatedCount * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: text, as: UTF8.self)
}

/// The SHA-256 of `bytes` in lowercase hex.
func sha256Hex<Bytes: DataProtocol>(of bytes: Bytes) -> String {
    lowercaseHex(SHA256.hash(data: bytes))
}
