import EchoLabTestSupport
import Foundation
import XCTest

/// compare.md's tables through the real binary: item names, modes and failure messages come from
/// the files compared (a hand-edited eval.json, another tool's), and a `|` or a line break in one
/// must stay inside its cell — unescaped, it split the cell or the row and shifted every column
/// after it.
final class CompareEscapingTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    /// A minimal eval.json of two items: `left|right`, which ran with `steady` dB of steady ERLE,
    /// and `broken|item`, which failed with `error` when given.
    /// `added`: the name of a third item, only in this file.
    private func eval(_ name: String, steady: Double, error: String?, added: String? = nil) throws -> String {
        func result(mode: String, folder: String, steady: Double, error: String?) -> [String: Any] {
            var result: [String: Any] = ["mode": mode, "folder": folder, "error": error ?? NSNull(), "pipeline": NSNull()]
            if error == nil { result["metrics"] = ["erle_steady_db": steady, "erle_db": steady - 2]; result["findings"] = [String]() }
            return result
        }
        var document: [String: Any] = [
            "schema": "echolab.eval/2", "complete": true, "planned": 2, "modes": ["speex:intensityMin"],
            "items": [
                ["index": 0, "name": "left|right", "file": "left.json",
                 "results": [result(mode: "speex:intensityMin", folder: "left/speex", steady: steady, error: nil)]],
                ["index": 1, "name": "broken|item", "file": "broken.json",
                 "results": [result(mode: "speex:intensityMin", folder: "broken/speex", steady: 20, error: error)]],
            ],
            "mode_summary": [["mode": "speex:intensityMin", "erle_steady_db": ["mean": steady, "median": steady, "p10": steady, "count": 1]]],
        ]
        if let added, var items = document["items"] as? [[String: Any]] {
            items.append(["index": 2, "name": added, "file": "added.json",
                          "results": [result(mode: "speex:intensityMin", folder: "added/speex", steady: steady, error: nil)]])
            document["items"] = items
        }
        try JSONSerialization.data(withJSONObject: document).write(to: root.appendingPathComponent(name))
        return name
    }

    /// The cells of a Markdown table row: split at every `|` not escaped by a backslash.
    private static func cells(_ row: Substring) -> Int {
        var count = 0, escaped = false
        for character in row {
            if character == "|", !escaped { count += 1 }
            escaped = character == "\\" && !escaped
        }
        return count - 1   // a row starts and ends with '|'
    }

    func testAPipeOrLineBreakInANameOrErrorStaysInItsCell() throws {
        let baseline = try eval("baseline.json", steady: 20, error: nil)
        let current = try eval("current.json", steady: 10, error: "bad value | here\nsecond line", added: "new*item_\nsecond line")
        let result = try runEchoLab(["compare", baseline, current, "--markdown", "compare.md"], in: root)
        XCTAssertEqual(result.status, 1, result.standardOutput + result.standardError)
        let markdown = try String(contentsOf: root.appendingPathComponent("compare.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("**3 regressions.**"), markdown)

        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try XCTUnwrap(lines.firstIndex(of: "## Regressions"), markdown)
        let table = lines[(start + 2)...].prefix { $0.hasPrefix("|") }
        // Header, rule, and one row per regression: steady and whole ERLE of `left|right`, the
        // failed run of `broken|item` (its message's line break is a space, not a new row).
        XCTAssertEqual(table.count, 5, markdown)
        for row in table { XCTAssertEqual(Self.cells(row), 6, "\(row)\n\n\(markdown)") }
        XCTAssertTrue(table.contains { $0.hasPrefix("| left\\|right | speex:intensityMin | erle_steady_db | 20.00 dB | 10.00 dB | -10.00 dB |") }, markdown)
        XCTAssertTrue(table.contains { $0 == "| broken\\|item | speex:intensityMin | run | ran | failed: bad value \\| here second line | — |" }, markdown)

        // A new run is a list item: its name's line break and Markdown characters stay text.
        let newRuns = try XCTUnwrap(lines.firstIndex(of: "## New runs (not in the baseline, not judged)"), markdown)
        XCTAssertEqual(lines[newRuns + 2], "- new\\*item\\_ second line × speex:intensityMin", markdown)
        XCTAssertEqual(lines[newRuns + 3], "", markdown)

        // The per-mode table goes through the same cells.
        let modes = try XCTUnwrap(lines.firstIndex(of: "## Mean steady-state ERLE per mode"), markdown)
        for row in lines[(modes + 2)...].prefix(while: { $0.hasPrefix("|") }) { XCTAssertEqual(Self.cells(row), 5, "\(row)") }
    }
}
