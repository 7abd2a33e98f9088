import AudioCore
import Foundation
@testable import Metrics
import XCTest

/// An echo path that changes mid-call (a route change) brings its own delay: told where, the
/// stream searches it again there, and each part is scored against its own. A pure delay and gain
/// has an exactly known delay and ERL on each side of the change.
final class DelaySearchAgainTests: XCTestCase {
    private let rate = 48_000

    /// −20 dBFS white noise for `seconds`; the echo its 10 ms, −6 dB copy before `change` and its
    /// 60 ms, −12 dB copy after; a −70 dBFS room noise; nothing cancelled. Appended in blocks of
    /// `block`; the changes in `searches` told before the first append, or just before the append
    /// that reaches each (`late`).
    private func analyse(seconds: Int = 20, change: Int, searches: [Int], block: Int = 480, late: Bool = false,
                         configuration: EchoMetricsConfiguration = .default) -> EchoAnalysis {
        let count = seconds * rate
        let reference = TestSignals.noise(count: count, dbfs: -20, seed: 1)
        let before = TestSignals.delayed(reference, by: 480, gainDB: -6), after = TestSignals.delayed(reference, by: 2_880, gainDB: -12)
        let echo = (0..<count).map { $0 < change ? before[$0] : after[$0] }
        let near = TestSignals.noise(count: count, dbfs: -70, seed: 2)
        let mic = TestSignals.sum(echo, near)
        let stream = EchoAnalysisStream(sampleRate: rate, configuration: configuration, includesEcho: true, includesNearEnd: true)
        var told = 0
        if !late { searches.forEach(stream.searchDelayAgain(from:)); told = searches.count }
        var start = 0
        while start < count {
            let end = min(count, start + block)
            while told < searches.count, searches[told] < end { stream.searchDelayAgain(from: searches[told]); told += 1 }
            stream.append(reference: Array(reference[start..<end]), mic: Array(mic[start..<end]), processed: Array(mic[start..<end]),
                          echo: Array(echo[start..<end]), nearEnd: Array(near[start..<end]), count: end - start)
            start = end
        }
        return stream.finish(segments: [0..<change, change..<count])
    }

    func testEachSideOfAnEchoPathChangeIsScoredAgainstItsOwnDelay() throws {
        let change = 10 * rate
        let analysis = analyse(change: change, searches: [change])
        XCTAssertEqual(analysis.delaySearches.map(\.startSample), [0, change])
        XCTAssertEqual(try XCTUnwrap(analysis.segments[0].delayMilliseconds), 10, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(analysis.segments[1].delayMilliseconds), 60, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(analysis.segments[0].erlDB), 6.02, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(analysis.segments[1].erlDB), 12.04, accuracy: 0.05)
        // The call's delay is its first search's.
        XCTAssertEqual(try XCTUnwrap(analysis.whole.delayMilliseconds), 10, accuracy: 0.05)
        // Every frame is scored, the one across the change with the first path's shift.
        let frames = analysis.segments.map(\.singleTalkFrames), all = (2 * change - 1_024) / 512 + 1
        XCTAssertGreaterThanOrEqual(frames.reduce(0, +), all - 2, "\(frames)")
        // Written for a reader only where it is the segment's own.
        let json = try XCTUnwrap(String(data: JSONEncoder().encode(analysis.segments[1]), encoding: .utf8))
        XCTAssertTrue(json.contains("\"delay_ms\":60"), json)
    }

    /// Without being told, the stream scores the whole call against the first path's delay, and no
    /// segment carries a delay of its own. (White noise's frame powers hardly depend on the shift,
    /// so its ERL is near 12 dB either way; speech's are not: `RouteDelayTests`.)
    func testWithoutTheChangeTheCallHasOneDelay() throws {
        let analysis = analyse(change: 10 * rate, searches: [])
        XCTAssertEqual(analysis.delaySearches.map(\.startSample), [0])
        XCTAssertEqual(try XCTUnwrap(analysis.whole.delayMilliseconds), 10, accuracy: 0.05)
        XCTAssertFalse(analysis.segments.contains { $0.hasOwnDelay })
        let json = try XCTUnwrap(String(data: JSONEncoder().encode(analysis.segments[1]), encoding: .utf8))
        XCTAssertFalse(json.contains("delay_ms"), json)
    }

    /// The same call appended in other block sizes — a sample at a time around the change, or in
    /// pieces that do not divide a hop — and with the change told just before it arrives: the
    /// same analysis, bit for bit.
    func testTheResultDoesNotDependOnBlockSizesOrWhenTheChangeIsTold() throws {
        let change = 5 * rate + 333
        let reference = analyse(seconds: 10, change: change, searches: [change])
        for (block, late) in [(4_801, false), (1_237, true), (65_536, true)] {
            let other = analyse(seconds: 10, change: change, searches: [change], block: block, late: late)
            XCTAssertEqual(other.segments, reference.segments, "block \(block), late \(late)")
            XCTAssertEqual(other.whole, reference.whole, "block \(block), late \(late)")
            XCTAssertEqual(other.delaySearches, reference.delaySearches, "block \(block), late \(late)")
        }
    }

    /// A change 2 s in, inside the first search's warm-up: that search ends there, on the blocks
    /// before it (the first path's 10 ms), reading nothing of the second path; the second finds 60.
    func testAChangeDuringTheFirstWarmUpEndsItThere() throws {
        let change = 2 * rate
        let analysis = analyse(seconds: 12, change: change, searches: [change])
        XCTAssertEqual(try XCTUnwrap(analysis.delaySearches[0].delaySamples) / 48, 10, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(analysis.delaySearches[1].delaySamples) / 48, 60, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(analysis.segments[1].erlDB), 12.04, accuracy: 0.05)
    }

    /// Two changes a few samples apart (the second the real one), one told late and one earlier
    /// than the last: taken in order, at the later point; and a warm-up of no length at all fixes
    /// each search at once, on what it has (nothing: no delay), without failing.
    func testChangesCloseTogetherAndAnEmptyWarmUpAreTakenInOrder() throws {
        let change = 6 * rate
        let close = analyse(seconds: 12, change: change, searches: [change - 100, change - 200, change])
        XCTAssertEqual(close.delaySearches.map(\.startSample), [0, change - 100, change])
        XCTAssertEqual(try XCTUnwrap(close.segments[1].delayMilliseconds), 60, accuracy: 0.05)
        var configuration = EchoMetricsConfiguration.default
        configuration.delayWarmupSeconds = 0
        let empty = analyse(seconds: 4, change: 2 * rate, searches: [2 * rate], configuration: configuration)
        XCTAssertEqual(empty.delaySearches.map(\.startSample), [0, 2 * rate])
        XCTAssertNil(empty.whole.delayMilliseconds)
    }
}
