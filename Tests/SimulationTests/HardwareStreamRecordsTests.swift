import AudioCore
import Foundation
import ScenarioFiles
import XCTest
@testable import Simulation

/// What an eval's later modes take from an earlier run's hardware stream records must be what
/// their streams would have made, output and counters, bit for bit, wherever their input stops
/// matching the record.
final class HardwareStreamRecordsTests: XCTestCase {
    private let n = 480
    /// A 44.1 kHz device whose clock runs 100 ppm fast: both of the stream's converters run.
    private let format = HardwareFormat(sampleRate: 44_100, ioBufferFrames: 256)
    private let drift = 100.0

    private func stream(_ records: HardwareStreamRecords? = nil, ticks: Int = 0) throws -> HardwareStream {
        try HardwareStream(format: format, clockDriftPPM: drift, records: records, role: .mic, expectedTicks: records == nil ? nil : ticks)
    }

    private func input(ticks: Int, seed: UInt64) -> [Float] {
        SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: 48_000, count: ticks * n, seed: seed)
    }

    /// What a stream makes of `input`, tick by tick: its output and, after each tick, the
    /// counters `CallHardware` reads.
    private struct Pass: Equatable {
        var output: [UInt32] = []
        var counters: [[Int64]] = []
    }

    private func pass(_ input: [Float], through stream: HardwareStream) throws -> Pass {
        var result = Pass(), block = [Float](repeating: 0, count: n)
        for start in stride(from: 0, to: input.count, by: n) {
            try stream.process(Array(input[start..<(start + n)]), into: &block, count: n)
            result.output += block.map(\.bitPattern)
            result.counters.append([stream.isPrimed ? 1 : 0, stream.latencyFrames, stream.callbacks, stream.framesIn, stream.deviceFrames,
                                    stream.framesOut, stream.silentFrames, Int64(stream.underruns), Int64(stream.bufferedDeviceFrames),
                                    Int64(stream.bufferedEngineFrames), stream.droppedFrames])
        }
        return result
    }

    /// Records holding the record of one mic stream's pass over `input`.
    private func recordsHolding(_ input: [Float]) throws -> HardwareStreamRecords {
        let records = HardwareStreamRecords(budgetBytes: 1 << 26)
        let first = try stream(records, ticks: input.count / n)
        _ = try pass(input, through: first)
        first.finish()
        return records
    }

    func testAFollowerGetsTheRecordedOutputAndCountersAndTheRecordIsKeptOnce() throws {
        let records = HardwareStreamRecords(budgetBytes: 1 << 26)
        let signal = input(ticks: 300, seed: 1)
        let expected = try pass(signal, through: stream())
        XCTAssertGreaterThan(expected.counters.last?[2] ?? 0, 0, "the device called back")

        let first = try stream(records, ticks: 300)
        XCTAssertEqual(try pass(signal, through: first), expected)
        XCTAssertEqual(records.count, 0, "kept at the call's end, not before")
        first.finish()
        XCTAssertEqual(records.count, 1)

        let follower = try stream(records, ticks: 300)
        XCTAssertEqual(try pass(signal, through: follower), expected)
        follower.finish()
        XCTAssertEqual(records.count, 1, "a follower records nothing")
    }

    /// The same input for 120 ticks, then another: the stream takes in what it skipped and
    /// computes from there as if it had run all along (its converters' state, its buffers, its
    /// counters). A longer input than the record is computed past the record's end.
    func testAnInputThatLeavesTheRecordIsComputedAsIfItHadRunAllAlong() throws {
        let recorded = input(ticks: 300, seed: 1)
        let records = try recordsHolding(recorded)

        var other = recorded
        other.replaceSubrange((120 * n)..., with: input(ticks: 180, seed: 2))
        XCTAssertEqual(try pass(other, through: stream(records, ticks: 300)), try pass(other, through: stream()))
        let longer = recorded + input(ticks: 50, seed: 3)
        XCTAssertEqual(try pass(longer, through: stream(records, ticks: 350)), try pass(longer, through: stream()))
        // Left at the first tick: computed from the start.
        let unrelated = input(ticks: 300, seed: 4)
        XCTAssertEqual(try pass(unrelated, through: stream(records, ticks: 300)), try pass(unrelated, through: stream()))
    }

    /// A stream of another role or format is not followed; a stream without a converter (the
    /// engine's own format) records nothing; a call too long for an eighth of the budget is not
    /// recorded.
    func testOnlyTheSameStreamFollowsAndOnlyConvertersAreRecorded() throws {
        let signal = input(ticks: 100, seed: 1)
        let records = try recordsHolding(signal)
        let echo = try HardwareStream(format: format, clockDriftPPM: drift, records: records, role: .echo, expectedTicks: 100)
        XCTAssertEqual(try pass(signal, through: echo), try pass(signal, through: stream()))
        echo.finish()
        XCTAssertEqual(records.count, 2, "the echo stream made a record of its own")

        let engine = try HardwareStream(format: .engine, records: records, role: .output, expectedTicks: 100)
        _ = try pass(signal, through: engine)
        engine.finish()
        XCTAssertEqual(records.count, 2)

        let small = HardwareStreamRecords(budgetBytes: 8 * HardwareStreamRecords.Record.bytes(blocks: 100, blockSize: n))
        XCTAssertTrue(small.accepts(ticks: 100, tickFrames: n))
        XCTAssertFalse(small.accepts(ticks: 101, tickFrames: n))
    }

    /// Through whole calls on a 16 kHz route that changes to a 44.1 kHz one mid-call: runs with
    /// the records after one that filled them give the same signals and hardware counters as a
    /// run without any, with the same input and with a near end that changes half-way.
    func testACallWithTheRecordsEqualsOneWithout() throws {
        func scenario(nearSeed: Int) throws -> Scenario {
            try ScenarioLoader.parse(data: Data("""
                {"name": "hw", "duration_s": 4, "far_end": {"generator": "speech", "level_dbfs": -20, "pitch_hz": 120, "seed": 3},
                 "near_end": {"generator": "speech", "level_dbfs": -26, "pitch_hz": 210, "seed": \(nearSeed)},
                 "aec": {"mode": "disabled"}, "route": "bluetooth_hfp", "clock_drift_ppm": 50,
                 "timeline": [{"at_ms": 2000, "action": "route_change", "route": "bluetooth_a2dp"}]}
                """.utf8), file: "/tmp/hw.json")
        }
        let plain = try ScenarioRunner(scenario: scenario(nearSeed: 4)).run()
        let records = HardwareStreamRecords(budgetBytes: 1 << 26)
        var filling = ScenarioRunner(scenario: try scenario(nearSeed: 4))
        filling.hardwareStreams = records
        _ = try filling.run()
        XCTAssertGreaterThan(records.count, 0)
        var following = ScenarioRunner(scenario: try scenario(nearSeed: 4))
        following.hardwareStreams = records
        let followed = try following.run()
        XCTAssertEqual(followed.recording.mic.map(\.bitPattern), plain.recording.mic.map(\.bitPattern))
        XCTAssertEqual(followed.recording.sent.map(\.bitPattern), plain.recording.sent.map(\.bitPattern))
        XCTAssertEqual(followed.recording.echo.map(\.bitPattern), plain.recording.echo.map(\.bitPattern))
        XCTAssertEqual(followed.hardware, plain.hardware)
        XCTAssertEqual(followed.counters, plain.counters)
        XCTAssertGreaterThan(plain.recording.mic.map { $0 * $0 }.reduce(0, +), 0)

        let otherPlain = try ScenarioRunner(scenario: scenario(nearSeed: 5)).run()
        var other = ScenarioRunner(scenario: try scenario(nearSeed: 5))
        other.hardwareStreams = records
        let otherFollowed = try other.run()
        XCTAssertEqual(otherFollowed.recording.mic.map(\.bitPattern), otherPlain.recording.mic.map(\.bitPattern))
        XCTAssertEqual(otherFollowed.hardware, otherPlain.hardware)
    }
}
