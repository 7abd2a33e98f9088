@testable import Metrics
import XCTest

/// The activity gate's decisions per half second: counted as judged, merged when a call outgrows
/// the window budget, and on a noisy room what the gate scored rather than a level threshold.
final class TalkActivityTests: XCTestCase {
    func testFramesAreCountedByKindInTheirWindow() {
        var activity = TalkActivity(hop: 512, windowSamples: 24_000)
        XCTAssertEqual(activity.framesPerWindow, 47)   // 24 000 / 512 = 46.9, rounded
        let kinds: [TalkRun.Talk] = [.farEndSingleTalk, .doubleTalk, .nearEndSingleTalk, .silence]
        for frame in 0..<100 { activity.record(frame: frame, talk: kinds[frame % 4]) }
        XCTAssertEqual(activity.windows.map(\.firstFrame), [0, 47, 94])
        XCTAssertEqual(activity.windows.map(\.frames), [47, 47, 6])
        // Frames 0..<47: 12 st (0, 4, …, 44), 12 dt, 12 nst, 11 silence.
        XCTAssertEqual(activity.windows[0].farEndFrames, 24)
        XCTAssertEqual(activity.windows[0].nearEndFrames, 24)
        XCTAssertEqual(activity.windows[0].doubleTalkFrames, 12)
    }

    func testALongCallMergesNeighboursAndKeepsEveryFrame() {
        var activity = TalkActivity(hop: 1, windowSamples: 1)
        let frames = TalkActivity.maximumWindows * 2 + 3
        for frame in 0..<frames { activity.record(frame: frame, talk: frame < 10 ? .doubleTalk : .farEndSingleTalk) }
        XCTAssertEqual(activity.framesPerWindow, 4)
        XCTAssertLessThanOrEqual(activity.windows.count, TalkActivity.maximumWindows)
        XCTAssertEqual(activity.windows.reduce(0) { $0 + $1.frames }, frames)
        XCTAssertEqual(activity.windows.reduce(0) { $0 + $1.farEndFrames }, frames)
        XCTAssertEqual(activity.windows.reduce(0) { $0 + $1.doubleTalkFrames }, 10)
        XCTAssertEqual(activity.windows.map(\.firstFrame), Array(stride(from: 0, to: frames, by: 4)))
        XCTAssertEqual(activity.windows[0].doubleTalkFrames, 4)
        XCTAssertEqual(activity.windows[2].doubleTalkFrames, 2)
    }

    /// A room whose noise (−45 dBFS) is over the −55 dBFS a level rule would call talking: the
    /// gate, and so the windows, find the near end only where its talker speaks.
    func testANoisyRoomIsNotATalker() {
        let rate = 48_000, count = 8 * rate
        let (reference, echo) = TestSignals.farEndScene(seconds: 8)
        let talker = TestSignals.burst(count: count, during: (3 * rate)..<(5 * rate), dbfs: -20, seed: 7)
        let near = TestSignals.sum(TestSignals.noise(count: count, dbfs: -45, seed: 9), talker)
        let mic = TestSignals.sum(echo, near)
        let analysis = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic,
                                                          processed: TestSignals.scaled(mic, gainDB: -20), echo: echo, nearEnd: near))
        let windows = analysis.talkActivity.windows
        let hop = analysis.talkActivity.hop, span = analysis.talkActivity.framesPerWindow
        func seconds(_ window: TalkActivity.Window) -> Range<Double> {
            Double(window.firstFrame * hop) / Double(rate)..<Double((window.firstFrame + span) * hop) / Double(rate)
        }
        let talking = windows.filter { 2 * $0.nearEndFrames >= $0.frames }
        XCTAssertFalse(talking.isEmpty)
        for window in talking {
            XCTAssertTrue(seconds(window).overlaps(2.9..<5.1), "near end talks at \(seconds(window))")
        }
        let inTalk = windows.filter { seconds($0).lowerBound >= 3.1 && seconds($0).upperBound <= 4.9 }
        XCTAssertFalse(inTalk.isEmpty)
        XCTAssertTrue(inTalk.allSatisfy { $0.doubleTalkFrames == $0.frames }, "\(inTalk)")
        let farOnly = windows.filter { seconds($0).lowerBound >= 5.2 }
        XCTAssertTrue(farOnly.allSatisfy { $0.farEndFrames == $0.frames && $0.nearEndFrames == 0 }, "\(farOnly)")
        XCTAssertEqual(windows.reduce(0) { $0 + $1.frames }, TestSignals.frames(count: count, touching: 0..<0).all)
    }
}
