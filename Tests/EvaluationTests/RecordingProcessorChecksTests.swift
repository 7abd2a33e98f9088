import AudioCore
import AudioInterop
import Evaluation
import Foundation
import Metrics
import Simulation
import XCTest

/// What `RecordingProcessor` says of a finished run beside its output (`echolab process` prints
/// it): the warnings its files call for, and the scorers' scores of its output.
final class RecordingProcessorChecksTests: XCTestCase {
    private var folder: URL!
    private let rate = 16_000

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("processor-checks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func write(_ samples: [Float], _ name: String, rate: Int? = nil) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try SoundFileWriter.write(samples, to: path, sampleRate: rate ?? self.rate)
        return path
    }

    /// A far end and its echo 30 ms later at −12 dB.
    private func recording() throws -> (mic: String, reference: String) {
        let reference = SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: rate, count: 4 * rate, seed: 9)
        let mic = [Float](repeating: 0, count: 480) + reference.dropLast(480).map { $0 * 0.25 }
        return (try write(mic, "mic.wav"), try write(reference, "reference.wav"))
    }

    /// Files given the right way round leave nothing to warn of; swapped, the mic's "echo" comes
    /// 30 ms before its reference, and the warning names both files.
    func testAnEchoBeforeItsReferenceIsWarnedOf() throws {
        let (mic, reference) = try recording()
        let processor = RecordingProcessor(mode: EchoControlMode(backend: .speex, intensity: .intensityRecommended))
        let output = folder.appendingPathComponent("out.wav").path

        let rightWay = try processor.process(mic: mic, reference: reference, output: output)
        XCTAssertEqual(try processor.warnings(of: rightWay, mic: mic, reference: reference), [])

        let swapped = try processor.process(mic: reference, reference: mic, output: output)
        XCTAssertEqual(try processor.warnings(of: swapped, mic: reference, reference: mic),
                       ["the echo in \(reference) leads \(mic) (a loopback recorded late, or --mic and --reference swapped?): "
                        + "no canceller removes an echo that comes before its reference"])
    }

    /// A loopback at another rate than the mic is processed (resampled) but cannot be scored
    /// beside it: every scorer is left unscored with why, and no scorer is started for it.
    func testFilesThatCannotBeScoredTogetherLeaveTheScorersUnscored() throws {
        let (mic, _) = try recording()
        let reference = try write(SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: 8000, count: 4 * 8000, seed: 9),
                                  "reference-8k.wav", rate: 8000)
        let processor = RecordingProcessor(mode: EchoControlMode(backend: .speex, intensity: .intensityRecommended))
        let output = folder.appendingPathComponent("out.wav").path
        let outcome = try processor.process(mic: mic, reference: reference, output: output)
        XCTAssertEqual(outcome.referenceRate, 8000)

        let scorer = ScorerProcess(spec: try ScorerSpec(name: "never-started", command: "exit 1"), timeout: 5)
        defer { scorer.stop() }
        let scores = processor.scores(ofOutput: output, mic: mic, reference: reference, scorers: [scorer])
        XCTAssertEqual(scores.map(\.name), ["never-started"])
        XCTAssertNil(scores[0].talkTypes)
        let reason = try XCTUnwrap(scores[0].unscoredReason)
        XCTAssertTrue(reason.hasPrefix("the files cannot be scored together: "), reason)
        XCTAssertTrue(reason.contains("8000"), reason)
    }

    /// A loopback longer than the mic is counted for full-scale samples over the stretch the
    /// canceller received, whether it runs at the loopback's rate or the loopback is resampled
    /// for it (and then counted again at its own rate): a sample at full scale a second after
    /// the mic ended is none of the run's.
    func testALoopbackIsCountedOverTheStretchTheCancellerReceived() throws {
        let mic = try write(SignalGenerator.render(.whiteNoise(levelDBFS: -30), sampleRate: rate, count: rate, seed: 3), "mic.wav")
        let processor = RecordingProcessor(mode: EchoControlMode(backend: .speex, intensity: .intensityRecommended))
        let output = folder.appendingPathComponent("out.wav").path
        for loopbackRate in [rate, 8000] {
            var loopback = SignalGenerator.render(.whiteNoise(levelDBFS: -30), sampleRate: loopbackRate, count: 2 * loopbackRate, seed: 4)
            loopback[loopbackRate / 2] = 1
            loopback[loopbackRate * 3 / 2] = -1
            let reference = try write(loopback, "loopback-\(loopbackRate).wav", rate: loopbackRate)
            let outcome = try processor.process(mic: mic, reference: reference, output: output)
            XCTAssertEqual(outcome.clippedLoopbackSamples, 1, "loopback at \(loopbackRate) Hz")
        }
    }
}
