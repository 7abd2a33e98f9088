import Foundation

/// Number formatting shared by the human-readable reports: one decimal for dB, "—" for none.
public enum ReportFormatting {
    public static func db(_ value: Double?) -> String { value.map { String(format: "%.1f dB", $0) } ?? "—" }
    public static func number(_ value: Double?, digits: Int = 2, unit: String = "") -> String {
        value.map { String(format: "%.\(digits)f", $0) + unit } ?? "—"
    }
    public static func seconds(_ value: Double?) -> String { number(value, digits: 2, unit: " s") }
}
