@testable import Evaluation
import AudioInterop
import EchoLabTestSupport
import Foundation
import Simulation
import XCTest

/// A re-run's taps replace the previous run's: until `finish` the old ones stay whole under
/// their names (the new ones are written under hidden names); after it, the new ones are in
/// place and nothing else is left.
final class WAVTapWriterReplacementTests: XCTestCase {
    private var folder: String!
    override func setUpWithError() throws { folder = try temporaryDirectory().path }
    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    private func writeTaps(level: Float, ticks: Int) throws -> WAVTapWriter {
        let writer = try WAVTapWriter(directory: folder, names: ["mic", "sent"], sampleRate: 48_000, chunkFrames: 1_000)
        let samples = [Float](repeating: level, count: 960)
        for tick in 0..<ticks {
            try writer.record(TickSignals(frame: Int64(tick * 960), count: 960, mic: samples, reference: samples, echo: samples,
                                          nearEnd: samples, played: samples, sent: samples))
        }
        return writer
    }

    private func contents() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder).sorted() }

    func testTheOldTapsStayWholeUntilTheNewOnesReplaceThem() throws {
        try writeTaps(level: 0.25, ticks: 3).finish()
        XCTAssertEqual(try contents(), ["mic.wav", "sent.wav"])

        let rerun = try writeTaps(level: -0.5, ticks: 5)
        for name in ["mic", "sent"] {
            let (samples, _) = try AudioFileStream.readAll(path: folder + "/\(name).wav")
            XCTAssertEqual(samples, [Float](repeating: 0.25, count: 2_880), "\(name): the old tap, whole, while the new one is written")
        }
        try rerun.finish()
        for name in ["mic", "sent"] {
            let (samples, rate) = try AudioFileStream.readAll(path: folder + "/\(name).wav")
            XCTAssertEqual(rate, 48_000)
            XCTAssertEqual(samples, [Float](repeating: -0.5, count: 4_800), "\(name): the new tap, whole")
        }
        XCTAssertEqual(try contents(), ["mic.wav", "sent.wav"], "the replaced files are deleted, nothing else is left")
        try rerun.finish()    // again: nothing more to do
    }
}
