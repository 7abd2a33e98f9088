import AudioCore
import Metrics
import XCTest

final class DelayEstimationTests: XCTestCase {
    private func estimatedDelay(samples: Int, sampleRate: Int = 48_000, seconds: Double = 2,
                                configuration: EchoMetricsConfiguration = .default) throws -> Double {
        try XCTUnwrap(reportedDelay(samples: samples, sampleRate: sampleRate, seconds: seconds, configuration: configuration))
    }

    private func reportedDelay(samples: Int, sampleRate: Int = 48_000, seconds: Double = 2,
                               configuration: EchoMetricsConfiguration = .default) -> Double? {
        let (reference, echo) = TestSignals.farEndScene(seconds: seconds, sampleRate: sampleRate,
                                                         delaySamples: samples, erlDB: 10, seed: 11)
        let mic = TestSignals.sum(echo, TestSignals.noise(count: echo.count, dbfs: -50, seed: 12))
        return EchoAnalyzer(configuration: configuration)
            .analyze(EchoSignals(sampleRate: sampleRate, reference: reference, mic: mic, processed: mic)).whole.delayMilliseconds
    }

    func testIntegerDelaysAt48kHz() throws {
        for samples in [0, 240, 123, 14_400] {
            let expected = Double(samples) / 48
            XCTAssertEqual(try estimatedDelay(samples: samples), expected, accuracy: 0.05, "\(samples) samples")
        }
    }

    /// A loudspeaker or amplifier wired the other way round inverts the echo: the whitened
    /// correlation peaks negative at the delay (with positive flanks a sample either side), and
    /// read no delay.
    func testAnInvertedEchoPathHasItsDelay() throws {
        for samples in [0, 123, 14_400] {
            let (reference, echo) = TestSignals.farEndScene(seconds: 2, delaySamples: samples, erlDB: 10, seed: 11)
            let mic = TestSignals.sum(echo.map { -$0 }, TestSignals.noise(count: echo.count, dbfs: -50, seed: 12))
            let delay = EchoAnalyzer().analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: mic, processed: mic)).whole.delayMilliseconds
            XCTAssertEqual(try XCTUnwrap(delay, "\(samples) samples"), Double(samples) / 48, accuracy: 0.05, "\(samples) samples")
        }
        // A voice: its flank a few samples from the trough stood out, and read as the delay.
        for rate in [48_000, 16_000] {
            let voice = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: rate, count: 4 * rate, seed: 46)
            let lag = 37 * rate / 1000
            let mic = voice.indices.map { $0 >= lag ? -0.5 * voice[$0 - lag] : 0 }
            let delay = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: voice, mic: mic, processed: mic)).whole.delayMilliseconds
            XCTAssertEqual(try XCTUnwrap(delay, "\(rate) Hz"), 37, accuracy: 0.01, "\(rate) Hz")
        }
    }

    func testDelayAt16kHz() throws {
        for samples in [0, 123, 800, 4_000] {
            let expected = Double(samples) / 16
            XCTAssertEqual(try estimatedDelay(samples: samples, sampleRate: 16_000), expected, accuracy: 0.1,
                           "\(samples) samples")
        }
    }

    func testMicShorterThanABlockUsesOneZeroPaddedBlock() throws {
        // 0.2 s is far shorter than the 16384-sample block.
        XCTAssertEqual(try estimatedDelay(samples: 100, seconds: 0.2), 100.0 / 48, accuracy: 0.05)
    }

    /// A clip that shares less than 0.1 s with its reference moved by the delay tells none: clips
    /// of 5–50 ms cut from a call with a 60 ms echo (none holding the echo of its own far end)
    /// read no delay, where the whitened correlation of so few samples peaked at 0.05–8.2 ms; a
    /// clip of 0.2 s still reads its echo's.
    func testAClipTooShortToHoldItsEchoTellsNoDelay() throws {
        let rate = 48_000
        let voice = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: rate, count: 2 * rate, seed: 46)
        let echo = voice.indices.map { $0 >= 2_880 ? 0.5 * voice[$0 - 2_880] : 0 }
        func delay(ofClip milliseconds: Int) -> Double? {
            let clip = rate..<(rate + milliseconds * rate / 1000)
            return EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: Array(voice[clip]), mic: Array(echo[clip]),
                                                      processed: Array(echo[clip]))).whole.delayMilliseconds
        }
        for milliseconds in [5, 10, 20, 50] { XCTAssertNil(delay(ofClip: milliseconds), "\(milliseconds) ms") }
        XCTAssertEqual(try XCTUnwrap(delay(ofClip: 200)), 60, accuracy: 0.05)
    }

    /// On the edges of the search: an echo at 495 ms is found, not taken for one past 500 ms; a
    /// digital loopback (lag 0, its flank at −1) stays at 0.
    func testAnEchoOnTheSearchsEdgesIsFound() throws {
        XCTAssertEqual(try estimatedDelay(samples: 23_760, seconds: 6), 495, accuracy: 0.05)
        XCTAssertEqual(try estimatedDelay(samples: 0, seconds: 6), 0, accuracy: 0.05)
    }

    func testDelayBeyondTheSearchRangeIsNotReported() throws {
        // Searching only 0…100 ms, a 300 ms echo leaves no significant peak: null, not a made-up lag.
        let configuration = EchoMetricsConfiguration(maxDelayMilliseconds: 100)
        XCTAssertNil(reportedDelay(samples: 14_400, configuration: configuration))
        // The same echo inside the range is found.
        XCTAssertEqual(try estimatedDelay(samples: 14_400), 300, accuracy: 0.05)
    }

    /// A far end that repeats itself every 480 ms (a synthetic voice's rhythm is that regular), its
    /// echo 20 ms ahead of the loopback (a loopback recorded late) or 520 ms behind it: the search
    /// over 0…500 ms found the repetition shifted by the true lag (460 and 40 ms) and reported it.
    /// Now the higher peak outside the range says the echo lies there: no delay, no tap-free scores
    /// (the causal fit cannot model it); with an echo track, ERL is measured unaligned and right.
    func testAnEchoOutsideTheSearchIsSaidToBeThereNotMadeUp() throws {
        let rate = 48_000, count = 12 * rate, period = 23_040
        let phrase = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 130), sampleRate: rate, count: period, seed: 31)
        let variation = TestSignals.noise(count: count, dbfs: -32, seed: 32)
        let reference = (0..<count).map { phrase[$0 % period] + variation[$0] }
        let noise = TestSignals.noise(count: count, dbfs: -65, seed: 33)
        // 25 ms: the repetition puts an equal peak at 505 ms, just outside the search, where the
        // block overlaps the mic window as fully as at 25 ms; the echo inside is kept.
        for lag in [-960, 24_960, 2_880, 1_200] {
            let echo = (0..<count).map { index -> Float in
                let source = index - lag
                return source >= 0 && source < count ? 0.316 * reference[source] : 0
            }
            let mic = TestSignals.sum(echo, noise)
            let processed = TestSignals.scaled(mic, gainDB: -6)
            let analyzer = EchoAnalyzer()
            let tapFree = analyzer.analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: processed)).whole
            let tracked = analyzer.analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: processed, echo: echo)).whole
            if lag > 0 && lag < 24_000 {
                XCTAssertEqual(try XCTUnwrap(tapFree.delayMilliseconds), Double(lag) / 48, accuracy: 0.05)
                XCTAssertNil(tapFree.echoOutsideDelaySearchMilliseconds)
                XCTAssertNil(tapFree.gate.limitation)
                XCTAssertEqual(try XCTUnwrap(tapFree.erlDB), 10, accuracy: 0.1)
                continue
            }
            for whole in [tapFree, tracked] {
                XCTAssertNil(whole.delayMilliseconds, "lag \(lag)")
                XCTAssertEqual(whole.delayUnmeasured, .echoOutsideSearch(searchMilliseconds: 500), "lag \(lag)")
            }
            XCTAssertEqual(tapFree.gate.limitation, .echoOutsideDelaySearch, "lag \(lag)")
            XCTAssertEqual(tapFree.gate.singleTalkFrames, 0, "lag \(lag)")
            XCTAssertNil(tapFree.erlDB)
            XCTAssertEqual(try XCTUnwrap(tracked.erlDB), 10, accuracy: 0.2, "lag \(lag)")
            XCTAssertEqual(try XCTUnwrap(tracked.erleDB), 6, accuracy: 0.01, "lag \(lag)")
        }
    }

    /// A tonal far end — a tone, the music-like chord — 200 ms late read 0 ms: its correlation
    /// repeats at every period of its lines, and the leakage between them votes for lag 0. Now it
    /// has no delay and says why, at 48, 16 and 8 kHz alike; a voice and noise 200 ms late still
    /// read 200 ms, unflagged.
    func testATonalFarEndHasNoDelayAndSaysWhy() throws {
        let signals: [(String, SignalKind, Bool)] = [
            ("tone", .tone(frequency: 1250, levelDBFS: -20), true), ("chord", .musicLike(levelDBFS: -20), true),
            ("voice", .speechLike(levelDBFS: -20, pitchHz: 120), false), ("noise", .whiteNoise(levelDBFS: -20), false),
        ]
        for rate in [48_000, 16_000, 8_000] {
            for (name, signal, tonal) in signals {
                let reference = SignalGenerator.render(signal, sampleRate: rate, count: 4 * rate, seed: 41)
                let whole = Self.analysed(reference, delaySamples: rate / 5, sampleRate: rate)
                XCTAssertEqual(whole.delayUnmeasured == .tonalFarEnd, tonal, "\(name) at \(rate) Hz")
                if tonal {
                    XCTAssertNil(whole.delayMilliseconds, "\(name) at \(rate) Hz")
                } else {
                    XCTAssertEqual(try XCTUnwrap(whole.delayMilliseconds, "\(name) at \(rate) Hz"), 200, accuracy: 0.2, "\(name) at \(rate) Hz")
                }
            }
        }
    }

    /// What is tonal only in part keeps its delay: a ringback tone louder than the speech after it
    /// (each block's spectrum counts once, as in the correlation), and voice clips of one to three
    /// blocks (those here read as tonal without the ambiguity rule), whose few voiced spectra can look tonal but whose correlation peaks once.
    func testSpeechAfterATonalStartAndShortVoiceClipsKeepTheirDelay() throws {
        let rate = 48_000
        let tone = SignalGenerator.render(.tone(frequency: 425, levelDBFS: -10), sampleRate: rate, count: rate, seed: 1)
        let voice = SignalGenerator.render(.speechLike(levelDBFS: -30, pitchHz: 110), sampleRate: rate, count: 2 * rate, seed: 43)
        let ringback = Self.analysed(tone + voice, delaySamples: 2_880, sampleRate: rate)
        XCTAssertNil(ringback.delayUnmeasured)
        XCTAssertEqual(try XCTUnwrap(ringback.delayMilliseconds), 60, accuracy: 0.05)
        for seconds in [0.3, 0.5] {
            for (seed, pitch) in [(44, 110.0), (45, 180.0)] {
                let clip = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: pitch), sampleRate: rate,
                                                  count: Int(seconds * Double(rate)), seed: UInt64(seed))
                let whole = Self.analysed(clip, delaySamples: 2_880, sampleRate: rate)
                XCTAssertNil(whole.delayUnmeasured, "\(seconds) s at \(pitch) Hz")
                if let delay = whole.delayMilliseconds { XCTAssertEqual(delay, 60, accuracy: 0.05, "\(seconds) s at \(pitch) Hz") }
            }
        }
    }

    /// `reference` echoed `delaySamples` late at −6 dB over −70 dBFS noise, analysed with its echo
    /// track (the delay search is the same with or without it; the tap-free fit only costs time).
    private static func analysed(_ reference: [Float], delaySamples: Int, sampleRate: Int) -> EchoMetrics {
        let echo = reference.indices.map { $0 >= delaySamples ? 0.5 * reference[$0 - delaySamples] : 0 }
        let mic = TestSignals.sum(echo, TestSignals.noise(count: echo.count, dbfs: -70, seed: 42))
        return EchoAnalyzer().analyze(EchoSignals(sampleRate: sampleRate, reference: reference, mic: mic, processed: mic, echo: echo)).whole
    }

    /// Unrelated signals of one band (telephone speech's 300–3400 Hz, or 100–2000 Hz) read a delay
    /// of 0–9 samples at 18–79 σ, or an echo outside the search: each block and its mic window are
    /// cut at the same sample, and the steps' leakage, whitened, outvoted the signals wherever they
    /// were weaker. The blocks tapered say no lag stands out; the same band's echo at 0 and 100 ms
    /// is still found where it is.
    func testUnrelatedSignalsOfOneBandHaveNoDelay() throws {
        let rate = 48_000, count = 6 * rate
        for (band, seed) in [((300.0, 3_400.0), UInt64(1)), ((300, 3_400), 2), ((100, 2_000), 3)] {
            let reference = TestSignals.bandLimitedNoise(count: count, sampleRate: rate, lowHz: band.0, highHz: band.1, seed: 20 + seed)
            let mic = TestSignals.bandLimitedNoise(count: count, sampleRate: rate, lowHz: band.0, highHz: band.1, seed: 40 + seed)
            let whole = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: mic)).whole
            XCTAssertNil(whole.delayMilliseconds, "\(band) seed \(seed)")
            XCTAssertNil(whole.echoOutsideDelaySearchMilliseconds, "\(band) seed \(seed)")
        }
        let reference = TestSignals.bandLimitedNoise(count: count, sampleRate: rate, lowHz: 300, highHz: 3_400, seed: 31)
        let noise = TestSignals.bandLimitedNoise(count: count, sampleRate: rate, lowHz: 300, highHz: 3_400, seed: 32)
        for samples in [0, 4_800] {
            let mic = TestSignals.sum(TestSignals.delayed(reference, by: samples, gainDB: -10), TestSignals.scaled(noise, gainDB: -10))
            let whole = EchoAnalyzer().analyze(EchoSignals(sampleRate: rate, reference: reference, mic: mic, processed: mic)).whole
            XCTAssertEqual(try XCTUnwrap(whole.delayMilliseconds, "\(samples)"), Double(samples) / 48, accuracy: 0.05)
        }
    }

    func testUnrelatedSignalsHaveNoDelay() {
        let reference = TestSignals.noise(count: 96_000, dbfs: -20, seed: 21)
        let mic = TestSignals.noise(count: 96_000, dbfs: -20, seed: 22)
        let whole = EchoAnalyzer().analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: mic, processed: mic)).whole
        XCTAssertNil(whole.delayMilliseconds)
        XCTAssertNil(whole.echoOutsideDelaySearchMilliseconds, "nothing correlates: no echo anywhere, not one outside the search")
    }
}
