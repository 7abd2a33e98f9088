import AudioCore
import EchoLabJSON
import Foundation
import XCTest

/// `FixedDecimal` replaces `String(format: "%.Nf")` in the reports, whose bytes golden files and
/// CI diffs compare: it must print what printf prints, for every value.
final class FixedDecimalTests: XCTestCase {
    func testKnownTexts() {
        XCTAssertEqual(FixedDecimal.text(0, fractionDigits: 1), "0.0")
        XCTAssertEqual(FixedDecimal.text(-0.0, fractionDigits: 1), "-0.0")
        XCTAssertEqual(FixedDecimal.text(-0.01, fractionDigits: 1), "-0.0", "the sign of a negative value that rounds to zero stays")
        XCTAssertEqual(FixedDecimal.text(0.125, fractionDigits: 2), "0.12", "an exact tie rounds to even")
        XCTAssertEqual(FixedDecimal.text(0.375, fractionDigits: 2), "0.38")
        XCTAssertEqual(FixedDecimal.text(2.5, fractionDigits: 0), "2")
        XCTAssertEqual(FixedDecimal.text(3.5, fractionDigits: 0), "4")
        XCTAssertEqual(FixedDecimal.text(0.15, fractionDigits: 1), "0.1", "0.15 is stored just below 0.15")
        XCTAssertEqual(FixedDecimal.text(-12.3456, fractionDigits: 4), "-12.3456")
        XCTAssertEqual(FixedDecimal.text(0.00005, fractionDigits: 4), "0.0001")
        XCTAssertEqual(FixedDecimal.text(1234.5, fractionDigits: 3), "1234.500")
        XCTAssertEqual(FixedDecimal.text(7, fractionDigits: 0), "7")
        XCTAssertEqual(FixedDecimal.text(.leastNonzeroMagnitude, fractionDigits: 9), "0.000000000")
        XCTAssertEqual(FixedDecimal.text(123.456, fractionDigits: 12), "123.456000000000", "more than 9 decimals")
        XCTAssertEqual(FixedDecimal.text(0.1, fractionDigits: 20), "0.10000000000000000555", "more than 9 decimals: the exact binary value")
        XCTAssertEqual(FixedDecimal.text(1e20, fractionDigits: 1), "100000000000000000000.0")
        XCTAssertEqual(FixedDecimal.text(.infinity, fractionDigits: 2), "inf")
        XCTAssertEqual(FixedDecimal.text(-.infinity, fractionDigits: 2), "-inf")
    }

    /// Random values of every kind against `String(format:)`: any bit pattern, full 53-bit
    /// significands from 2⁻⁶⁰ to 2⁶³, exact binary ties (large ones too), decimals, subnormals,
    /// and the neighbours of the magnitude where the text falls back to `String(format:)`.
    func testMatchesPrintfOnRandomValues() {
        var random = SeededRandom(seed: 2024)
        var mismatches: [String] = []
        func check(_ value: Double, _ digits: Int) {
            let expected = String(format: "%.\(digits)f", value)
            let text = FixedDecimal.text(value, fractionDigits: digits)
            if text != expected, mismatches.count < 5 { mismatches.append("\(value) with \(digits): \(text), printf \(expected)") }
        }
        func fullSignificand(_ exponent: Int) -> Double {
            let sign: FloatingPointSign = random.next() & 1 == 0 ? .plus : .minus
            return Double(sign: sign, exponent: exponent, significand: 1 + Double(random.next() >> 12) / 0x1p52)
        }
        for index in 0..<200_000 {
            let digits = index % 10
            switch index % 6 {
            case 0: check(Double(bitPattern: random.next()), digits)
            case 1: check(fullSignificand(Int(random.nextInt(in: -60...63))), digits)
            case 2:   // k + ½ of the last decimal's binary neighbours: exact ties, up to 2⁵² wide
                check((Double(random.nextInt(in: -(1 << 40)...(1 << 40))) + 0.5) / Double(1 << Int(random.nextInt(in: 0...11))), digits)
            case 3: check(Double(random.nextInt(in: -100_000_000...100_000_000)) / 10_000, digits)
            case 4: check(Double(bitPattern: random.next() >> 12) * (random.next() & 1 == 0 ? 1 : -1), 9)   // subnormals
            default: check(fullSignificand(Int(random.nextInt(in: -20...20))), digits)
            }
        }
        // The fallback bound (9·10¹⁸ after scaling) and 50 representable values on each side.
        for digits in 0...9 {
            var below = 9e18 / pow(10, Double(digits)), above = below
            for _ in 0..<50 {
                check(below, digits); check(-above, digits)
                below = below.nextDown; above = above.nextUp
            }
        }
        XCTAssertEqual(mismatches, [])
    }

    /// `scaled` is the printed value as an integer: two values compare as the pages print them.
    func testScaledIsThePrintedValueAsAnInteger() {
        XCTAssertEqual(FixedDecimal.scaled(0.0569, fractionDigits: 1), 1)
        XCTAssertEqual(FixedDecimal.scaled(0.0580, fractionDigits: 1), 1)
        XCTAssertEqual(FixedDecimal.scaled(0.05, fractionDigits: 1), 1, "0.05 is 0.05000000000000000277 in binary: up, as printf")
        XCTAssertEqual(FixedDecimal.scaled(0.25, fractionDigits: 1), 2, "an exact tie: to even")
        XCTAssertEqual(FixedDecimal.scaled(-0.04, fractionDigits: 1), 0)
        XCTAssertEqual(FixedDecimal.scaled(-12.35, fractionDigits: 1), -123)
        XCTAssertEqual(FixedDecimal.scaled(1e30, fractionDigits: 1), .max, "past Int64: clamped")
        var random = SeededRandom(seed: 7)
        for _ in 0..<20_000 {
            let value = Double(random.nextInt(in: -100_000_000...100_000_000)) / 10_000
            let printed = String(format: "%.1f", value)
            XCTAssertEqual(Double(FixedDecimal.scaled(value, fractionDigits: 1)) / 10, Double(printed)!, printed)
        }
    }

    func testJSONNumbersKeepTheirText() {
        let value = JSONValue.array([.number(0.125), .number(-0.00006), .number(2.5), .number(1.23456), .number(-7.10001), .number(1e16 + 0.5)])
        XCTAssertEqual(value.canonicalText(), "[\n  0.125,\n  -0.0001,\n  2.5,\n  1.2346,\n  -7.1,\n  10000000000000000\n]\n")
    }
}
