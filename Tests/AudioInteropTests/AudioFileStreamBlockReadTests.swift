import XCTest
@testable import AudioInterop
import EchoLabTestSupport

/// Block-wise reads agree with `readAll` whatever the block size; `rewind()` restarts identically.
final class AudioFileStreamBlockReadTests: XCTestCase {
    var dir: TemporaryDirectory!
    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    private func readInBlocks(_ stream: AudioFileStream, block: Int) throws -> [Float] {
        var out: [Float] = []
        var buffer = [Float](repeating: .nan, count: block + 3)
        while true {
            let got = try stream.read(into: &buffer, at: 3, frames: block)
            out += buffer[3..<(3 + got)]
            XCTAssertTrue(buffer[(3 + got)..<(3 + block)].allSatisfy { $0 == 0 }, "the unfilled rest is zeroed")
            if got < block { break }
        }
        // After the end, reads keep returning 0 and silence.
        var tail = [Float](repeating: 1, count: 17)
        XCTAssertEqual(try stream.read(into: &tail, frames: 17), 0)
        XCTAssertEqual(tail, [Float](repeating: 0, count: 17))
        return out
    }

    func testOddBlockSizesMatchReadAllWithAndWithoutResampling() throws {
        let path = dir.file("noise-44k1.wav")
        try SoundFileWriter.write(Signals.noise(seed: 21, count: 30_011), to: path, sampleRate: 44_100)
        for target in [44_100, 48_000, 16_000] {
            let reference = try AudioFileStream.readAll(path: path, targetRate: target).samples
            XCTAssertFalse(reference.isEmpty)
            for block in [1, 37, 480, 1_000, 4_096, 100_000] {
                let stream = try AudioFileStream(path: path, targetRate: target)
                let blocks = try readInBlocks(stream, block: block)
                XCTAssertEqual(blocks.count, reference.count, "block \(block) at \(target) Hz")
                XCTAssertEqual(blocks, reference, "block \(block) at \(target) Hz")
            }
        }
    }

    func testRewindRestartsIdentically() throws {
        let path = dir.file("rewind.wav")
        try SoundFileWriter.write(Signals.sine(frequency: 700, sampleRate: 44_100, count: 10_000), to: path, sampleRate: 44_100)
        for target in [44_100, 48_000] {
            let stream = try AudioFileStream(path: path, targetRate: target)
            let first = try readInBlocks(stream, block: 480)
            try stream.rewind()
            let second = try readInBlocks(stream, block: 480)
            XCTAssertEqual(first, second, "full pass, \(target) Hz")

            // Rewind from the middle, too.
            try stream.rewind()
            var partial = [Float](repeating: 0, count: 1_234)
            _ = try stream.read(into: &partial, frames: 1_234)
            try stream.rewind()
            XCTAssertEqual(try readInBlocks(stream, block: 333), first, "mid-stream rewind, \(target) Hz")
        }
    }

    /// libsndfile cannot seek in a GSM 6.10 WAV; a second pass over one opens it again and reads
    /// the same samples (it failed as "cannot seek to frame 0" where libsndfile reads it).
    func testAFileLibsndfileCannotSeekInRewinds() throws {
        let path = dir.file("gsm.wav")
        let format = try XCTUnwrap(SoundFileFixtures.formats.first { $0.name == "wav-gsm610" })
        try SoundFileFixtures.write(Signals.sine(frequency: 700, sampleRate: 8000, count: 16_000), to: path, format: format)
        let stream = try AudioFileStream(path: path, targetRate: 8000)
        let first = try readInBlocks(stream, block: 160)
        XCTAssertGreaterThan(first.count, 15_000)
        try stream.rewind()
        XCTAssertEqual(try readInBlocks(stream, block: 160), first)
        try stream.rewind()
        var partial = [Float](repeating: 0, count: 500)
        _ = try stream.read(into: &partial, frames: 500)
        try stream.rewind()
        XCTAssertEqual(try readInBlocks(stream, block: 333), first, "mid-stream rewind")
    }

    func testLoopingFileMicrophone() throws {
        // A file shorter than one block, looped by rewinding at the end, as a looping mic does.
        let path = dir.file("short.wav")
        let clip = Signals.noise(seed: 5, count: 300)
        try SoundFileWriter.write(clip, to: path, sampleRate: 48_000)
        let stream = try AudioFileStream(path: path, targetRate: 48_000)
        var block = [Float](repeating: 0, count: 480)
        var collected: [Float] = []
        for _ in 0..<3 {
            var filled = 0
            while filled < 480 {
                let got = try stream.read(into: &block, at: filled, frames: 480 - filled)
                filled += got
                if got == 0 { try stream.rewind() }
            }
            collected += block
        }
        let expected = (0..<1_440).map { clip[$0 % 300] }
        XCTAssertEqual(collected, expected)
    }

    /// A looping stream is the stream of the file repeated: the passes are joined before the
    /// resampler, so a file of N frames looped k times converts as one file of k·N frames would
    /// (compared before that file's end, where it is flushed and the loop goes on). An empty file
    /// ends at once, looping or not.
    func testALoopingStreamConvertsTheRepeatedFile() throws {
        let once = Signals.noise(seed: 5, count: 320), repeated = Array([[Float]](repeating: once, count: 12).joined())
        let loopPath = dir.file("once-16k.wav"), repeatedPath = dir.file("repeated-16k.wav")
        try SoundFileWriter.write(once, to: loopPath, sampleRate: 16_000)
        try SoundFileWriter.write(repeated, to: repeatedPath, sampleRate: 16_000)
        for target in [16_000, 44_100, 48_000] {
            let whole = try AudioFileStream.readAll(path: repeatedPath, targetRate: target).samples
            let compared = whole.count - target / 100   // the last 10 ms: the repeated file's flushed end
            for block in [37, 480, 960, 4_096] {
                let stream = try AudioFileStream(path: loopPath, targetRate: target, loops: true)
                var looped: [Float] = [], buffer = [Float](repeating: .nan, count: block)
                while looped.count < whole.count + block {
                    XCTAssertEqual(try stream.read(into: &buffer, frames: block), block, "a looping stream never ends")
                    looped += buffer
                }
                XCTAssertEqual(Array(looped[0..<compared]), Array(whole[0..<compared]), "block \(block) at \(target) Hz")
            }
        }
        let empty = dir.file("empty.wav")
        try SoundFileWriter.write([], to: empty, sampleRate: 16_000)
        for target in [16_000, 48_000] {
            var buffer = [Float](repeating: 1, count: 480)
            XCTAssertEqual(try AudioFileStream(path: empty, targetRate: target, loops: true).read(into: &buffer, frames: 480), 0)
            XCTAssertEqual(buffer, [Float](repeating: 0, count: 480))
        }
    }
}
