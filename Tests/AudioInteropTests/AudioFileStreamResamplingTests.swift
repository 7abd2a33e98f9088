import XCTest
@testable import AudioInterop

/// `AudioFileStream` at a rate other than the file's: length and content survive the conversion.
final class AudioFileStreamResamplingTests: XCTestCase {
    var dir: TemporaryDirectory!
    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    private func sineFile(rate: Int, frames: Int, frequency: Double = 1_000) throws -> String {
        let path = dir.file("sine-\(rate)-\(frames).wav")
        try SoundFileWriter.write(Signals.sine(frequency: frequency, sampleRate: rate, count: frames), to: path, sampleRate: rate)
        return path
    }

    func testUpsampled44k1FileHasTheRightLengthAndFrequency() throws {
        let path = try sineFile(rate: 44_100, frames: 44_100)
        let (samples, rate) = try AudioFileStream.readAll(path: path, targetRate: 48_000)
        XCTAssertEqual(rate, 48_000)
        XCTAssertEqual(Double(samples.count), 48_000, accuracy: 1, "44 100 frames × 48/44.1")
        // 4 800-point FFT at 48 kHz: 10 Hz bins, so 1 kHz is bin 100.
        XCTAssertEqual(Signals.peakBin(samples, offset: 20_000, size: 4_800), 100)
        // Amplitude is kept (0.5 peak → mean square 0.125) away from the edges.
        XCTAssertEqual(Signals.meanSquare(samples[4_800..<43_200]), 0.125, accuracy: 0.002)
    }

    func testDownsampledFileHasTheRightLengthAndFrequency() throws {
        let path = try sineFile(rate: 48_000, frames: 48_000, frequency: 440)
        let (samples, _) = try AudioFileStream.readAll(path: path, targetRate: 16_000)
        XCTAssertEqual(Double(samples.count), 16_000, accuracy: 1)
        // 1 600-point FFT at 16 kHz: 10 Hz bins, 440 Hz is bin 44.
        XCTAssertEqual(Signals.peakBin(samples, offset: 8_000, size: 1_600), 44)
    }

    func testLengthsAcrossRatesAndOddFileLengths() throws {
        for (rate, frames, target) in [(44_100, 441, 48_000), (44_100, 12_345, 48_000), (8_000, 1_001, 48_000),
                                       (48_000, 4_799, 44_100), (16_000, 3, 48_000), (22_050, 100_000, 16_000)] {
            let path = try sineFile(rate: rate, frames: frames)
            let (samples, _) = try AudioFileStream.readAll(path: path, targetRate: target)
            let expected = Double(frames) * Double(target) / Double(rate)
            XCTAssertEqual(Double(samples.count), expected, accuracy: 1, "\(frames) frames \(rate) → \(target)")
            let stream = try AudioFileStream(path: path, targetRate: target)
            XCTAssertEqual(Double(stream.estimatedFrameCount), expected, accuracy: 1)
        }
    }

    func testSameRateIsPassedThroughExactly() throws {
        let samples = Signals.noise(seed: 12, count: 5_000)
        let path = dir.file("same.wav")
        try SoundFileWriter.write(samples, to: path, sampleRate: 48_000)
        let (back, rate) = try AudioFileStream.readAll(path: path)
        XCTAssertEqual(rate, 48_000)
        XCTAssertEqual(back, samples)
    }

    func testEmptyFileYieldsNothingAtAnyRate() throws {
        let path = dir.file("empty.wav")
        try SoundFileWriter.write([], to: path, sampleRate: 44_100)
        XCTAssertEqual(try AudioFileStream.readAll(path: path, targetRate: 48_000).samples, [])
        XCTAssertEqual(try AudioFileStream.readAll(path: path).samples, [])
    }
}
