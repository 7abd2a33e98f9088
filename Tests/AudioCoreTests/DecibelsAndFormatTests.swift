import XCTest
@testable import AudioCore

/// Level conversions and `AudioFormat` arithmetic.
final class DecibelsAndFormatTests: XCTestCase {
    func testDecibelConversions() {
        XCTAssertEqual(Decibels.amplitude(fromDB: -6), 0.501, accuracy: 0.001)
        XCTAssertEqual(Decibels.amplitude(fromDB: 0), 1)
        XCTAssertEqual(Decibels.powerRatio(100, 1)!, 20, accuracy: 1e-12)
        XCTAssertNil(Decibels.powerRatio(0, 1))
        XCTAssertNil(Decibels.powerRatio(1, 0))
        XCTAssertNil(Decibels.powerRatio(.infinity, 1))
        XCTAssertNil(Decibels.powerRatio(.nan, 1))
        XCTAssertEqual(Decibels.dbfs(meanSquare: 0.01), -20, accuracy: 1e-12)
        XCTAssertEqual(Decibels.dbfs(meanSquare: 0), -.infinity)
    }

    func testAudioFormatFramesAndBytes() {
        XCTAssertEqual(AudioFormat.engine.frames(milliseconds: 10), 480)
        XCTAssertEqual(AudioFormat(sampleRate: 44_100).frames(milliseconds: 10), 441)
        XCTAssertEqual(AudioFormat(sampleRate: 8_000).frames(milliseconds: 20), 160)
        XCTAssertEqual(AudioFormat(sampleRate: 48_000, channelCount: 2, sampleType: .int16).bytesPerFrame, 4)
        XCTAssertEqual(AudioFormat.engine.bytesPerFrame, 4)
        XCTAssertEqual(AudioFormat.engine.description, "48000 Hz, 1 ch, float32")
    }
}
