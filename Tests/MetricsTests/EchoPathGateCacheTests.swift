import AudioInterop
import Foundation
@testable import Metrics
import Synchronization
import XCTest

/// Runs of one recording in several modes share the tap-free gate's decisions: each scores
/// exactly as it would with a fit of its own, a file rewritten between runs is fitted again, and
/// the cache computes each recording's decisions once, within its budget.
final class EchoPathGateCacheTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gate-cache-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    private func write(_ samples: [Float], _ name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try SoundFileWriter.write(samples, to: path, sampleRate: 48_000)
        return path
    }

    /// 6 s of noise far end, echo 40 ms / −6 dB, a near-end burst from 2 s to 4 s: the fit finds
    /// the double talk, so what it concluded shapes every figure.
    private func recording(nearEndSeed: UInt64 = 5) -> (reference: [Float], mic: [Float]) {
        let (reference, echo) = TestSignals.farEndScene(seconds: 6)
        let near = TestSignals.burst(count: echo.count, during: 96_000..<192_000, dbfs: -26, seed: nearEndSeed)
        return (reference, TestSignals.sum(TestSignals.sum(echo, near), TestSignals.noise(count: echo.count, dbfs: -65, seed: 3)))
    }

    func testAnotherOutputOfTheSameRecordingScoresAsWithAFitOfItsOwn() throws {
        let (reference, mic) = recording()
        let paths = try (reference: write(reference, "lpb.wav"), mic: write(mic, "mic.wav"))
        let first = try write(TestSignals.scaled(mic, gainDB: -20), "first.wav")
        let second = try write(TestSignals.scaled(mic, gainDB: -8), "second.wav")
        var shared = EchoAnalyzer()
        shared.gateDecisions = EchoPathGateCache(budgetBytes: 1 << 20)
        let firstShared = try shared.analyzeFiles(reference: paths.reference, mic: paths.mic, processed: first).whole
        let secondShared = try shared.analyzeFiles(reference: paths.reference, mic: paths.mic, processed: second).whole
        let secondAlone = try EchoAnalyzer().analyzeFiles(reference: paths.reference, mic: paths.mic, processed: second).whole
        XCTAssertEqual(secondShared, secondAlone)
        XCTAssertEqual(secondShared.gate.method, .echoPathFit)
        XCTAssertGreaterThan(secondShared.gate.doubleTalkFrames, 100, "the fit found the near-end burst")
        XCTAssertEqual(try XCTUnwrap(firstShared.erleDB), 20, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(secondShared.erleDB), 8, accuracy: 0.01)
    }

    /// The mic rewritten between two runs (same length, another near-end burst): the second run
    /// fits the new file, not the kept fit of the old one.
    func testARewrittenFileIsFittedAgain() throws {
        let (reference, mic) = recording()
        let paths = try (reference: write(reference, "lpb.wav"), mic: write(mic, "mic.wav"))
        var shared = EchoAnalyzer()
        shared.gateDecisions = EchoPathGateCache(budgetBytes: 1 << 20)
        _ = try shared.analyzeFiles(reference: paths.reference, mic: paths.mic, processed: paths.mic)
        // The same far end and echo, the near end now from 0.5 s to 1.5 s, an hour later.
        let (_, echo) = TestSignals.farEndScene(seconds: 6)
        let moved = TestSignals.sum(TestSignals.sum(echo, TestSignals.burst(count: echo.count, during: 24_000..<72_000, dbfs: -26, seed: 9)),
                                    TestSignals.noise(count: echo.count, dbfs: -65, seed: 3))
        _ = try write(moved, "mic.wav")
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(3600)], ofItemAtPath: paths.mic)
        let output = try write(TestSignals.scaled(moved, gainDB: -12), "out.wav")
        let again = try shared.analyzeFiles(reference: paths.reference, mic: paths.mic, processed: output).whole
        let alone = try EchoAnalyzer().analyzeFiles(reference: paths.reference, mic: paths.mic, processed: output).whole
        XCTAssertEqual(again, alone)
        XCTAssertEqual(try XCTUnwrap(again.erleDB), 12, accuracy: 0.01)
    }

    /// Decisions of `frames` frames (what is in them does not matter to the cache).
    private static func decisions(frames: Int) -> EchoPathGateCache.Decisions {
        var activity = FrameBits()
        for frame in 0..<frames { activity.append(frame % 3 == 0) }
        return EchoPathGateCache.Decisions(activity: activity, limitation: nil,
                                           talkerLevels: EchoPathGate.TalkerLevels(levels: ResidualLevels(), silentMeanSquare: 0, floor: nil,
                                                                                         freedomCorrection: 1))
    }

    private func key(_ name: String, samples: Int = 48_000) throws -> EchoPathGateCache.Key {
        let path = try write([Float](repeating: 0, count: 16), name)
        let stamp = try XCTUnwrap(FileStamp(path: path))
        return EchoPathGateCache.Key(reference: stamp, mic: stamp, referenceChannel: .monoOnly, micChannel: .monoOnly,
                                     sampleRate: 48_000, samples: samples, configuration: .default)
    }

    /// Eight runs of one recording at once, on as many threads as there are: one computes, the
    /// others wait for it and take its decisions; another length is another key.
    func testConcurrentRunsOfOneRecordingComputeItsDecisionsOnce() throws {
        let cache = EchoPathGateCache(budgetBytes: 1 << 20)
        let key = try key("a.wav"), shorter = try self.key("a.wav", samples: 24_000)
        let computed = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let got = try? cache.decisions(for: key) {
                computed.withLock { $0 += 1 }
                return Self.decisions(frames: 100)
            }
            XCTAssertEqual(got?.activity.count, 100)
        }
        XCTAssertEqual(computed.withLock { $0 }, 1)
        _ = try cache.decisions(for: shorter) {
            computed.withLock { $0 += 1 }
            return Self.decisions(frames: 50)
        }
        XCTAssertEqual(computed.withLock { $0 }, 2)
        XCTAssertEqual(cache.kept.count, 2)
    }

    /// A computation that fails keeps nothing: the next run computes again.
    func testAFailedComputationIsTriedAgain() throws {
        struct Unreadable: Error {}
        let cache = EchoPathGateCache(budgetBytes: 1 << 20)
        let key = try key("a.wav")
        XCTAssertThrowsError(try cache.decisions(for: key) { throw Unreadable() })
        let got = try cache.decisions(for: key) { Self.decisions(frames: 10) }
        XCTAssertEqual(got.activity.count, 10)
        XCTAssertEqual(cache.kept.count, 1)
    }

    /// Within the budget the newest decisions are kept and the oldest dropped; decisions over the
    /// budget on their own are not kept at all.
    func testTheBudgetKeepsTheNewestDecisions() throws {
        let one = Self.decisions(frames: 1000).bytes
        XCTAssertEqual(one, 4000 + 375, "two 16-bit levels and three bits a frame")
        let cache = EchoPathGateCache(budgetBytes: 2 * one)
        let keys = try ["a.wav", "b.wav", "c.wav"].map { try key($0) }
        var computed = 0
        for key in keys { _ = try cache.decisions(for: key) { computed += 1; return Self.decisions(frames: 1000) } }
        XCTAssertEqual(cache.kept.count, 2)
        XCTAssertEqual(cache.kept.bytes, 2 * one)
        _ = try cache.decisions(for: keys[2]) { computed += 1; return Self.decisions(frames: 1000) }
        XCTAssertEqual(computed, 3, "the newest is kept")
        _ = try cache.decisions(for: keys[0]) { computed += 1; return Self.decisions(frames: 1000) }
        XCTAssertEqual(computed, 4, "the oldest was dropped")
        let large = try key("large.wav")
        _ = try cache.decisions(for: large) { computed += 1; return Self.decisions(frames: 3000) }
        _ = try cache.decisions(for: large) { computed += 1; return Self.decisions(frames: 3000) }
        XCTAssertEqual(computed, 6, "over the budget on their own: computed each time")
        XCTAssertLessThanOrEqual(cache.kept.bytes, 2 * one)
    }
}
