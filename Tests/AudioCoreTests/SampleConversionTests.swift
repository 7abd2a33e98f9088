import XCTest
@testable import AudioCore

/// Float ⇄ Int16 conversion, saturation, channel downmix and extraction.
final class SampleConversionTests: XCTestCase {
    func testEveryInt16SurvivesARoundTripThroughFloat() {
        var failures = 0
        for value in Int16.min...Int16.max {
            let f = SampleConversion.float(fromInt16: value)
            if SampleConversion.int16(fromFloat: f) != value { failures += 1 }
            if !(f >= -1 && f < 1) { failures += 1 }
        }
        XCTAssertEqual(failures, 0)
    }

    func testFullScaleAndSaturation() {
        XCTAssertEqual(SampleConversion.int16(fromFloat: -1.0), -32_768)
        XCTAssertEqual(SampleConversion.float(fromInt16: -32_768), -1.0)
        XCTAssertEqual(SampleConversion.int16(fromFloat: 1.0), 32_767)
        XCTAssertEqual(SampleConversion.int16(fromFloat: 1.5), 32_767)
        XCTAssertEqual(SampleConversion.int16(fromFloat: -7), -32_768)
        XCTAssertEqual(SampleConversion.int16(fromFloat: .infinity), 32_767)
        XCTAssertEqual(SampleConversion.int16(fromFloat: -.infinity), -32_768)
        XCTAssertEqual(SampleConversion.int16(fromFloat: .nan), 0)
        XCTAssertEqual(SampleConversion.int16(fromFloat: -.nan), 0)
        XCTAssertEqual(SampleConversion.int16(fromFloat: 0), 0)
    }

    func testRoundsToNearest() {
        XCTAssertEqual(SampleConversion.int16(fromFloat: 0.4 / 32_768), 0)
        XCTAssertEqual(SampleConversion.int16(fromFloat: 0.6 / 32_768), 1)
        XCTAssertEqual(SampleConversion.int16(fromFloat: -0.6 / 32_768), -1)
        XCTAssertEqual(SampleConversion.int16(fromFloat: 0.5), 16_384)
        XCTAssertEqual(SampleConversion.int16(fromFloat: 100.4 / 32_768), 100)
    }

    func testDownmixAveragesChannels() {
        let stereo: [Float] = [1, 0, 0.5, -0.5, -1, -1, 0.25, 0.75]
        var out = [Float](repeating: 9, count: 6)
        SampleConversion.downmix(interleaved: stereo, channelCount: 2, frameCount: 4, into: &out, at: 1)
        XCTAssertEqual(out, [9, 0.5, 0, -1, 0.5, 9])

        let three: [Float] = [0.3, 0.6, 0.9, -0.3, 0, 0.3]
        var mono = [Float](repeating: 0, count: 2)
        SampleConversion.downmix(interleaved: three, channelCount: 3, frameCount: 2, into: &mono)
        XCTAssertEqual(mono[0], 0.6, accuracy: 1e-6)
        XCTAssertEqual(mono[1], 0, accuracy: 1e-6)

        var copy = [Float](repeating: 0, count: 3)
        SampleConversion.downmix(interleaved: [0.1, 0.2, 0.3], channelCount: 1, frameCount: 3, into: &copy)
        XCTAssertEqual(copy, [0.1, 0.2, 0.3])
    }

    func testExtractPicksOneChannel() {
        let three: [Float] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
        var out = [Float](repeating: 0, count: 4)
        SampleConversion.extract(channel: 2, interleaved: three, channelCount: 3, frameCount: 3, into: &out, at: 1)
        XCTAssertEqual(out, [0, 3, 6, 9])
        SampleConversion.extract(channel: 0, interleaved: three, channelCount: 3, frameCount: 2, into: &out)
        XCTAssertEqual(out, [1, 4, 6, 9])
    }

    func testChannelSelectionDescriptions() {
        XCTAssertEqual(ChannelSelection.monoOnly.description, "mono only")
        XCTAssertEqual(ChannelSelection.downmix.description, "downmix")
        XCTAssertEqual(ChannelSelection.channel(1).description, "channel 1")
    }
}
