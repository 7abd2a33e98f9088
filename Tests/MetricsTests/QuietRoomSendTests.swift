@testable import Metrics
import XCTest

/// `QuietRoomSend`: the last half of the frames where neither side talked, read to the bucket,
/// in memory that does not grow with the call.
final class QuietRoomSendTests: XCTestCase {
    private let floor = 1.0

    private func send(_ frames: [Bool], roomPower: Double = 100) -> QuietRoomSend {
        var send = QuietRoomSend()
        for muted in frames { send.add(roomPower: roomPower, sentPower: muted ? roomPower * 1e-4 : roomPower * 0.1, floor: floor) }
        return send
    }

    /// A mute from the middle of the call on: its last half is all muted, whatever the first half sent.
    func testAMuteThroughTheLastHalfIsFound() throws {
        for count in [40, 1000, 100_003] {
            let frames = (0..<count).map { $0 >= count / 2 }
            let muted = try XCTUnwrap(send(frames).mutedRoom(minimumFrames: 20), "\(count)")
            XCTAssertGreaterThanOrEqual(2 * muted.frames, count, "at least the last half: \(count)")
            // To the bucket: 64 buckets at most, so the half read is over by under a 32nd of the call.
            XCTAssertLessThanOrEqual(muted.frames, count / 2 + count / 32 + 1, "\(count)")
            XCTAssertEqual(muted.muted, count - count / 2, "every muted frame is in the last half: \(count)")
        }
    }

    /// A canceller's noise suppressor takes 10–25 dB off the room (20 here): nothing muted. A
    /// send path muted in half its frames, or only in the first half, is no mute either.
    func testWhatIsNotAMute() {
        XCTAssertNil(send(Array(repeating: false, count: 1000)).mutedRoom(minimumFrames: 20))
        XCTAssertNil(send((0..<1000).map { $0 % 2 == 0 }).mutedRoom(minimumFrames: 20))
        XCTAssertNil(send((0..<1000).map { $0 < 500 }).mutedRoom(minimumFrames: 20))
        XCTAssertNotNil(send((0..<1000).map { $0 % 20 != 0 }).mutedRoom(minimumFrames: 20), "95 % of the frames muted")
    }

    /// Too few frames tell nothing, and a room under the floor (digital silence) holds nothing to cut.
    func testTooFewFramesAndASilentMicTellNothing() {
        XCTAssertNil(send(Array(repeating: true, count: 30)).mutedRoom(minimumFrames: 20), "15 in the last half")
        XCTAssertNotNil(send(Array(repeating: true, count: 40)).mutedRoom(minimumFrames: 20))
        let silentMic = send(Array(repeating: true, count: 1000), roomPower: 0.5)
        XCTAssertEqual(silentMic.count, 0)
        XCTAssertNil(silentMic.mutedRoom(minimumFrames: 20))
    }
}
