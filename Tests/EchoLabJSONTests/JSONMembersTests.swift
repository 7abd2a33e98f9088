import EchoLabJSON
import Foundation
import XCTest

/// `JSONValue.parseMembers(_:ofObjectIn:)` reads a few members of a large object (a re-run reads the
/// previous report.json's `schema` and `taps`): what it returns must be what `parse` builds, and
/// the members it skips must still be JSON.
final class JSONMembersTests: XCTestCase {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The error `read` throws, nil when it reads the text.
    private func refusal<Value>(_ read: () throws(JSONSyntaxError) -> Value) -> JSONSyntaxError? {
        do { _ = try read(); return nil } catch { return error }
    }

    func testKeptMembersEqualTheFullParse() throws {
        let text = #"{"series": [{"t": 0.5, "erle_db": null}, {"t": 1e3, "erle_db": -2.25}], "schema": "echolab.run/2", "#
            + #""taps": {"mic": "mic.wav", "sent": "s\u00e9nt.wav"}, "flags": [true, false], "nested": {"a": {"b": [[]]}}}"#
        let whole = try JSONValue.parse(bytes(text))
        let kept = try JSONValue.parseMembers(["schema", "taps", "absent"], ofObjectIn: bytes(text))
        XCTAssertEqual(kept.keys.sorted(), ["schema", "taps"])
        XCTAssertEqual(kept["schema"], whole["schema"])
        XCTAssertEqual(kept["taps"], whole["taps"])
        XCTAssertEqual(kept["taps"]?["sent"]?.stringValue, "sént.wav")
    }

    func testSkippedMembersAreStillChecked() {
        let broken = [
            #"{"schema": "x", "series": [1, 2,]}"#,              // a trailing comma in a skipped array
            #"{"series": {"a": 1, "a": 2}, "schema": "x"}"#,    // a duplicate key in a skipped object
            #"{"schema": "x", "schema": "y"}"#,                 // a duplicate key at the top
            #"{"series": 01, "schema": "x"}"#,                  // a leading zero
            #"{"series": "\q", "schema": "x"}"#,                // an unknown escape
            #"{"series": tru, "schema": "x"}"#,                 // a broken literal
            #"{"schema": "x"} trailing"#,                       // text after the object
            #"{"series": [1, 2"#,                               // the file ends inside
        ]
        for text in broken {
            let skipped = refusal { () throws(JSONSyntaxError) in try JSONValue.parseMembers(["schema"], ofObjectIn: bytes(text)) }
            XCTAssertNotNil(skipped, text)
            XCTAssertEqual(skipped, refusal { () throws(JSONSyntaxError) in try JSONValue.parse(bytes(text)) }, "parse refuses it with the same error: \(text)")
        }
        XCTAssertThrowsError(try JSONValue.parseMembers(["schema"], ofObjectIn: bytes(#"["schema", "x"]"#)), "not an object")
    }

    /// The object is level 1: 31 arrays inside it reach the bound, 32 pass it, whether the
    /// member is skipped or parsed.
    func testSkippingKeepsTheNestingBound() throws {
        func nested(_ levels: Int) -> [UInt8] {
            bytes(#"{"series": "# + String(repeating: "[", count: levels) + String(repeating: "]", count: levels) + #", "schema": "x"}"#)
        }
        let deepest = JSONValue.maximumDepth - 1
        XCTAssertEqual(try JSONValue.parseMembers(["schema"], ofObjectIn: nested(deepest))["schema"], .string("x"))
        XCTAssertNoThrow(try JSONValue.parse(nested(deepest)))
        let skipped = refusal { () throws(JSONSyntaxError) in try JSONValue.parseMembers(["schema"], ofObjectIn: nested(deepest + 1)) }
        XCTAssertEqual(skipped, refusal { () throws(JSONSyntaxError) in try JSONValue.parse(nested(deepest + 1)) }, "the same error, at the same place")
        XCTAssertEqual(skipped?.problem, "nested deeper than \(JSONValue.maximumDepth) levels")
    }

    func testASkippedNumberBeyondDoubleRangeIsNotConverted() throws {
        let text = #"{"series": 1e999, "schema": "x"}"#
        XCTAssertThrowsError(try JSONValue.parse(bytes(text)))
        XCTAssertEqual(try JSONValue.parseMembers(["schema"], ofObjectIn: bytes(text))["schema"], .string("x"))
        XCTAssertThrowsError(try JSONValue.parseMembers(["series"], ofObjectIn: bytes(text)), "a kept number is converted")
    }

    /// `objectKeys` tells what a broken file was meant to be: the keys of the top-level object
    /// read before whatever breaks the file.
    func testObjectKeysUpToTheFirstError() {
        let cases: [(String, [String])] = [
            (#"{"corpus": [], "description": "x"}"#, ["corpus", "description"]),
            (#"{"corpus": [], "corpus": []}"#, ["corpus", "corpus"]),              // repeated at the top: let through
            (#"{"description": "a", "description": "b", "corpus": []}"#, ["description", "description", "corpus"]),
            (#"{"corpus": ["#, ["corpus"]),                                       // the file ends in a value
            (#"{"corpus""#, ["corpus"]),                                          // … right after the key
            (#"{"corp"#, []),                                                     // … inside the key
            ("\u{FEFF} {\"corpus\": 1} trailing", ["corpus"]),                     // a byte-order mark; text after
            (#"{"name": "x", "nested": {"corpus": []}}"#, ["name", "nested"]),     // not the nested one
            (#"{"nested": {"a": 1, "a": 2}, "corpus": []}"#, ["nested"]),          // repeated inside a value: an error
            (#"{"name": x, "corpus": []}"#, ["name"]),                             // a syntax error before it
            (#"["corpus"]"#, []),
            (#""corpus""#, []),
            ("", []),
        ]
        for (text, keys) in cases { XCTAssertEqual(JSONValue.objectKeys(in: bytes(text)), keys, text) }
    }
}
