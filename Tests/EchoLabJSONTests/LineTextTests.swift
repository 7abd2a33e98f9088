import EchoLabJSON
import XCTest

/// A JSON-lines record: one line, keys sorted, numbers exact, and it reads back as the value.
final class LineTextTests: XCTestCase {
    func testOneLineThatReadsBack() throws {
        let value = JSONValue.object(["b": .array([.number(0.1), .null, .bool(true)]), "a": .string("line\nbreak \"quoted\""),
                                      "c": .object(["z": .number(48_000), "y": .array([])])])
        let line = value.lineText()
        XCTAssertEqual(line, #"{"a":"line\nbreak \"quoted\"","b":[0.1,null,true],"c":{"y":[],"z":48000}}"#)
        XCTAssertFalse(line.contains("\n"))
        XCTAssertEqual(try JSONValue.parse(Array(line.utf8)), value)
        XCTAssertEqual(JSONValue.number(1.0 / 3).lineText(), "0.3333333333333333", "exact: a scorer gets the number itself")
    }

    /// Numbers as a plugin's options give them to it: in their shortest form, which reads back
    /// as the same number. `1e15` arrived as `1000000000000000.0`, `1e-7` as `1e-07`.
    func testNumbersInTheirShortestForm() throws {
        let cases: [(String, String)] = [("48.0", "48"), ("4.8e1", "48"), ("1e15", "1000000000000000"), ("9007199254740992", "9007199254740992"),
                                         ("1e-7", "1e-7"), ("-2.5E-10", "-2.5e-10"), ("12345678901234567e3", "1.2345678901234567e19"),
                                         ("1e300", "1e300")]
        for (written, shortest) in cases {
            let value = try JSONValue.parse(Array("[\(written)]".utf8))
            XCTAssertEqual(value.lineText(), "[\(shortest)]", written)
            XCTAssertEqual(try JSONValue.parse(Array(value.lineText().utf8)), value, written)
        }
    }

    /// An integer a double does not hold would reach a plugin (a seed, an id) as another one:
    /// refused in what people write.
    func testAnIntegerADoubleCannotHoldIsRefused() {
        for (written, readAs) in [("9007199254740993", "9007199254740992"), ("-12345678901234567", "-12345678901234568")] {
            XCTAssertThrowsError(try JSONValue.parse(Array("{\"seed\": \(written)}".utf8), exactIntegers: true), written) { error in
                XCTAssertTrue("\(error)".contains("the number \(written) is not exact in a double (an integer past 2^53 would read as \(readAs)"), "\(error)")
            }
        }
        // Integers a double holds, however large, read as written; a program's output (a
        // scorer's answer) is read as a double reads it.
        XCTAssertNoThrow(try JSONValue.parse(Array("[9007199254740994, 100000000000000000000, -9007199254740992]".utf8), exactIntegers: true))
        XCTAssertEqual(try JSONValue.parse(Array("[9007199254740993]".utf8)), .array([.number(0x1p53)]))
    }
}
