import AudioCore
@testable import Metrics
import XCTest

/// `LinearShare`: how much of a mic the reference explains at one lag. A whitened correlation
/// peaks at a shared phase, however little power carries it; an echo is power the far end explains.
final class LinearShareTests: XCTestCase {
    private static let rate = 16_000
    private static let count = 12 * rate
    private static let far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: rate, count: count, seed: 81)
    private static let talker = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 210), sampleRate: rate, count: count, seed: 82)
    private static let noise = TestSignals.noise(count: count, dbfs: -60, seed: 83)

    /// The far end `lag` samples late (negative: early) at `gain`, over a talker who never pauses
    /// and the noise.
    private static func mic(echoGain gain: Float, lag: Int) -> [Float] {
        (0..<count).map { t in
            let source = t - lag
            return (source >= 0 && source < count ? gain * far[source] : 0) + talker[t] + noise[t]
        }
    }

    private static func meanSquare(_ x: [Float]) -> Double { x.reduce(0) { $0 + Double($1) * Double($1) } / Double(x.count) }

    /// A pure delay and gain alone explains the mic whole; the same echo under a talker as loud
    /// as the far end explains its share of the power (echo −10 dB against a −20 dBFS talker).
    func testAnEchoExplainsItsShareOfTheMic() {
        let echo = (0..<Self.count).map { $0 >= 480 ? 0.316 * Self.far[$0 - 480] : 0 }
        XCTAssertEqual(LinearShare(x: Self.far, y: echo, lag: 480, sampleRate: Self.rate).share, 1, accuracy: 0.01)
        XCTAssertTrue(LinearShare.isAnEcho(x: Self.far, y: echo, lag: 480, sampleRate: Self.rate))
        let mic = Self.mic(echoGain: 0.316, lag: -2_080)
        let echoPower = 0.316 * 0.316 * Self.meanSquare(Self.far), talkerPower = Self.meanSquare(Self.talker)
        XCTAssertEqual(LinearShare(x: Self.far, y: mic, lag: -2_080, sampleRate: Self.rate).share, echoPower / (echoPower + talkerPower), accuracy: 0.03)
        XCTAssertTrue(LinearShare.isAnEcho(x: Self.far, y: mic, lag: -2_080, sampleRate: Self.rate))
        // 18 dB under the talker throughout: 2.6 times chance, and none of it at other lags.
        XCTAssertTrue(LinearShare.isAnEcho(x: Self.far, y: Self.mic(echoGain: 0.12, lag: -2_080), lag: -2_080, sampleRate: Self.rate))
    }

    /// No echo: what the far end explains of the talker is under chance (one over the blocks),
    /// and no lag makes it an echo; nor does an echo 30 dB under the talker.
    func testChanceIsNoEcho() {
        let none = LinearShare(x: Self.far, y: Self.mic(echoGain: 0, lag: -2_080), lag: -2_080, sampleRate: Self.rate)
        XCTAssertGreaterThan(none.blocks, 150)
        XCTAssertLessThan(none.share, 1 / Double(none.blocks))
        XCTAssertFalse(LinearShare.isAnEcho(x: Self.far, y: Self.mic(echoGain: 0, lag: -2_080), lag: -2_080, sampleRate: Self.rate))
        XCTAssertFalse(LinearShare.isAnEcho(x: Self.far, y: Self.mic(echoGain: 0.03, lag: -2_080), lag: -2_080, sampleRate: Self.rate))
        XCTAssertEqual(LinearShare(x: Self.far, y: Array(Self.far.prefix(100)), lag: 0, sampleRate: Self.rate).blocks, 0, "shorter than a block")
    }

    /// A faint echo leading its reference by 130 ms, 26 dB under a talker who never pauses: its
    /// whitened correlation peaks at the lead as plainly as the trial's two espeak-ng voices did
    /// over a mic without echo (which read "the echo leads the reference", every figure null),
    /// but it explains no more of the mic than chance. It is deliberately not reported (an echo
    /// that far under a continuous talker is no measurable echo); a loud leading echo still is.
    func testAFaintLeadingEchoUnderAContinuousTalkerIsNotReported() throws {
        let estimator = DelayEstimator(sampleRate: Self.rate, configuration: .default)
        let faint = Self.mic(echoGain: 0.05, lag: -2_080)
        let peaks = try XCTUnwrap(ProcessedLag.correlationPeaks(Self.far, faint, maximumLag: estimator.maxLag))
        XCTAssertEqual(peaks.overall.lag, -2_080, "the whitened correlation alone says it leads")
        XCTAssertGreaterThanOrEqual(peaks.overall.ratio, ProcessedLag.minimumPeakRatio)
        XCTAssertFalse(estimator.echoLeads(reference: Self.far, mic: faint))
        XCTAssertTrue(estimator.echoLeads(reference: Self.far, mic: Self.mic(echoGain: 0.316, lag: -2_080)))
    }

    /// The block search's own path: its blocks see the faint 130 ms lead outside the search, and
    /// the whole stretch's correlation peaks there too; the share at that lag is chance, so the
    /// call's delay is not "outside the search" (the figures stand), while the loud lead is.
    func testTheBlockSearchWeighsAPeakOutsideItByItsShare() {
        func analysed(_ mic: [Float]) -> EchoMetrics {
            EchoAnalyzer().analyze(EchoSignals(sampleRate: Self.rate, reference: Self.far, mic: mic,
                                               processed: TestSignals.scaled(mic, gainDB: -6))).whole
        }
        let faint = analysed(Self.mic(echoGain: 0.05, lag: -2_080))
        XCTAssertNotEqual(faint.delayUnmeasured, .echoOutsideSearch(searchMilliseconds: 500))
        XCTAssertNil(faint.gate.limitation)
        let loud = analysed(Self.mic(echoGain: 0.316, lag: -2_080))
        XCTAssertEqual(loud.delayUnmeasured, .echoOutsideSearch(searchMilliseconds: 500))
        XCTAssertEqual(loud.gate.limitation, .echoOutsideDelaySearch)
    }
}
