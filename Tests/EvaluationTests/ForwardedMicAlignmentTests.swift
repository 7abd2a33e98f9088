import Simulation
import XCTest
@testable import Evaluation

/// A forwarded device mic is the room's sound some samples late: the tracks are found at that
/// lag and handed out lined up; a capture they do not hold (another signal, a resampled one) is
/// left as it was, and a tick that is not a forwarded mic's is never looked up.
final class ForwardedMicAlignmentTests: XCTestCase {
    private static let n = 480

    /// Tick `index` of a call whose room holds echo `e(t)` and near end `q(t)`, the capture being
    /// the room `lag` samples late (or `capture` where given).
    private static func tick(_ index: Int, lag: Int, forwarded: Bool = true, capture: ((Int) -> Float)? = nil) -> TickSignals {
        func e(_ t: Int) -> Float { t < 0 ? 0 : Float(sin(Double(t) * 0.013)) * 0.1 }
        func q(_ t: Int) -> Float { Self.near(t) }
        let start = index * n
        let echo = (0..<n).map { e(start + $0) }, near = (0..<n).map { q(start + $0) }
        let mic = (0..<n).map { capture?(start + $0) ?? (e(start + $0 - lag) + q(start + $0 - lag)) }
        return TickSignals(frame: Int64(start), count: n, mic: mic, reference: mic, echo: echo, nearEnd: near, played: mic, sent: mic,
                           nearEndInMic: !forwarded, echoReachesSent: true)
    }

    private static func near(_ t: Int) -> Float { t < 0 ? 0 : Float(sin(Double(t) * 0.0071 + 1)) * 0.05 * Float(t % 7) / 7 }

    /// Over 200 ticks (three turns of the ring), and across a lag that changes by a frame mid-way
    /// (a buffer that gained one): the near-end track handed out is the room's at the lag, sample
    /// for sample.
    func testTheLagIsFoundFollowedAndTheTrackLinedUp() {
        var alignment = ForwardedMicAlignment()
        for index in 0..<200 {
            let lag = index < 100 ? 2_403 : 2_883
            let tick = Self.tick(index, lag: lag)
            let lined = alignment.line(up: tick)
            // Ticks 0–4 hold the room's silence before the call (the capture is silent: no search);
            // tick 5 holds 3 of its samples; tick 100 straddles the change.
            if index < 5 || index == 100 { continue }
            XCTAssertEqual(lined, .shifted(holdsCapture: true), "tick \(index)")
            XCTAssertEqual(alignment.lag, lag, "tick \(index)")
            let start = index * Self.n - lag
            for i in 0..<Self.n where alignment.nearEnd[i] != Self.near(start + i) {
                XCTFail("tick \(index), sample \(i)")
                break
            }
        }
    }

    /// Found once, the lag moves the tracks of a tick it does not hold (a talker through a
    /// resampling mic's filter), which then says the near end is not in it.
    func testALagFoundStaysForTheStretch() {
        var alignment = ForwardedMicAlignment()
        for index in 0..<10 { _ = alignment.line(up: Self.tick(index, lag: 960)) }
        XCTAssertEqual(alignment.lag, 960)
        XCTAssertEqual(alignment.line(up: Self.tick(10, lag: 960, capture: { Float(($0 * 7919) % 97) / 970 })), .shifted(holdsCapture: false))
        XCTAssertEqual(alignment.lag, 960)
        XCTAssertEqual(alignment.line(up: Self.tick(11, lag: 960)), .shifted(holdsCapture: true))
        // The device mic again: the stretch is over.
        XCTAssertEqual(alignment.line(up: Self.tick(12, lag: 0, forwarded: false)), .notForwarded)
        XCTAssertNil(alignment.lag)
    }

    func testACaptureTheTracksDoNotHoldIsLeftAsItWas() {
        var alignment = ForwardedMicAlignment()
        for index in 0..<20 {
            XCTAssertEqual(alignment.line(up: Self.tick(index, lag: 0, capture: { Float(($0 * 7919) % 97) / 970 })), .unaligned, "tick \(index)")
        }
        XCTAssertNil(alignment.lag)
        // The device mic itself (the near end in the mic already) is not looked up.
        var direct = ForwardedMicAlignment()
        XCTAssertEqual(direct.line(up: Self.tick(3, lag: 0, forwarded: false)), .notForwarded)
        XCTAssertNil(direct.lag)
    }
}
