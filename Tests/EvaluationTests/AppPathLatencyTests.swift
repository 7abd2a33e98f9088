import EchoLabTestSupport
import Foundation
import ScenarioFiles
import Simulation
import XCTest

/// docs/library.md's table of the app path's latency: a pass-through custom mic's audio lies in
/// `sent` this far behind the near-end track, by app rate and timer period (AEC off). The rule
/// "a period counts twice" gave 40 ms for 44.1 kHz at 10 ms, where a new user measured 50.
final class AppPathLatencyTests: XCTestCase {
    /// The lag of `sent` behind `near` (white noise): where a 0.1 s stretch lines up best, over 0–150 ms.
    private func lagMilliseconds(rate: Int, periodMilliseconds: Int) throws -> Double {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeScenario("""
            {"name": "latency", "near_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 5}, "duration_s": 2,
             "aec": {"mode": "disabled"}, "mic": {"device": "passthrough", "sample_rate": \(rate), "period_ms": \(periodMilliseconds)}}
            """, in: folder)
        let recording = try ScenarioRunner(scenario: ScenarioLoader.load(path: path)).run().recording
        let start = 48_000, length = 4_800
        var best = (lag: 0, score: -Double.infinity)
        for lag in 0..<7_200 {
            var dot = 0.0
            for index in 0..<length { dot += Double(recording.nearEnd[start + index]) * Double(recording.sent[start + lag + index]) }
            if dot > best.score { best = (lag, dot) }
        }
        return Double(best.lag) / 48
    }

    func testTheTableHolds() throws {
        let table: [(rate: Int, period: Int, milliseconds: Double)] = [
            (48_000, 10, 30), (48_000, 15, 45), (48_000, 20, 50), (48_000, 30, 70), (48_000, 40, 90),
            (44_100, 10, 50), (44_100, 15, 45), (44_100, 20, 60), (44_100, 30, 80), (44_100, 40, 100),
            (16_000, 10, 50), (32_000, 20, 60),
        ]
        for row in table {
            XCTAssertEqual(try lagMilliseconds(rate: row.rate, periodMilliseconds: row.period), row.milliseconds,
                           "\(row.rate) Hz, \(row.period) ms")
        }
    }
}
