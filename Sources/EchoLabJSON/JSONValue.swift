import AudioCore
import Foundation

/// A JSON value printed canonically: keys sorted, two-space indent, numbers with at most four
/// decimals (integral values without a fraction), `null` kept. The same value prints to the
/// same bytes on every machine, which is what lets golden files and CI diffs compare reports.
public indirect enum JSONValue: Equatable, Sendable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var doubleValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// How numbers are written.
    public enum NumberStyle: Sendable {
        /// At most four decimals: measurements, whose last digits are noise between CPUs.
        case fourDecimals
        /// The shortest text that reads back as the same Double: settings people wrote.
        case exact
    }

    /// The canonical text, ending in a newline.
    public func canonicalText(numbers: NumberStyle = .fourDecimals) -> String {
        var out = ""
        write(to: &out, indent: 0, numbers: numbers, flush: nil)
        out += "\n"
        return out
    }

    /// The canonical text handed to `emit` in pieces of about `chunkBytes` (each ends between two
    /// array elements or object members), the last ending in the newline. An hour-long call's
    /// report.json is 2 MB of text: written in pieces it is never in memory whole, beside the
    /// value it is printed from.
    public func writeCanonicalText(numbers: NumberStyle = .fourDecimals, chunkBytes: Int = 1 << 16,
                                   to emit: (String) throws -> Void) throws {
        var out = ""
        out.reserveCapacity(chunkBytes + chunkBytes / 4)
        var failure: (any Error)?
        withoutActuallyEscaping(emit) { emit in
            write(to: &out, indent: 0, numbers: numbers) { text in
                guard text.utf8.count >= chunkBytes else { return }
                // After a failed write the rest is dropped as it comes, not kept: the text of a
                // long report on a full disk must not pile up in memory.
                if failure == nil {
                    do { try emit(text) } catch { failure = error }
                }
                text.removeAll(keepingCapacity: true)
            }
        }
        if let failure { throw failure }
        out += "\n"
        try emit(out)
    }

    /// The value on one line, keys sorted, no spaces and no newline: a JSON-lines record (what a
    /// scorer reads, docs/scorers.md).
    public func lineText(numbers: NumberStyle = .exact) -> String {
        var out = ""
        writeLine(to: &out, numbers: numbers)
        return out
    }

    private func writeLine(to out: inout String, numbers: NumberStyle) {
        switch self {
        case .null, .bool, .number, .string: write(to: &out, indent: 0, numbers: numbers, flush: nil)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.writeLine(to: &out, numbers: numbers)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                object[key]!.writeLine(to: &out, numbers: numbers)
            }
            out += "}"
        }
    }

    /// `flush`, when given, is offered the text after each array element and object member.
    private func write(to out: inout String, indent: Int, numbers: NumberStyle, flush: ((inout String) -> Void)?) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let value): out += numbers == .exact ? Self.exactText(value) : ReportPrecision.text(value)
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let values):
            if values.isEmpty { out += "[]"; return }
            out += "[\n"
            for (index, value) in values.enumerated() {
                out += String(repeating: "  ", count: indent + 1)
                value.write(to: &out, indent: indent + 1, numbers: numbers, flush: flush)
                out += index == values.count - 1 ? "\n" : ",\n"
                flush?(&out)
            }
            out += String(repeating: "  ", count: indent) + "]"
        case .object(let object):
            if object.isEmpty { out += "{}"; return }
            out += "{\n"
            let keys = object.keys.sorted()
            for (index, key) in keys.enumerated() {
                out += String(repeating: "  ", count: indent + 1)
                Self.writeString(key, to: &out)
                out += ": "
                object[key]!.write(to: &out, indent: indent + 1, numbers: numbers, flush: flush)
                out += index == keys.count - 1 ? "\n" : ",\n"
                flush?(&out)
            }
            out += String(repeating: "  ", count: indent) + "}"
        }
    }

    /// This value as a reader of its canonical text gets it: numbers as `ReportPrecision` prints
    /// them, −0 as 0, a number that is not finite as null. It is what a report's numbers are once
    /// written, computed without printing and parsing the text, so statistics over a run that just
    /// finished equal those over its file read back (`merge`).
    public func roundedAsPrinted() -> JSONValue {
        switch self {
        case .number(let value): Self.roundedAsPrinted(value)
        case .array(let values): .array(values.map { $0.roundedAsPrinted() })
        case .object(let members): .object(members.mapValues { $0.roundedAsPrinted() })
        case .null, .bool, .string: self
        }
    }

    static func roundedAsPrinted(_ value: Double) -> JSONValue { ReportPrecision.printed(value).map(JSONValue.number) ?? .null }

    /// How many containers deep the value nests (a number: 0, `[]`: 1, `[[1]]`: 2): what the
    /// reader's `maximumDepth` limits.
    public var depth: Int {
        switch self {
        case .array(let values): 1 + (values.map(\.depth).max() ?? 0)
        case .object(let members): 1 + (members.values.map(\.depth).max() ?? 0)
        case .null, .bool, .number, .string: 0
        }
    }

    /// Integral values a double holds exactly (to 2^53) as integers; others as Swift's shortest
    /// round-trip text with its exponent as short (`1e-7`, not `1e-07`; `1e16`, not `1e+16`).
    static func exactText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) <= 0x1p53 { return String(Int64(value)) }
        let text = "\(value)"
        guard let e = text.firstIndex(of: "e") else { return text }
        var exponent = text[text.index(after: e)...]
        let negative = exponent.hasPrefix("-")
        if negative || exponent.hasPrefix("+") { exponent = exponent.dropFirst() }
        let digits = exponent.drop { $0 == "0" }
        return text[..<e] + "e" + (negative ? "-" : "") + (digits.isEmpty ? "0" : digits)
    }

    private static func writeString(_ value: String, to out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        out += "\""
    }
}
