import AudioCore
import AudioInterop
import Evaluation
import Foundation
import XCTest

/// A scorer's stretches read from files: any range, in any order, `skip` samples in.
final class FileTracksTests: XCTestCase {
    func testRangesInAnyOrderAndASkippedStart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("filetracks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let ramp = (0..<200_000).map { Float($0 % 1000) / 1000 - 0.5 }
        let path = folder.appendingPathComponent("ramp.wav").path
        try SoundFileWriter.write(ramp, to: path, sampleRate: 16_000)
        let tracks = FileTracks(sampleRate: 16_000, length: 150_000, paths: [.mic: (path, 0), .output: (path, 320)], channel: .monoOnly)
        // Forward, far past one read's 65 536 samples, then back (the file is opened again).
        for range in [100_000..<100_900, 1_000..<2_000, 140_000..<150_000, 0..<10] {
            XCTAssertEqual(try tracks.samples(.mic, range), Array(ramp[range]), "\(range)")
            XCTAssertEqual(try tracks.samples(.output, range), Array(ramp[(range.lowerBound + 320)..<(range.upperBound + 320)]), "\(range)")
        }
        XCTAssertNil(try tracks.samples(.echo, 0..<10), "a track the run does not have")
    }
}
