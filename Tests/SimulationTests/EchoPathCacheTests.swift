import AudioCore
import VirtualTime
import XCTest
@testable import Simulation

/// The echo an eval's later modes take from an earlier run's record must be the echo they would
/// have computed, bit for bit, wherever their drive stops matching the record.
final class EchoPathCacheTests: XCTestCase {
    private let n = 480
    private let response = SyntheticRoom.impulseResponse(rt60Milliseconds: 200, sampleRate: 48_000, seed: 5)

    private func path() -> AcousticEchoPath {
        AcousticEchoPath(blockSize: n, delayFrames: 1920, gain: 0.5, impulseResponse: response, clipLevel: nil)
    }

    private func drive(blocks: Int, seed: UInt64) -> [Float] {
        SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: 48_000, count: blocks * n, seed: seed)
    }

    /// Runs `input` block by block through `process`.
    private func echo(of input: [Float], _ process: ([Float], inout [Float]) -> Void) -> [Float] {
        var output: [Float] = [], block = [Float](repeating: 0, count: n)
        for start in stride(from: 0, to: input.count, by: n) {
            process(Array(input[start..<start + n]), &block)
            output += block
        }
        return output
    }

    /// A cache holding the record of one call of `path()` driven by `input`.
    private func cacheRecording(_ input: [Float]) -> EchoPathCache {
        let cache = EchoPathCache(budgetBytes: 1 << 24)
        let recorder = RecordedEchoPath(path: path(), cache: cache, expectedSamples: input.count)
        _ = echo(of: input) { recorder.process($0, into: &$1) }
        recorder.finish()
        return cache
    }

    /// A path that never ran holds no echo to come: silence in gives silence out (its bulk delay
    /// and room tail would still be ringing otherwise).
    private func assertNeverRan(_ path: AcousticEchoPath, file: StaticString = #filePath, line: UInt = #line) {
        var probe = [Float](repeating: 0, count: n)
        path.process([Float](repeating: 0, count: n), into: &probe)
        XCTAssertTrue(probe.allSatisfy { $0 == 0 }, "the path ran", file: file, line: line)
    }

    /// Equal bit for bit; a failure names the first sample that differs, not both arrays.
    private func assertBitIdentical(_ a: [Float], _ b: [Float], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, "lengths", file: file, line: line)
        if let i = a.indices.first(where: { i in i < b.count && a[i].bitPattern != b[i].bitPattern }) {
            XCTFail("sample \(i) differs: \(a[i]) against \(b[i])", file: file, line: line)
        }
    }

    func testAFollowerGetsTheRecordedEchoAndTheRecordIsKeptOnce() {
        let cache = EchoPathCache(budgetBytes: 1 << 24)
        let input = drive(blocks: 60, seed: 1)
        let plain = path()
        let expected = echo(of: input) { plain.process($0, into: &$1) }

        let first = RecordedEchoPath(path: path(), cache: cache, expectedSamples: input.count)
        assertBitIdentical(echo(of: input) { first.process($0, into: &$1) }, expected)
        XCTAssertEqual(cache.count, 0, "kept at the call's end, not before")
        first.finish()
        XCTAssertEqual(cache.count, 1)

        // The follower's own path is never run, and the echo still comes out exact.
        let followerPath = path()
        let follower = RecordedEchoPath(path: followerPath, cache: cache, expectedSamples: input.count)
        assertBitIdentical(echo(of: input) { follower.process($0, into: &$1) }, expected)
        assertNeverRan(followerPath)
        follower.finish()
        XCTAssertEqual(cache.count, 1, "a follower records nothing")
    }

    func testADriveThatDivergesIsComputedFromThereAsIfItHadRunAllAlong() {
        let recorded = drive(blocks: 60, seed: 1)
        let cache = cacheRecording(recorded)

        // The same drive for 25 blocks, then another: the echo after the change still carries
        // the room's tail of the shared part.
        var other = recorded
        let tail = drive(blocks: 35, seed: 2)
        other.replaceSubrange((25 * n)..., with: tail)
        let plain = path()
        let expected = echo(of: other) { plain.process($0, into: &$1) }
        let follower = RecordedEchoPath(path: path(), cache: cache, expectedSamples: other.count)
        assertBitIdentical(echo(of: other) { follower.process($0, into: &$1) }, expected)

        // A longer call than the record: computed past the record's end.
        let longer = recorded + drive(blocks: 10, seed: 3)
        let plainLonger = path()
        let expectedLonger = echo(of: longer) { plainLonger.process($0, into: &$1) }
        let longFollower = RecordedEchoPath(path: path(), cache: cache, expectedSamples: longer.count)
        assertBitIdentical(echo(of: longer) { longFollower.process($0, into: &$1) }, expectedLonger)
    }

    /// Two items through one room, both far ends starting after the same silence: the second
    /// item's first run follows the first item's record through the silence, then computes and
    /// leaves a record of its own, which the second item's later runs follow to the end.
    func testAnotherDriveThroughThePathLeavesItsOwnRecord() {
        let silence = [Float](repeating: 0, count: 5 * n)
        let first = silence + drive(blocks: 30, seed: 1), second = silence + drive(blocks: 30, seed: 2)
        let cache = cacheRecording(first)

        let plain = path()
        let expected = echo(of: second) { plain.process($0, into: &$1) }
        let secondItem = RecordedEchoPath(path: path(), cache: cache, expectedSamples: second.count)
        assertBitIdentical(echo(of: second) { secondItem.process($0, into: &$1) }, expected)
        secondItem.finish()
        XCTAssertEqual(cache.count, 1, "the room's record is the newer item's")
        XCTAssertEqual(cache.record(for: path().identity)?.input.map(\.bitPattern), second.map(\.bitPattern))

        let laterPath = path()
        let laterMode = RecordedEchoPath(path: laterPath, cache: cache, expectedSamples: second.count)
        assertBitIdentical(echo(of: second) { laterMode.process($0, into: &$1) }, expected)
        assertNeverRan(laterPath)
    }

    func testAnotherPathIsNotFollowed() {
        let input = drive(blocks: 20, seed: 1)
        let cache = cacheRecording(input)
        let louder = AcousticEchoPath(blockSize: n, delayFrames: 1920, gain: 0.25, impulseResponse: response, clipLevel: nil)
        let plain = AcousticEchoPath(blockSize: n, delayFrames: 1920, gain: 0.25, impulseResponse: response, clipLevel: nil)
        let other = RecordedEchoPath(path: louder, cache: cache, expectedSamples: input.count)
        assertBitIdentical(echo(of: input) { other.process($0, into: &$1) }, echo(of: input) { plain.process($0, into: &$1) })
        other.finish()
        XCTAssertEqual(cache.count, 2)
    }

    func testTheBudgetKeepsTheNewestRecordsAndRefusesCallsTooLongForIt() {
        let blocks = 10, recordBytes = 2 * blocks * n * MemoryLayout<Float>.stride
        let cache = EchoPathCache(budgetBytes: 2 * recordBytes)
        for gain in [0.1, 0.2, 0.3] as [Float] {
            let recorded = RecordedEchoPath(path: AcousticEchoPath(blockSize: n, delayFrames: 0, gain: gain, impulseResponse: nil, clipLevel: nil),
                                            cache: cache, expectedSamples: blocks * n)
            _ = echo(of: drive(blocks: blocks, seed: 1)) { recorded.process($0, into: &$1) }
            recorded.finish()
        }
        XCTAssertEqual(cache.count, 2)
        let oldest = AcousticEchoPath(blockSize: n, delayFrames: 0, gain: 0.1, impulseResponse: nil, clipLevel: nil)
        XCTAssertNil(cache.record(for: oldest.identity))
        XCTAssertFalse(cache.accepts(samples: 3 * blocks * n))

        // A call that runs past the length it reserved stops recording instead of growing.
        let short = RecordedEchoPath(path: oldest, cache: cache, expectedSamples: 5 * n)
        _ = echo(of: drive(blocks: blocks, seed: 1)) { short.process($0, into: &$1) }
        short.finish()
        XCTAssertNil(cache.record(for: oldest.identity))
    }

    /// Through a whole call: a scenario run with the cache after one that filled it gives the
    /// same recording as a run without any.
    func testACallWithTheCacheEqualsOneWithout() throws {
        let scenario = Scenario(name: "room", farEnd: .generator(.speechLike(levelDBFS: -20, pitchHz: 120), seed: 1),
                                nearEnd: .generator(.speechLike(levelDBFS: -26, pitchHz: 210), seed: 2),
                                echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -6,
                                                           impulseResponse: .synthetic(rt60Milliseconds: 300, seed: 4)),
                                voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .intensityRecommended),
                                duration: .seconds(3))
        let plain = try ScenarioRunner(scenario: scenario).run()
        let cache = EchoPathCache(budgetBytes: 1 << 24)
        _ = try ScenarioRunner(scenario: scenario, echoPaths: cache).run()
        XCTAssertEqual(cache.count, 1)
        let followed = try ScenarioRunner(scenario: scenario, echoPaths: cache).run()
        assertBitIdentical(followed.recording.echo, plain.recording.echo)
        assertBitIdentical(followed.recording.sent, plain.recording.sent)
        XCTAssertGreaterThan(plain.recording.echo.map { $0 * $0 }.reduce(0, +), 0)
    }
}
