import AudioCore
import Foundation
import EchoLabJSON
@testable import Metrics
import XCTest

/// Where the residual cannot be measured, ERLE is a lower bound at the measurable range — the
/// mic's power over its noise floor, or over digital silence — never the 103–156 dB that an
/// all-zero output used to read; a near end removed entirely is a bound too, not a null; and
/// every figure carries the frames it stands on. Scenes of white noise, whose power ratios are
/// known: the expected bounds are the levels the signals were made at (within the spread of
/// ~900 Welch frames' estimates).
final class BoundsAndConfidenceTests: XCTestCase {
    private let rate = 48_000
    /// 16-bit quantisation noise, the floor of digital silence: 2⁻³⁰/12, in dB.
    private let quantisationDB = 10 * log10(1.0 / (12 * Double(1 << 30)))

    /// An echo at −26 dBFS over noise at −60 dBFS, cancelled to all zeros: with the tracks, ERLE
    /// is at least the mic's level over the noise, 34 dB, and flagged a bound.
    func testAnOutputOfZerosIsABoundAtTheMicsLevelOverItsNoise() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 10, erlDB: 6)
        let noise = TestSignals.noise(count: reference.count, dbfs: -60, seed: 7)
        let mic = TestSignals.sum(echo, noise)
        let zeros = [Float](repeating: 0, count: mic.count)
        let metrics = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: zeros,
                                                         echo: echo, nearEnd: noise)).whole
        let expected = 10 * log10(pow(10, -2.6) + pow(10, -6.0)) + 60
        XCTAssertTrue(metrics.erleIsLowerBound)
        XCTAssertTrue(metrics.erleSteadyIsLowerBound)
        XCTAssertEqual(try XCTUnwrap(metrics.erleDB), expected, accuracy: 0.2)
        XCTAssertEqual(try XCTUnwrap(metrics.erleSteadyDB), expected, accuracy: 0.2)
        XCTAssertTrue(metrics.erleSeries.allSatisfy { $0.erleDB == nil || $0.isLowerBound })
        XCTAssertEqual(metrics.erleSteadyFrames, metrics.gate.singleTalkFrames - metrics.gate.singleTalkFrames / 2)
        XCTAssertEqual(metrics.erleSeries.map(\.frames).reduce(0, +), metrics.gate.singleTalkFrames)
        // An output 30 dB under the mic stays above the noise (34 dB under it): measured as it is.
        let quiet = TestSignals.scaled(mic, gainDB: -30)
        let measured = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: quiet,
                                                          echo: echo, nearEnd: noise)).whole
        XCTAssertFalse(measured.erleIsLowerBound)
        XCTAssertEqual(try XCTUnwrap(measured.erleDB), 30, accuracy: 1e-3)
    }

    /// Without tracks (a recording), the noise floor is the mic's between talkers: a far end
    /// that pauses leaves frames of noise alone, and the bound is the mic's level over them.
    func testARecordingsBoundIsTheMicsLevelOverItsQuietFrames() throws {
        let (speech, _) = TestSignals.farEndScene(seconds: 12, erlDB: 6)
        // The far end talks 1 s, pauses 1 s.
        let reference = speech.enumerated().map { ($0.offset / rate) % 2 == 0 ? $0.element : 0 }
        let echo = TestSignals.delayed(reference, by: 1920, gainDB: -6)
        let noise = TestSignals.noise(count: reference.count, dbfs: -60, seed: 7)
        let mic = TestSignals.sum(echo, noise)
        let metrics = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic,
                                                         processed: [Float](repeating: 0, count: mic.count))).whole
        XCTAssertEqual(metrics.gate.method, .echoPathFit)
        XCTAssertTrue(metrics.erleIsLowerBound)
        // The quiet frames' 10th percentile sits within a few tenths of a dB of the noise's power.
        XCTAssertEqual(try XCTUnwrap(metrics.erleDB), 10 * log10(pow(10, -2.6) + pow(10, -6.0)) + 60, accuracy: 0.4)
    }

    /// Digital zeros before the recording started hold no noise: the floor is the mic's noise
    /// between talkers still. 2 s of zeros in front of a call put it at digital silence, and an
    /// output at the room's noise read as measured ERLE up to ~75 dB.
    func testLeadingDigitalZerosAreNotTheRecordingsNoise() throws {
        let (speech, _) = TestSignals.farEndScene(seconds: 12, erlDB: 6)
        let reference = speech.enumerated().map { ($0.offset / rate) % 2 == 0 ? $0.element : 0 }
        let echo = TestSignals.delayed(reference, by: 1920, gainDB: -6)
        let mic = TestSignals.sum(echo, TestSignals.noise(count: reference.count, dbfs: -60, seed: 7))
        let zeros = [Float](repeating: 0, count: 2 * rate)
        let metrics = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: zeros + reference, mic: zeros + mic,
                                                         processed: [Float](repeating: 0, count: zeros.count + mic.count))).whole
        XCTAssertTrue(metrics.erleIsLowerBound)
        XCTAssertEqual(try XCTUnwrap(metrics.erleDB), 10 * log10(pow(10, -2.6) + pow(10, -6.0)) + 60, accuracy: 0.4)
    }

    /// A recording whose far end never pauses has no quiet frames: the floor is the tap-free
    /// gate's residual after the fitted echo (its low quantile, so within about a dB of the
    /// noise), not digital silence, which read an output at −90 dBFS as 63.7 dB of ERLE.
    func testARecordingWithoutPausesIsBoundedAtTheGatesResidualFloor() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 10, erlDB: 6)
        let mic = TestSignals.sum(echo, TestSignals.noise(count: echo.count, dbfs: -50, seed: 7))
        let metrics = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic,
                                                         processed: TestSignals.noise(count: mic.count, dbfs: -90, seed: 8))).whole
        XCTAssertEqual(metrics.gate.method, .echoPathFit)
        XCTAssertTrue(metrics.erleIsLowerBound)
        XCTAssertEqual(try XCTUnwrap(metrics.erleDB), 10 * log10(pow(10, -2.6) + pow(10, -5.0)) + 50, accuracy: 1.5)
    }

    /// With no noise at all, the floor is digital silence: an echo at −26 dBFS cancelled to zeros
    /// is at least 75 dB of ERLE (−26 dBFS over 16-bit quantisation noise), and says so.
    func testWithoutNoiseTheFloorIsDigitalSilence() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 6, erlDB: 6)
        let metrics = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: echo,
                                                         processed: [Float](repeating: 0, count: echo.count),
                                                         echo: echo, nearEnd: [Float](repeating: 0, count: echo.count))).whole
        XCTAssertTrue(metrics.erleIsLowerBound)
        XCTAssertEqual(try XCTUnwrap(metrics.erleDB), -26 - quantisationDB, accuracy: 0.2)
        // Each band is bounded at its share of digital silence the same way.
        for band in metrics.erleBands where band.erleDB != nil {
            XCTAssertTrue(band.isLowerBound, "\(band)")
            XCTAssertEqual(try XCTUnwrap(band.erleDB), -26 - quantisationDB, accuracy: 0.5, "\(band)")
        }
    }

    /// Each band's floor is its share of the frames' noise (white, as the tracks measure it
    /// whole-band), not digital silence: white echo at −26 dBFS over white noise at −60 dBFS,
    /// cancelled to zeros, is at least 34 dB of ERLE in every band — as in the whole band —
    /// where digital silence read it as about 75 dB.
    func testEachBandIsBoundedAtItsShareOfTheNoise() throws {
        let reference = TestSignals.noise(count: 6 * rate, dbfs: -20, seed: 3)
        let echo = reference.map { $0 * 0.5 }
        let near = TestSignals.noise(count: reference.count, dbfs: -60, seed: 9)
        let metrics = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: TestSignals.sum(echo, near),
                                                         processed: [Float](repeating: 0, count: echo.count),
                                                         echo: echo, nearEnd: near)).whole
        let expected = 10 * log10(pow(10, -2.602) + pow(10, -6.0)) + 60
        XCTAssertTrue(metrics.erleIsLowerBound)
        XCTAssertEqual(try XCTUnwrap(metrics.erleDB), expected, accuracy: 0.3)
        // White echo fills every band above the noise: each has a value, and each is a bound.
        XCTAssertEqual(metrics.erleBands.filter { $0.erleDB != nil }.count, metrics.erleBands.count)
        XCTAssertGreaterThanOrEqual(metrics.erleBands.count, 6)
        for band in metrics.erleBands where band.erleDB != nil {
            XCTAssertTrue(band.isLowerBound, "\(band)")
            XCTAssertEqual(try XCTUnwrap(band.erleDB), expected, accuracy: 1, "\(band)")
        }
    }

    /// A near end removed entirely in double talk is the worst case, a bound: its attenuation is
    /// at least the near end's level over the most a lost talker can hold — a thousandth of the
    /// output, and no less than digital silence.
    func testANearEndRemovedEntirelyIsABoundNotANull() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 6, erlDB: 6)
        // A talker who starts half a second in: a near end as steady as noise from the first frame
        // to the last is the gate's room noise (`SteadyNoise`), not a talker.
        let near = TestSignals.noise(count: reference.count, dbfs: -30, seed: 9).enumerated().map { $0.offset < rate / 2 ? 0 : $0.element }
        let mic = TestSignals.sum(echo, near)
        let zeros = [Float](repeating: 0, count: mic.count)
        let nearEnd = try XCTUnwrap(EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: zeros,
                                                                       echo: echo, nearEnd: near)).whole.nearEnd)
        XCTAssertGreaterThan(nearEnd.doubleTalkFrames, 400)
        XCTAssertTrue(nearEnd.isLost)
        XCTAssertNil(nearEnd.distortionDB)
        XCTAssertEqual(try XCTUnwrap(nearEnd.attenuationDB), -30 - quantisationDB, accuracy: 0.1)
        // An output of unrelated noise 30 dB under the near end holds nothing of it, whatever
        // the sign of their chance correlation: lost, at the bound (−30 over a thousandth of
        // −60 dBFS: ≥ 60 dB).
        for seed in UInt64(0)..<6 {
            let unrelated = TestSignals.noise(count: mic.count, dbfs: -60, seed: 100 + seed)
            let lost = try XCTUnwrap(EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: unrelated,
                                                                        echo: echo, nearEnd: near)).whole.nearEnd)
            XCTAssertTrue(lost.isLost, "seed \(seed): \(lost)")
            XCTAssertEqual(try XCTUnwrap(lost.attenuationDB), 60, accuracy: 0.1, "seed \(seed)")
        }
        // An output of residual echo louder than the talker (the echo alone, −26 dBFS against the
        // talker's −30) bounds a lost talker well above 0 dB: it holds under a thousandth of that
        // output (−30 − (−26 − 30) = 26 dB), where the whole output as the ceiling read "≥ 0 dB".
        let echoOnly = try XCTUnwrap(EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: echo,
                                                                        echo: echo, nearEnd: near)).whole.nearEnd)
        XCTAssertTrue(echoOnly.isLost)
        XCTAssertEqual(try XCTUnwrap(echoOnly.attenuationDB), 26, accuracy: 0.2)
        // A near end kept whole is measured, not bounded.
        let kept = try XCTUnwrap(EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: near,
                                                                    echo: echo, nearEnd: near)).whole.nearEnd)
        XCTAssertFalse(kept.isLost)
        XCTAssertEqual(try XCTUnwrap(kept.attenuationDB), 0, accuracy: 1e-6)
    }

    /// A figure over fewer than 20 analysis frames is low-confidence: a segment of a tenth of a
    /// second has its ERLE, its frame count, and the mark.
    func testAFigureOnFewFramesIsLowConfidence() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 4, erlDB: 6)
        let analysis = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: echo,
                                                          processed: TestSignals.scaled(echo, gainDB: -20)),
                                              segments: [48_000..<52_800, 96_000..<192_000])
        let short = analysis.segments[0], long = analysis.segments[1]
        // 1024-sample frames every 512 samples wholly inside 48 000..<52 800: 48 128 … 51 712.
        XCTAssertEqual(short.singleTalkFrames, 8)
        XCTAssertEqual(short.erleSteadyFrames, 4)
        XCTAssertTrue(short.isLowConfidence)
        XCTAssertEqual(try XCTUnwrap(short.erleDB), 20, accuracy: 1e-3)
        XCTAssertFalse(long.isLowConfidence)
        XCTAssertFalse(long.isSteadyLowConfidence)
        XCTAssertFalse(analysis.whole.isLowConfidence)
        XCTAssertEqual(FigureConfidence.minimumAnalysisFrames, 20)
        XCTAssertFalse(FigureConfidence.isLow(frames: 0), "no frames: no value at all, nothing to mark")
    }

    /// A clean near-end track (silent here) and a mic with −40 dBFS of noise the track does not
    /// hold; the canceller takes the echo and the noise off. Its output is under the mic's noise,
    /// where no residual can be told from nothing: steady ERLE is the mic's power over that noise
    /// (the echo at −26 dBFS: 14.2 dB) and a lower bound — from mic − echo with an echo track,
    /// from the mic between the far end's talk spurts without one.
    func testMicNoiseMissingFromACleanNearEndTrackIsTheFloor() throws {
        var (reference, echo) = TestSignals.farEndScene(seconds: 8)
        // The far end pauses 2.0–3.0 s (and its echo 40 ms later): frames with nobody talking.
        for index in 96_000..<144_000 { reference[index] = 0 }
        for index in 97_920..<145_920 { echo[index] = 0 }
        let noise = TestSignals.noise(count: echo.count, dbfs: -40, seed: 6)
        let mic = TestSignals.sum(echo, noise)
        let processed = TestSignals.sum(TestSignals.scaled(echo, gainDB: -40), TestSignals.scaled(noise, gainDB: -20))
        let silentNearEnd = [Float](repeating: 0, count: echo.count)
        let expected = 10 * log10((pow(10.0, -2.6) + pow(10.0, -4.0)) / pow(10.0, -4.0))

        for echoTrack in [echo, nil] {
            let metrics = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic,
                                                       processed: processed, echo: echoTrack, nearEnd: silentNearEnd)).whole
            XCTAssertEqual(metrics.gate.method, .nearEndTrack)
            XCTAssertTrue(metrics.erleSteadyIsLowerBound, "echo track: \(echoTrack != nil)")
            XCTAssertEqual(try XCTUnwrap(metrics.erleSteadyDB), expected, accuracy: 0.5, "echo track: \(echoTrack != nil)")
        }
    }

    /// The floor estimate keeps its quantile as frames arrive: after every frame it is the bin a
    /// search from the bottom finds — over levels that rise, fall, jump and repeat.
    func testTheFloorsQuantileIsKeptAsFramesArrive() {
        var random = SeededRandom(seed: 11)
        for quantile in [0.02, 0.1, 0.5] {
            var estimate = NoiseFloorEstimate(quantile: quantile, minimumFrames: 1)
            var levels: [Double] = []
            for frame in 0..<1_500 {
                // Steady noise, then a talker 30 dB up, then digital silence now and then.
                let base = frame < 500 ? -60.0 : frame < 1_000 ? -30.0 : -45.0
                let level = frame % 97 == 0 ? -400.0 : base + 6 * Double(random.nextUnitFloat()) - 3
                let power = pow(10, level / 10)
                estimate.add(power: power)
                levels.append(power)
                let sorted = levels.map { max(-250, 10 * log10(max($0, 1e-300))) }.sorted()
                // The search from the bottom: the first level whose count reaches the quantile.
                let rank = max(0, Int((quantile * Double(levels.count)).rounded(.up)) - 1)
                let bin = Int(((sorted[rank] + 250) / 0.25).rounded(.down))
                let expected = pow(10, (-250 + (Double(bin) + 0.5) * 0.25) / 10)
                XCTAssertEqual(estimate.power!, expected, accuracy: expected * 1e-12, "quantile \(quantile), frame \(frame)")
            }
        }
    }
    /// Convergence passes over a window on under a quarter of the fullest window's frames: a
    /// canceller steady at 40 dB from the start converged "at 5.5 s", on one frame at a talker's
    /// onset 9 dB off, then three frames back within 3 dB.
    func testConvergencePassesOverWindowsOnAFewFrames() {
        func point(_ time: Double, _ erle: Double?, _ frames: Int) -> ERLEPoint {
            ERLEPoint(timeSeconds: time, erleDB: erle, frames: frames)
        }
        let steady = [point(0, 40, 47), point(0.5, 39.5, 46), point(1, 40.2, 47)]
        XCTAssertEqual(FrameLedger.convergence(steady + [point(1.5, 31, 1), point(2, 40, 3)], steady: 40, toleranceDB: 3).seconds, 0)
        // A window on enough frames still counts: 12 of 47 is a quarter.
        XCTAssertEqual(FrameLedger.convergence(steady + [point(1.5, 31, 11), point(2, 40, 12)], steady: 40, toleranceDB: 3).seconds, 0)
        // It counts against convergence as much as for it: 31 dB breaks the run, and the one
        // window after it shows no settling.
        XCTAssertNil(FrameLedger.convergence(steady + [point(1.5, 31, 12), point(2, 40, 12)], steady: 40, toleranceDB: 3).seconds)
        XCTAssertEqual(FrameLedger.convergence(steady + [point(1.5, 31, 12), point(2, 40, 12), point(2.5, 41, 40)], steady: 40,
                                               toleranceDB: 3).seconds, 2)
        // A series that never settles has no convergence, whatever its last few frames read.
        let swinging = [point(0, 1.5, 25), point(0.5, 19.9, 30), point(1, 10.2, 1), point(1.5, 10.5, 3)]
        XCTAssertNil(FrameLedger.convergence(swinging, steady: 10.2, toleranceDB: 3).seconds)
    }

    /// Only the last full window within the tolerance is no convergence: a speech call whose ERLE
    /// swung 5–18 dB to its end read "converged at 11.5 s" of 12, the eval median for 15 of 21
    /// modes. Two windows are the least that show it settled.
    func testConvergenceNeedsTwoWindowsThatStaySettled() {
        let erle = [5.0, 18, 6, 17, 5.5, 16.5, 11]
        let swinging = erle.indices.map { ERLEPoint(timeSeconds: 0.5 * Double($0), erleDB: erle[$0], frames: 40) }
        XCTAssertNil(FrameLedger.convergence(swinging, steady: 11.5, toleranceDB: 3).seconds)
        let settling = swinging + [ERLEPoint(timeSeconds: 3.5, erleDB: 12, frames: 40)]
        XCTAssertEqual(FrameLedger.convergence(settling, steady: 11.5, toleranceDB: 3).seconds, 3)
    }

    /// A bound at the mic's floor under the band does not show the ERLE left it: the window is
    /// passed over. A canceller at the floor from 0.5 s, "≥ 38 dB", with one quiet window at
    /// 9 s reading "≥ 28 dB", converged "at 9.5 s" (at 113.5 s of a two-minute call).
    func testABoundUnderTheBandIsNoDeparture() {
        func point(_ time: Double, _ erle: Double, bound: Bool = true) -> ERLEPoint {
            ERLEPoint(timeSeconds: time, erleDB: erle, isLowerBound: bound, frames: 40)
        }
        let floor = (1...24).map { point(0.5 * Double($0), $0 == 18 ? 28.05 : 38 + Double($0 % 3) / 2) }
        XCTAssertEqual(FrameLedger.convergence(floor, steady: 38.3, toleranceDB: 3).seconds, 0.5)
        // Read at a bound: the floor was reached at 0.5 s, the steady state then or later (the
        // ERLE may have gone on rising under the floor): a lower bound.
        XCTAssertTrue(FrameLedger.convergence(floor, steady: 38.3, toleranceDB: 3).isLowerBound)
        // The same window measured, not a bound, is a departure: convergence after it.
        var measured = floor
        measured[17] = point(9, 28.05, bound: false)
        XCTAssertEqual(FrameLedger.convergence(measured, steady: 38.3, toleranceDB: 3).seconds, 9.5)
        // A bound over the band has left it (more removed than the steady figure: no settling to it).
        var over = floor
        over[17] = point(9, 45)
        XCTAssertEqual(FrameLedger.convergence(over, steady: 38.3, toleranceDB: 3).seconds, 9.5)
        // Passed over is not settled: a bound under the band and one window in it show no settling.
        XCTAssertNil(FrameLedger.convergence([point(0.5, 20), point(1, 38, bound: false)], steady: 38, toleranceDB: 3).seconds)
        XCTAssertEqual(FrameLedger.convergence([point(0.5, 38, bound: false), point(1, 20), point(1.5, 38, bound: false)],
                                               steady: 38, toleranceDB: 3).seconds, 0.5)
        // Every window from it on measured, and the steady state: the settling was seen, the time
        // is measured.
        let seen = [point(0.5, 38, bound: false), point(1, 38.5, bound: false), point(1.5, 37.5, bound: false)]
        XCTAssertEqual(FrameLedger.convergence(seen, steady: 38, toleranceDB: 3).seconds, 0.5)
        XCTAssertFalse(FrameLedger.convergence(seen, steady: 38, toleranceDB: 3).isLowerBound)
        // A steady state that is a bound may stand higher: the time is a lower bound.
        XCTAssertTrue(FrameLedger.convergence(seen, steady: 38, steadyIsLowerBound: true, toleranceDB: 3).isLowerBound)
        // A bound from it on, read at or after, settled or passed over: its truth may stand over
        // the band, so the ERLE may have left it.
        XCTAssertTrue(FrameLedger.convergence([point(0.5, 38, bound: false), point(1, 20), point(1.5, 38, bound: false)],
                                              steady: 38, toleranceDB: 3).isLowerBound)
        XCTAssertTrue(FrameLedger.convergence([point(0.5, 38), point(1, 38.5, bound: false), point(1.5, 37.5, bound: false)],
                                              steady: 38, toleranceDB: 3).isLowerBound)
        // A bound before it does not: the time is after it, where the settling was seen.
        let boundBefore = [point(0.5, 10), point(1, 30, bound: false), point(1.5, 38, bound: false), point(2, 38.5, bound: false)]
        XCTAssertEqual(FrameLedger.convergence(boundBefore, steady: 38, toleranceDB: 3).seconds, 1.5)
        XCTAssertFalse(FrameLedger.convergence(boundBefore, steady: 38, toleranceDB: 3).isLowerBound)
        XCTAssertEqual(FrameLedger.convergence([point(0.5, 38), point(1, 38.5, bound: false), point(1.5, 37.5)],
                                               steady: 38, toleranceDB: 3).seconds, 0.5)
    }

    /// A canceller whose output sits at the mic's noise from the start is never seen settling:
    /// its convergence is when the output reached the floor, a lower bound, in the call and in a
    /// segment. It read "0.00 s", the fastest of all. One whose residual stands over the noise is
    /// seen settling: measured.
    func testAConvergenceSeenOnlyAtTheFloorIsALowerBound() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 8, erlDB: 6)
        let noise = TestSignals.noise(count: echo.count, dbfs: -70, seed: 3)
        let mic = TestSignals.sum(echo, noise)
        func analysis(_ sent: [Float]) -> EchoAnalysis {
            EchoAnalyzer().analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: mic, processed: sent, echo: echo, nearEnd: noise),
                                   segments: [0..<(4 * 48_000), (4 * 48_000)..<echo.count])
        }
        let atFloor = analysis(noise)
        XCTAssertTrue(atFloor.whole.erleSteadyIsLowerBound)
        XCTAssertEqual(try XCTUnwrap(atFloor.whole.convergenceSeconds), 0, accuracy: 0.51)
        XCTAssertTrue(atFloor.whole.convergenceIsLowerBound)
        XCTAssertTrue(atFloor.segments[1].convergenceIsLowerBound)
        XCTAssertEqual(JSONValue(encoding: atFloor.whole)["convergence_is_lower_bound"], .bool(true))
        let measured = analysis(TestSignals.sum(noise, TestSignals.scaled(echo, gainDB: -25)))
        XCTAssertFalse(measured.whole.erleSteadyIsLowerBound)
        XCTAssertNotNil(measured.whole.convergenceSeconds)
        XCTAssertFalse(measured.whole.convergenceIsLowerBound)
        XCTAssertFalse(measured.segments[1].convergenceIsLowerBound)
    }

    /// A steady state within twice the tolerance of 0 dB has no convergence: its ±3 dB band reaches
    /// down to "nothing removed", so speex on Bluetooth HFP after the speaker, steady at 4.2 dB
    /// and 1.7–2.2 dB from the start, "converged at 0.00 s". Past 6 dB the same rule holds as ever.
    func testASteadyStateNearNothingRemovedHasNoConvergence() {
        let flat = [1.7, 2.2, 1.9, 4.0, 4.5, 4.2].enumerated().map { ERLEPoint(timeSeconds: 0.5 * Double($0.offset), erleDB: $0.element, frames: 40) }
        XCTAssertNil(FrameLedger.convergence(flat, steady: 4.2, toleranceDB: 3).seconds)
        XCTAssertNil(FrameLedger.convergence(flat, steady: 6.0, toleranceDB: 3).seconds)
        let rising = [1.0, 4.0, 6.5, 7.0, 7.2].enumerated().map { ERLEPoint(timeSeconds: 0.5 * Double($0.offset), erleDB: $0.element, frames: 40) }
        XCTAssertEqual(FrameLedger.convergence(rising, steady: 7.1, toleranceDB: 3).seconds, 1.0, "4.0 is just outside 7.1 ± 3")
    }
}

/// A floor is an estimate (a band's: the whole band's shared out as if white): an output less than
/// 1 dB over it is a bound, at the mic over the output, not a measured residual. A perfect
/// canceller's bands read measured or bounded by chance (49.06 dB beside ≥ 59.79) and failed
/// TS 26.131's 46 dB.
final class BandFloorMarginTests: XCTestCase {
    func testAnOutputWithinOneDecibelOfABandsFloorIsABound() throws {
        let floor = 1e-6, mic = 1e-1
        let on = MeasurableFloor.bandERLE(mic: mic, processed: floor * 1.02, floor: floor)
        XCTAssertTrue(on.isLowerBound)
        XCTAssertEqual(try XCTUnwrap(on.value), 10 * log10(mic / (floor * 1.02)), accuracy: 1e-9)
        let under = MeasurableFloor.bandERLE(mic: mic, processed: floor * 0.98, floor: floor)
        XCTAssertTrue(under.isLowerBound)
        XCTAssertEqual(try XCTUnwrap(under.value), 50, accuracy: 1e-9)
        let over = MeasurableFloor.bandERLE(mic: mic, processed: floor * 1.3, floor: floor)
        XCTAssertFalse(over.isLowerBound)
        XCTAssertEqual(try XCTUnwrap(over.value), 10 * log10(mic / (floor * 1.3)), accuracy: 1e-9)
        // The whole band alike: its floor is measured, but what the canceller did to the noise
        // on it is not (0.06 dB over its floor read a measured 28.8 dB beside another's "≥ 28.9",
        // and `metrics` on the same taps called it a bound).
        XCTAssertTrue(MeasurableFloor.erle(mic: mic, processed: floor * 1.02, floor: floor).isLowerBound)
        XCTAssertTrue(MeasurableFloor.erle(mic: mic, processed: floor * 1.25, floor: floor).isLowerBound, "0.97 dB over")
        XCTAssertFalse(MeasurableFloor.erle(mic: mic, processed: floor * 1.26, floor: floor).isLowerBound, "1.004 dB over")
        XCTAssertNil(MeasurableFloor.bandERLE(mic: floor, processed: floor, floor: floor).value)
    }
}

/// A band's floor is never under the band's own noise where the tracks give it: room noise is not
/// white, and a Bluetooth route's noise over its echo in the upper bands, under a white share
/// there, read as residual echo (TCLw 24.8 dB beside an ERL of 40.8, AEC disabled). TCLw leaves
/// out a band whose echo stands less than 10 dB over that floor.
final class BandNoiseFloorTests: XCTestCase {
    func testABandWhoseNoiseOutweighsItsEchoIsLeftOut() throws {
        let rate = 48_000
        let reference = TestSignals.noise(count: 6 * rate, dbfs: -20, seed: 3)
        let echo = reference.map { $0 * 0.01 }                                  // 40 dB down: −60 dBFS
        // Noise ringing round 4 kHz (a two-pole resonator), −72 dBFS in all: over the echo in the
        // 4 kHz third octave, and at 400 Hz far under it (12 dB under it even spread white, as the
        // floor shares the whole band's noise out).
        let white = TestSignals.noise(count: reference.count, dbfs: -20, seed: 9)
        let angle = 2 * Double.pi * 4000 / Double(rate), radius = 0.985
        var ringing = [Double](repeating: 0, count: white.count)
        for n in white.indices {
            ringing[n] = Double(white[n]) + (n > 0 ? 2 * radius * cos(angle) * ringing[n - 1] : 0) - (n > 1 ? radius * radius * ringing[n - 2] : 0)
        }
        let rms = (ringing.reduce(0) { $0 + $1 * $1 } / Double(ringing.count)).squareRoot()
        let noise = ringing.map { Float($0 / rms * pow(10, -72.0 / 20)) }
        let mic = TestSignals.sum(echo, noise)
        let loss = try XCTUnwrap(EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: mic,
                                                                    echo: echo, nearEnd: noise)).whole.telephony?.echoLoss)
        let bands = Dictionary(uniqueKeysWithValues: loss.bands.map { ($0.centreHz, $0) })
        XCTAssertNil(bands[4000], "4 kHz holds noise, not echo: \(loss.bands)")
        // Where the echo stands over the noise, the loss is the path's, measured (less the noise's share).
        let low = try XCTUnwrap(bands[400])
        XCTAssertFalse(low.isLowerBound)
        XCTAssertEqual(low.lossDB, 40 - 10 * log10(1 + pow(10, -1.2)), accuracy: 1)
        // Nothing cancelled, the bands left are the path's 40 dB: so is TCLw.
        XCTAssertFalse(loss.isLowerBound)
        XCTAssertEqual(loss.tclwDB, 40, accuracy: 1)
    }
}
