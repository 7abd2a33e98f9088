import Evaluation
import Metrics
import XCTest

/// How a call is cut into stretches of one talk type for scorers, on runs whose answer is known
/// (frames of 1024 samples, 512 apart, at 48 kHz: 93.75 frames a second).
final class ScoringStretchTests: XCTestCase {
    func run(_ talk: TalkRun.Talk, _ frames: Range<Int>) -> TalkRun { TalkRun(talk: talk, frames: frames) }

    func testSingleTalkSpansItsPausesAndDoubleTalkJoinsAcrossLessThanASecond() {
        let runs = [run(.silence, 0..<10), run(.farEndSingleTalk, 10..<100), run(.silence, 100..<120), run(.farEndSingleTalk, 120..<200),
                    run(.doubleTalk, 200..<260), run(.farEndSingleTalk, 260..<300), run(.doubleTalk, 300..<400),
                    run(.silence, 400..<600), run(.doubleTalk, 600..<650), run(.nearEndSingleTalk, 650..<660)]
        let stretches = ScoringStretch.stretches(runs, frameSize: 1024, sampleRate: 48_000, length: 10_000_000)
        XCTAssertEqual(stretches, [
            // Far-end single talk 10 … 200 across its pause, trimmed of silence, ended by double talk.
            ScoringStretch(talk: .farEndSingleTalk, samples: (10 * 512)..<(199 * 512 + 1024)),
            // Double talk 200 … 400 (40 frames of far end between: under a second), not 600 … 650
            // (200 frames of silence: over a second; and itself too short).
            ScoringStretch(talk: .doubleTalk, samples: (200 * 512)..<(399 * 512 + 1024)),
        ])
    }

    /// A second of far-end single talk between two double-talk runs a second apart is the double
    /// talk's: it was a stretch of its own too, inside the double-talk one, and scored as both
    /// (a new user's 16 kHz recording, whose tap-free gate heard double talk early).
    func testSingleTalkInsideADoubleTalkStretchIsNotScoredTwice() {
        let runs = [run(.doubleTalk, 0..<100), run(.farEndSingleTalk, 100..<194), run(.doubleTalk, 194..<300), run(.farEndSingleTalk, 300..<500)]
        XCTAssertEqual(ScoringStretch.stretches(runs, frameSize: 1024, sampleRate: 48_000, length: 10_000_000), [
            ScoringStretch(talk: .doubleTalk, samples: 0..<(299 * 512 + 1024)),
            ScoringStretch(talk: .farEndSingleTalk, samples: (300 * 512)..<(499 * 512 + 1024)),
        ])
    }

    func testNothingLongEnoughIsNothing() {
        let runs = [run(.farEndSingleTalk, 0..<50), run(.nearEndSingleTalk, 50..<90), run(.doubleTalk, 90..<100)]
        XCTAssertEqual(ScoringStretch.stretches(runs, frameSize: 1024, sampleRate: 48_000, length: 10_000_000), [])
    }

    func testStretchesEndAtTheAnalysedLength() {
        let stretches = ScoringStretch.stretches([run(.farEndSingleTalk, 0..<300)], frameSize: 1024, sampleRate: 48_000, length: 100_000)
        XCTAssertEqual(stretches.map(\.samples), [0..<100_000])
    }
}
