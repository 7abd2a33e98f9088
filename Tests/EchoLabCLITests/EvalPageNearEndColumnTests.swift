import EchoLabTestSupport
import Foundation
import XCTest

/// eval.html's near-end column holds double-talk attenuation only, as eval.md's does: a call with
/// no double talk has none there (its near-end single-talk figure measures something else, and
/// sorted among the double-talk figures as if it were one).
final class EvalPageNearEndColumnTests: XCTestCase {
    func testACallWithoutDoubleTalkHasNoFigureInTheNearEndColumn() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let scenarios = ["nearend-only", "speech-room-doubletalk"].map { packageRoot.appendingPathComponent("vectors/scenarios/\($0).json").path }
        let eval = try runEchoLab(["eval"] + scenarios + ["--modes", "speex:intensityRecommended", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        let json = try loadJSON(root.appendingPathComponent("out/eval.json").path)
        func nearEnd(_ item: String) throws -> [String: Any] {
            let items = try XCTUnwrap(json["items"] as? [[String: Any]])
            let entry = try XCTUnwrap(items.first { $0["name"] as? String == item })
            let result = try XCTUnwrap((entry["results"] as? [[String: Any]])?.first)
            return try XCTUnwrap((result["metrics"] as? [String: Any])?["near_end"] as? [String: Any], item)
        }
        let alone = try nearEnd("nearend-only"), doubleTalk = try nearEnd("speech-room-doubletalk")
        XCTAssertTrue(alone["attenuation_db"] is NSNull, "no double talk")
        let singleTalk = try XCTUnwrap(alone["single_talk_attenuation_db"] as? Double)
        let attenuation = try XCTUnwrap(doubleTalk["attenuation_db"] as? Double)
        let html = try String(contentsOf: root.appendingPathComponent("out/eval.html"), encoding: .utf8)
        // The "Every run" table's rows, cell texts without markup.
        func row(_ item: String) throws -> [String] {
            let rows = html.components(separatedBy: "<tr").filter { $0.contains(">\(item)<") && $0.contains("<td") }
            let last = try XCTUnwrap(rows.last, item)
            return last.components(separatedBy: "<td").dropFirst().map { cell in
                cell.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression)
                    .replacingOccurrences(of: "^[^>]*>", with: "", options: .regularExpression)
            }
        }
        func dB(_ value: Double) -> String { String(format: "%.1f dB", value) }
        let aloneRow = try row("nearend-only"), doubleTalkRow = try row("speech-room-doubletalk")
        XCTAssertFalse(aloneRow.contains { $0.contains(dB(singleTalk)) }, "\(aloneRow)")
        XCTAssertTrue(doubleTalkRow.contains { $0.contains(dB(attenuation)) }, "\(doubleTalkRow)")
    }
}
