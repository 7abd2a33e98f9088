import AudioCore
@testable import Metrics
import XCTest

/// The tap-free gate on analytic signals: a path that changes mid-call is no talker, a talker
/// under an unchanged path is found, and the decisions are packed one bit per frame.
final class EchoPathGateTests: XCTestCase {
    func testFrameBitsPackOneBitPerFrame() {
        var bits = FrameBits()
        let pattern = (0..<200).map { $0 % 3 == 0 || $0 == 130 }
        for bit in pattern { bits.append(bit) }
        XCTAssertEqual(bits.count, 200)
        XCTAssertEqual((0..<200).map { bits[$0] }, pattern)
        XCTAssertEqual(bits.setCount, pattern.filter { $0 }.count)
        XCTAssertFalse(bits[200], "past the end: no decision, no talk")
        XCTAssertFalse(bits[-1])
    }

    /// 12 s of white noise far end; the echo path is 40 ms / −6 dB for 6 s, then 25 ms / −2 dB
    /// with a reflection; no near end. Every far-end frame is single talk, and ERL is the mix of
    /// the two paths' losses, as the echo track gives it.
    func testAnEchoPathChangeIsNotTakenForTalk() throws {
        let rate = 48_000, change = 6 * rate
        let (reference, _) = TestSignals.farEndScene(seconds: 12)
        let first = TestSignals.delayed(reference, by: 1920, gainDB: -6)
        let direct = TestSignals.delayed(reference, by: 1200, gainDB: -2)
        let reflection = TestSignals.delayed(reference, by: 1700, gainDB: -12)
        let echo = reference.indices.map { $0 < change ? first[$0] : direct[$0] + reflection[$0] }
        let mic = TestSignals.sum(echo, TestSignals.noise(count: echo.count, dbfs: -65, seed: 3))
        let processed = TestSignals.scaled(mic, gainDB: -20)
        let analyzer = EchoAnalyzer()
        let tapped = analyzer.analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: processed,
                                                  echo: echo)).whole
        let tapFree = analyzer.analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: processed)).whole
        XCTAssertEqual(tapFree.gate.method, .echoPathFit)
        // The frames straddling the change mix both paths within one frame; at most those few.
        XCTAssertLessThanOrEqual(tapFree.gate.doubleTalkFrames, 3)
        XCTAssertEqual(try XCTUnwrap(tapFree.erlDB), try XCTUnwrap(tapped.erlDB), accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(tapFree.erleDB), 20, accuracy: 0.01)
    }

    /// A mic of noise alone beside a speech-like far end at 16 kHz, 8.9 s (its last 0.7 s under
    /// half a fitting block, 4.1 s here) and 1 s (shorter than one block): L taps fitted to so
    /// few samples took most of the noise for echo (the 8.9 s call's tail read as far-end single
    /// talk, ERL 54 dB; 21 frames of the 1 s call, 43 dB). A short block whose fit explains no
    /// more than a fit of noise would is predicted by the path before it, or by none. What the
    /// noise tells is a bound: the far end (−20 dBFS) over the mic's noise (−65 dBFS).
    func testANoiseOnlyMicHasNoEchoInAShortBlock() throws {
        let rate = 16_000
        for count in [142_400, 16_000] {
            let far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: rate, count: count, seed: 4)
            let mic = TestSignals.noise(count: count, dbfs: -65, seed: 9)
            let whole = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: far, mic: mic, processed: mic)).whole
            XCTAssertEqual(whole.gate.method, .echoPathFit)
            XCTAssertEqual(whole.gate.farEndActiveFrames, 0, "\(count) samples")
            XCTAssertEqual(whole.gate.singleTalkFrames, 0, "\(count) samples")
            XCTAssertTrue(whole.erlIsLowerBound, "\(count) samples")
            XCTAssertEqual(whole.erlFrames, whole.gate.echoUnderNoiseFrames, "\(count) samples")
            // A speech-like far end at −20 dBFS peaks, lower on average; the noise at −65 dBFS.
            XCTAssertEqual(try XCTUnwrap(whole.erlDB, "\(count) samples"), 43.3, accuracy: 1, "\(count) samples")
            XCTAssertNil(whole.erleDB, "\(count) samples")
        }
    }

    /// A mic with no echo whose talker speaks in bursts between exact zeros (a headset: a
    /// quarter second on, a quarter off), sent as it came: the output equals the mic, so no frame
    /// of it lost the talker. Frames the gate holds as talk across the zeros have no talker to
    /// lose (they read as lost, half the frames: "near end lost" for an untouched near end).
    func testAnUntouchedTalkerBetweenDigitalSilencesIsNotLost() throws {
        let rate = 16_000, count = 15 * rate
        let far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: rate, count: count, seed: 1)
        var random = SeededRandom(seed: 1)
        var mic = [Float](repeating: 0, count: count)
        for start in stride(from: 3 * rate, to: 12 * rate, by: rate / 2) {
            for i in start..<(start + rate / 4) { mic[i] = Float(random.nextGaussian()) * 0.05 }
        }
        let estimate = try XCTUnwrap(EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: far, mic: mic, processed: mic))
            .whole.nearEndEstimate)
        // Over the far end (double talk to the gate) and in its pauses (the talker alone).
        XCTAssertGreaterThan(estimate.frames, 100, "the talker's frames in double talk are judged")
        XCTAssertGreaterThan(estimate.frames + estimate.singleTalkFrames, 200, "the talker's frames are judged")
        XCTAssertEqual(estimate.lostFrames, 0)
        XCTAssertEqual(estimate.singleTalkLostFrames, 0)
        XCTAssertFalse(estimate.isLost)
        XCTAssertFalse(estimate.singleTalkIsLost)
        XCTAssertEqual(try XCTUnwrap(estimate.outputDropDB), 0, accuracy: 0.1)
        XCTAssertGreaterThan(estimate.singleTalkFrames, 20, "the talker in the far end's pauses is judged alone")
        XCTAssertEqual(try XCTUnwrap(estimate.singleTalkOutputDropDB), 0, accuracy: 0.1)
        // Taken off entirely, the same talker is lost on every frame judged.
        let removed = try XCTUnwrap(EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: far, mic: mic,
                                                                       processed: [Float](repeating: 0, count: count))).whole.nearEndEstimate)
        XCTAssertEqual(removed.lostFrames, removed.frames)
        XCTAssertEqual(removed.singleTalkLostFrames, removed.singleTalkFrames)
        XCTAssertTrue(removed.isLost)
        XCTAssertTrue(removed.outputDropIsLowerBound)
    }

    /// A canceller that cuts the talker by 10 dB in double talk and leaves it whole alone: the
    /// double-talk figure reads the cut, the lone talker's none. Pooled, as the estimate was, the
    /// lone talker's frames pulled the figure towards "kept" (a user's 11.9 dB cut read 2.2 dB).
    func testACutInDoubleTalkAloneIsReadThereNotPooledWithTheLoneTalker() throws {
        let rate = 16_000, count = 12 * rate
        var far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: rate, count: count, seed: 3)
        let pause = (7 * rate)..<(10 * rate)
        for i in pause { far[i] = 0 }
        let talker = SignalGenerator.render(.speechLike(levelDBFS: -22, pitchHz: 210), sampleRate: rate, count: count, seed: 4)
        let echo = TestSignals.scaled(TestSignals.delayed(far, by: 640), gainDB: -10)
        let nearEnd = talker.indices.map { (4 * rate..<10 * rate).contains($0) ? talker[$0] : 0 }
        let noise = TestSignals.noise(count: count, dbfs: -70, seed: 5)
        let mic = TestSignals.sum(TestSignals.sum(echo, nearEnd), noise)
        // Echo removed by 30 dB; the talker cut while the far end plays, kept in its pause.
        func estimate(cutDB: Double) throws -> NearEndEstimate {
            let cut = Float(pow(10, -cutDB / 20))
            let output = (0..<count).map { echo[$0] * 0.03 + nearEnd[$0] * (pause.contains($0) ? 1 : cut) + noise[$0] }
            return try XCTUnwrap(EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: far, mic: mic, processed: output))
                .whole.nearEndEstimate)
        }
        let cut = try estimate(cutDB: 10)
        XCTAssertGreaterThanOrEqual(cut.frames, 20, "double talk is judged")
        XCTAssertGreaterThanOrEqual(cut.singleTalkFrames, 20, "the talker alone is judged")
        XCTAssertGreaterThan(try XCTUnwrap(cut.outputDropDB), 6, "the cut, less the residual echo the output holds")
        XCTAssertFalse(cut.isLost)
        XCTAssertEqual(try XCTUnwrap(cut.singleTalkOutputDropDB), 0, accuracy: 0.5)
        // Deleted in double talk: lost there, whole alone (pooled, it read a drop of a few dB, not lost).
        let deleted = try estimate(cutDB: 60)
        XCTAssertTrue(deleted.isLost, "\(deleted)")
        XCTAssertFalse(deleted.singleTalkIsLost)
    }

    /// A talker who speaks only while the loopback is digital silence, and an output that is the
    /// mic K dB down: the output sits exactly K dB under the talker. With no reference samples
    /// the fit absorbs nothing of the talker, so the residual is the mic itself; the
    /// degrees-of-freedom correction the decisions put on it read every such drop 0.58 dB larger
    /// (0.58 for a talker kept whole) and a talker 19.6 dB down as lost.
    func testATalkerInTheFarEndsPauseReadsTheDropTheOutputMade() throws {
        let rate = 16_000, count = 10 * rate
        var far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: rate, count: count, seed: 3)
        for i in (5 * rate + rate / 2)..<(8 * rate + rate / 2) { far[i] = 0 }
        let talker = SignalGenerator.render(.speechLike(levelDBFS: -26, pitchHz: 210), sampleRate: rate, count: count, seed: 4)
        let echo = TestSignals.scaled(TestSignals.delayed(far, by: 640), gainDB: -6)
        let nearEnd = talker.indices.map { (6 * rate..<8 * rate).contains($0) ? talker[$0] : 0 }
        let mic = TestSignals.sum(TestSignals.sum(echo, nearEnd), TestSignals.noise(count: count, dbfs: -70, seed: 5))
        for drop in [0.0, 3, 10, 19.6] {
            let output = TestSignals.scaled(mic, gainDB: -drop)
            let estimate = try XCTUnwrap(EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: far, mic: mic, processed: output))
                .whole.nearEndEstimate, "\(drop) dB")
            // The talker alone: its own figure, no double talk.
            XCTAssertEqual(estimate.frames, 0, "\(drop) dB: no double talk")
            XCTAssertGreaterThan(estimate.singleTalkFrames, 10, "\(drop) dB: the talker's frames are judged")
            XCTAssertEqual(try XCTUnwrap(estimate.singleTalkOutputDropDB), drop, accuracy: 0.1, "\(drop) dB")
            XCTAssertEqual(estimate.singleTalkLostFrames, 0, "\(drop) dB")
            XCTAssertFalse(estimate.singleTalkIsLost, "\(drop) dB")
        }
    }

    /// A mic with no echo and a talker from 6 to 8 s, digital silence elsewhere. A frame whose
    /// mic is under the silence level holds no talker, whatever the fit predicts there: a fit
    /// over a block with the talker in it predicted an echo in the block's silent stretches, and
    /// its residual (the prediction itself) read as a talker — 234 frames of double talk, where
    /// the mic held sound in 125.
    func testNoFrameOfDigitalSilenceIsDoubleTalk() throws {
        let rate = 16_000, count = 10 * rate
        let far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: rate, count: count, seed: 6)
        let talker = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 210), sampleRate: rate, count: count, seed: 7)
        let mic = talker.indices.map { (6 * rate..<8 * rate).contains($0) ? talker[$0] : 0 }
        let whole = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: far, mic: mic, processed: mic)).whole
        XCTAssertEqual(whole.gate.method, .echoPathFit)
        let talkerFrames = Int((2 * Double(whole.gate.frames) / 10).rounded(.up))
        XCTAssertGreaterThan(whole.gate.doubleTalkFrames, 0)
        XCTAssertLessThanOrEqual(whole.gate.doubleTalkFrames, talkerFrames)
        XCTAssertEqual(whole.gate.singleTalkFrames, 0)
        // No echo at all: what the frames the far end played alone in give is a bound, on them.
        XCTAssertNotNil(whole.erlDB)
        XCTAssertTrue(whole.erlIsLowerBound)
        XCTAssertEqual(whole.erlFrames, whole.gate.echoUnderNoiseFrames)
        XCTAssertNil(whole.delayMilliseconds)
    }

    /// A pure echo (40 ms, −6 dB) of 0.5 s at 16 kHz: fewer samples to fit than the path has taps
    /// (512 ms there), so no path can be told from a fit of noise, and the gate says so rather
    /// than read every frame as a talker (25 of 25 frames of double talk, the near end "lost").
    /// At 0.6 s the fit has its samples, and the echo reads as built.
    func testARecordingTooShortToFitIsNotJudged() throws {
        let rate = 16_000
        for (seconds, fits) in [(0.5, false), (0.6, true)] {
            let count = Int(seconds * Double(rate))
            let far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: rate, count: count, seed: 8)
            let mic = TestSignals.delayed(far, by: 640, gainDB: -6)
            let whole = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: far, mic: mic,
                                                           processed: TestSignals.scaled(mic, gainDB: -20))).whole
            XCTAssertEqual(whole.gate.method, .echoPathFit)
            if fits {
                XCTAssertNil(whole.gate.limitation)
                XCTAssertEqual(try XCTUnwrap(whole.erlDB), 6, accuracy: 0.01)
                XCTAssertEqual(try XCTUnwrap(whole.erleDB), 20, accuracy: 0.01)
            } else {
                XCTAssertEqual(whole.gate.limitation, .tooShortToFit)
                XCTAssertEqual(whole.gate.singleTalkFrames, 0)
                XCTAssertEqual(whole.gate.doubleTalkFrames, 0)
                XCTAssertNil(whole.erlDB)
                XCTAssertNil(whole.nearEndEstimate)
            }
        }
    }
}
