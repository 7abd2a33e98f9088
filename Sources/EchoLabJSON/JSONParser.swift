import AudioCore
import Foundation

/// A strict JSON reader for files people write (scenarios, manifests): RFC 8259 exactly, and
/// more careful than `JSONSerialization`, which keeps the last of two equal keys without a word,
/// bridges `0`/`1` to booleans, and has no bound on nesting. Here a duplicate key, nesting deeper
/// than `maximumDepth`, a text larger than `maximumBytes` and every syntax error are
/// `JSONSyntaxError`s with the line and column.
extension JSONValue {
    /// Deeper than any scenario needs (a timeline event's device options are 4 levels down), far
    /// below what the recursive parser's stack could take.
    public static let maximumDepth = 32
    /// A scenario is a few kilobytes; a larger file is a mistake (a WAV named .json, a log).
    public static let maximumBytes = 4 << 20

    /// - Parameter limit: the largest text read (EchoLab's own reports of big corpora pass more).
    /// - Parameter exactIntegers: refuse an integer past 2^53 that a double does not hold (it
    ///   would read as another integer): for what people write (scenarios, manifests, a plugin's
    ///   options), whose numbers are passed on as written; a program's output keeps its reading.
    public static func parse(_ bytes: [UInt8], maximumBytes limit: Int = maximumBytes,
                             exactIntegers: Bool = false) throws(JSONSyntaxError) -> JSONValue {
        try reading(bytes, limit, exactIntegers: exactIntegers) { (parser: inout Parser) throws(JSONSyntaxError) in try parser.value(depth: 0) }
    }

    /// The members named `keys` of the object that `bytes` holds. The others are checked against
    /// the grammar (the errors of `parse`, except that a number beyond Double's range passes) and
    /// skipped: their numbers are not converted and no tree is built of them. For a few fields of a
    /// large file, such as the previous run's report.json (1.5 MB of series after an hour-long call).
    public static func parseMembers(_ keys: Set<String>, ofObjectIn bytes: [UInt8],
                                    maximumBytes limit: Int = maximumBytes) throws(JSONSyntaxError) -> [String: JSONValue] {
        try reading(bytes, limit) { (parser: inout Parser) throws(JSONSyntaxError) in
            guard parser.peek == UInt8(ascii: "{") else {
                throw parser.error(parser.atEnd ? "the file ends where a value should be" : "expected an object")
            }
            var found: [String: JSONValue] = [:], seen = Set<String>()
            try parser.walkObject(depth: 1, isNew: { seen.insert($0).inserted }) { (parser: inout Parser, key: String) throws(JSONSyntaxError) in
                if keys.contains(key) { found[key] = try parser.value(depth: 1) } else { try parser.skipValue(depth: 1) }
            }
            return found
        }
    }

    /// The keys of the object that `bytes` holds, in their order, as far as a reader gets: up
    /// to a syntax error or the end (a key counts once read, whatever follows it). Repeated keys
    /// of that object are let through (inside a member's value, one is an error like any other).
    /// Empty when `bytes` holds no object. For telling what kind of file a broken one was meant
    /// to be (a manifest with a repeated key is a broken manifest, reported as one, not a scenario).
    public static func objectKeys(in bytes: [UInt8], maximumBytes limit: Int = maximumBytes) -> [String] {
        guard bytes.count <= limit else { return [] }
        var parser = Parser(bytes: bytes)
        parser.skipByteOrderMark()
        parser.skipWhitespace()
        guard parser.peek == UInt8(ascii: "{") else { return [] }
        var keys: [String] = []
        // `walkObject` stops at the first error; the keys read before it count.
        try? parser.walkObject(depth: 1, isNew: { keys.append($0); return true }) { (parser: inout Parser, _: String) throws(JSONSyntaxError) in
            try parser.skipValue(depth: 1)
        }
        return keys
    }

    /// Reads the one value of `bytes` with `read`: the size limit, a byte-order mark, whitespace
    /// around the value and nothing after it are checked here.
    private static func reading<Value>(_ bytes: [UInt8], _ limit: Int, exactIntegers: Bool = false,
                                       _ read: (inout Parser) throws(JSONSyntaxError) -> Value) throws(JSONSyntaxError) -> Value {
        guard bytes.count <= limit else {
            throw JSONSyntaxError(line: 1, column: 1, problem: "the text is \(bytes.count) bytes; at most \(limit >> 20) MiB are read")
        }
        var parser = Parser(bytes: bytes)
        parser.exactIntegers = exactIntegers
        parser.skipByteOrderMark()
        parser.skipWhitespace()
        let value = try read(&parser)
        parser.skipWhitespace()
        guard parser.atEnd else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    /// What a value is, for messages ("expected a number, found a string").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Why a text is not JSON, with the position (lines and columns from 1).
public struct JSONSyntaxError: LocalizedError, CustomStringConvertible, Equatable {
    public let line: Int
    public let column: Int
    public let problem: String
    public var description: String { "line \(line), column \(column): \(problem)" }
}

private struct Parser {
    let bytes: [UInt8]
    var index = 0
    var exactIntegers = false

    init(bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// The error at the current position.
    func error(_ problem: String, at position: Int? = nil) -> JSONSyntaxError {
        let end = min(position ?? index, bytes.count)
        var line = 1, lineStart = 0
        for i in 0..<end where bytes[i] == UInt8(ascii: "\n") {
            line += 1
            lineStart = i + 1
        }
        // Columns count characters, not bytes (UTF-8 continuation bytes are not new characters).
        let column = 1 + bytes[lineStart..<end].filter { $0 & 0xC0 != 0x80 }.count
        return JSONSyntaxError(line: line, column: column, problem: problem)
    }

    /// "expected …" where the text goes on, "the file ends inside …" where it stops there: a
    /// file cut short (a copy that failed, a disk that filled) is said to be cut short wherever
    /// the cut falls.
    func expected(_ what: String, inside: String) -> JSONSyntaxError {
        error(atEnd ? "the file ends inside \(inside)" : "expected \(what)")
    }

    mutating func skipByteOrderMark() {
        // A text cut inside its byte-order mark holds nothing after it.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) || (bytes.count < 3 && [0xEF, 0xBB, 0xBF].starts(with: bytes)) { index = min(3, bytes.count) }
    }

    mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard let byte = peek else { throw error("the file ends where a value should be") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("expected a value, found \(describe(byte))")
        }
    }

    private func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(UnicodeScalar(byte)))'" : String(format: "byte 0x%02X", byte)
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<(index + expected.count)]) == expected else {
            if bytes[index...].elementsEqual(expected.prefix(bytes.count - index)) { throw error("the file ends inside '\(word)'") }
            throw error("expected a value (true, false, null, a number, a string, an array or an object)")
        }
        index += expected.count
    }

    private mutating func nested(_ depth: Int) throws(JSONSyntaxError) {
        if depth > JSONValue.maximumDepth {
            throw error("nested deeper than \(JSONValue.maximumDepth) levels")
        }
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        var members: [String: JSONValue] = [:]
        try walkObject(depth: depth, isNew: { members[$0] == nil }) { (parser: inout Parser, key: String) throws(JSONSyntaxError) in
            members[key] = try parser.value(depth: depth)
        }
        return .object(members)
    }

    /// Walks the object at `index` (its '{'), checking its syntax and depth, and calls `member`
    /// at each value to read it. `isNew` says whether a key was not given before in this object
    /// (the caller keeps the keys: `object` has them in its dictionary already).
    fileprivate mutating func walkObject(depth: Int, isNew: (String) -> Bool,
                                         forEachMember member: (inout Parser, String) throws(JSONSyntaxError) -> Void) throws(JSONSyntaxError) {
        try nested(depth)
        index += 1
        skipWhitespace()
        if peek == UInt8(ascii: "}") { index += 1; return }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw expected("a key in double quotes", inside: "an object") }
            let keyStart = index
            let key = try string()
            guard isNew(key) else {
                throw error("duplicate key '\(key)' (JSON readers disagree on which one wins; give it once)", at: keyStart)
            }
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw expected("':' after the key '\(key)'", inside: "an object") }
            index += 1
            skipWhitespace()
            try member(&self, key)
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return
            case nil: throw error("the file ends inside an object")
            default: throw error("expected ',' or '}' after a member")
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        var elements: [JSONValue] = []
        try walkArray(depth: depth) { (parser: inout Parser) throws(JSONSyntaxError) in
            elements.append(try parser.value(depth: depth))
        }
        return .array(elements)
    }

    /// Walks the array at `index` (its '['), checking its syntax and depth, and calls `element`
    /// at each value to read it.
    fileprivate mutating func walkArray(depth: Int, forEachElement element: (inout Parser) throws(JSONSyntaxError) -> Void) throws(JSONSyntaxError) {
        try nested(depth)
        index += 1
        skipWhitespace()
        if peek == UInt8(ascii: "]") { index += 1; return }
        while true {
            skipWhitespace()
            try element(&self)
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return
            case nil: throw error("the file ends inside an array")
            default: throw error("expected ',' or ']' after an element")
            }
        }
    }

    /// Checks the value at `index` as `value(depth:)` does, except the range of its numbers (they
    /// are not converted), and moves past it; its strings are read (and dropped), no tree is built.
    fileprivate mutating func skipValue(depth: Int) throws(JSONSyntaxError) {
        guard let byte = peek else { throw error("the file ends where a value should be") }
        switch byte {
        case UInt8(ascii: "{"):
            var seen = Set<String>()
            try walkObject(depth: depth + 1, isNew: { seen.insert($0).inserted }) { (parser: inout Parser, _: String) throws(JSONSyntaxError) in
                try parser.skipValue(depth: depth + 1)
            }
        case UInt8(ascii: "["):
            try walkArray(depth: depth + 1) { (parser: inout Parser) throws(JSONSyntaxError) in try parser.skipValue(depth: depth + 1) }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try scanNumber()
        default: _ = try value(depth: depth)   // a string or a literal
        }
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        let start = index
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flushRun() throws(JSONSyntaxError) {
            guard runStart < index else { return }
            guard let text = String(validating: bytes[runStart..<index], as: UTF8.self) else {
                throw error("invalid UTF-8 in a string", at: runStart)
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard let byte = peek else { throw error("the file ends inside a string", at: start) }
            switch byte {
            case UInt8(ascii: "\""):
                try flushRun()
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flushRun()
                index += 1
                scalars.append(try escape())
                runStart = index
            case 0..<0x20:
                throw error("control character in a string (escape it)")
            default:
                index += 1
            }
        }
    }

    private mutating func escape() throws(JSONSyntaxError) -> Unicode.Scalar {
        guard let byte = peek else { throw error("the file ends inside a string") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try hexQuad()
            if (0xD800..<0xDC00).contains(first) {
                guard peek == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    if peek == nil || (peek == UInt8(ascii: "\\") && index + 1 == bytes.count) { throw error("the file ends inside a string") }
                    throw error("a lone UTF-16 surrogate in \\u escapes")
                }
                index += 2
                let second = try hexQuad()
                guard (0xDC00..<0xE000).contains(second) else { throw error("a lone UTF-16 surrogate in \\u escapes") }
                return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(first) else { throw error("a lone UTF-16 surrogate in \\u escapes") }
            return scalar
        default:
            throw error("unknown escape '\\\(Character(UnicodeScalar(byte)))'", at: index - 2)
        }
    }

    private mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("the file ends inside a \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("expected four hex digits after \\u")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// RFC 8259 number grammar; the text is converted by the standard library (correctly rounded).
    private mutating func number() throws(JSONSyntaxError) -> Double {
        let start = index
        try scanNumber()
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw error("the number \(text.prefix(40)) is out of range", at: start)
        }
        // 1e-400 would read as 0 and be reported as 0 by whoever checks its range. Beyond
        // Double's range too, at the other end (`parseMembers` lets both pass where it skips).
        if value == 0, text.prefix(while: { $0 != "e" && $0 != "E" }).contains(where: { ("1"..."9").contains($0) }) {
            throw error("the number \(text.prefix(40)) is out of range (too small: it rounds to 0)", at: start)
        }
        // An integer past 2^53 that a double does not hold would be read, and passed on (to a
        // plugin's options, a seed), as another integer.
        if exactIntegers, abs(value) >= 0x1p53, !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }),
           FixedDecimal.text(abs(value), fractionDigits: 0) != text.drop(while: { $0 == "-" }) {
            throw error("the number \(text.prefix(40)) is not exact in a double (an integer past 2^53 would read as \(FixedDecimal.text(value, fractionDigits: 0)): give it as a string)", at: start)
        }
        return value
    }

    /// Moves past the number at `index`, checking its grammar.
    private mutating func scanNumber() throws(JSONSyntaxError) {
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw expected("a digit", inside: "a number")
        }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) {
                throw error("a number cannot start with 0 followed by digits")
            }
        } else {
            skipDigits()
        }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard skipDigits() > 0 else { throw expected("digits after the decimal point", inside: "a number") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { throw expected("digits in the exponent", inside: "a number") }
        }
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = index
        while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index - start
    }
}

extension JSONSyntaxError {
    /// `localizedDescription` gives the message too (EchoLabJSON stands alone: no `DescribedError`).
    public var errorDescription: String? { description }
}
