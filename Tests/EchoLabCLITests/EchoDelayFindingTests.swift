import EchoLabTestSupport
import Foundation
import XCTest

/// An echo later than the canceller's filter reaches is a lint finding, with the delay, the
/// backend's reach and the ERLE that is left; a delay within reach is none. Past the delay
/// estimator's search (500 ms) the scenario's own echo path delay stands in.
final class EchoDelayFindingTests: XCTestCase {
    private func findings(delayMilliseconds: Int, aec: String, in root: URL) throws -> (report: [String: Any], rules: [String]) {
        let name = "d\(delayMilliseconds)"
        let scenario = try writeScenario("""
            {"name": "\(name)", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "noise": {"level_dbfs": -65, "seed": 2}, "echo_path": {"delay_ms": \(delayMilliseconds), "gain_db": -10}, "duration_s": 6}
            """, named: "\(name).json", in: root)
        let folder = "\(name)-\(aec.replacingOccurrences(of: ":", with: "-"))"
        let run = try runEchoLab(["run", scenario, "--aec", aec, "--no-taps", "--out", folder], in: root)
        XCTAssertEqual(run.status, 0, run.standardError)
        let report = try loadJSON(root.appendingPathComponent("\(folder)/report.json").path)
        // The lint's findings (an echo-loss requirement the run misses is judged elsewhere).
        return (report, (report["findings"] as! [[String: Any]]).filter { $0["kind"] as? String == "lint" }.map { $0["rule"] as! String })
    }

    func testAnEchoBeyondTheFilterIsAFindingAndOneWithinReachIsNot() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        // 150 ms: within speex's 200 ms filter, beyond WebRTC's AEC (130 ms), within AECM's 400 ms.
        XCTAssertEqual(try findings(delayMilliseconds: 150, aec: "speex:intensityRecommended", in: root).rules, [])
        XCTAssertEqual(try findings(delayMilliseconds: 150, aec: "webrtc-mobile:intensityRecommended", in: root).rules, [])
        let webrtc = try findings(delayMilliseconds: 150, aec: "webrtc:intensityRecommended", in: root)
        XCTAssertEqual(webrtc.rules, ["echo-delay-beyond-filter"])
        let finding = (webrtc.report["findings"] as! [[String: Any]])[0]
        // The default speaker: the engine feeds the reference itself, so the advice names the
        // backends that reach the delay (docs/reports.md's reach table), not an app-fed reference.
        XCTAssertEqual(finding["message"] as? String, "the echo arrives 150.0 ms after the reference, beyond the 130.0 ms webrtc reaches: "
                       + "the engine feeds the reference itself as the default speaker plays, so the delay is the output's and the room's: "
                       + "use a backend that reaches further (speex reaches 190.0 ms, webrtc-mobile reaches 400.0 ms, aec3 reaches 500.0 ms, "
                       + "echolab reaches 500.0 ms)")
        XCTAssertEqual(finding["at_s"] as? Double, 0)
        XCTAssertEqual(finding["until_s"] as? Double, 6)
        let consequence = finding["consequence"] as! [String: Any]
        XCTAssertEqual(consequence["metric"] as? String, "erle_db")
        // The ERLE over the stretch is the whole call's: what is left of the echo's removal.
        let erle = try XCTUnwrap(consequence["value_db"] as? Double)
        XCTAssertEqual(erle, (webrtc.report["metrics"] as! [String: Any])["erle_db"] as! Double, accuracy: 0.01)
        // speex's Min filter (100 ms) ends before it too.
        XCTAssertEqual(try findings(delayMilliseconds: 150, aec: "speex:intensityMin", in: root).rules, ["echo-delay-beyond-filter"])
        // No canceller, no filter: the missing canceller is its own finding.
        XCTAssertFalse(try findings(delayMilliseconds: 150, aec: "disabled", in: root).rules.contains("echo-delay-beyond-filter"))

        // 700 ms is past every backend's reach and past the estimator's search: the scenario's
        // delay is named, as the lower bound it is (the devices add their latencies).
        for aec in ["speex:intensityMax", "webrtc:intensityMax", "webrtc-mobile:intensityMax"] {
            let late = try findings(delayMilliseconds: 700, aec: aec, in: root)
            XCTAssertNil((late.report["metrics"] as! [String: Any])["delay_ms"] as? Double, "past the search")
            XCTAssertEqual(late.rules, ["echo-delay-beyond-filter"], aec)
            let message = (late.report["findings"] as! [[String: Any]])[0]["message"] as! String
            XCTAssertTrue(message.hasPrefix("the echo arrives at least 700.0 ms after the reference (the scenario's echo path delay: none was measured), beyond"), message)
            // Why no delay, in the scenario's terms: a simulation's loopback is never recorded late.
            XCTAssertEqual(late.report["delay_unmeasured"] as? String,
                           "the scenario's echo path delay, 700 ms, lies past the 0–500 ms delay search (the devices' latencies add to it): "
                           + "the echo lags the reference by more than the search reaches")
        }
        let page = try String(contentsOf: root.appendingPathComponent("d700-webrtc-intensityMax/report.md"), encoding: .utf8)
        XCTAssertTrue(page.contains("**echo-delay-beyond-filter** 0.00 s–6.00 s: the echo arrives at least 700.0 ms"), page)
    }

    func testAModeChangeMidCallEndsTheStretchWhereTheFilterReaches() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        // 150 ms with speex: Min (100 ms filter) for 3 s, then Recommended (200 ms).
        let scenario = try writeScenario("""
            {"name": "switch", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "noise": {"level_dbfs": -65, "seed": 2}, "echo_path": {"delay_ms": 150, "gain_db": -10}, "duration_s": 6,
             "aec": {"mode": "intensityMin"}, "timeline": [{"at_ms": 3000, "action": "set_aec", "mode": "intensityRecommended"}]}
            """, named: "switch.json", in: root)
        let run = try runEchoLab(["run", scenario, "--no-taps", "--out", "out"], in: root)
        XCTAssertEqual(run.status, 0, run.standardError)
        let report = try loadJSON(root.appendingPathComponent("out/report.json").path)
        let delay = (report["findings"] as! [[String: Any]]).filter { $0["rule"] as? String == "echo-delay-beyond-filter" }
        XCTAssertEqual(delay.count, 1)
        XCTAssertEqual(delay.first?["at_s"] as? Double, 0)
        XCTAssertEqual(delay.first?["until_s"] as? Double, 3)
        XCTAssertTrue((delay.first?["message"] as? String ?? "").contains("beyond the 90.0 ms speex reaches"))
    }

    func testACallThatChangesRouteIsJudgedOnEachRoutesDelay() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        // On A2DP the delay (about 220 ms) is beyond WebRTC's reach, on the speaker it is not: a
        // call that moves from the speaker to A2DP at 1 s is judged on A2DP's, from 1 s.
        func run(_ name: String, _ routing: String) throws -> [[String: Any]] {
            let scenario = try writeScenario("""
                {"name": "\(name)", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
                 "noise": {"level_dbfs": -65, "seed": 2}, "duration_s": 6, \(routing)}
                """, named: "\(name).json", in: root)
            let result = try runEchoLab(["run", scenario, "--aec", "webrtc:intensityRecommended", "--no-taps", "--out", name], in: root)
            XCTAssertEqual(result.status, 0, result.standardError)
            return (try loadJSON(root.appendingPathComponent("\(name)/report.json").path)["findings"] as! [[String: Any]])
                .filter { $0["rule"] as? String == "echo-delay-beyond-filter" }
        }
        XCTAssertEqual(try run("a2dp", #""route": "bluetooth_a2dp""#).count, 1)
        let moves = try run("moves", #""route": "speaker", "timeline": [{"at_ms": 1000, "action": "route_change", "route": "bluetooth_a2dp"}]"#)
        XCTAssertEqual(moves.count, 1)
        XCTAssertEqual(moves.first?["at_s"] as? Double, 1)
        XCTAssertEqual(moves.first?["until_s"] as? Double, 6)
        XCTAssertTrue((moves.first?["message"] as? String ?? "").contains("beyond the 130.0 ms webrtc reaches"))
    }
}
