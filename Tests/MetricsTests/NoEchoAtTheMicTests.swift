import AudioCore
@testable import Metrics
import XCTest

/// Where there is no echo to cancel, nothing that needs one is reported as if it were measured.
final class NoEchoAtTheMicTests: XCTestCase {
    private let rate = 48_000

    /// A recording whose echo track holds only 16-bit dither (no echo reached the mic; the mic
    /// holds a talker who pauses and noise at −60 dBFS) and whose clean near-end track is digital
    /// silence in the pauses. The dither stands above that track but not above the mic's noise: no
    /// frame is far-end single talk, as in a simulated call without echo. It was: band "ERLE" of
    /// −16 dB and a "TCLw" under TS 26.131's 46 dB in every mode, `disabled`'s too, beside an ERL
    /// of 76 dB as if the dither were echo. The ERL is the bound it is: the track holds at most
    /// that much echo.
    func testAnEchoTrackOfDitherUnderTheMicsNoiseIsNoEcho() throws {
        let (reference, _) = TestSignals.farEndScene(seconds: 10, erlDB: 6)
        let dither = TestSignals.noise(count: reference.count, dbfs: -101, seed: 5)
        // The near talker speaks every other second; its track is digital silence between.
        let talker = TestSignals.noise(count: reference.count, dbfs: -30, seed: 9)
        let nearEnd = talker.indices.map { ($0 / rate) % 2 == 1 ? talker[$0] : 0 }
        let noise = TestSignals.noise(count: reference.count, dbfs: -60, seed: 7)
        let mic = TestSignals.sum(TestSignals.sum(nearEnd, noise), dither)
        let metrics = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: mic,
                                                         echo: dither, nearEnd: nearEnd)).whole
        XCTAssertEqual(metrics.gate.singleTalkFrames, 0)
        XCTAssertGreaterThan(metrics.gate.echoUnderNoiseFrames, 100, "the far end plays while the talker pauses")
        // −20 dBFS of far end over −101 dBFS of dither.
        XCTAssertEqual(try XCTUnwrap(metrics.erlDB), 81, accuracy: 0.2)
        XCTAssertTrue(metrics.erlIsLowerBound)
        XCTAssertEqual(metrics.erlFrames, metrics.gate.echoUnderNoiseFrames)
        XCTAssertNil(metrics.erleDB)
        XCTAssertTrue(metrics.erleBands.allSatisfy { $0.erleDB == nil && $0.unmeasuredReason == BandERLE.echoUnderNoiseReason })
        XCTAssertNil(metrics.telephony?.echoLoss)
        XCTAssertEqual(metrics.telephony?.echoLossUnmeasuredReason, TelephonyMeasures.echoUnderNoiseReason)
        // An echo over the same noise is heard, and measured.
        let echo = TestSignals.delayed(reference, by: 1920, gainDB: -6)
        let echoed = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: TestSignals.sum(mic, echo),
                                                        processed: mic, echo: echo, nearEnd: nearEnd)).whole
        XCTAssertGreaterThan(echoed.gate.singleTalkFrames, 100)
        XCTAssertEqual(try XCTUnwrap(echoed.erlDB), 6, accuracy: 0.1)
        XCTAssertFalse(echoed.erlIsLowerBound)
        XCTAssertEqual(echoed.erlFrames, echoed.gate.singleTalkFrames)
    }

    /// A wired headset's echo: a pure 60 dB loss and delay, under the mic's noise at −50 dBFS
    /// wherever the far end plays. No frame is far-end single talk, but the echo path's loss is
    /// the verdict, not a gap: with the echo track it is the path's own 60 dB (the track holds
    /// the echo alone here); from mic and loopback alone, the far end's level over the mic's,
    /// 30 dB, which the echo's can only exceed. Both are said to be bounds (what stands for the
    /// echo may hold more than echo), on the frames they stand on. ERLE has no meaning, nor TCLw.
    func testAnEchoUnderTheNoiseHasItsLossAsABound() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 8, erlDB: 60)
        let noise = TestSignals.noise(count: reference.count, dbfs: -50, seed: 7)
        let mic = TestSignals.sum(echo, noise)
        let tracked = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: mic,
                                                         echo: echo, nearEnd: noise)).whole
        XCTAssertEqual(tracked.gate.singleTalkFrames, 0)
        XCTAssertGreaterThan(tracked.gate.echoUnderNoiseFrames, 700)
        XCTAssertEqual(try XCTUnwrap(tracked.erlDB), 60, accuracy: 0.05)
        XCTAssertTrue(tracked.erlIsLowerBound)
        XCTAssertEqual(tracked.erlFrames, tracked.gate.echoUnderNoiseFrames)
        XCTAssertFalse(tracked.isERLLowConfidence)
        XCTAssertNil(tracked.erleDB)
        XCTAssertEqual(tracked.telephony?.echoLossUnmeasuredReason, TelephonyMeasures.echoUnderNoiseReason)

        let recorded = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: mic)).whole
        XCTAssertEqual(recorded.gate.method, .echoPathFit)
        XCTAssertEqual(recorded.gate.singleTalkFrames, 0)
        XCTAssertGreaterThanOrEqual(recorded.erlFrames, FigureConfidence.minimumAnalysisFrames)
        // −20 dBFS over −50 dBFS of noise and −80 dBFS of echo.
        XCTAssertEqual(try XCTUnwrap(recorded.erlDB), 29.996, accuracy: 0.1)
        XCTAssertTrue(recorded.erlIsLowerBound)
        XCTAssertNil(recorded.erleDB)
        // The delay's reason is the gate's, with tracks or without, whether or not the search
        // found a lag of the signals' likeness (without tracks it read "no lag stands out").
        XCTAssertNil(recorded.delayMilliseconds)
        XCTAssertEqual(recorded.delayUnmeasured, .noEchoAtMic)
        XCTAssertEqual(tracked.delayUnmeasured, .noEchoAtMic)
    }

    /// ERL stands on the frames whose echo stayed under the noise only where there is no far-end
    /// single talk (so two modes a frame of single talk apart never read one a bound and the other
    /// a figure), on 20 of them or more, and only where they hold some echo. A segment's range
    /// takes its own frames.
    func testFramesUnderTheNoiseCountOnlyWithoutSingleTalk() throws {
        func summary(singleTalk: Int, underNoise: Int, echo: Double = 1e-8, range: Range<Int>? = nil) -> FrameLedger.RangeSummary {
            var ledger = FrameLedger(sampleRate: rate, frameSize: 1024, bands: [], thirdOctaves: [], maximumSeriesPoints: 100)
            // Under-noise frames first, then the single talk.
            for frame in 0..<underNoise { ledger.appendEchoUnderNoise(frame: frame, reference: 1e-2, echo: echo) }
            for frame in underNoise..<(underNoise + singleTalk) {
                ledger.append(frame: frame, reference: 1e-2, echo: 1e-4, mic: 1e-4, processed: 1e-4, noise: 0,
                              referenceBands: [], micBands: [], processedBands: [],
                              referenceThirdOctaves: [], processedThirdOctaves: [], micThirdOctaves: [])
            }
            let length = (underNoise + singleTalk + 1) * 512
            ledger.frames = WelchFrames(length: length, frameSize: 1024)
            return ledger.summary(in: range ?? 0..<length, stepSamples: 4800, toleranceDB: 3)
        }
        for single in [1, 10, 20] {
            let measured = summary(singleTalk: single, underNoise: 30)
            XCTAssertEqual(try XCTUnwrap(measured.erlDB), 20, accuracy: 1e-4, "\(single) single-talk frames")
            XCTAssertEqual(measured.erlFrames, single)
            XCTAssertFalse(measured.erlIsLowerBound)
        }
        let bounded = summary(singleTalk: 0, underNoise: 30)
        XCTAssertEqual(try XCTUnwrap(bounded.erlDB), 60, accuracy: 1e-4)
        XCTAssertEqual(bounded.erlFrames, 30)
        XCTAssertTrue(bounded.erlIsLowerBound)
        let few = summary(singleTalk: 0, underNoise: 19)
        XCTAssertNil(few.erlDB, "19 frames under the noise are too few to stand on")
        XCTAssertEqual(few.erlFrames, 0)
        XCTAssertFalse(few.erlIsLowerBound)
        let silent = summary(singleTalk: 0, underNoise: 30, echo: 0)
        XCTAssertNil(silent.erlDB, "an echo of digital silence has no loss to bound")
        XCTAssertEqual(silent.erlFrames, 0)
        XCTAssertFalse(silent.erlIsLowerBound)
        // A range holding 25 of the 30 frames under the noise (frames 5…29 start at 2560).
        let segment = summary(singleTalk: 0, underNoise: 30, range: 2560..<(31 * 512))
        XCTAssertEqual(try XCTUnwrap(segment.erlDB), 60, accuracy: 1e-4)
        XCTAssertEqual(segment.erlFrames, 25)
    }

    /// Where far-end single talk has an ERL but the mic never stands over its floor (no ERLE: no
    /// echo to cancel), neither a band nor TCLw reports what the canceller did to the noise.
    func testAnERLWithoutERLEMarksTheBandsAndTCLw() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 10, erlDB: 6)
        let noise = TestSignals.noise(count: reference.count, dbfs: -60, seed: 7)
        let mic = TestSignals.sum(echo, noise)
        var metrics = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic,
                                                         processed: TestSignals.scaled(mic, gainDB: -20), echo: echo, nearEnd: noise)).whole
        XCTAssertTrue(metrics.erleBands.contains { $0.erleDB != nil })
        XCTAssertNotNil(metrics.telephony?.echoLoss)
        metrics.erleDB = nil
        EchoAnalysisStream.markBandsAndEchoLossWithoutEcho(&metrics)
        XCTAssertTrue(metrics.erleBands.allSatisfy { $0.erleDB == nil && $0.unmeasuredReason != nil })
        XCTAssertNil(metrics.telephony?.echoLoss)
        XCTAssertEqual(metrics.telephony?.echoLossUnmeasuredReason,
                       "the echo at the mic stays under its floor in all far-end single talk: there is no echo to lose")
    }

    /// A range whose mic stays under its floor over all its single talk (no ERLE) but over it in
    /// its last half (tracks that do not add up to the mic, as a new user's did), where the output
    /// is under the floor: its steady ERLE would be a bound with nothing to bound, and is none (it
    /// read "≥ 0.0 dB" beside "no echo to cancel, so no ERLE"). Where the output there is over the
    /// floor (1 dB or more: less is a bound), the last half's ERLE is measured, and stays.
    func testNoERLEIsNoSteadyBound() throws {
        func summary(lastHalfProcessed: Double) -> FrameLedger.RangeSummary {
            var ledger = FrameLedger(sampleRate: rate, frameSize: 1024, bands: [], thirdOctaves: [], maximumSeriesPoints: 100)
            let count = 20
            for frame in 0..<count {
                let mic = frame < count / 2 ? 1e-3 : 2.9e-3   // the floor is 2e-3: 1.95e-3 on average
                ledger.append(frame: frame, reference: 4e-3, echo: 1e-3, mic: mic, processed: frame < count / 2 ? mic : lastHalfProcessed,
                              noise: 2e-3, referenceBands: [], micBands: [], processedBands: [],
                              referenceThirdOctaves: [], processedThirdOctaves: [], micThirdOctaves: [])
            }
            ledger.frames = WelchFrames(length: (count + 1) * 512, frameSize: 1024)
            return ledger.summary(in: 0..<((count + 1) * 512), stepSamples: 4800, toleranceDB: 3)
        }
        let bounded = summary(lastHalfProcessed: 1e-4)
        XCTAssertEqual(try XCTUnwrap(bounded.erlDB), 6.02, accuracy: 0.01)
        XCTAssertNil(bounded.erleDB)
        XCTAssertNil(bounded.erleSteadyDB)
        XCTAssertFalse(bounded.erleSteadyIsLowerBound)
        XCTAssertNil(bounded.convergenceSeconds)
        XCTAssertEqual(bounded.steadyFrames, 10, "the frames it would stand on are still counted")
        let measured = summary(lastHalfProcessed: 2.7e-3)   // 1.3 dB over the floor: 0.31 dB under the mic
        XCTAssertNil(measured.erleDB)
        XCTAssertEqual(try XCTUnwrap(measured.erleSteadyDB), 10 * log10(2.9 / 2.7), accuracy: 0.001)
        XCTAssertFalse(measured.erleSteadyIsLowerBound)
    }

    /// Without far-end single talk (the near end alone) every band says why it has no value.
    func testEveryBandSaysWhyWithoutFarEndSingleTalk() {
        let count = 5 * rate
        let nearEnd = TestSignals.noise(count: count, dbfs: -30, seed: 9)
        let silence = [Float](repeating: 0, count: count)
        let metrics = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: silence, mic: nearEnd, processed: nearEnd,
                                                         echo: silence, nearEnd: nearEnd)).whole
        XCTAssertEqual(metrics.gate.singleTalkFrames, 0)
        XCTAssertFalse(metrics.erleBands.isEmpty)
        XCTAssertTrue(metrics.erleBands.allSatisfy { $0.erleDB == nil && $0.unmeasuredReason == "no far-end single talk to measure" })
    }
}
