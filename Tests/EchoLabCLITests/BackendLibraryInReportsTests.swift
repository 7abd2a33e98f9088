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
}
