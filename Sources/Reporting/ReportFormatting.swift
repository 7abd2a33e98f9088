import EchoLabJSON
import Foundation

/// Number formatting shared by the human-readable reports: one decimal for dB, "—" for none.
public enum ReportFormatting {
    public static func db(_ value: Double?) -> String { number(value, digits: 1, unit: " dB") }
    public static func number(_ value: Double?, digits: Int = 2, unit: String = "") -> String {
        guard let value else { return "—" }
        let text = FixedDecimal.text(value, fractionDigits: digits)
        // A value that rounds to zero is printed without a sign ("-0.0 dB" reads as a measurement).
        if text.hasPrefix("-"), text.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) { return String(text.dropFirst()) + unit }
        return text + unit
    }
    public static func seconds(_ value: Double?) -> String { number(value, digits: 2, unit: " s") }
}
