import XCTest
import AudioCore
@testable import AudioInterop

/// Channel selection is explicit: mono only, one channel, or a downmix.
final class AudioFileStreamChannelTests: XCTestCase {
    var dir: TemporaryDirectory!
    var path: String!
    let left = Signals.sine(frequency: 300, sampleRate: 48_000, count: 2_400)
    let right = Signals.noise(seed: 77, count: 2_400, amplitude: 0.3)

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        path = dir.file("stereo.wav")
        let writer = try SoundFileWriter(path: path, sampleRate: 48_000, channelCount: 2)
        var interleaved = [Float](repeating: 0, count: 4_800)
        for i in 0..<2_400 { interleaved[2 * i] = left[i]; interleaved[2 * i + 1] = right[i] }
        try writer.write(interleaved, frames: 2_400)
        try writer.finish()
    }
    override func tearDown() { dir.remove() }

    func testStereoWithMonoOnlyThrowsUnsupportedChannels() {
        XCTAssertThrowsAudioError(.unsupportedChannels(path: path, channelCount: 2, selection: .monoOnly),
                                  try AudioFileStream(path: path, targetRate: 48_000))
        XCTAssertThrowsAudioError(.unsupportedChannels(path: path, channelCount: 2, selection: .monoOnly),
                                  try AudioFileStream.readAll(path: path))
        let message = AudioIOError.unsupportedChannels(path: path, channelCount: 2, selection: .monoOnly).description
        XCTAssertTrue(message.contains(path) && message.contains("2 channels"))
    }

    func testChannelOutOfRangeThrows() {
        XCTAssertThrowsAudioError(.unsupportedChannels(path: path, channelCount: 2, selection: .channel(2)),
                                  try AudioFileStream(path: path, targetRate: 48_000, selection: .channel(2)))
        XCTAssertThrowsAudioError(.unsupportedChannels(path: path, channelCount: 2, selection: .channel(-1)),
                                  try AudioFileStream(path: path, targetRate: 48_000, selection: .channel(-1)))
    }

    func testChannelSelectionTakesThatChannel() throws {
        XCTAssertEqual(try AudioFileStream.readAll(path: path, selection: .channel(0)).samples, left)
        XCTAssertEqual(try AudioFileStream.readAll(path: path, selection: .channel(1)).samples, right)
    }

    func testDownmixAveragesTheChannels() throws {
        let mixed = try AudioFileStream.readAll(path: path, selection: .downmix).samples
        XCTAssertEqual(mixed.count, 2_400)
        let worst = (0..<2_400).map { abs(mixed[$0] - (left[$0] + right[$0]) / 2) }.max()!
        XCTAssertLessThan(worst, 1e-6)
    }

    func testChannelSelectionWithResampling() throws {
        let (samples, _) = try AudioFileStream.readAll(path: path, targetRate: 16_000, selection: .channel(0))
        XCTAssertEqual(Double(samples.count), 800, accuracy: 1)
        XCTAssertEqual(Signals.peakBin(samples, offset: 200, size: 480), 9, "300 Hz in 33.3 Hz bins")
    }

    func testMonoFileAcceptsEverySelectionThatNamesItsOnlyChannel() throws {
        let mono = dir.file("mono.wav")
        try SoundFileWriter.write(left, to: mono, sampleRate: 48_000)
        XCTAssertEqual(try AudioFileStream.readAll(path: mono).samples, left)
        XCTAssertEqual(try AudioFileStream.readAll(path: mono, selection: .downmix).samples, left)
        XCTAssertEqual(try AudioFileStream.readAll(path: mono, selection: .channel(0)).samples, left)
        XCTAssertThrowsError(try AudioFileStream(path: mono, targetRate: 48_000, selection: .channel(1)))
    }
}
