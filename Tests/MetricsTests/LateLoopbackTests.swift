import AudioCore
import AudioInterop
@testable import Metrics
import XCTest

/// A loopback recorded late: the echo at the mic leads it. The block search correlates each
/// reference block with the mic window that starts at the same sample, so an echo leading by more
/// than about a block (341 ms) peaked nowhere: a loopback 0.35–0.5 s late read "no lag stands
/// out", and the tap-free gate scored the echo as single talk with a confident, wrong ERL (17.2 dB
/// where it is 9.6 dB on a simulated call 0.4 s late). Where the block search finds no delay, the
/// whole-signal correlation now says the echo leads (`DelayEstimator.echoLeads`).
final class LateLoopbackTests: XCTestCase {
    private static let rate = 48_000
    private static let count = 10 * rate
    /// The echo path's own delay (10 ms) and loss (10 dB).
    private static let echoDelay = 480
    private static let echoGain: Float = 0.316

    /// A speech-like far end, its echo `echoDelay` behind it at −10 dB, a near talker (another
    /// voice) from 6 to 8 s, −65 dBFS noise; the loopback is the far end `lateSamples` late (zeros
    /// in front), as a recorder that starts the loopback late writes it.
    private static func call(lateSamples: Int, echoDelay: Int = echoDelay,
                             withEcho: Bool = true) -> (loopback: [Float], signals: EchoSignals) {
        let far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: rate, count: count, seed: 71)
        let talker = SignalGenerator.render(.speechLike(levelDBFS: -26, pitchHz: 210), sampleRate: rate, count: count, seed: 72)
        let nearEnd = talker.indices.map { (6 * rate..<8 * rate).contains($0) ? talker[$0] : 0 }
        let echo = far.indices.map { withEcho && $0 >= echoDelay ? echoGain * far[$0 - echoDelay] : 0 }
        let mic = TestSignals.sum(TestSignals.sum(echo, nearEnd), TestSignals.noise(count: count, dbfs: -65, seed: 73))
        let loopback = TestSignals.delayed(far, by: lateSamples)
        let processed = TestSignals.scaled(mic, gainDB: -6)
        return (loopback, EchoSignals(sampleRate: rate, reference: loopback, mic: mic, processed: processed,
                                      echo: withEcho ? echo : nil))
    }

    /// Mic and loopback only (the tap-free gate), and the same with the echo track (the streaming
    /// core's own delay search, gated by the track), fed to a stream in 4800-sample appends.
    private static func analysed(_ signals: EchoSignals) -> (tapFree: EchoMetrics, tracked: EchoMetrics) {
        let tapFree = EchoAnalyzer().analyze(EchoSignals(sampleRate: signals.sampleRate, reference: signals.reference,
                                                         mic: signals.mic, processed: signals.processed)).whole
        let stream = EchoAnalysisStream(sampleRate: signals.sampleRate, configuration: .default,
                                        includesEcho: signals.echo != nil, includesNearEnd: false)
        var offset = 0
        while offset < signals.commonLength {
            let range = offset..<min(signals.commonLength, offset + 4_800)
            stream.append(reference: Array(signals.reference[range]), mic: Array(signals.mic[range]),
                          processed: Array(signals.processed[range]), echo: signals.echo.map { Array($0[range]) },
                          nearEnd: nil, count: range.count)
            offset = range.upperBound
        }
        return (tapFree, stream.finish().whole)
    }

    /// Late by 0.1 s (the block search saw it already) and by 0.35, 0.45 and 0.5 s (it did not):
    /// all read as an echo outside the search, in both paths, with nothing measured by the
    /// tap-free gate.
    func testALoopbackLateUpToTheSearchsReachIsOutsideIt() throws {
        for late in [0.1, 0.35, 0.45, 0.5] {
            let lateSamples = Int(late * Double(Self.rate))
            let (loopback, signals) = Self.call(lateSamples: lateSamples)
            let (tapFree, tracked) = Self.analysed(signals)
            for (path, whole) in [("tap-free", tapFree), ("tracked", tracked)] {
                XCTAssertNil(whole.delayMilliseconds, "\(late) s late, \(path)")
                XCTAssertEqual(whole.delayUnmeasured, .echoOutsideSearch(searchMilliseconds: 500), "\(late) s late, \(path)")
            }
            XCTAssertEqual(tapFree.gate.limitation, .echoOutsideDelaySearch, "\(late) s late")
            XCTAssertEqual(tapFree.gate.singleTalkFrames, 0, "\(late) s late")
            XCTAssertNil(tapFree.erlDB, "\(late) s late")
            XCTAssertNil(tapFree.erleDB, "\(late) s late")

            // The whole-signal correlation peaks where the echo lies: ahead of the loopback by the
            // lateness less the echo path's own delay, standing far out.
            let peaks = try XCTUnwrap(ProcessedLag.correlationPeaks(loopback, signals.mic, maximumLag: 24_000))
            XCTAssertEqual(peaks.overall.lag, Self.echoDelay - lateSamples, "\(late) s late")
            XCTAssertGreaterThan(peaks.overall.ratio, ProcessedLag.minimumPeakRatio, "\(late) s late")
        }
    }

    /// Where the block search cannot see the lead (0.35 s and more), it finds no delay; the check
    /// says the echo leads. Less than that, it sees it itself and the check never runs.
    func testTheBlockSearchAloneFindsNoDelayThere() throws {
        let estimator = DelayEstimator(sampleRate: Self.rate, configuration: .default)
        for late in [0.35, 0.45, 0.5] {
            let (loopback, signals) = Self.call(lateSamples: Int(late * Double(Self.rate)))
            XCTAssertEqual(Self.blockSearch(loopback, signals.mic), .none, "\(late) s late")
            XCTAssertTrue(estimator.echoLeads(reference: loopback, mic: signals.mic), "\(late) s late")
        }
        let (loopback, signals) = Self.call(lateSamples: Self.rate / 10)
        XCTAssertEqual(Self.blockSearch(loopback, signals.mic), .outsideSearch)
    }

    /// An on-time loopback with a 60 ms echo (the echo path's 10 ms plus 50 ms of playout): read
    /// as 60 ms, as before, and measured.
    func testAnOnTimeLoopbackKeepsItsDelay() throws {
        let (_, signals) = Self.call(lateSamples: 0, echoDelay: 2_880)
        let (tapFree, tracked) = Self.analysed(signals)
        for (path, whole) in [("tap-free", tapFree), ("tracked", tracked)] {
            XCTAssertEqual(try XCTUnwrap(whole.delayMilliseconds, path), 60, accuracy: 0.05, path)
            XCTAssertNil(whole.delayUnmeasured, path)
        }
        XCTAssertNil(tapFree.gate.limitation)
        XCTAssertEqual(try XCTUnwrap(tapFree.erlDB), 10, accuracy: 0.3)
        XCTAssertEqual(try XCTUnwrap(tapFree.erleDB), 6, accuracy: 0.1)
    }

    /// A mic with no echo at all (the near talker and noise): no delay, and not one outside the
    /// search — the check finds no lag standing out. Where the gate hears the far end play alone
    /// with no echo above the noise (the tap-free one here), that is the reason.
    func testAMicWithoutEchoHasNoDelayAndNoneOutsideTheSearch() throws {
        let (loopback, signals) = Self.call(lateSamples: 0, withEcho: false)
        let (tapFree, tracked) = Self.analysed(signals)
        for (path, whole) in [("tap-free", tapFree), ("tracked", tracked)] {
            XCTAssertNil(whole.delayMilliseconds, path)
            XCTAssertEqual(whole.delayUnmeasured, whole.gate.echoStaysUnderNoise ? .noEchoAtMic : nil, path)
        }
        XCTAssertTrue(tapFree.gate.echoStaysUnderNoise)
        XCTAssertNotEqual(tapFree.gate.limitation, .echoOutsideDelaySearch)
        XCTAssertEqual(Self.blockSearch(loopback, signals.mic), .none)
        let estimator = DelayEstimator(sampleRate: Self.rate, configuration: .default)
        XCTAssertFalse(estimator.echoLeads(reference: loopback, mic: signals.mic))
        let peaks = try XCTUnwrap(ProcessedLag.correlationPeaks(loopback, signals.mic, maximumLag: 24_000))
        XCTAssertLessThan(peaks.overall.ratio, ProcessedLag.minimumPeakRatio)
    }

    /// The block search's own verdict over the first 32 active blocks (`DelayBlockCollector`'s
    /// sums, before any check of its own).
    private static func blockSearch(_ reference: [Float], _ mic: [Float]) -> DelayEstimator.Peak {
        let estimator = DelayEstimator(sampleRate: rate, configuration: .default)
        let fft = RealFFT(size: estimator.fftSize)
        var sumReal = [Double](repeating: 0, count: fft.binCount), sumImaginary = sumReal
        var block = [Float](repeating: 0, count: estimator.fftSize), window = block
        var xr = [Float](repeating: 0, count: fft.binCount), xi = xr, yr = xr, yi = xr
        var start = 0, blocks = 0
        while start + estimator.fftSize <= reference.count, blocks < estimator.maxBlocks {
            defer { start += estimator.hop }
            let slice = reference[start..<(start + estimator.blockSize)]
            guard PowerSums.sumOfSquares(Array(slice), 0..<slice.count) / Double(slice.count) >= estimator.activeMeanSquare else { continue }
            for i in 0..<estimator.fftSize {
                block[i] = i < estimator.blockSize ? reference[start + i] : 0
                window[i] = mic[start + i]
            }
            fft.forward(block, real: &xr, imaginary: &xi)
            fft.forward(window, real: &yr, imaginary: &yi)
            var referencePeak = 0.0, micPeak = 0.0
            for k in 1..<fft.binCount {
                referencePeak = max(referencePeak, Double(xr[k] * xr[k] + xi[k] * xi[k]))
                micPeak = max(micPeak, Double(yr[k] * yr[k] + yi[k] * yi[k]))
            }
            for k in 1..<fft.binCount {
                let rr = Double(xr[k]), ri = Double(xi[k]), mr = Double(yr[k]), mi = Double(yi[k])
                let real = mr * rr + mi * ri, imaginary = mi * rr - mr * ri
                let magnitude = (real * real + imaginary * imaginary).squareRoot()
                guard rr * rr + ri * ri > referencePeak * DelayBlockCollector.votingFloor,
                      mr * mr + mi * mi > micPeak * DelayBlockCollector.votingFloor, magnitude > 1e-30 else { continue }
                sumReal[k] += real / magnitude
                sumImaginary[k] += imaginary / magnitude
            }
            blocks += 1
        }
        return estimator.peak(sumReal: sumReal, sumImaginary: sumImaginary, fft: fft, referenceIsTonal: { false })
    }
}
