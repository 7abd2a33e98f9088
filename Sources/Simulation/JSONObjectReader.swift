import Foundation

/// Reads one JSON object strictly: every key must be asked for by the code that reads it, so
/// `finish()` can name any key nobody asked for (a typo like `delay_msec` is an error, not a
/// silently ignored setting). Errors carry the file and the dotted key path.
final class JSONObjectReader {
    let file: String
    let path: String
    private let object: [String: Any]
    private var used = Set<String>()

    init(_ object: [String: Any], file: String, path: String = "") {
        self.object = object
        self.file = file
        self.path = path
    }

    static func parse(data: Data, file: String) throws -> JSONObjectReader {
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ScenarioError(file: file, key: nil, problem: "not valid JSON (\(Self.shortReason(error)))")
        }
        guard let object = value as? [String: Any] else {
            throw ScenarioError(file: file, key: nil, problem: "the top level must be a JSON object")
        }
        return JSONObjectReader(object, file: file)
    }

    private static func shortReason(_ error: Error) -> String {
        let text = "\((error as NSError).userInfo[NSDebugDescriptionErrorKey] ?? error.localizedDescription)"
        return text.split(separator: "\n").first.map(String.init) ?? text
    }

    func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func fail(_ key: String?, _ problem: String) -> ScenarioError {
        ScenarioError(file: file, key: key.map(keyPath), problem: problem)
    }

    func has(_ key: String) -> Bool { object[key] != nil && !(object[key] is NSNull) }

    private func raw(_ key: String) -> Any? {
        used.insert(key)
        guard let value = object[key], !(value is NSNull) else { return nil }
        return value
    }

    func string(_ key: String) throws -> String? {
        guard let value = raw(key) else { return nil }
        guard let string = value as? String else { throw fail(key, "expected a string") }
        return string
    }

    func number(_ key: String, in range: ClosedRange<Double>? = nil) throws -> Double? {
        guard let value = raw(key) else { return nil }
        guard !Self.isBoolean(value), let number = (value as? NSNumber)?.doubleValue, number.isFinite else {
            throw fail(key, "expected a number")
        }
        if let range, !range.contains(number) {
            throw fail(key, "\(Self.format(number)) is out of range \(Self.format(range.lowerBound))…\(Self.format(range.upperBound))")
        }
        return number
    }

    func integer(_ key: String, in range: ClosedRange<Int64>? = nil) throws -> Int64? {
        guard let number = try number(key) else { return nil }
        guard number == number.rounded(), abs(number) < 9e15 else { throw fail(key, "expected a whole number") }
        let value = Int64(number)
        if let range, !range.contains(value) {
            throw fail(key, "\(value) is out of range \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }

    func bool(_ key: String) throws -> Bool? {
        guard let value = raw(key) else { return nil }
        guard Self.isBoolean(value), let bool = value as? Bool else {
            throw fail(key, "expected true or false")
        }
        return bool
    }

    func object(_ key: String) throws -> JSONObjectReader? {
        guard let value = raw(key) else { return nil }
        guard let object = value as? [String: Any] else { throw fail(key, "expected an object") }
        return JSONObjectReader(object, file: file, path: keyPath(key))
    }

    func objects(_ key: String) throws -> [JSONObjectReader]? {
        guard let value = raw(key) else { return nil }
        guard let array = value as? [Any] else { throw fail(key, "expected an array") }
        return try array.enumerated().map { index, element in
            guard let object = element as? [String: Any] else { throw fail("\(key)[\(index)]", "expected an object") }
            return JSONObjectReader(object, file: file, path: keyPath("\(key)[\(index)]"))
        }
    }

    /// JSON `true`/`false`, not a number: on Linux Foundation bridges 0 and 1 to `Bool` too, so
    /// ask the NSNumber for its storage type (`c` is how booleans are stored).
    static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }

    /// Accepts a value of any JSON type (for polymorphic keys); the caller interprets it.
    func any(_ key: String) -> Any? { raw(key) }

    /// Throws on the first key (in sorted order, for stable messages) nobody read.
    func finish() throws {
        let unknown = object.keys.filter { !used.contains($0) }.sorted()
        if let first = unknown.first {
            throw fail(first, "unknown key" + (unknown.count > 1 ? " (and \(unknown.count - 1) more: \(unknown.dropFirst().joined(separator: ", ")))" : ""))
        }
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
