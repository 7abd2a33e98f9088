import Foundation

/// The text of a Double with a fixed number of decimals, byte for byte what `printf`'s `%.Nf`
/// prints (glibc: the exact binary value rounded half to even, the sign kept on a negative value
/// that rounds to zero), without Foundation's formatter. `String(format:)` parses its format and
/// boxes its arguments on every call; the reports format a few thousand numbers each, and that
/// was a third of the time spent writing report.json and report.html at the end of every run.
public enum FixedDecimal {
    /// Powers of ten a scaled value is multiplied by (digits 0 through 9).
    private static let powersOfTen: [UInt64] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000,
                                                100_000_000, 1_000_000_000]
    /// Beyond this magnitude the scaled value may not fit 63 bits: `String(format:)` writes it.
    private static let largestExact = 9.0e18

    /// `value` with `digits` decimals, as `String(format: "%.<digits>f", value)` (which writes
    /// it when there are more than 9 decimals, or the value is not finite or beyond 9·10¹⁸).
    public static func text(_ value: Double, digits: Int) -> String {
        guard (0...9).contains(digits), value.isFinite, value.magnitude * Double(powersOfTen[digits]) < largestExact else {
            return String(format: "%.\(digits)f", value)
        }
        let scale = powersOfTen[digits]
        // value = significand · 2^exponent, both integers: the product with 10^digits is exact
        // in 128 bits, and so is the rounding of it to an integer.
        let exponentBits = Int(value.exponentBitPattern)
        let significand = value.significandBitPattern | (exponentBits == 0 ? 0 : 1 << 52)
        let exponent = (exponentBits == 0 ? 1 : exponentBits) - 1075
        let product = UInt128(significand) * UInt128(scale)
        var scaled: UInt128
        if exponent >= 0 {
            scaled = product << exponent
        } else if -exponent >= 128 {
            scaled = 0   // below 2⁻¹²⁸ of a unit: rounds to zero (the product is under 2⁸⁴)
        } else {
            let shift = -exponent
            scaled = product >> shift
            let remainder = product & ((1 << shift) - 1), half = UInt128(1) << (shift - 1)
            if remainder > half || (remainder == half && scaled & 1 == 1) { scaled += 1 }
        }
        var digitsText = String(UInt64(scaled))
        if digits > 0 {
            if digitsText.count <= digits {
                digitsText = String(repeating: "0", count: digits + 1 - digitsText.count) + digitsText
            }
            digitsText.insert(".", at: digitsText.index(digitsText.endIndex, offsetBy: -digits))
        }
        return value.sign == .minus ? "-" + digitsText : digitsText
    }
}
