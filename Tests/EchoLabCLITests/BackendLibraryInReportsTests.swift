import EchoLabTestSupport
import Foundation
import XCTest

/// Every run with a canceller names its library and version in eval.json and report.json, so a
/// baseline says what it measured; EchoLab's own canceller, which ships in the tool, is named by
/// the tool's version (it was named by nothing, as a run without a canceller is).
final class BackendLibraryInReportsTests: XCTestCase {
    func testEveryBackendNamesItsLibrary() throws {
        let folder = try temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let scenario = try writeScenario(delayScenario(aec: "disabled", seconds: 2), in: folder)
        let modes = ["disabled", "speex:intensityRecommended", "webrtc:intensityRecommended", "webrtc-mobile:intensityRecommended",
                     "aec3:intensityRecommended", "echolab:intensityRecommended"]
        let result = try runEchoLab(["eval", scenario, "--modes", modes.joined(separator: ","), "--out", "out", "--no-taps"], in: folder)
        XCTAssertEqual(result.status, 0, result.standardError)
        let eval = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("out/eval.json")))
                                     as? [String: Any])
        let items = try XCTUnwrap(eval["items"] as? [[String: Any]])
        let runs = try XCTUnwrap(items.first?["results"] as? [[String: Any]])
        XCTAssertEqual(runs.count, modes.count)
        var libraries: [String: String] = [:]
        for run in runs { libraries[try XCTUnwrap(run["mode"] as? String)] = run["library"] as? String }
        XCTAssertNil(libraries["disabled"], "no canceller ran")
        XCTAssertEqual(libraries["echolab:intensityRecommended"], "echolab 0.1.0")
        for (mode, prefix) in [("speex", "speexdsp "), ("webrtc", "webrtc-audio-processing "), ("webrtc-mobile", "webrtc-audio-processing "),
                               ("aec3", "tg_owt ")] {
            let library = try XCTUnwrap(libraries["\(mode):intensityRecommended"], mode)
            XCTAssertTrue(library.hasPrefix(prefix), "\(mode): \(library)")
        }
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(
            "out/delay40-disabled/echolab-intensityRecommended/report.json"))) as? [String: Any])
        XCTAssertEqual((report["aec"] as? [String: Any])?["library"] as? String, "echolab 0.1.0")
    }

    /// report.md's AEC line prints each numeric setting as report.json holds it: AEC3's
    /// masking_scale 0.5 and nearend_enr_threshold 0.125–0.5 read "0" at every intensity.
    func testReportMarkdownPrintsEachSettingAsReportJSONHoldsIt() throws {
        let folder = try temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let scenario = try writeScenario(delayScenario(aec: "disabled", seconds: 2), in: folder)
        let modes = ["aec3:intensityMin", "aec3:intensityRecommended", "aec3:intensityMax", "speex:intensityRecommended",
                     "echolab:intensityMax"]
        let result = try runEchoLab(["eval", scenario, "--modes", modes.joined(separator: ","), "--out", "out", "--no-taps"], in: folder)
        XCTAssertEqual(result.status, 0, result.standardError)
        var fractions = 0
        for mode in modes {
            let run = folder.appendingPathComponent("out/delay40-disabled/\(mode.replacingOccurrences(of: ":", with: "-"))")
            let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: run.appendingPathComponent("report.json")))
                                           as? [String: Any])
            let aec = try XCTUnwrap(report["aec"] as? [String: Any], mode)
            let markdown = try String(contentsOf: run.appendingPathComponent("report.md"), encoding: .utf8)
            let aecLine = try XCTUnwrap(markdown.split(separator: "\n").first { $0.contains(" · AEC ") }, mode)
            for (key, value) in aec {
                guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { continue }  // "c": a JSON bool
                let double = number.doubleValue
                let expected = double == double.rounded() ? String(Int(double)) : String(double)
                if double != double.rounded() { fractions += 1 }
                let written = "\(key.replacingOccurrences(of: "_", with: "\\_")) \(expected)"  // Markdown escapes "_"
                XCTAssertTrue(aecLine.contains(written), "\(mode): \(written) in \(aecLine)")
            }
        }
        XCTAssertGreaterThanOrEqual(fractions, 4, "AEC3's nearend_enr_threshold at each intensity and its masking_scale at Max")
    }
}
