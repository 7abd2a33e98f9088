import AudioCore
import AudioInterop
import Foundation
import XCTest
@testable import Simulation

/// A looping file (a mixing speaker's music) read through `DecodedAudioCache`: the cache holds a
/// stretch of the looping stream — the file over and over, joined before its resampler — so a
/// source reading from it gives the stream's bits, and past the stretch goes on with the stream
/// brought to where the stretch ends.
final class LoopingSourceCacheTests: XCTestCase {
    func testALoopingSourceFromTheCacheReadsTheStreamsBits() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("looping-source-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // 0.3 s at 16 kHz: every 10 ms block at 48 kHz resamples, and a loop joins every 0.3 s.
        let music = SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: 16_000, count: 4_800, seed: 7)
        let path = try writeWAV(music, in: folder, "music.wav", rate: 16_000)
        let source = SignalSource.file(path: path, channel: .monoOnly)

        func read(_ blockSource: BlockSource, frames: Int) throws -> [UInt32] {
            var out: [UInt32] = [], block = [Float](repeating: 0, count: 480)
            for _ in 0..<(frames / 480) {
                XCTAssertEqual(try blockSource.read(into: &block, count: 480), 480, "a looping file never runs out")
                out += block.map(\.bitPattern)
            }
            return out
        }
        let streamed = try read(BlockSource(source, sampleRate: 48_000, loops: true), frames: 96_000)
        let cache = DecodedAudioCache(budgetBytes: 8 << 20)
        // The cache holds 1 s; the source reads 2 s: its second second comes from the stream.
        let cached = try read(BlockSource(source, sampleRate: 48_000, loops: true, cache: cache, expectedFrames: 48_000), frames: 96_000)
        XCTAssertEqual(cached, streamed)
        let held = try XCTUnwrap(cache.looped(path: path, targetRate: 48_000, selection: .monoOnly, quality: .medium, frames: 48_000))
        XCTAssertEqual(held.samples.map(\.bitPattern), Array(streamed.prefix(48_000)))
        // Over the budget, or with none: nothing held, the source streams.
        XCTAssertNil(DecodedAudioCache(budgetBytes: 1 << 16).looped(path: path, targetRate: 48_000, selection: .monoOnly,
                                                                   quality: .medium, frames: 48_000))
        let unheld = try read(BlockSource(source, sampleRate: 48_000, loops: true, cache: DecodedAudioCache(budgetBytes: 0),
                                          expectedFrames: 48_000), frames: 96_000)
        XCTAssertEqual(unheld, streamed)
    }
}
