/// Decodes a `Decodable` value from a `JSONValue` (a report read from disk) through its
/// synthesized `Codable` conformance: the inverse of `JSONValueEncoder`, with no text between.
///
/// A number decodes as an integer only when it is whole and in range; a missing key and `null`
/// both decode as nil for an optional.
public struct JSONValueDecoder: Sendable {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try leaf(type, value, [])
    }
}

private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(jsonName(of: type)), found \(value.typeName)"))
}

/// What a report's reader expected, in JSON's words rather than Swift's.
private func jsonName(of type: Any.Type) -> String {
    switch type {
    case is Double.Type, is Float.Type: "a number"
    case is any BinaryInteger.Type: "a whole number"
    case is String.Type: "a string"
    case is Bool.Type: "true or false"
    case is [String: JSONValue].Type: "an object"
    case is [JSONValue].Type: "a list"
    default: "\(type)"
    }
}

/// Leaves are read here; anything else through its own `init(from:)`.
private func leaf<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> T {
    switch value {
    case .number(let number):
        if T.self == Double.self { return number as! T }
        if T.self == Float.self, let float = Float(exactly: number) ?? (abs(number) <= Double(Float.greatestFiniteMagnitude) ? Float(number) : nil) {
            return float as! T
        }
        if let integer = T.self as? any (BinaryInteger & Decodable).Type {
            guard let exact = integer.init(exactly: number) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(number) is not a whole number in \(T.self)'s range"))
            }
            return exact as! T
        }
    case .string(let string) where T.self == String.self: return string as! T
    case .bool(let bool) where T.self == Bool.self: return bool as! T
    default: break
    }
    if T.self == Double.self || T.self == Float.self || T.self == String.self || T.self == Bool.self
        || T.self is any BinaryInteger.Type {
        throw mismatch(T.self, value, path)
    }
    return try T(from: ValueDecoder(value: value, codingPath: path))
}

private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([JSONValue].self, value, codingPath) }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleContainer(value: value, codingPath: codingPath) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no key '\(key.stringValue)'"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { members[key.stringValue]?.isNull ?? true }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try leaf(type, member(key), codingPath + [key]) }
    // The primitive overloads are requirements of their own, with no default.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try leaf(type, member(key), codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try leaf(type, member(key), codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try leaf(type, member(key), codingPath + [key]) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try leaf(type, member(key), codingPath + [key]) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try leaf(type, member(key), codingPath + [key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try leaf(type, member(key), codingPath + [key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try leaf(type, member(key), codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try leaf(type, member(key), codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try leaf(type, member(key), codingPath + [key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try leaf(type, member(key), codingPath + [key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try leaf(type, member(key), codingPath + [key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try leaf(type, member(key), codingPath + [key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try leaf(type, member(key), codingPath + [key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try leaf(type, member(key), codingPath + [key]) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: members[SuperKey().stringValue] ?? .null, codingPath: codingPath + [SuperKey()])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> (JSONValue, [any CodingKey]) {
        let path = codingPath + [IndexKey(currentIndex)]
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: path, debugDescription: "the array has \(elements.count) elements"))
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { let (value, path) = try next(); return try leaf(type, value, path) }
    // The primitive overloads are requirements of their own, with no default.
    mutating func decode(_ type: Bool.Type) throws -> Bool { let (value, path) = try next(); return try leaf(type, value, path) }
    mutating func decode(_ type: String.Type) throws -> String { let (value, path) = try next(); return try leaf(type, value, path) }
    mutating func decode(_ type: Double.Type) throws -> Double { let (value, path) = try next(); return try leaf(type, value, path) }
    mutating func decode(_ type: Float.Type) throws -> Float { let (value, path) = try next(); return try leaf(type, value, path) }
    mutating func decode(_ type: Int.Type) throws -> Int { let (value, path) = try next(); return try leaf(type, value, path) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { let (value, path) = try next(); return try leaf(type, value, path) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { let (value, path) = try next(); return try leaf(type, value, path) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { let (value, path) = try next(); return try leaf(type, value, path) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let (value, path) = try next(); return try leaf(type, value, path) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { let (value, path) = try next(); return try leaf(type, value, path) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let (value, path) = try next(); return try leaf(type, value, path) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let (value, path) = try next(); return try leaf(type, value, path) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let (value, path) = try next(); return try leaf(type, value, path) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let (value, path) = try next(); return try leaf(type, value, path) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next()
        return try ValueDecoder(value: value, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next()
        return try ValueDecoder(value: value, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next()
        return ValueDecoder(value: value, codingPath: path)
    }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value.isNull }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try leaf(type, value, codingPath) }
    // The primitive overloads are requirements of their own, with no default.
    func decode(_ type: Bool.Type) throws -> Bool { try leaf(type, value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try leaf(type, value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try leaf(type, value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try leaf(type, value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try leaf(type, value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try leaf(type, value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try leaf(type, value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try leaf(type, value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try leaf(type, value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try leaf(type, value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try leaf(type, value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try leaf(type, value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try leaf(type, value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try leaf(type, value, codingPath) }
}

extension JSONValueDecoder {
    /// A decoding error in one line, its key path first (`segments[2].erle_db: expected a number,
    /// found a string`): Swift's own description of a `DecodingError` spans its context and
    /// coding path's internals.
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        func path(_ keys: [any CodingKey]) -> String {
            keys.reduce("") { text, key in
                if let index = key.intValue { return text + "[\(index)]" }
                return text.isEmpty ? key.stringValue : text + "." + key.stringValue
            }
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context), .keyNotFound(_, let context):
            let at = path(context.codingPath)
            return (at.isEmpty ? "" : at + ": ") + context.debugDescription
        @unknown default:
            return String(describing: error)
        }
    }
}
