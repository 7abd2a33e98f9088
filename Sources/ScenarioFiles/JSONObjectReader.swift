import EchoLabJSON
import Foundation
import Simulation

/// Reads one JSON object strictly: every key must be asked for by the code that reads it, so
/// `finish()` can name any key nobody asked for (a typo like `delay_msec` is an error, not a
/// silently ignored setting). Errors carry the file and the dotted key path.
final class JSONObjectReader {
    let file: String
    let path: String
    private let members: [String: JSONValue]
    private var used = Set<String>()

    init(_ members: [String: JSONValue], file: String, path: String = "") {
        self.members = members
        self.file = file
        self.path = path
    }

    static func parse(data: Data, file: String) throws -> JSONObjectReader {
        let value: JSONValue
        do {
            value = try JSONValue.parse([UInt8](data), exactIntegers: true)
        } catch {
            throw ScenarioError(file: file, key: nil, problem: "not valid JSON: \(error)")
        }
        guard case .object(let members) = value else {
            throw ScenarioError(file: file, key: nil, problem: "the top level must be a JSON object, not \(value.typeName)")
        }
        return JSONObjectReader(members, file: file)
    }

    /// The keys the reading code asked for so far, given or not.
    var askedKeys: Set<String> { used }

    func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func fail(_ key: String?, _ problem: String) -> ScenarioError {
        ScenarioError(file: file, key: key.map(keyPath), problem: problem)
    }

    /// A required key that is not there, `detail` saying what it takes. Where the object holds a
    /// key nobody asked for that is `key` misspelt (two edits or fewer: `mdoe`, `acton`, `fiel`),
    /// that key is the fault and is named instead, as `finish()` would name it had the reading
    /// got that far ("timeline[0].mdoe: unknown key (did you mean 'mode'?)").
    func missing(_ key: String, _ detail: String? = nil) -> ScenarioError {
        let misspelt = members.keys.filter { !used.contains($0) && Self.edits(from: $0, to: key) <= 2 }.sorted()
        if let typo = misspelt.first { return fail(typo, "unknown key (did you mean '\(key)'?)") }
        return fail(key, "missing" + (detail.map { " (\($0))" } ?? ""))
    }

    /// The fewest insertions, deletions, substitutions and swaps of neighbours that turn `a`
    /// into `b` (optimal string alignment).
    static func edits(from a: String, to b: String) -> Int {
        let x = Array(a), y = Array(b)
        guard !x.isEmpty, !y.isEmpty else { return max(x.count, y.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { table[i][0] = i }
        for j in 0...y.count { table[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1) }
            }
        }
        return table[x.count][y.count]
    }

    /// Keys the object may hold that the reading skipped, asked for all the same, so that
    /// `finish()` suggests one for a misspelling of it (`clock_drift_pm` where none of the
    /// hardware keys is there, and the hardware reader reads none).
    func mayHold(_ keys: String...) {
        used.formUnion(keys)
    }

    func has(_ key: String) -> Bool {
        guard let value = members[key] else { return false }
        return value != .null
    }

    private func raw(_ key: String) -> JSONValue? {
        used.insert(key)
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    func string(_ key: String) throws -> String? {
        guard let value = raw(key) else { return nil }
        guard case .string(let string) = value else { throw fail(key, "expected a string, found \(value.typeName)") }
        return string
    }

    func number(_ key: String, in range: ClosedRange<Double>? = nil) throws -> Double? {
        guard let value = raw(key) else { return nil }
        guard case .number(let number) = value else { throw fail(key, "expected a number, found \(value.typeName)") }
        if let range, !range.contains(number) {
            throw fail(key, "\(Self.format(number)) is out of range \(Self.format(range.lowerBound))…\(Self.format(range.upperBound))")
        }
        return number
    }

    func integer(_ key: String, in range: ClosedRange<Int64>? = nil) throws -> Int64? {
        guard let number = try number(key) else { return nil }
        guard number == number.rounded() else { throw fail(key, "expected a whole number") }
        // A JSON number is a Double here: whole numbers beyond 2^53 are not exact any more.
        guard abs(number) < Self.exactWholeNumbers else { throw fail(key, "\(number) is too large (whole numbers up to 9e15 are read exactly)") }
        let value = Int64(number)
        if let range, !range.contains(value) {
            throw fail(key, "\(value) is out of range \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }

    /// Whole numbers under this are read exactly from a JSON number (a double; 2^53 ≈ 9.007e15).
    static let exactWholeNumbers = 9e15

    /// A seed: any UInt64, as a whole number below 9e15 (from there on a JSON number is not exact in a
    /// double, and the parser says to give it as a string) or as a string of decimal digits.
    func seed(_ key: String) throws -> UInt64? {
        guard let value = raw(key) else { return nil }
        if case .string(let digits) = value {
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let seed = UInt64(digits) else {
                throw fail(key, "\(JSONValue.string(digits).canonicalText(numbers: .exact).dropLast()) is not a seed (a whole number 0…\(UInt64.max), as a string past 9e15)")
            }
            return seed
        }
        guard case .number(let number) = value else { throw fail(key, "expected a whole number (or a string of digits), found \(value.typeName)") }
        if number >= Self.exactWholeNumbers, number == number.rounded() {
            throw fail(key, "\(Self.format(number)) is too large to be read exactly as a number: give a seed from 9e15 on as a string of digits")
        }
        guard number >= 0 else { throw fail(key, "\(Self.format(number)) is negative: a seed is a whole number 0…\(UInt64.max)") }
        return UInt64(try integer(key) ?? 0)
    }

    func bool(_ key: String) throws -> Bool? {
        guard let value = raw(key) else { return nil }
        guard case .bool(let bool) = value else { throw fail(key, "expected true or false, found \(value.typeName)") }
        return bool
    }

    func object(_ key: String) throws -> JSONObjectReader? {
        guard let value = raw(key) else { return nil }
        guard case .object(let members) = value else { throw fail(key, "expected an object, found \(value.typeName)") }
        return JSONObjectReader(members, file: file, path: keyPath(key))
    }

    func objects(_ key: String) throws -> [JSONObjectReader]? {
        guard let value = raw(key) else { return nil }
        guard case .array(let array) = value else { throw fail(key, "expected an array, found \(value.typeName)") }
        return try array.enumerated().map { index, element in
            guard case .object(let members) = element else { throw fail("\(key)[\(index)]", "expected an object, found \(element.typeName)") }
            return JSONObjectReader(members, file: file, path: keyPath("\(key)[\(index)]"))
        }
    }

    /// Accepts a value of any JSON type (for polymorphic keys); the caller interprets it.
    func any(_ key: String) -> JSONValue? { raw(key) }

    /// Throws on the first key (in sorted order, for stable messages) nobody read.
    func finish() throws {
        let unknown = members.keys.filter { !used.contains($0) }.sorted()
        guard let first = unknown.first else { return }
        // A key the reading asked for and was not given, two edits or fewer away (`level_dbf`,
        // `duraton_s`): the one meant, as `missing` names it for a required key.
        let meant = used.filter { members[$0] == nil && Self.edits(from: first, to: $0) <= 2 }
            .min { (Self.edits(from: first, to: $0), $0) < (Self.edits(from: first, to: $1), $1) }
        throw fail(first, "unknown key" + (meant.map { " (did you mean '\($0)'?)" } ?? "")
            + (unknown.count > 1 ? " (and \(unknown.count - 1) more: \(unknown.dropFirst().joined(separator: ", ")))" : ""))
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
