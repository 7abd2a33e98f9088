/// Typed reads of a value, nil when it is of another kind: what readers of EchoLab's own
/// reports (compare, merge) use to walk them without a Codable model per schema version.
extension JSONValue {
    public var objectValue: [String: JSONValue]? {
        if case .object(let object) = self { return object }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }

    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value at a dotted path of object keys (`metrics.near_end.attenuation_db`).
    public func value(at path: String) -> JSONValue? {
        var current: JSONValue? = self
        for key in path.split(separator: ".") { current = current?[String(key)] }
        return current
    }
}
