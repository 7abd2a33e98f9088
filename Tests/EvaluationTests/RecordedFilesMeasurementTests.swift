import AudioCore
import AudioInterop
import Evaluation
import Foundation
import Metrics
import XCTest

/// `RecordingMetrics.measure`: recorded files scored from code as `echolab metrics` scores them,
/// what it finds on the way handed over as notices instead of printed.
final class RecordedFilesMeasurementTests: XCTestCase {
    private var folder: URL!
    private let rate = 16_000
    /// A −12 dB echo 30 ms late: ERL 20·log10(4) = 12.04 dB.
    private let delay = 480

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("recorded-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func write(_ samples: [Float], _ name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try SoundFileWriter.write(samples, to: path, sampleRate: rate)
        return path
    }

    /// The far end, its echo at the mic, and an output 20 dB under the mic that lags it by `outputLag`.
    private func files(outputLag: Int, echoTrackLead: Int? = nil) throws -> (RecordedFiles, [String: Data]) {
        let reference = SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: rate, count: 8 * rate, seed: 5)
        let mic = [Float](repeating: 0, count: delay) + reference.dropLast(delay).map { $0 * 0.25 }
        let processed = [Float](repeating: 0, count: outputLag) + mic.dropLast(outputLag).map { $0 * 0.1 }
        var files = RecordedFiles(reference: try write(reference, "ref.wav"), mic: try write(mic, "mic.wav"), processed: try write(processed, "out.wav"))
        if let echoTrackLead {
            files.echo = try write(Array(mic.dropFirst(echoTrackLead)) + [Float](repeating: 0, count: echoTrackLead), "echo.wav")
        }
        let bytes = try Dictionary(uniqueKeysWithValues: files.paths.map { ($0, try Data(contentsOf: URL(fileURLWithPath: $0))) })
        return (files, bytes)
    }

    private func assertUnchanged(_ bytes: [String: Data], file: StaticString = #filePath, line: UInt = #line) throws {
        for (path, data) in bytes {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), data, "\(path) changed", file: file, line: line)
        }
    }

    /// An output 10 ms behind the mic: the lag is found (160 samples), said as a notice that is
    /// no warning, taken out, and the figures are the files' known ones.
    func testAnOutputsLagIsFoundSaidAndTakenOut() throws {
        let (files, bytes) = try files(outputLag: 160)
        var notices: [RecordingMetrics.Notice] = []
        let result = try RecordingMetrics.measure(files) { notices.append($0) }

        XCTAssertEqual(result.processedLag.samples, 160)
        XCTAssertEqual(result.processedLag.source, .estimated)
        XCTAssertEqual(notices, [.init(isWarning: false, text: "\(files.processed) lags the mic by 10.0 ms (160 samples): aligned before scoring")])
        XCTAssertEqual(try XCTUnwrap(result.metrics.erlDB), 20 * log10(4), accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(result.metrics.erleDB), 20, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(result.metrics.delayMilliseconds), 30, accuracy: 0.1)
        XCTAssertNil(result.scores, "no scorer asked for")
        try assertUnchanged(bytes)
    }

    /// A lag given is used as given: where the files' own estimate agrees nothing is said, and the
    /// figures are the estimate's.
    func testAGivenLagIsUsedAndNothingIsSaid() throws {
        let (files, bytes) = try files(outputLag: 160)
        var notices: [RecordingMetrics.Notice] = []
        let given = try RecordingMetrics.measure(files, processedLagMilliseconds: 10) { notices.append($0) }
        let estimated = try RecordingMetrics.measure(files)

        XCTAssertEqual(notices, [])
        XCTAssertEqual(given.processedLag.source, .given)
        XCTAssertEqual(given.processedLag.samples, 160)
        XCTAssertEqual(given.json()["erle_db"], estimated.json()["erle_db"])
        XCTAssertEqual(given.json()["erl_db"], estimated.json()["erl_db"])
        try assertUnchanged(bytes)
    }

    /// An echo track 5 ms ahead of the mic is warned of by name, with how far it leads.
    func testAnEchoTrackOffTheMicIsWarnedOf() throws {
        let (files, bytes) = try files(outputLag: 0, echoTrackLead: 80)
        var notices: [RecordingMetrics.Notice] = []
        _ = try RecordingMetrics.measure(files) { notices.append($0) }

        let warning = try XCTUnwrap(notices.first { $0.text.hasPrefix("the echo track") })
        XCTAssertTrue(warning.isWarning)
        XCTAssertTrue(warning.description.hasPrefix("warning: the echo track \(try XCTUnwrap(files.echo)) leads the mic by 5.0 ms;"), warning.description)
        try assertUnchanged(bytes)
    }

    /// A given lag outside 0–500 ms, or not a number, is refused by name: a negative one trapped
    /// in the analysis, NaN in its conversion, and 600 ms was scored as if it were right.
    func testALagOutsideTheSearchIsRefused() throws {
        let (files, bytes) = try files(outputLag: 0)
        for lag in [-10, 600, .nan, .infinity] as [Double] {
            XCTAssertThrowsError(try RecordingMetrics.measure(files, processedLagMilliseconds: lag)) { error in
                XCTAssertEqual("\(error)", "processed lag \(lag) ms: must be a number from 0 to 500 ms")
            }
        }
        XCTAssertNoThrow(try RecordingMetrics.measure(files, processedLagMilliseconds: 500))
        try assertUnchanged(bytes)
    }

    /// A cancellation asked before the measurement measures nothing.
    func testACancelledMeasurementThrowsCancelled() throws {
        let (files, bytes) = try files(outputLag: 0)
        let cancellation = RunCancellation()
        cancellation.cancel()
        XCTAssertThrowsError(try RecordingMetrics.measure(files, cancellation: cancellation)) { error in
            XCTAssertEqual((error as? RecordingMetrics.Cancelled)?.whileScoring, false, "\(error)")
        }
        try assertUnchanged(bytes)
    }

    /// A file that is not audio is named in the error, before anything is measured.
    func testAFileThatIsNotAudioIsNamed() throws {
        var (files, _) = try files(outputLag: 0)
        files.processed = folder.appendingPathComponent("notes.wav").path
        try Data("not a WAV".utf8).write(to: URL(fileURLWithPath: files.processed))
        var notices: [RecordingMetrics.Notice] = []
        XCTAssertThrowsError(try RecordingMetrics.measure(files) { notices.append($0) }) { error in
            XCTAssertTrue("\(error)".contains(files.processed), "\(error)")
        }
        XCTAssertEqual(notices, [])
    }
}
