import Evaluation
import Foundation

/// `compare --junit`: the gate as JUnit XML, the format CI systems (GitHub Actions reporters,
/// GitLab, Jenkins) show as tests — one test case per item × mode, its regressions as its failure,
/// a run new in the current file or measured with another canceller library as skipped (listed,
/// not judged), and an interrupted current eval as a failed case of its own (the runs it did not
/// reach skipped).
public enum ComparisonJUnit {
    public static func render(_ comparison: EvalComparison, baselineName: String, currentName: String) -> String {
        let failing = Dictionary(grouping: comparison.regressions, by: \.run)
        let unjudged = Dictionary(grouping: comparison.notJudged, by: \.run)
        let added = Set(comparison.added), notRun = Set(comparison.notRun)
        let otherLibrary = Dictionary(comparison.libraryChanges.map { ($0.run, $0) }, uniquingKeysWith: { first, _ in first })
        var cases: [String] = []
        if comparison.baselineIsIncomplete {
            cases.append(testCase(className: "eval", name: "baseline complete",
                                  body: failure("the baseline is incomplete (an interrupted eval was blessed)", details: "\(baselineName) says \"complete\": false")))
        }
        if let shard = comparison.baselineShard {
            cases.append(testCase(className: "eval", name: "baseline whole",
                                  body: failure("the baseline is shard \(shard) of an eval (the other shards' runs are not in it)",
                                                details: "\(baselineName) says \"shard\": \"\(shard)\"")))
        }
        if comparison.currentIsIncomplete {
            cases.append(testCase(className: "eval", name: "complete",
                                  body: failure("the current eval is incomplete (interrupted)", details: "\(currentName) says \"complete\": false")))
        }
        // Counted as written: a run measured with another library is judged under
        // --judge-library-changes, and was counted skipped all the same.
        var skippedCount = 0
        for run in comparison.runs {
            let body: String
            if let regressions = failing[run] {
                let lines = regressions.map(line)
                body = failure("\(regressions.count) regression\(regressions.count == 1 ? "" : "s"): \(lines[0])", details: lines.joined(separator: "\n"))
            } else if added.contains(run) {
                body = skipped("not in the baseline: listed, not judged")
                skippedCount += 1
            } else if notRun.contains(run) {
                body = skipped("not run: the current eval was interrupted")
                skippedCount += 1
            } else if let change = otherLibrary[run], !comparison.judgesLibraryChanges {
                body = skipped("measured with another library (\(change.baselineText), now \(change.currentText)): listed, not judged")
                skippedCount += 1
            } else {
                body = ""
            }
            // Changes a lower bound leaves in an unknown direction: said, not failed.
            let notes = (unjudged[run] ?? []).map { "not judged (\($0.reasonText ?? "a lower bound")): " + line($0) }
            cases.append(testCase(className: run.item, name: run.mode,
                                  body: body + (notes.isEmpty ? "" : "      <system-out>\(escaped(notes.joined(separator: "\n")))</system-out>\n")))
        }
        let failures = failing.count + (comparison.currentIsIncomplete ? 1 : 0) + (comparison.baselineIsIncomplete ? 1 : 0) + (comparison.baselineShard != nil ? 1 : 0)
        let counts = "tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skippedCount)\""
        // Files of two EchoLab versions: said where a CI system that shows only this file shows it.
        let writersOut = comparison.writers.map { "    <system-out>\(escaped(ComparisonMarkdown.writersLine($0)))</system-out>\n" } ?? ""
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="echolab compare" \(counts)>
              <testsuite name="\(escaped("\(currentName) against \(baselineName)"))" \(counts)>
            \(cases.joined())\(writersOut)  </testsuite>
            </testsuites>

            """
    }

    /// One regression as a line: what, from, to, by how much.
    static func line(_ change: EvalComparison.Change) -> String {
        let delta = change.deltaText.map { " (\($0))" } ?? ""
        return "\(change.whatText): \(change.baselineText) → \(change.currentText)\(delta)"
    }

    static func testCase(className: String, name: String, body: String) -> String {
        let open = "    <testcase classname=\"\(escaped(className))\" name=\"\(escaped(name))\""
        return body.isEmpty ? open + "/>\n" : open + ">\n" + body + "    </testcase>\n"
    }

    /// A case listed, not judged; `message` says why (library names come from the files compared).
    static func skipped(_ message: String) -> String {
        "      <skipped message=\"\(escaped(message))\"/>\n"
    }

    static func failure(_ message: String, details: String) -> String {
        "      <failure type=\"regression\" message=\"\(escaped(message))\">\(escaped(details))</failure>\n"
    }

    /// Text as XML 1.0 takes it in attributes and elements: the five markup characters as
    /// entities, line breaks and tabs as character references (kept in attributes), and the
    /// control characters XML 1.0 cannot carry at all as U+FFFD (names come from the files
    /// compared).
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            case "\t": out += "&#9;"
            case "\r": out += "&#13;"
            case _ where scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value): out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
