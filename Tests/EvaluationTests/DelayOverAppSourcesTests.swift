import Evaluation
import XCTest

/// The delay estimate reads the call's first far-end seconds; where a file or generator was the
/// mic, no echo reached what it read, so those blocks are left out and the next ones counted.
/// A call that started on a file mic read 66 ms for its 50 ms path (switched to the device mic
/// at 5 s), or no delay at all, "the echo leads the reference" (at 6 s), and its ERL was scored
/// against a reference out of line.
final class DelayOverAppSourcesTests: XCTestCase {
    private func call(switchingToTheDeviceMicAt milliseconds: Int, seconds: Int) throws -> RunReport {
        try runReport(ofScenario: """
            {"name": "app-source", "duration_s": \(seconds), "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -65, "seed": 3}, "echo_path": {"delay_ms": 50, "gain_db": -10}, "aec": {"mode": "disabled"},
             "mic": {"device": "generator", "signal": "tone", "frequency_hz": 300, "level_dbfs": -30},
             "timeline": [{"at_ms": \(milliseconds), "action": "reset_custom_mic"}]}
            """)
    }

    func testTheDelayIsReadWhereTheEchoReachedTheMic() throws {
        for switchAt in [5_000, 6_000, 9_000] {
            let report = try call(switchingToTheDeviceMicAt: switchAt, seconds: 15)
            XCTAssertEqual(try XCTUnwrap(report.metrics.delayMilliseconds, "switched at \(switchAt) ms"), 50, accuracy: 0.1)
            XCTAssertEqual(try XCTUnwrap(report.metrics.erlDB), 10, accuracy: 0.3, "switched at \(switchAt) ms")
        }
    }

    func testNoEchoInTheEstimatesSecondsIsSaid() throws {
        let report = try call(switchingToTheDeviceMicAt: 13_000, seconds: 16)
        XCTAssertNil(report.metrics.delayMilliseconds)
        XCTAssertEqual(report.metrics.delayUnmeasured, .noEchoInWarmup(warmupSeconds: 12))
        XCTAssertEqual(report.delayUnmeasuredReason, "no echo reached the mic while the delay was estimated, over the call's first 12 s at most "
                       + "(a file or generator was the mic there, or the call was muted): the delay is read there only")
    }
}
