import AudioCore
import EchoLabJSON
import XCTest

/// `JSONValueEncoder` and `JSONValueDecoder`: a type's synthesized `Codable` conformance to and
/// from `JSONValue`, with nil kept as null; and `roundedAsPrinted`, the value a report file's reader gets.
final class JSONValueCodingTests: XCTestCase {
    struct Inner: Codable, Equatable {
        var level: Double?
        var count: Int
    }

    struct Outer: Codable, Equatable {
        enum Kind: String, Codable { case near, far }
        var name: String
        var flag: Bool
        var kind: Kind
        var inner: Inner
        var maybe: Inner?
        var list: [Inner]
        var nested: [[Int]]
        var table: [String: Double]
        var small: UInt8

        enum CodingKeys: String, CodingKey {
            case name, flag, kind, inner, maybe = "maybe_inner", list, nested, table, small
        }
    }

    static let value = Outer(name: "a \"quoted\" name", flag: true, kind: .far, inner: Inner(level: nil, count: 3), maybe: nil,
                             list: [Inner(level: -1.5, count: 0), Inner(level: nil, count: -7)], nested: [[], [1, 2]],
                             table: ["x": 0.25], small: 200)

    func testEncodesKeysAndKeepsNilAsNull() throws {
        XCTAssertEqual(try JSONValueEncoder().encode(Self.value), .object([
            "name": .string("a \"quoted\" name"), "flag": .bool(true), "kind": .string("far"),
            "inner": .object(["level": .null, "count": .number(3)]),
            "maybe_inner": .null,
            "list": .array([.object(["level": .number(-1.5), "count": .number(0)]), .object(["level": .null, "count": .number(-7)])]),
            "nested": .array([.array([]), .array([.number(1), .number(2)])]),
            "table": .object(["x": .number(0.25)]),
            "small": .number(200),
        ]))
    }

    func testDecodesWhatItEncodes() throws {
        let json = try JSONValueEncoder().encode(Self.value)
        XCTAssertEqual(try JSONValueDecoder().decode(Outer.self, from: json), Self.value)
        var withInner = Self.value
        withInner.maybe = Inner(level: 2, count: 1)
        XCTAssertEqual(try JSONValueDecoder().decode(Outer.self, from: try JSONValueEncoder().encode(withInner)), withInner)
    }

    func testAMissingOptionalKeyDecodesAsNil() throws {
        let json = JSONValue.object(["count": .number(4)])
        XCTAssertEqual(try JSONValueDecoder().decode(Inner.self, from: json), Inner(level: nil, count: 4))
    }

    func testDecodingErrorsNameThePathAndTheProblem() {
        func failure(_ json: JSONValue) -> String {
            do {
                _ = try JSONValueDecoder().decode(Inner.self, from: json)
                return "decoded"
            } catch let DecodingError.typeMismatch(_, context), let DecodingError.dataCorrupted(context),
                    let DecodingError.keyNotFound(_, context) {
                return context.codingPath.map(\.stringValue).joined(separator: ".") + ": " + context.debugDescription
            } catch {
                return "\(error)"
            }
        }
        XCTAssertEqual(failure(.object(["count": .number(1.5)])), "count: 1.5 is not a whole number in Int's range")
        XCTAssertEqual(failure(.object(["count": .string("3")])), "count: expected a whole number, found a string")
        XCTAssertEqual(failure(.object(["level": .number(1)])), ": no key 'count'")
        XCTAssertEqual(failure(.array([])), ": expected an object, found an array")
        XCTAssertEqual(failure(.object(["count": .number(300), "level": .bool(true)])), "level: expected a number, found a boolean")
    }

    /// In one line, its key path first: what `merge` says of a shard's report it cannot read
    /// (it printed Swift's whole `DecodingError`, context and coding-path internals).
    func testADecodingErrorIsDescribedInOneLine() {
        let inner: JSONValue = .object(["count": .number(1)])
        let broken: JSONValue = .object(["name": .string("a"), "flag": .bool(true), "kind": .string("near"), "inner": inner,
                                         "list": .array([inner, .object(["count": .string("x")])])])
        XCTAssertThrowsError(try JSONValueDecoder().decode(Outer.self, from: broken)) { error in
            XCTAssertEqual(JSONValueDecoder.describe(error), "list[1].count: expected a whole number, found a string")
        }
        XCTAssertThrowsError(try JSONValueDecoder().decode(Outer.self, from: .object(["name": .string("a")]))) { error in
            XCTAssertEqual(JSONValueDecoder.describe(error), "no key 'flag'")
        }
    }

    /// `roundedAsPrinted` must be exactly what parsing the canonical text gives, for every number: it
    /// stands in for that round trip in eval's statistics.
    func testRoundedAsPrintedIsWhatTheCanonicalTextReadsAs() throws {
        var random = SeededRandom(seed: 23)
        func next() -> UInt64 { random.next() }
        var values: [Double] = [0, -0.0, 0.00005, -0.00005, 0.00004999, 12.34565, -12.34565, 1e9 - 0.00005, 1e9, 123_456_789_012.345_67,
                                9.9e14, 1e15, 1.5e15, 1e300, -1e300, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
                                .nan, .infinity, -.infinity]
        for _ in 0..<20_000 {
            values.append(Double(bitPattern: next()))                                       // any bit pattern
            values.append(Double(Int64(bitPattern: next()) >> 20) / 65_536)                 // report-sized values
            values.append((Double(next() % 2_000_000_001) - 1_000_000_000) / 100_000)       // near the fourth decimal
        }
        for value in values {
            let printed = JSONValue.array([.number(value)]).canonicalText()
            let parsed = try JSONValue.parse(Array(printed.utf8), maximumBytes: .max)
            let rounded = JSONValue.array([.number(value)]).roundedAsPrinted()
            if rounded != parsed {
                XCTFail("\(value) (\(value.bitPattern)): rounded to \(rounded), printed \(printed)")
                return
            }
        }
    }

    /// A number printed, read back and printed again keeps its text, and rounding a rounded value
    /// changes nothing: eval.json prints its runs' values, already rounded as their report.json
    /// prints them, and its statistics are over those values. With four decimals everywhere,
    /// 359659055947.43677 printed as …4368 and, read back and printed again, as …4369.
    func testPrintingAPrintedNumberKeepsItsText() throws {
        var random = SeededRandom(seed: 29)
        var values: [Double] = [359_659_055_947.436_77, 99_999_999_999.999_96, 1e11, 1e14 + 0.5, 1e15 + 0.125, 123_456_789_012.345_67,
                                999_999_999_999_999.5, -999_999_999_999_999.5, 4_216_952_110_923_484]
        for _ in 0..<50_000 {
            let decade = Double(random.next() % 17)
            values.append((random.nextSignedFloat() > 0 ? 1 : -1) * pow(10, decade) * (1 + Double(random.next() % 1_000_000_007) / 1e9))
        }
        for value in values {
            let once = JSONValue.array([.number(value)]).roundedAsPrinted()
            let text = once.canonicalText()
            let again = try JSONValue.parse(Array(text.utf8), maximumBytes: .max)
            if once.roundedAsPrinted() != once || again.canonicalText() != text || again != once {
                XCTFail("\(value): printed \(text), then \(again.canonicalText()); rounded \(once), then \(once.roundedAsPrinted())")
                return
            }
        }
        // Four decimals up to 10¹¹, as before; fewer past it, as many as a double holds.
        XCTAssertEqual(JSONValue.array([.number(12_345_678_901.234_56)]).canonicalText().filter { !$0.isWhitespace }, "[12345678901.2346]")
        XCTAssertEqual(JSONValue.array([.number(359_659_055_947.436_77)]).canonicalText().filter { !$0.isWhitespace }, "[359659055947.437]")
        // Rounded whole at no decimals just under 10¹⁵; from 10¹⁵ a whole number as it is.
        XCTAssertEqual(JSONValue.array([.number(999_999_999_999_999.5)]).canonicalText().filter { !$0.isWhitespace }, "[1000000000000000]")
        XCTAssertEqual(JSONValue.array([.number(-999_999_999_999_999.5)]).canonicalText().filter { !$0.isWhitespace }, "[-1000000000000000]")
        XCTAssertEqual(JSONValue.array([.number(4_216_952_110_923_484)]).canonicalText().filter { !$0.isWhitespace }, "[4216952110923484]")
    }

    func testDepthCountsContainers() {
        XCTAssertEqual(JSONValue.number(1).depth, 0)
        XCTAssertEqual(JSONValue.array([]).depth, 1)
        XCTAssertEqual(JSONValue.object(["a": .array([.number(1)]), "b": .null]).depth, 2)
    }

    /// Containers a hand-written `encode(to:)` asks for: nested keyed and unkeyed ones, and the
    /// superclass's encoder under "super".
    final class Written: Encodable, Decodable, Equatable {
        var point = (x: 1.0, y: -2.0)
        var tags = ["a", "b"]
        enum Keys: String, CodingKey { case point, tags, x, y }
        init() {}
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var point = container.nestedContainer(keyedBy: Keys.self, forKey: .point)
            try point.encode(self.point.x, forKey: .x)
            try point.encode(self.point.y, forKey: .y)
            var tags = container.nestedUnkeyedContainer(forKey: .tags)
            for tag in self.tags { try tags.encode(tag) }
            var parent = container.superEncoder().singleValueContainer()
            try parent.encode(7)
        }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            let point = try container.nestedContainer(keyedBy: Keys.self, forKey: .point)
            self.point = (try point.decode(Double.self, forKey: .x), try point.decode(Double.self, forKey: .y))
            var tags = try container.nestedUnkeyedContainer(forKey: .tags)
            self.tags = []
            while !tags.isAtEnd { self.tags.append(try tags.decode(String.self)) }
            XCTAssertEqual(try container.superDecoder().singleValueContainer().decode(Int.self), 7)
        }
        static func == (a: Written, b: Written) -> Bool { a.point == b.point && a.tags == b.tags }
    }

    func testNestedAndSuperContainers() throws {
        let json = try JSONValueEncoder().encode(Written())
        XCTAssertEqual(json, .object(["point": .object(["x": .number(1), "y": .number(-2)]),
                                      "tags": .array([.string("a"), .string("b")]), "super": .number(7)]))
        XCTAssertEqual(try JSONValueDecoder().decode(Written.self, from: json), Written())
    }
}
