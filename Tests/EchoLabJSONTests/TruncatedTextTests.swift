import EchoLabJSON
import XCTest

/// A file cut short — a copy that failed, a disk that filled, an artifact half uploaded — is said
/// to be cut short wherever the cut falls: after a comma, inside a key, a literal, a number or an
/// escape, never "expected a key" or "expected ':'" as if the text were wrong.
final class TruncatedTextTests: XCTestCase {
    func testEveryCutOfADocumentSaysTheFileEnds() throws {
        let text = #"{"schema": "echolab.eval/4", "runs": [{"erle_db": -12.5e+1, "ok": true, "lost": false, "#
            + #""reason": null, "name": "caf\u00e9 \ud83d\ude00 é", "frames": [0, 1.25, 3E2]}], "complete": true}"#
        let bytes = Array(text.utf8)
        XCTAssertNoThrow(try JSONValue.parse(bytes), "the whole text reads")
        for cut in 0..<bytes.count {
            do {
                _ = try JSONValue.parse(Array(bytes[..<cut]))
                XCTFail("the first \(cut) bytes read as JSON")
            } catch {
                XCTAssertTrue(error.problem.hasPrefix("the file ends"), "cut at \(cut) (…\(String(decoding: bytes[max(0, cut - 12)..<cut], as: UTF8.self))): \(error.problem)")
            }
        }
    }

    /// The reader of a few members (a previous run's report.json) says so too, from an empty file
    /// (a full disk) to a cut inside the byte-order mark.
    func testEveryCutOfAnObjectsMembersSaysTheFileEnds() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#" {"schema": "echolab.run/2", "taps": {"mic": "mic.wav"}, "n": [1, true]}"#.utf8)
        XCTAssertNoThrow(try JSONValue.parseMembers(["taps"], ofObjectIn: bytes))
        for cut in 0..<bytes.count {
            do {
                _ = try JSONValue.parseMembers(["taps"], ofObjectIn: Array(bytes[..<cut]))
                XCTFail("the first \(cut) bytes read as an object")
            } catch {
                XCTAssertTrue(error.problem.hasPrefix("the file ends"), "cut at \(cut): \(error.problem)")
            }
        }
    }

    /// Where the text goes on, the problem is still the one found.
    func testWrongTextBeforeTheEndIsStillNamed() {
        func problem(_ text: String) -> String? {
            do { _ = try JSONValue.parse(Array(text.utf8)); return nil } catch { return error.problem }
        }
        XCTAssertEqual(problem(#"{"a": 1, 2}"#), "expected a key in double quotes")
        XCTAssertEqual(problem(#"{"a" 1}"#), "expected ':' after the key 'a'")
        XCTAssertEqual(problem(#"{"a": tru }"#), "expected a value (true, false, null, a number, a string, an array or an object)")
        XCTAssertEqual(problem(#"{"a": 1.}"#), "expected digits after the decimal point")
        XCTAssertEqual(problem(#"{"a": -x}"#), "expected a digit")
        XCTAssertEqual(problem(#"{"a": "\ud83d x"}"#), "a lone UTF-16 surrogate in \\u escapes")
        XCTAssertEqual(problem(#""\ud83d""#), "a lone UTF-16 surrogate in \\u escapes", "a whole text, one byte after the escape")
    }
}
