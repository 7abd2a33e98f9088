import AudioCore
import EchoLabJSON
import Metrics
import XCTest

final class EchoAnalyzerTests: XCTestCase {
    let analyzer = EchoAnalyzer()

    func testPureDelayAndGainGiveERLAndZeroERLE() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 10)
        let mic = TestSignals.sum(echo, TestSignals.noise(count: echo.count, dbfs: -60, seed: 2))
        let signals = EchoSignals(sampleRate: 48_000, reference: reference, mic: mic, processed: mic, echo: echo)
        let metrics = analyzer.analyze(signals).whole

        XCTAssertEqual(try XCTUnwrap(metrics.erlDB), 6.0, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(metrics.erleDB), 0.0, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(metrics.delayMilliseconds), 40.0, accuracy: 0.02)
        XCTAssertEqual(metrics.gate.method, .micMinusEcho)
        XCTAssertGreaterThan(metrics.gate.singleTalkFrames, 900)
    }

    func testERLWithoutEchoTrackUsesMic() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 4)
        let metrics = analyzer.analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: echo, processed: echo)).whole
        XCTAssertEqual(try XCTUnwrap(metrics.erlDB), 6.0, accuracy: 0.1)
        // No tracks: the echo-path fit explains the whole mic, so no frame is double talk.
        XCTAssertEqual(metrics.gate.method, .echoPathFit)
        XCTAssertEqual(metrics.gate.doubleTalkFrames, 0)
    }

    func testConstantAttenuationIsERLEEverywhere() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 10)
        let processed = TestSignals.scaled(echo, gainDB: -30)
        let metrics = analyzer.analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: echo,
                                                   processed: processed, echo: echo)).whole

        XCTAssertEqual(try XCTUnwrap(metrics.erleDB), 30, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(metrics.erleSteadyDB), 30, accuracy: 0.1)
        XCTAssertEqual(metrics.convergenceSeconds, 0)
        XCTAssertEqual(metrics.erleSeries.count, 20)
        XCTAssertEqual(metrics.erleSeries.map(\.timeSeconds), (0..<20).map { Double($0) * 0.5 })
        for point in metrics.erleSeries {
            XCTAssertEqual(try XCTUnwrap(point.erleDB), 30, accuracy: 0.1, "t = \(point.timeSeconds)")
        }
        XCTAssertEqual(metrics.erleBands.map(\.lowHz), [125, 250, 500, 1000, 2000, 4000, 8000])
        XCTAssertEqual(metrics.erleBands.map(\.highHz), [250, 500, 1000, 2000, 4000, 8000, 16000])
        for band in metrics.erleBands {
            XCTAssertEqual(try XCTUnwrap(band.erleDB), 30, accuracy: 0.1, "band \(band.lowHz) Hz")
        }
    }

    func testRampingCancellerConvergesWhenItReachesSteadyState() throws {
        let sampleRate = 48_000
        let (reference, echo) = TestSignals.farEndScene(seconds: 8)
        // Attenuation rises linearly in dB from 0 to 30 dB over the first 3 s, then holds.
        let processed = echo.indices.map { index -> Float in
            let attenuation = 30 * min(1, Double(index) / Double(3 * sampleRate))
            return echo[index] * Float(Decibels.amplitude(fromDB: -attenuation))
        }
        let metrics = analyzer.analyze(EchoSignals(sampleRate: sampleRate, reference: reference, mic: echo,
                                                   processed: processed, echo: echo)).whole
        let convergence = try XCTUnwrap(metrics.convergenceSeconds)
        XCTAssertGreaterThanOrEqual(convergence, 2)
        XCTAssertLessThanOrEqual(convergence, 3.5)
        XCTAssertEqual(try XCTUnwrap(metrics.erleSteadyDB), 30, accuracy: 0.1)
        XCTAssertLessThan(try XCTUnwrap(metrics.erleSeries.first?.erleDB), 5)
    }

    func testNearEndOnlyHasNoEchoMetricsAndEncodesNulls() throws {
        let nearEnd = TestSignals.noise(count: 96_000, dbfs: -20, seed: 3)
        let silence = [Float](repeating: 0, count: nearEnd.count)
        let metrics = analyzer.analyze(EchoSignals(sampleRate: 48_000, reference: silence, mic: nearEnd,
                                                   processed: nearEnd, nearEnd: nearEnd)).whole
        XCTAssertNil(metrics.erlDB)
        XCTAssertNil(metrics.erleDB)
        XCTAssertNil(metrics.erleSteadyDB)
        XCTAssertNil(metrics.convergenceSeconds)
        XCTAssertNil(metrics.delayMilliseconds)
        XCTAssertFalse(metrics.erleSeries.isEmpty)
        XCTAssertTrue(metrics.erleSeries.allSatisfy { $0.erleDB == nil })
        XCTAssertTrue(metrics.erleBands.allSatisfy { $0.erleDB == nil })
        XCTAssertEqual(metrics.gate.farEndActiveFrames, 0)
        XCTAssertEqual(metrics.gate.singleTalkFrames, 0)

        let json = try JSONValueEncoder().encode(metrics)
        for key in ["erle_db", "erl_db", "delay_ms", "convergence_s"] { XCTAssertEqual(json[key], .null, key) }
        XCTAssertEqual(try JSONValueDecoder().decode(EchoMetrics.self, from: json), metrics)
    }

    func testDoubleTalkFramesAreExcluded() throws {
        let sampleRate = 48_000, frameSize = 1024, hop = 512
        let (reference, echo) = TestSignals.farEndScene(seconds: 6)
        // Near end talks loudly from 3.0 s to 4.0 s; the canceller removes 20 dB of echo only.
        let talk = 144_000..<192_000
        let nearEnd = TestSignals.burst(count: echo.count, during: talk, dbfs: -20, seed: 4)
        let mic = TestSignals.sum(echo, nearEnd)
        let processed = TestSignals.sum(TestSignals.scaled(echo, gainDB: -20), nearEnd)

        let (frames, overlapping) = TestSignals.frames(count: echo.count, touching: talk, frameSize: frameSize, hop: hop)
        // The first two frames lie wholly before the echo (1920 samples of delay) arrives.
        let active = frames - 2

        for (echoTrack, nearTrack, method) in [(nil, nearEnd, ActivityGateMethod.nearEndTrack),
                                               (echo, nil, ActivityGateMethod.micMinusEcho)] {
            let metrics = analyzer.analyze(EchoSignals(sampleRate: sampleRate, reference: reference, mic: mic,
                                                       processed: processed, echo: echoTrack, nearEnd: nearTrack)).whole
            XCTAssertEqual(metrics.gate, ActivityGateSummary(method: method, frames: frames, farEndActiveFrames: active,
                                                             singleTalkFrames: active - overlapping,
                                                             doubleTalkFrames: overlapping))
            XCTAssertEqual(try XCTUnwrap(metrics.erleDB), 20, accuracy: 0.1, "\(method)")

            // The same talk in a room whose steady noise (−45 dBFS, in the near end) is above the
            // silence level (−55): the gate takes the noise off as the track's floor and finds the
            // talk again, to a frame or two at its edges where the talker's sliver sinks under the
            // noise; the pure delay and gain's ERL is measured (6 dB; the noise 19 dB under the echo).
            let noisy = TestSignals.sum(nearEnd, TestSignals.noise(count: echo.count, dbfs: -45, seed: 5))
            let inNoise = analyzer.analyze(EchoSignals(sampleRate: sampleRate, reference: reference, mic: TestSignals.sum(echo, noisy),
                                                       processed: TestSignals.sum(TestSignals.scaled(echo, gainDB: -20), noisy),
                                                       echo: echoTrack, nearEnd: nearTrack.map { _ in noisy })).whole
            XCTAssertEqual(inNoise.gate.farEndActiveFrames, active, "\(method)")
            XCTAssertEqual(Double(inNoise.gate.doubleTalkFrames), Double(overlapping), accuracy: 4, "\(method)")
            XCTAssertEqual(try XCTUnwrap(inNoise.erlDB), 6.0, accuracy: 0.1, "\(method)")
        }

        // Without tracks the echo-path fit finds the talk from mic and reference alone: the same
        // frames (the talk's edges may differ by a frame, where the near end is a sliver of it).
        let fitted = analyzer.analyze(EchoSignals(sampleRate: sampleRate, reference: reference, mic: mic,
                                                  processed: processed)).whole
        XCTAssertEqual(fitted.gate.method, .echoPathFit)
        XCTAssertEqual(Double(fitted.gate.singleTalkFrames), Double(active - overlapping), accuracy: 2)
        XCTAssertEqual(try XCTUnwrap(fitted.erleDB), 20, accuracy: 0.1)

        // With nothing to tell near end from echo, the talk frames drag ERLE down.
        let stream = EchoAnalysisStream(sampleRate: sampleRate, includesEcho: false, includesNearEnd: false)
        stream.append(reference: reference, mic: mic, processed: processed, echo: nil, nearEnd: nil, count: mic.count)
        let ungated = stream.finish().whole
        XCTAssertEqual(ungated.gate.method, .farEndOnly)
        XCTAssertEqual(ungated.gate.singleTalkFrames, active)
        XCTAssertLessThan(try XCTUnwrap(ungated.erleDB), 15)
    }

    /// A steady ERLE within 6 dB of 0 (no canceller, or one that failed) has no convergence: the
    /// ±3 dB band round it reaches down to "nothing removed", and its first window read as the
    /// fastest of all. Past that, a constant cut converged at once.
    func testNothingRemovedHasNoConvergence() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 6)
        func convergence(_ gainDB: Double) -> Double? {
            analyzer.analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: echo,
                                         processed: TestSignals.scaled(echo, gainDB: gainDB), echo: echo)).whole.convergenceSeconds
        }
        XCTAssertNil(convergence(0), "the mic sent as it is")
        XCTAssertNil(convergence(-1), "1 dB removed")
        XCTAssertNil(convergence(-4), "4 dB removed: its band reaches 1 dB")
        XCTAssertEqual(convergence(-8), 0, "8 dB removed from the start: converged at once")
    }

    func testSegmentsAreMeasuredSeparately() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 6)
        let half = echo.count / 2
        let processed = echo.indices.map { echo[$0] * Float(Decibels.amplitude(fromDB: $0 < half ? -10 : -25)) }
        let analysis = analyzer.analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: echo,
                                                    processed: processed, echo: echo),
                                        segments: [0..<half, half..<echo.count])
        XCTAssertEqual(analysis.segments.count, 2)
        let first = analysis.segments[0], second = analysis.segments[1]
        XCTAssertEqual(first.startSample, 0)
        XCTAssertEqual(second.startSample, half)
        XCTAssertEqual(second.endSample, echo.count)
        XCTAssertEqual(try XCTUnwrap(first.erleDB), 10, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(second.erleDB), 25, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(first.erlDB), 6, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(second.erleSteadyDB), 25, accuracy: 0.1)
        XCTAssertEqual(first.convergenceSeconds, 0)
        XCTAssertEqual(second.convergenceSeconds, 0)
        XCTAssertEqual(analysis.reconvergenceSeconds(after: half), 0)
        let whole = try XCTUnwrap(analysis.whole.erleDB)
        XCTAssertTrue(whole > 10.5 && whole < 24.5, "\(whole)")
        // Frames straddling the boundary (starts 280·512 and 281·512) belong to neither segment.
        XCTAssertEqual(first.singleTalkFrames + second.singleTalkFrames + 2, analysis.whole.gate.singleTalkFrames)
    }

    func testReconvergenceAfterAnEchoPathChange() throws {
        let sampleRate = 48_000
        let (reference, echo) = TestSignals.farEndScene(seconds: 6)
        let change = 3 * sampleRate
        // 10 dB before the change; after it the canceller restarts at 0 dB and ramps to 25 dB in 1 s.
        let processed = echo.indices.map { index -> Float in
            let attenuation = index < change ? 10 : 25 * min(1, Double(index - change) / Double(sampleRate))
            return echo[index] * Float(Decibels.amplitude(fromDB: -attenuation))
        }
        let analysis = analyzer.analyze(EchoSignals(sampleRate: sampleRate, reference: reference, mic: echo,
                                                    processed: processed, echo: echo),
                                        segments: [0..<change, change..<echo.count])
        XCTAssertEqual(try XCTUnwrap(analysis.reconvergenceSeconds(after: change)), 1.0, accuracy: 1e-9)
        XCTAssertEqual(analysis.segments[1].convergenceSeconds, analysis.reconvergenceSeconds(after: change))
        XCTAssertEqual(try XCTUnwrap(analysis.segments[1].erleSteadyDB), 25, accuracy: 0.1)
        XCTAssertNil(analysis.reconvergenceSeconds(after: echo.count))
    }

    func testBandERLEFollowsTheAttenuatedBands() throws {
        let sampleRate = 48_000, count = 4 * sampleRate
        let low = TestSignals.bandLimitedNoise(count: count, sampleRate: sampleRate, lowHz: 150, highHz: 900, seed: 5)
        let high = TestSignals.bandLimitedNoise(count: count, sampleRate: sampleRate, lowHz: 2200, highHz: 15_000, seed: 6)
        let mic = TestSignals.sum(low, high)
        let processed = TestSignals.sum(low, TestSignals.scaled(high, gainDB: -20))
        let metrics = analyzer.analyze(EchoSignals(sampleRate: sampleRate, reference: mic, mic: mic,
                                                   processed: processed)).whole
        let bands = Dictionary(uniqueKeysWithValues: metrics.erleBands.map { ($0.lowHz, $0.erleDB) })
        for lowHz in [125.0, 250, 500] {
            XCTAssertEqual(try XCTUnwrap(bands[lowHz] ?? nil), 0, accuracy: 0.2, "\(lowHz) Hz")
        }
        for lowHz in [2000.0, 4000, 8000] {
            XCTAssertEqual(try XCTUnwrap(bands[lowHz] ?? nil), 20, accuracy: 0.2, "\(lowHz) Hz")
        }
        XCTAssertEqual(try XCTUnwrap(metrics.delayMilliseconds), 0, accuracy: 0.02)
    }

    /// A band the far end puts nothing in has no echo to remove, whatever the room's noise puts
    /// in the mic there: 16 kHz speech's 8–16 kHz under a room noise that is not white (here all
    /// of it above 8 kHz, so the mic's band rises 4.8 dB over its white share of the noise) read
    /// "≥ 0.0 dB" where a quieter room's read null. The far end decides, with its reason.
    func testABandWithoutFarEndContentIsNullWithItsReason() throws {
        let sampleRate = 48_000, count = 4 * sampleRate
        let reference = TestSignals.bandLimitedNoise(count: count, sampleRate: sampleRate, lowHz: 150, highHz: 7000, seed: 5)
        let echo = TestSignals.scaled(reference, gainDB: -6)
        let room = TestSignals.scaled(TestSignals.bandLimitedNoise(count: count, sampleRate: sampleRate, lowHz: 8500, highHz: 15_500, seed: 6),
                                      gainDB: -40)
        let metrics = analyzer.analyze(EchoSignals(sampleRate: sampleRate, reference: reference, mic: TestSignals.sum(echo, room),
                                                   processed: TestSignals.sum(TestSignals.scaled(echo, gainDB: -20), room),
                                                   echo: echo, nearEnd: room)).whole
        let top = try XCTUnwrap(metrics.erleBands.last)
        XCTAssertEqual(top.lowHz, 8000)
        XCTAssertNil(top.erleDB, "\(top)")
        XCTAssertFalse(top.isLowerBound)
        XCTAssertEqual(top.unmeasuredReason, BandERLE.noFarEndReason)
        // The bands the far end fills are measured as before: 20 dB removed, no reason.
        for band in metrics.erleBands where band.lowHz >= 250 && band.highHz <= 4000 {
            XCTAssertEqual(try XCTUnwrap(band.erleDB), 20, accuracy: 0.5, "\(band)")
            XCTAssertNil(band.unmeasuredReason)
        }
    }

    func testSixteenKilohertzDropsBandsAboveNyquist() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 3, sampleRate: 16_000, delaySamples: 600)
        let processed = TestSignals.scaled(echo, gainDB: -12)
        let metrics = analyzer.analyze(EchoSignals(sampleRate: 16_000, reference: reference, mic: echo,
                                                   processed: processed)).whole
        XCTAssertEqual(metrics.erleBands.map(\.lowHz), [125, 250, 500, 1000, 2000, 4000])
        XCTAssertEqual(try XCTUnwrap(metrics.erleDB), 12, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(metrics.erlDB), 6, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(metrics.delayMilliseconds), 37.5, accuracy: 0.1)
        // 512-sample frames (32 ms) at 16 kHz, hop 256.
        XCTAssertEqual(metrics.gate.frames, (48_000 - 512) / 256 + 1)
    }

    func testSameInputGivesBitIdenticalOutput() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 3)
        let processed = TestSignals.scaled(echo, gainDB: -17)
        let signals = EchoSignals(sampleRate: 48_000, reference: reference, mic: echo, processed: processed)
        let first = analyzer.analyze(signals, segments: [0..<70_000])
        let second = analyzer.analyze(signals, segments: [0..<70_000])
        // Double == compares values exactly; the report text compares the printed digits too.
        XCTAssertEqual(first.whole, second.whole)
        XCTAssertEqual(first.segments, second.segments)
        XCTAssertEqual(try JSONValueEncoder().encode(first.whole).canonicalText(), try JSONValueEncoder().encode(second.whole).canonicalText())
    }

    func testShorterThanAFrameGivesNilNotNumbers() {
        let short = TestSignals.noise(count: 500, dbfs: -20, seed: 7)
        let metrics = analyzer.analyze(EchoSignals(sampleRate: 48_000, reference: short, mic: short, processed: short)).whole
        XCTAssertEqual(metrics.gate.frames, 0)
        XCTAssertNil(metrics.erleDB)
        XCTAssertTrue(metrics.erleSeries.isEmpty)
    }
}
