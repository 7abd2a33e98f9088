import XCTest
import AudioCore
@testable import AudioInterop

/// Write with `SoundFileWriter`, read back with `SoundFileReader`: values within each encoding's quantisation.
final class SoundFileRoundTripTests: XCTestCase {
    var dir: TemporaryDirectory!
    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    private let signal: [Float] = Signals.sine(frequency: 997, sampleRate: 48_000, count: 4_800, amplitude: 0.7)
        + [-1.0, 0.999, 0, -0.5, 1.0 / 32_768, -3.0 / 8_388_608]

    private func roundTrip(_ encoding: SoundFileEncoding) throws -> (SoundFileReader, [Float]) {
        let path = dir.file("rt-\(encoding).wav")
        try SoundFileWriter.write(signal, to: path, sampleRate: 48_000, encoding: encoding)
        let reader = try SoundFileReader(path: path)
        var back = [Float](repeating: .nan, count: signal.count + 10)
        let got = try reader.read(into: &back, frames: signal.count + 10)
        XCTAssertEqual(got, signal.count)
        return (reader, Array(back.prefix(got)))
    }

    func testFloat32IsBitExact() throws {
        let (reader, back) = try roundTrip(.float32)
        XCTAssertEqual(back, signal)
        XCTAssertEqual(reader.sampleRate, 48_000)
        XCTAssertEqual(reader.channelCount, 1)
        XCTAssertEqual(reader.frameCount, Int64(signal.count))
        XCTAssertEqual(reader.formatCode & 0x0FFF_0000, 0x0001_0000, "WAV container")
        XCTAssertEqual(reader.formatCode & 0xFFFF, 0x0006, "float subtype")
        XCTAssertEqual(reader.duration, Double(signal.count) / 48_000, accuracy: 1e-12)
    }

    func testPCM16IsWithinOneStep() throws {
        let (reader, back) = try roundTrip(.pcm16)
        XCTAssertEqual(reader.formatCode & 0xFFFF, 0x0002)
        let worst = zip(back, signal).map { abs($0 - $1) }.max()!
        XCTAssertLessThanOrEqual(worst, 1.0 / 32_768 + 1e-7)
        XCTAssertGreaterThan(worst, 0, "16 bits cannot hold the sine exactly")
        XCTAssertEqual(back[4_800], -1.0, "−1.0 is representable")
    }

    func testPCM24IsWithinOneStep() throws {
        let (reader, back) = try roundTrip(.pcm24)
        XCTAssertEqual(reader.formatCode & 0xFFFF, 0x0003)
        let worst = zip(back, signal).map { abs($0 - $1) }.max()!
        XCTAssertLessThanOrEqual(worst, 1.0 / 8_388_608 + 1e-7)
        XCTAssertEqual(back[4_800], -1.0)
    }

    func testPCMWritesClipInsteadOfWrapping() throws {
        let path = dir.file("clip.wav")
        try SoundFileWriter.write([1.5, -1.5, 0.25], to: path, sampleRate: 16_000, encoding: .pcm16)
        let reader = try SoundFileReader(path: path)
        var back = [Float](repeating: 0, count: 3)
        XCTAssertEqual(try reader.read(into: &back, frames: 3), 3)
        XCTAssertGreaterThan(back[0], 0.999)
        XCTAssertEqual(back[1], -1.0)
        XCTAssertEqual(back[2], 0.25, accuracy: 1e-4)
    }

    func testStereoInterleavingAndStreamingWrites() throws {
        let path = dir.file("stereo.wav")
        let writer = try SoundFileWriter(path: path, sampleRate: 44_100, channelCount: 2)
        let left = Signals.sine(frequency: 440, sampleRate: 44_100, count: 1_000)
        let right = Signals.noise(seed: 1, count: 1_000)
        var interleaved = [Float](repeating: 0, count: 2_000)
        for i in 0..<1_000 { interleaved[2 * i] = left[i]; interleaved[2 * i + 1] = right[i] }
        try writer.write(interleaved, frames: 300)
        try writer.write(interleaved, from: 600, frames: 700)
        try writer.write(interleaved, frames: 0)
        XCTAssertEqual(writer.framesWritten, 1_000)
        try writer.finish()
        try writer.finish()                     // a second finish is a no-op

        let reader = try SoundFileReader(path: path)
        XCTAssertEqual(reader.channelCount, 2)
        XCTAssertEqual(reader.sampleRate, 44_100)
        XCTAssertEqual(reader.frameCount, 1_000)
        var back = [Float](repeating: 0, count: 2_000)
        var total = 0
        while true {
            let got = try reader.read(into: &back, at: total * 2, frames: min(333, 1_000 - total))
            if got == 0 { break }
            total += got
        }
        XCTAssertEqual(total, 1_000)
        XCTAssertEqual(back, interleaved)
        XCTAssertEqual(reader.position, 1_000)
        XCTAssertEqual(try reader.read(into: &back, frames: 10), 0, "0 at the end")
    }

    func testSeekRereadsTheSameFrames() throws {
        let path = dir.file("seek.wav")
        try SoundFileWriter.write(signal, to: path, sampleRate: 48_000)
        let reader = try SoundFileReader(path: path)
        var a = [Float](repeating: 0, count: 100), b = a
        try reader.seek(toFrame: 1_234)
        XCTAssertEqual(reader.position, 1_234)
        _ = try reader.read(into: &a, frames: 100)
        try reader.seek(toFrame: 0)
        _ = try reader.read(into: &b, frames: 10)
        try reader.seek(toFrame: 1_234)
        _ = try reader.read(into: &b, frames: 100)
        XCTAssertEqual(a, Array(signal[1_234..<1_334]))
        XCTAssertEqual(a, b)
        XCTAssertThrowsError(try reader.seek(toFrame: 1_000_000))
    }

    func testEmptyFileRoundTrips() throws {
        let path = dir.file("empty.wav")
        try SoundFileWriter.write([], to: path, sampleRate: 48_000)
        let reader = try SoundFileReader(path: path)
        XCTAssertEqual(reader.frameCount, 0)
        var buffer = [Float](repeating: 0, count: 16)
        XCTAssertEqual(try reader.read(into: &buffer, frames: 16), 0)
    }
}
