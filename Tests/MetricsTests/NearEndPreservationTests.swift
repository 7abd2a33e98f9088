import AudioCore
import EchoLabJSON
@testable import Metrics
import XCTest

/// Near-end attenuation and distortion on analytic cases: the gain and the error are known.
final class NearEndPreservationTests: XCTestCase {
    let analyzer = EchoAnalyzer()

    /// Far end active throughout (white noise), the near end talking from 2 s to 4 s of 6 s.
    func scene() -> (reference: [Float], echo: [Float], near: [Float], talk: Range<Int>) {
        let (reference, echo) = TestSignals.farEndScene(seconds: 6)
        let talk = 96_000..<192_000
        let speech = TestSignals.noise(count: echo.count, dbfs: -26, seed: 9)
        return (reference, echo, speech.indices.map { talk.contains($0) ? speech[$0] : 0 }, talk)
    }

    func testHalfTheNearEndIsSixDecibelsOfAttenuationAndNoDistortion() throws {
        let (reference, echo, near, _) = scene()
        let mic = TestSignals.sum(echo, near)
        let sent = near.map { $0 * 0.5 }     // echo removed, near end kept at half its level
        let metrics = analyzer.analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: mic, processed: sent,
                                                   echo: echo, nearEnd: near)).whole
        let preservation = try XCTUnwrap(metrics.nearEnd)
        XCTAssertEqual(try XCTUnwrap(preservation.attenuationDB), 20 * log10(2), accuracy: 1e-6)
        XCTAssertLessThanOrEqual(try XCTUnwrap(preservation.distortionDB), -100)
        XCTAssertEqual(preservation.doubleTalkFrames, metrics.gate.doubleTalkFrames)
        XCTAssertGreaterThan(preservation.doubleTalkFrames, 180)
        // The far end never stops: no near-end single talk, nothing made up.
        XCTAssertEqual(preservation.singleTalkFrames, 0)
        XCTAssertNil(preservation.singleTalkAttenuationDB)
        XCTAssertNil(preservation.singleTalkDistortionDB)
    }

    /// A near end sent upside down is kept: an inversion alone is inaudible. It read lost, at its
    /// bound, in the call's figures and in every frame of the double-talk report.
    func testAnInvertedNearEndIsKeptAndSaidToBeInverted() throws {
        var (reference, echo, near, _) = scene()
        // Near-end single talk too: the far end stops at 3 s.
        for i in 144_000..<reference.count { reference[i] = 0 }
        for i in (144_000 + 1920)..<echo.count { echo[i] = 0 }
        let mic = TestSignals.sum(echo, near)
        func measured(_ sent: [Float]) -> EchoMetrics {
            analyzer.analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: mic, processed: sent, echo: echo, nearEnd: near)).whole
        }
        let upright = measured(near.map { $0 * 0.5 }), inverted = measured(near.map { $0 * -0.5 })
        let kept = try XCTUnwrap(inverted.nearEnd)
        XCTAssertTrue(kept.polarityIsInverted)
        XCTAssertFalse(try XCTUnwrap(upright.nearEnd).polarityIsInverted)
        XCTAssertFalse(kept.attenuationIsLowerBound)
        XCTAssertEqual(try XCTUnwrap(kept.attenuationDB), 20 * log10(2), accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(kept.singleTalkAttenuationDB), 20 * log10(2), accuracy: 1e-6)
        // Everything else as the near end sent upright: the double-talk report too.
        var turnedBack = kept
        turnedBack.polarityIsInverted = false
        XCTAssertEqual(turnedBack, upright.nearEnd)
        let doubleTalk = try XCTUnwrap(inverted.telephony?.doubleTalk)
        XCTAssertEqual(doubleTalk, upright.telephony?.doubleTalk)
        XCTAssertEqual(try XCTUnwrap(doubleTalk.attenuationRangeDB), 6.0, accuracy: 0.1)
        XCTAssertFalse(doubleTalk.attenuationRangeIsLowerBound)
        XCTAssertEqual(try JSONValueEncoder().encode(inverted)["near_end"]?["polarity_inverted"], .bool(true))
        XCTAssertNil(try JSONValueEncoder().encode(upright)["near_end"]?["polarity_inverted"])
        // A near end removed entirely is still lost, whatever the sign of its chance correlation.
        let residual = TestSignals.noise(count: near.count, dbfs: -40, seed: 31)
        for sign: Float in [1, -1] {
            let lost = try XCTUnwrap(measured(residual.map { $0 * sign }).nearEnd)
            XCTAssertTrue(lost.attenuationIsLowerBound, "sign \(sign)")
            XCTAssertFalse(lost.polarityIsInverted, "sign \(sign)")
        }
    }

    func testUncorrelatedNoiseInSentIsItsLevelOfDistortion() throws {
        let (reference, echo, near, talk) = scene()
        // Sent keeps the near end and adds noise 14 dB under it while it talks (−26 vs −40 dBFS).
        let noise = TestSignals.noise(count: near.count, dbfs: -40, seed: 21)
        let sent = near.indices.map { talk.contains($0) ? near[$0] + noise[$0] : 0 }
        let metrics = analyzer.analyze(EchoSignals(sampleRate: 48_000, reference: reference,
                                                   mic: TestSignals.sum(echo, near), processed: sent,
                                                   echo: echo, nearEnd: near)).whole
        let preservation = try XCTUnwrap(metrics.nearEnd)
        XCTAssertEqual(try XCTUnwrap(preservation.attenuationDB), 0, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(preservation.distortionDB), -14, accuracy: 0.3)
    }

    func testNearEndSingleTalkIsMeasuredApart() throws {
        // The far end stops at 3 s; the near end talks from 2 s to 4 s; sent halves it while the
        // far end plays and keeps it whole after: double talk 6 dB, single talk 0 dB.
        var (reference, echo, near, _) = scene()
        for i in 144_000..<reference.count { reference[i] = 0 }
        for i in (144_000 + 1920)..<echo.count { echo[i] = 0 }
        let sent = near.indices.map { near[$0] * ($0 < 144_000 + 1920 ? 0.5 : 1) }
        let metrics = analyzer.analyze(EchoSignals(sampleRate: 48_000, reference: reference,
                                                   mic: TestSignals.sum(echo, near), processed: sent,
                                                   echo: echo, nearEnd: near)).whole
        let preservation = try XCTUnwrap(metrics.nearEnd)
        XCTAssertGreaterThan(preservation.singleTalkFrames, 80)
        XCTAssertEqual(try XCTUnwrap(preservation.singleTalkAttenuationDB), 0, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(preservation.attenuationDB), 20 * log10(2), accuracy: 0.3)
    }

    /// Without a near-end track or an echo track there is no near end to measure: null. With the
    /// echo track alone, mic − echo is the near end (here silent: no frame to measure, counted).
    func testNoNearEndTrackIsNull() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 3)
        let metrics = analyzer.analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: echo, processed: echo)).whole
        XCTAssertNil(metrics.nearEnd)
        XCTAssertEqual(try JSONValueEncoder().encode(metrics)["near_end"], .null)
        let echoTrack = analyzer.analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: echo, processed: echo, echo: echo)).whole
        XCTAssertEqual(echoTrack.gate.method, .micMinusEcho)
        let silent = try XCTUnwrap(echoTrack.nearEnd)
        XCTAssertEqual(silent.doubleTalkFrames, 0)
        XCTAssertNil(silent.attenuationDB)
    }

    /// Where the near-end track does not line up with sent (a custom mic sent its own audio), the
    /// stream leaves those frames out: sent there holds something else entirely, and counting it
    /// would read as the canceller removing the near end.
    func testExcludedStretchIsLeftOutOfNearEndPreservation() throws {
        let (reference, echo, near, talk) = scene()
        let mic = TestSignals.sum(echo, near)
        // Sent keeps the near end at half its level in the first half of the talk and holds an
        // unrelated signal (what a custom mic would send) in the second.
        let other = TestSignals.noise(count: near.count, dbfs: -26, seed: 33)
        let split = talk.lowerBound + talk.count / 2
        let sent = near.indices.map { $0 < split ? near[$0] * 0.5 : other[$0] }
        func preservation(excluding excluded: Range<Int>?) throws -> NearEndPreservation {
            let stream = EchoAnalysisStream(sampleRate: 48_000, includesEcho: true, includesNearEnd: true)
            // Given in two pieces, the second while the samples before it are already in.
            if let excluded {
                let middle = excluded.lowerBound + 48_000
                stream.excludeFromNearEndPreservation(excluded.lowerBound..<middle)
                stream.append(reference: reference, mic: mic, processed: sent, echo: echo, nearEnd: near, from: 0, count: middle)
                stream.excludeFromNearEndPreservation(middle..<excluded.upperBound)
                stream.append(reference: reference, mic: mic, processed: sent, echo: echo, nearEnd: near,
                              from: middle, count: near.count - middle)
            } else {
                stream.append(reference: reference, mic: mic, processed: sent, echo: echo, nearEnd: near, count: near.count)
            }
            return try XCTUnwrap(stream.finish().whole.nearEnd)
        }
        let all = try preservation(excluding: nil)
        let kept = try preservation(excluding: split..<near.count)
        // Counted, the unrelated half drags the coherent gain to half of a half: 12 dB, not 6.
        XCTAssertGreaterThan(try XCTUnwrap(all.attenuationDB), 11)
        XCTAssertEqual(try XCTUnwrap(kept.attenuationDB), 20 * log10(2), accuracy: 1e-6)
        XCTAssertLessThanOrEqual(try XCTUnwrap(kept.distortionDB), -100)
        // Frames touching the excluded stretch are gone: those wholly before it remain.
        let hop = 512, frameSize = 1024
        let framesBefore = (split - talk.lowerBound - frameSize) / hop
        XCTAssertLessThan(kept.doubleTalkFrames, all.doubleTalkFrames)
        XCTAssertGreaterThanOrEqual(kept.doubleTalkFrames, framesBefore - 2)
        XCTAssertLessThanOrEqual(kept.doubleTalkFrames, framesBefore + 3)
        // Excluding everything leaves nothing to measure: null, not a made-up value.
        let none = try preservation(excluding: 0..<near.count)
        XCTAssertEqual(none.doubleTalkFrames, 0)
        XCTAssertNil(none.attenuationDB)
    }
}
