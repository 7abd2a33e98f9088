import Foundation

/// The text of a Double with a fixed number of decimals, byte for byte what `printf`'s `%.Nf`
/// prints (glibc: the exact binary value rounded half to even, the sign kept on a negative value
/// that rounds to zero), without Foundation's formatter. `String(format:)` parses its format and
/// boxes its arguments on every call; the reports format a few thousand numbers each, and with it
/// that is a third of the time spent writing report.json and report.html at the end of every run.
public enum FixedDecimal {
    /// Powers of ten a scaled value is multiplied by (0 through 9 decimals).
    private static let powersOfTen: [UInt64] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000,
                                                100_000_000, 1_000_000_000]
    /// The magnitude of value · 10^decimals up to which the integer arithmetic below writes the
    /// text (a margin under UInt64's range); `String(format:)` writes larger ones.
    private static let scaledMagnitudeLimit = 9.0e18

    /// `value` with `fractionDigits` decimals, as `String(format: "%.<fractionDigits>f", value)`
    /// (which writes it for more than 9 decimals, a value that is not finite, or one whose
    /// magnitude times 10^fractionDigits reaches 9·10¹⁸).
    public static func text(_ value: Double, fractionDigits: Int) -> String {
        guard let scaled = roundedMagnitude(value, fractionDigits: fractionDigits) else {
            return String(format: "%.\(fractionDigits)f", value)
        }
        var text = String(UInt64(scaled))
        if fractionDigits > 0 {
            if text.count <= fractionDigits {
                text = String(repeating: "0", count: fractionDigits + 1 - text.count) + text
            }
            text.insert(".", at: text.index(text.endIndex, offsetBy: -fractionDigits))
        }
        return value.sign == .minus ? "-" + text : text
    }

    /// `value` · 10^`fractionDigits` rounded as `text` rounds it, as an integer (−0.04 at one
    /// decimal is 0): what two values compare as when printed alike. Where `text` falls back
    /// to `String(format:)`, the product rounded half to even.
    public static func scaled(_ value: Double, fractionDigits: Int) -> Int64 {
        guard let magnitude = roundedMagnitude(value, fractionDigits: fractionDigits) else {
            let product = (value * pow(10, Double(fractionDigits))).rounded(.toNearestOrEven)
            guard product.isFinite else { return 0 }
            return Int64(exactly: product) ?? (product > 0 ? .max : .min)
        }
        return value.sign == .minus ? -Int64(magnitude) : Int64(magnitude)
    }

    /// |value| · 10^fractionDigits, the exact binary value rounded half to even; nil where
    /// `text` leaves it to `String(format:)`.
    private static func roundedMagnitude(_ value: Double, fractionDigits: Int) -> UInt128? {
        guard (0...9).contains(fractionDigits), value.isFinite,
              value.magnitude * Double(powersOfTen[fractionDigits]) < scaledMagnitudeLimit else {
            return nil
        }
        // value = significand · 2^exponent, both integers: the product with 10^fractionDigits is
        // exact in 128 bits, and so is the rounding of it to an integer.
        let exponentBits = Int(value.exponentBitPattern)
        let significand = value.significandBitPattern | (exponentBits == 0 ? 0 : 1 << 52)
        let exponent = (exponentBits == 0 ? 1 : exponentBits) - 1075
        let product = UInt128(significand) * UInt128(powersOfTen[fractionDigits])
        var scaled: UInt128
        if exponent >= 0 {
            scaled = product << exponent
        } else if -exponent >= 128 {
            scaled = 0   // the product is under 2⁸³: the value is under 2⁻⁴⁵ of the last decimal
        } else {
            let shift = -exponent
            scaled = product >> shift
            let remainder = product & ((1 << shift) - 1), half = UInt128(1) << (shift - 1)
            if remainder > half || (remainder == half && scaled & 1 == 1) { scaled += 1 }
        }
        return scaled
    }
}
