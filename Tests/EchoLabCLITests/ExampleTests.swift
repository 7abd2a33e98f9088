import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// Runs the built `CustomDevicesExample` (this target depends on it, so it is built beside the tests).
final class ExampleTests: XCTestCase {
    private func exampleBinary() throws -> URL {
        let name = "CustomDevicesExample"
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent(name),
            Bundle(for: ExampleTests.self).bundleURL.deletingLastPathComponent().appendingPathComponent(name),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name),
            packageRoot.appendingPathComponent(".build/debug/\(name)"),
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw MissingBinary(looked: candidates.map(\.path))
        }
        return found
    }

    func testExampleRunsAndRecordsTheWholeCall() throws {
        let binary = try exampleBinary()
        let output = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        let (status, text) = try runProgram(binary, ["--out", output.path])
        XCTAssertEqual(status, 0, text)
        let recording = output.appendingPathComponent("call_recording.wav").path
        XCTAssertTrue(text.contains("recording: \(recording)"), text)
        XCTAssertTrue(text.contains("underruns: 0"), text)
        // 6 s of call, pulled 20 ms at a time from t = 0: 300 pulls of 960 frames, all kept.
        let reader = try SoundFileReader(path: recording)
        XCTAssertEqual(reader.sampleRate, 48_000)
        XCTAssertEqual(reader.channelCount, 1)
        XCTAssertEqual(reader.frameCount, 300 * 960)
        XCTAssertTrue(text.contains("bytes recorded: \(300 * 960 * 4)"), text)
        XCTAssertTrue(text.contains("switched from default mic to AudioFileMicrophone"), text)
        XCTAssertTrue(text.contains("switched from AudioFileMicrophone to default mic"), text)
    }

    func testExampleRejectsUnknownArguments() throws {
        XCTAssertEqual(try runProgram(exampleBinary(), ["--bogus", "x"]).status, 2)
    }
}
