import XCTest
@testable import VirtualTime

/// Integer time arithmetic and its descriptions.
final class VirtualInstantTests: XCTestCase {
    func testUnitConstructors() {
        XCTAssertEqual(VirtualDuration.microseconds(3).nanoseconds, 3_000)
        XCTAssertEqual(VirtualDuration.milliseconds(3).nanoseconds, 3_000_000)
        XCTAssertEqual(VirtualDuration.seconds(3).nanoseconds, 3_000_000_000)
        XCTAssertEqual(VirtualDuration.frames(480, sampleRate: 48_000), .milliseconds(10))
        XCTAssertEqual(VirtualDuration.frames(1024, sampleRate: 44_100).nanoseconds, 23_219_954)   // rounded down
        XCTAssertEqual(VirtualDuration.frames(1, sampleRate: 3).nanoseconds, 333_333_333)
    }

    func testFramesOfLongRecordingsDoNotOverflow() {
        // 100 hours at 48 kHz is 1.728·10^10 frames; frames·10^9 would overflow Int64.
        let frames: Int64 = 48_000 * 3600 * 100
        XCTAssertEqual(VirtualDuration.frames(frames, sampleRate: 48_000), .seconds(3600 * 100))
        XCTAssertEqual(VirtualDuration.frames(frames + 1, sampleRate: 48_000).nanoseconds, 360_000_000_000_000 + 20_833)
    }

    func testArithmeticAndOrdering() {
        var t = VirtualInstant(nanoseconds: 1_000)
        t += .microseconds(2)
        XCTAssertEqual(t.nanoseconds, 3_000)
        XCTAssertEqual((t - .nanoseconds(500)).nanoseconds, 2_500)
        XCTAssertEqual(t - VirtualInstant(nanoseconds: 4_000), .nanoseconds(-1_000))
        XCTAssertEqual(VirtualDuration.milliseconds(10) * 3, .milliseconds(30))
        XCTAssertEqual(-VirtualDuration.milliseconds(1), .nanoseconds(-1_000_000))
        XCTAssertEqual(VirtualDuration.milliseconds(1) + .microseconds(5) - .nanoseconds(5), .nanoseconds(1_004_995))
        XCTAssertTrue(VirtualInstant.zero < VirtualInstant(nanoseconds: 1))
        XCTAssertTrue(VirtualDuration.nanoseconds(-1) < .zero)
        XCTAssertEqual(VirtualInstant(nanoseconds: 1_500_000_000).seconds, 1.5)
        XCTAssertEqual(VirtualDuration.milliseconds(250).seconds, 0.25)
    }

    func testDescriptionsPickTheCoarsestExactUnit() {
        XCTAssertEqual(VirtualDuration.milliseconds(20).description, "20 ms")
        XCTAssertEqual(VirtualDuration.microseconds(1_500).description, "1500 µs")
        XCTAssertEqual(VirtualDuration.nanoseconds(7).description, "7 ns")
        XCTAssertEqual(VirtualDuration.zero.description, "0 ms")
        XCTAssertEqual(VirtualInstant(nanoseconds: 40_000_000).description, "t=40 ms")
    }
}

extension VirtualInstantTests {
    func testFramesMatchesTheExactFloorForSmallCounts() {
        for rate in [8_000, 11_025, 44_100, 48_000, 96_000] {
            for frames: Int64 in [0, 1, 7, 441, 1024, 47_999, 48_000, 48_001, 1_000_003] {
                XCTAssertEqual(VirtualDuration.frames(frames, sampleRate: rate).nanoseconds,
                               frames * 1_000_000_000 / Int64(rate), "\(frames) frames at \(rate) Hz")
            }
        }
        XCTAssertEqual(VirtualDuration.frames(-1, sampleRate: 3).nanoseconds, -333_333_334, "floor, not truncation")
    }
}
