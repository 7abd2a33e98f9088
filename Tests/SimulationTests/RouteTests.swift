import AudioCore
import Foundation
import ScenarioFiles
import XCTest
@testable import Simulation

final class RouteTests: XCTestCase {
    private func run(_ json: String) throws -> CallRun {
        try ScenarioRunner(scenario: ScenarioLoader.parse(data: Data(json.utf8), file: "/tmp/route.json")).run()
    }

    private func levelDB(_ x: [Float], seconds: Range<Double>) -> Double {
        let slice = x[Int(seconds.lowerBound * 48_000)..<Int(seconds.upperBound * 48_000)]
        return 10 * log10(meanSquare(slice))
    }

    /// Receiver → speaker at 6 s: both routes' rooms have unit energy, so white noise rises at
    /// the mic by the difference of the routes' gains, −10 − (−30) = 20 dB.
    func testRouteChangeRaisesTheEchoByTheModelledAmount() throws {
        let run = try run("""
            {"name": "route", "duration_s": 10, "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 3},
             "aec": {"mode": "disabled"}, "route": "receiver",
             "timeline": [{"at_ms": 6000, "action": "route_change", "route": "speaker"}]}
            """)
        let before = levelDB(run.recording.echo, seconds: 2..<6)
        let after = levelDB(run.recording.echo, seconds: 7..<10)
        let modelled = RouteProfile(route: .speaker).echoPath.gainDB - RouteProfile(route: .receiver).echoPath.gainDB
        print("route receiver → speaker: echo \(before) → \(after) dB (modelled +\(modelled) dB)")
        XCTAssertEqual(after - before, modelled, accuracy: 1)
        // The mic tap is the echo (no near end, no noise), through the same input device.
        XCTAssertEqual(levelDB(run.recording.mic, seconds: 7..<10), after, accuracy: 0.01)
        XCTAssertEqual(run.hardware?.segments.map(\.route), ["receiver", "speaker"])
        XCTAssertEqual(run.hardware?.segments.map(\.startFrame), [0, 288_000])
    }

    /// HFP runs at 16 kHz both ways: nothing above 8 kHz reaches the engine from the mic.
    func testHandsFreeIsNarrowband() throws {
        let run = try run("""
            {"name": "hfp", "duration_s": 3, "near_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 4},
             "aec": {"mode": "disabled"}, "route": "bluetooth_hfp"}
            """)
        XCTAssertEqual(run.hardware?.input, HardwareFormat(sampleRate: 16_000, ioBufferFrames: 128))
        // White noise at 48 kHz spreads over 24 kHz; 16 kHz keeps at most 0.8 × 8 kHz of it: the
        // captured level drops by ≥ 10·log10(24/8) ≈ 4.8 dB.
        let captured = levelDB(run.recording.mic, seconds: 1..<3)
        XCTAssertLessThan(captured, -20 - 4.8)
        XCTAssertGreaterThan(captured, -20 - 8)
    }

    /// Data sources: on the receiver route the front mic (next to the earpiece) picks up 8 dB
    /// more echo than the bottom one.
    func testFrontMicCouplesMoreOnTheReceiver() throws {
        func echo(_ source: String) throws -> Double {
            let run = try run("""
                {"name": "ds", "duration_s": 3, "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 3},
                 "aec": {"mode": "disabled"}, "route": "receiver", "audio_session": {"input_data_source": "\(source)"}}
                """)
            return levelDB(run.recording.echo, seconds: 1..<3)
        }
        XCTAssertEqual(try echo("front") - echo("bottom"), 8, accuracy: 0.01)
    }
}
