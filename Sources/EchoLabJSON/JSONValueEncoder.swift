/// Encodes an `Encodable` value straight into a `JSONValue`, keys from its `CodingKeys`: a type's
/// report JSON is its synthesized `Codable` conformance, written once, with no bytes in between.
///
/// Unlike `JSONEncoder`, a nil optional is written as `null` with its key kept
/// (`encodeIfPresent` writes null): a report shows every measure, and `null` where there was
/// nothing to measure, so a reader never confuses "not measured" with "not in this version".
/// Integers become numbers (Double, exact up to 2⁵³).
public struct JSONValueEncoder: Sendable {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let node = EncodingNode()
        try value.encode(to: ValueEncoder(node: node, codingPath: []))
        return node.value
    }
}

extension JSONValue {
    /// A value of a type whose `encode(to:)` is synthesized: it throws only what its encoder
    /// throws, and `JSONValueEncoder` throws nothing, so a throw here is a bug in the type.
    public init<T: Encodable>(encoding value: T) {
        do { self = try JSONValueEncoder().encode(value) } catch {
            preconditionFailure("\(T.self) threw while encoding to JSON: \(error)")
        }
    }
}

/// One value under construction. Containers hand out child nodes and read them back at the end,
/// because `Encoder` gives a nested container before its content is written. A child whose value
/// is encoded is folded into a plain `JSONValue` at once (`fold`), so a long array holds one node
/// per element, not a tree of them.
private final class EncodingNode {
    var single = JSONValue.null
    // Stored apart (not in an enum's payload) so that adding to them mutates in place.
    var members: [String: EncodingNode]?
    var elements: [EncodingNode]?

    var value: JSONValue {
        if let members { return .object(members.mapValues(\.value)) }
        if let elements { return .array(elements.map(\.value)) }
        return single
    }

    func member(_ key: String) -> EncodingNode {
        let child = EncodingNode()
        becomeObject()
        members![key] = child
        return child
    }

    func appended() -> EncodingNode {
        let child = EncodingNode()
        becomeArray()
        elements!.append(child)
        return child
    }

    func set(_ value: JSONValue) {
        members = nil
        elements = nil
        single = value
    }

    func fold() { if members != nil || elements != nil { set(value) } }

    func becomeObject() { if members == nil { elements = nil; members = [:] } }
    func becomeArray() { if elements == nil { members = nil; elements = [] } }
}

private struct ValueEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(node: node, codingPath: codingPath) }
}

private func leaf<T: Encodable>(_ value: T, into node: EncodingNode, codingPath: [any CodingKey]) throws {
    switch value {
    case let value as Double: node.set(.number(value))
    case let value as Float: node.set(.number(Double(value)))
    case let value as String: node.set(.string(value))
    case let value as Bool: node.set(.bool(value))
    case let value as any BinaryInteger: node.set(.number(Double(value)))
    default:
        try value.encode(to: ValueEncoder(node: node, codingPath: codingPath))
        node.fold()
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).set(.null) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try leaf(value, into: node.member(key.stringValue), codingPath: codingPath + [key])
    }

    // The primitive overloads are requirements of their own, with no default.
    mutating func encode(_ value: Bool, forKey key: Key) throws { try leaf(value, into: node.member(key.stringValue), codingPath: codingPath + [key]) }
    mutating func encode(_ value: String, forKey key: Key) throws { try leaf(value, into: node.member(key.stringValue), codingPath: codingPath + [key]) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try leaf(value, into: node.member(key.stringValue), codingPath: codingPath + [key]) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try leaf(value, into: node.member(key.stringValue), codingPath: codingPath + [key]) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try leaf(value, into: node.member(key.stringValue), codingPath: codingPath + [key]) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try leaf(value, into: node.member(key.stringValue), codingPath: codingPath + [key]) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try leaf(value, into: node.member(key.stringValue), codingPath: codingPath + [key]) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try leaf(value, into: node.member(key.stringValue), codingPath: codingPath + [key]) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try leaf(value, into: node.member(key.stringValue), codingPath: codingPath + [key]) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try leaf(value, into: node.member(key.stringValue), codingPath: codingPath + [key]) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try leaf(value, into: node.member(key.stringValue), codingPath: codingPath + [key]) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try leaf(value, into: node.member(key.stringValue), codingPath: codingPath + [key]) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try leaf(value, into: node.member(key.stringValue), codingPath: codingPath + [key]) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try leaf(value, into: node.member(key.stringValue), codingPath: codingPath + [key]) }

    // A nil optional keeps its key, as null (see `JSONValueEncoder`). The concrete overloads are
    // protocol requirements of their own: each must be written, or the default drops the key.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try write(value, key) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try write(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try write(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try write(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try write(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try write(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try write(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try write(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try write(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try write(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try write(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try write(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try write(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try write(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try write(value, key) }

    private mutating func write<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = node.member(key.stringValue)
        child.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.member(key.stringValue)
        child.becomeArray()
        return UnkeyedContainer(node: child, codingPath: codingPath + [key])
    }

    // Under the key "super", as `JSONEncoder` puts it (a type's own `CodingKeys` need not have it).
    mutating func superEncoder() -> any Encoder {
        ValueEncoder(node: node.member(SuperKey().stringValue), codingPath: codingPath + [SuperKey()])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

/// The key a superclass's values are encoded under.
struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { guard stringValue == "super" else { return nil } }
    init?(intValue: Int) { nil }
}

/// The position of an array element in a coding path.
struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "[\(intValue ?? 0)]" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    private(set) var count = 0

    init(node: EncodingNode, codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
        count = node.elements?.count ?? 0
    }

    private mutating func next() -> (EncodingNode, [any CodingKey]) {
        defer { count += 1 }
        return (node.appended(), codingPath + [IndexKey(count)])
    }

    mutating func encodeNil() throws { next().0.set(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let (child, path) = next()
        try leaf(value, into: child, codingPath: path)
    }

    // The primitive overloads are requirements of their own, with no default.
    mutating func encode(_ value: Bool) throws { let (child, path) = next(); try leaf(value, into: child, codingPath: path) }
    mutating func encode(_ value: String) throws { let (child, path) = next(); try leaf(value, into: child, codingPath: path) }
    mutating func encode(_ value: Double) throws { let (child, path) = next(); try leaf(value, into: child, codingPath: path) }
    mutating func encode(_ value: Float) throws { let (child, path) = next(); try leaf(value, into: child, codingPath: path) }
    mutating func encode(_ value: Int) throws { let (child, path) = next(); try leaf(value, into: child, codingPath: path) }
    mutating func encode(_ value: Int8) throws { let (child, path) = next(); try leaf(value, into: child, codingPath: path) }
    mutating func encode(_ value: Int16) throws { let (child, path) = next(); try leaf(value, into: child, codingPath: path) }
    mutating func encode(_ value: Int32) throws { let (child, path) = next(); try leaf(value, into: child, codingPath: path) }
    mutating func encode(_ value: Int64) throws { let (child, path) = next(); try leaf(value, into: child, codingPath: path) }
    mutating func encode(_ value: UInt) throws { let (child, path) = next(); try leaf(value, into: child, codingPath: path) }
    mutating func encode(_ value: UInt8) throws { let (child, path) = next(); try leaf(value, into: child, codingPath: path) }
    mutating func encode(_ value: UInt16) throws { let (child, path) = next(); try leaf(value, into: child, codingPath: path) }
    mutating func encode(_ value: UInt32) throws { let (child, path) = next(); try leaf(value, into: child, codingPath: path) }
    mutating func encode(_ value: UInt64) throws { let (child, path) = next(); try leaf(value, into: child, codingPath: path) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let (child, path) = next()
        child.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let (child, path) = next()
        child.becomeArray()
        return UnkeyedContainer(node: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let (child, path) = next()
        return ValueEncoder(node: child, codingPath: path)
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.set(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try leaf(value, into: node, codingPath: codingPath) }
    mutating func encode(_ value: Bool) throws { try leaf(value, into: node, codingPath: codingPath) }
    mutating func encode(_ value: String) throws { try leaf(value, into: node, codingPath: codingPath) }
    mutating func encode(_ value: Double) throws { try leaf(value, into: node, codingPath: codingPath) }
    mutating func encode(_ value: Float) throws { try leaf(value, into: node, codingPath: codingPath) }
    mutating func encode(_ value: Int) throws { try leaf(value, into: node, codingPath: codingPath) }
    mutating func encode(_ value: Int8) throws { try leaf(value, into: node, codingPath: codingPath) }
    mutating func encode(_ value: Int16) throws { try leaf(value, into: node, codingPath: codingPath) }
    mutating func encode(_ value: Int32) throws { try leaf(value, into: node, codingPath: codingPath) }
    mutating func encode(_ value: Int64) throws { try leaf(value, into: node, codingPath: codingPath) }
    mutating func encode(_ value: UInt) throws { try leaf(value, into: node, codingPath: codingPath) }
    mutating func encode(_ value: UInt8) throws { try leaf(value, into: node, codingPath: codingPath) }
    mutating func encode(_ value: UInt16) throws { try leaf(value, into: node, codingPath: codingPath) }
    mutating func encode(_ value: UInt32) throws { try leaf(value, into: node, codingPath: codingPath) }
    mutating func encode(_ value: UInt64) throws { try leaf(value, into: node, codingPath: codingPath) }
}
