import AudioInterop
import EchoLabTestSupport
import Foundation
import Evaluation
import Reporting
import ScenarioFiles
import Simulation
import XCTest

/// `eval` decodes each input once for the whole corpus (`DecodedAudioCache`); a run that reads
/// its inputs from there must write the same bytes as `run`, which streams them from the files:
/// resampled inputs (16 and 22.05 kHz), a looping music file, a file microphone.
final class DecodedAudioCacheTests: XCTestCase {
    func testEvalRunsWriteTheSameTapsAsStreamingRuns() throws {
        let scenarios = ["mixing-speaker-with-reference", "file-mic-aec-on"].map {
            packageRoot.appendingPathComponent("vectors/scenarios/\($0).json").path
        }
        let evalFolder = try temporaryDirectory(), runFolder = try temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: evalFolder)
            try? FileManager.default.removeItem(at: runFolder)
        }
        let outcome = CorpusRun(items: scenarios.map { .scenario($0) }, outputDirectory: evalFolder.path, jobs: 2, taps: .all, renderer: nil).run()
        XCTAssertEqual(outcome.failedCount, 0)
        XCTAssertEqual(outcome.results.count, 2)
        for file in scenarios {
            let scenario = try ScenarioLoader.load(path: file)
            let folder = "\(scenario.name)/\(scenario.echoControlMode.folderName)"
            try RunOutput(scenario: scenario, outputDirectory: runFolder.appendingPathComponent(folder).path, taps: .all, renderer: nil).run()
            let streamed = try snapshot(runFolder.appendingPathComponent(folder))
            let cached = try snapshot(evalFolder.appendingPathComponent(folder))
            let waves = streamed.keys.filter { $0.hasSuffix(".wav") }.sorted()
            XCTAssertGreaterThanOrEqual(waves.count, 6, "\(scenario.name): every tap written")
            for wave in waves {
                XCTAssertEqual(cached[wave], streamed[wave], "\(scenario.name)\(wave): eval's bytes differ from run's")
            }
        }
        // No budget, no cache.
        let far = packageRoot.appendingPathComponent("vectors/inputs/farend_speech_16k.wav").path
        XCTAssertNil(DecodedAudioCache(budgetBytes: 0).decoded(path: far, targetRate: 48_000, selection: .monoOnly, quality: .best))
        // 10 s at 48 kHz: 1.9 MB, within an 8 MB budget (and not within 1 MB: then it streams).
        let tooSmall = DecodedAudioCache(budgetBytes: 1 << 20).decoded(path: far, targetRate: 48_000, selection: .monoOnly, quality: .best)
        XCTAssertNil(tooSmall)
        let inside = DecodedAudioCache(budgetBytes: 8 << 20).decoded(path: far, targetRate: 48_000, selection: .monoOnly, quality: .best)
        let streamedFar = try AudioFileStream.readAll(path: far, targetRate: 48_000).samples
        XCTAssertEqual(inside?.samples.count, streamedFar.count)
        XCTAssertTrue(inside?.samples == streamedFar, "the cache holds the stream's samples, bit for bit")
    }
}
