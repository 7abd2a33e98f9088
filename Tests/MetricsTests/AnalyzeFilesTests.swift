import AudioInterop
import Foundation
import Metrics
import XCTest

final class AnalyzeFilesTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    private func write(_ samples: [Float], _ name: String, sampleRate: Int = 48_000) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try SoundFileWriter.write(samples, to: path, sampleRate: sampleRate)
        return path
    }

    func testFilesGiveTheSameResultAsBuffers() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 2)
        let processed = TestSignals.scaled(echo, gainDB: -15)
        let segments = [0..<48_000, 48_000..<96_000]
        let analyzer = EchoAnalyzer()
        let fromBuffers = analyzer.analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: echo,
                                                       processed: processed, echo: echo), segments: segments)
        let fromFiles = try analyzer.analyzeFiles(reference: write(reference, "ref.wav"), mic: write(echo, "mic.wav"),
                                                  processed: write(processed, "out.wav"), echo: write(echo, "echo.wav"),
                                                  segments: segments)
        XCTAssertEqual(fromFiles.whole, fromBuffers.whole)
        XCTAssertEqual(fromFiles.segments, fromBuffers.segments)
        XCTAssertEqual(try XCTUnwrap(fromFiles.whole.erleDB), 15, accuracy: 0.1)
    }

    func testMismatchedRateNamesTheFile() throws {
        let reference = TestSignals.noise(count: 4_800, dbfs: -20, seed: 1)
        let referencePath = try write(reference, "ref.wav")
        let micPath = try write(reference, "mic16k.wav", sampleRate: 16_000)
        XCTAssertThrowsError(try EchoAnalyzer().analyzeFiles(reference: referencePath, mic: micPath, processed: referencePath)) { error in
            XCTAssertEqual(error as? MetricsError, .sampleRateMismatch(path: micPath, sampleRate: 16_000,
                                                                       referencePath: referencePath, referenceRate: 48_000))
            XCTAssertTrue("\(error)".hasPrefix(micPath), "\(error)")
        }
    }

    func testMissingFileNamesTheFile() throws {
        let referencePath = try write(TestSignals.noise(count: 4_800, dbfs: -20, seed: 1), "ref.wav")
        let missing = directory.appendingPathComponent("nope.wav").path
        XCTAssertThrowsError(try EchoAnalyzer().analyzeFiles(reference: referencePath, mic: referencePath, processed: missing)) { error in
            guard case .unreadableFile(let path, _)? = error as? MetricsError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, missing)
            XCTAssertTrue("\(error)".hasPrefix(missing + ": "), "\(error)")
        }
    }
}
