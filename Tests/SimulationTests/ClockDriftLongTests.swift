import AudioCore
import Foundation
import ScenarioFiles
import XCTest
@testable import Simulation

/// Sums mic and sent energy over a stretch of the call (far-end single talk: ERLE).
final class ERLETap: CallTap {
    let from: Int64
    private(set) var micEnergy = 0.0
    private(set) var sentEnergy = 0.0
    init(from: Int64) { self.from = from }
    func record(_ tick: TickSignals) throws {
        guard tick.frame >= from else { return }
        for i in 0..<tick.count {
            micEnergy += Double(tick.mic[i]) * Double(tick.mic[i])
            sentEnergy += Double(tick.sent[i]) * Double(tick.sent[i])
        }
    }
    var erleDB: Double { 10 * log10(micEnergy / sentEnergy) }
}

final class ClockDriftLongTests: XCTestCase {
    /// Steady-state ERLE (the last `window` seconds) of a speex call whose mic clock is off by `ppm`.
    static func steadyERLE(ppm: Double, seconds: Int64, window: Int64, mode: String = "intensityRecommended") throws -> (erle: Double, dropped: Int64) {
        let scenario = try ScenarioLoader.parse(data: Data("""
            {"name": "drift", "duration_s": \(seconds), "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 11},
             "echo_path": {"delay_ms": 20, "gain_db": -10, "synthetic_room": {"rt60_ms": 100, "seed": 2}},
             "noise": {"level_dbfs": -65, "seed": 4}, "aec": {"mode": "\(mode)"}\(ppm.isNaN ? "" : ", \"clock_drift_ppm\": \(ppm)")}
            """.utf8), file: "/tmp/drift.json")
        let tap = ERLETap(from: (seconds - window) * 48_000)
        let run = try ScenarioRunner(scenario: scenario, recordsTaps: false, taps: [tap]).run()
        return (tap.erleDB, run.hardware?.droppedFrames ?? -1)
    }

    /// 100 ppm between the mic's and the loudspeaker's clocks on a 10-minute call: the echo
    /// path the canceller sees slides by 4.8 samples a second (60 ms over the call, slipping
    /// whenever the capture buffer runs over), so its filter never settles: steady ERLE drops.
    func testHundredPPMDriftLowersSteadyERLE() throws {
        let still = try Self.steadyERLE(ppm: 0, seconds: 600, window: 120)
        let drifting = try Self.steadyERLE(ppm: 100, seconds: 600, window: 120)
        print("clock drift, 10-minute call, last 2 minutes: ERLE \(still.erle) dB at 0 ppm, \(drifting.erle) dB at 100 ppm (\(drifting.dropped) samples slipped)")
        XCTAssertEqual(still.dropped, 0)
        XCTAssertGreaterThan(drifting.dropped, 2000)       // ≈ 600 s × 4.8 samples/s, less the headroom
        XCTAssertGreaterThan(still.erle - drifting.erle, 10)
    }
}

