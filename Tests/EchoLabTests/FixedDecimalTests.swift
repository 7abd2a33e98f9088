import AudioCore
import EchoLabJSON
import Foundation
import XCTest

/// `FixedDecimal` replaces `String(format: "%.Nf")` in the reports, whose bytes golden files and
/// CI diffs compare: it must print what printf prints, for every value.
final class FixedDecimalTests: XCTestCase {
    func testKnownTexts() {
        XCTAssertEqual(FixedDecimal.text(0, digits: 1), "0.0")
        XCTAssertEqual(FixedDecimal.text(-0.0, digits: 1), "-0.0")
        XCTAssertEqual(FixedDecimal.text(-0.01, digits: 1), "-0.0", "the sign of a negative value that rounds to zero stays")
        XCTAssertEqual(FixedDecimal.text(0.125, digits: 2), "0.12", "an exact tie rounds to even")
        XCTAssertEqual(FixedDecimal.text(0.375, digits: 2), "0.38")
        XCTAssertEqual(FixedDecimal.text(2.5, digits: 0), "2")
        XCTAssertEqual(FixedDecimal.text(3.5, digits: 0), "4")
        XCTAssertEqual(FixedDecimal.text(0.15, digits: 1), "0.1", "0.15 is stored just below 0.15")
        XCTAssertEqual(FixedDecimal.text(-12.3456, digits: 4), "-12.3456")
        XCTAssertEqual(FixedDecimal.text(0.00005, digits: 4), "0.0001")
        XCTAssertEqual(FixedDecimal.text(1234.5, digits: 3), "1234.500")
        XCTAssertEqual(FixedDecimal.text(7, digits: 0), "7")
        XCTAssertEqual(FixedDecimal.text(.leastNonzeroMagnitude, digits: 9), "0.000000000")
        XCTAssertEqual(FixedDecimal.text(123.456, digits: 12), String(format: "%.12f", 123.456), "more than 9 decimals")
        XCTAssertEqual(FixedDecimal.text(1e20, digits: 1), "100000000000000000000.0")
        XCTAssertEqual(FixedDecimal.text(.infinity, digits: 2), "inf")
        XCTAssertEqual(FixedDecimal.text(-.infinity, digits: 2), "-inf")
    }

    /// Random values of every kind — any bit pattern, exact binary ties, decimals, tiny and
    /// large — against `String(format:)`.
    func testMatchesPrintfOnRandomValues() {
        var random = SeededRandom(seed: 2024)
        var mismatches: [String] = []
        for index in 0..<200_000 {
            let digits = index % 10
            let value: Double
            switch index % 5 {
            case 0: value = Double(bitPattern: random.next())
            case 1: value = Double(random.nextInt(in: -1_000_000...1_000_000)) / Double(1 << Int(random.nextInt(in: 0...24)))
            case 2: value = Double(random.nextInt(in: -100_000_000...100_000_000)) / 10_000
            case 3: value = Double(random.nextSignedFloat()) * 1e-3
            default: value = Double(random.nextSignedFloat()) * pow(10, Double(random.nextInt(in: -12...19)))
            }
            let expected = String(format: "%.\(digits)f", value)
            let text = FixedDecimal.text(value, digits: digits)
            if text != expected, mismatches.count < 5 { mismatches.append("\(value) with \(digits): \(text), printf \(expected)") }
        }
        XCTAssertEqual(mismatches, [])
    }

    func testJSONNumbersKeepTheirText() {
        let value = JSONValue.array([.number(0.125), .number(-0.00004), .number(2.5), .number(1.23456), .number(-7.10001), .number(1e16 + 0.5)])
        XCTAssertEqual(value.canonicalText(), "[\n  0.125,\n  0,\n  2.5,\n  1.2346,\n  -7.1,\n  10000000000000000\n]\n")
    }
}
