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
}
