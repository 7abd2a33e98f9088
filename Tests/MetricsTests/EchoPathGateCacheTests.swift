import AudioInterop
import Foundation
import Metrics
import XCTest

/// Runs of one recording in several modes share the tap-free gate's fit: each scores exactly as
/// it would with a fit of its own, and a file rewritten between runs is fitted again.
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
        shared.gateFits = EchoPathGateCache(capacity: 2)
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
        shared.gateFits = EchoPathGateCache(capacity: 2)
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
}
