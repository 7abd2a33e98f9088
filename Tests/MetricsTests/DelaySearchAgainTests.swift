import AudioCore
import Foundation
@testable import Metrics
import XCTest

/// An echo path that changes mid-call (a route change) brings its own delay: told where, the
/// stream searches it again there, and each part is scored against its own. A pure delay and gain
/// has an exactly known delay and ERL on each side of the change.
final class DelaySearchAgainTests: XCTestCase {
    private let rate = 48_000
    private let change = 10 * 48_000

    /// −20 dBFS white noise; the echo its 10 ms, −6 dB copy before the change and its 60 ms, −12 dB
    /// copy after; a −70 dBFS room noise; nothing cancelled. Appended in 10 ms ticks.
    private func analyse(searchingAgain: Bool) -> EchoAnalysis {
        let count = 2 * change
        let reference = TestSignals.noise(count: count, dbfs: -20, seed: 1)
        let before = TestSignals.delayed(reference, by: 480, gainDB: -6), after = TestSignals.delayed(reference, by: 2_880, gainDB: -12)
        let echo = (0..<count).map { $0 < change ? before[$0] : after[$0] }
        let near = TestSignals.noise(count: count, dbfs: -70, seed: 2)
        let mic = TestSignals.sum(echo, near)
        let stream = EchoAnalysisStream(sampleRate: rate, includesEcho: true, includesNearEnd: true)
        if searchingAgain { stream.searchDelayAgain(from: change) }
        var tick = 0
        while tick < count {
            let end = min(count, tick + 480)
            stream.append(reference: Array(reference[tick..<end]), mic: Array(mic[tick..<end]), processed: Array(mic[tick..<end]),
                          echo: Array(echo[tick..<end]), nearEnd: Array(near[tick..<end]), count: end - tick)
            tick = end
        }
        return stream.finish(segments: [0..<change, change..<count])
    }

    func testEachSideOfAnEchoPathChangeIsScoredAgainstItsOwnDelay() throws {
        let analysis = analyse(searchingAgain: true)
        XCTAssertEqual(analysis.delaySearches.map(\.startSample), [0, change])
        XCTAssertEqual(try XCTUnwrap(analysis.segments[0].delayMilliseconds), 10, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(analysis.segments[1].delayMilliseconds), 60, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(analysis.segments[0].erlDB), 6.02, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(analysis.segments[1].erlDB), 12.04, accuracy: 0.05)
        // The call's delay is its first search's.
        XCTAssertEqual(try XCTUnwrap(analysis.whole.delayMilliseconds), 10, accuracy: 0.05)
        // The frames across the change hold both paths and no echo figure: a handful, not more.
        let frames = analysis.segments.map(\.singleTalkFrames), all = (2 * change - 1_024) / 512 + 1
        XCTAssertGreaterThanOrEqual(frames.reduce(0, +), all - 6, "\(frames)")
        // Written for a reader only where it is the segment's own.
        let json = try XCTUnwrap(String(data: JSONEncoder().encode(analysis.segments[1]), encoding: .utf8))
        XCTAssertTrue(json.contains("\"delay_ms\":60"), json)
    }

    /// Without being told, the stream scores the whole call against the first path's delay, and no
    /// segment carries a delay of its own. (White noise's frame powers hardly depend on the shift,
    /// so its ERL is near 12 dB either way; speech's are not: `RouteDelayTests`.)
    func testWithoutTheChangeTheCallHasOneDelay() throws {
        let analysis = analyse(searchingAgain: false)
        XCTAssertEqual(analysis.delaySearches.map(\.startSample), [0])
        XCTAssertEqual(try XCTUnwrap(analysis.whole.delayMilliseconds), 10, accuracy: 0.05)
        XCTAssertFalse(analysis.segments.contains { $0.delayIsTheSegmentsOwn })
        let json = try XCTUnwrap(String(data: JSONEncoder().encode(analysis.segments[1]), encoding: .utf8))
        XCTAssertFalse(json.contains("delay_ms"), json)
    }
}
