import AudioCore
@testable import Metrics
import XCTest

/// The stream against the batch API, across block sizes, through the delay warm-up, and over a
/// long call.
final class StreamingTests: XCTestCase {
    /// 8 s far-end scene with an echo track, a near-end burst (3.0–3.5 s) and a canceller that
    /// removes 10 dB, then 25 dB after 4 s: every code path of the gate and the ledger.
    private func scene(seconds: Double = 8) -> EchoSignals {
        let (reference, echo) = TestSignals.farEndScene(seconds: seconds)
        let talk = 144_000..<168_000
        let loud = TestSignals.noise(count: echo.count, dbfs: -25, seed: 21)
        let nearEnd = loud.indices.map { talk.contains($0) ? loud[$0] : 0 }
        let mic = TestSignals.sum(echo, nearEnd)
        let processed = mic.indices.map { index -> Float in
            echo[index] * Float(Decibels.amplitude(fromDB: index < 192_000 ? -10 : -25)) + nearEnd[index]
        }
        return EchoSignals(sampleRate: 48_000, reference: reference, mic: mic, processed: processed,
                           echo: echo, nearEnd: nearEnd)
    }

    /// Feeds `signals` to a stream in blocks of `blockSize`, through the public `append` (each
    /// block copied to arrays that start at index 0 and are longer than the block), and returns
    /// the stream unfinished.
    private func fed(_ signals: EchoSignals, blockSize: Int, configuration: EchoMetricsConfiguration = .default) -> EchoAnalysisStream {
        let stream = EchoAnalysisStream(sampleRate: signals.sampleRate, configuration: configuration,
                                        includesEcho: signals.echo != nil, includesNearEnd: signals.nearEnd != nil)
        let length = signals.commonLength
        func block(_ signal: [Float], _ range: Range<Int>) -> [Float] {
            Array(signal[range]) + [Float](repeating: 9, count: 3)   // trailing garbage must be ignored
        }
        var offset = 0
        while offset < length {
            let range = offset..<min(length, offset + blockSize)
            stream.append(reference: block(signals.reference, range), mic: block(signals.mic, range),
                          processed: block(signals.processed, range), echo: signals.echo.map { block($0, range) },
                          nearEnd: signals.nearEnd.map { block($0, range) }, count: range.count)
            offset = range.upperBound
        }
        XCTAssertEqual(stream.sampleCount, length)
        return stream
    }

    private func streamed(_ signals: EchoSignals, blockSize: Int, segments: [Range<Int>] = [],
                          configuration: EchoMetricsConfiguration = .default) -> EchoAnalysis {
        fed(signals, blockSize: blockSize, configuration: configuration).finish(segments: segments)
    }

    func testStreamingEqualsBatch() throws {
        let signals = scene()
        let segments = [0..<192_000, 192_000..<384_000, 50_000..<60_000]
        let batch = EchoAnalyzer().analyze(signals, segments: segments)
        let stream = streamed(signals, blockSize: 480, segments: segments)
        XCTAssertEqual(stream.whole, batch.whole)
        XCTAssertEqual(stream.segments, batch.segments)
        XCTAssertEqual(stream.reconvergenceSeconds(after: 192_000), batch.reconvergenceSeconds(after: 192_000))
        // And the numbers are the scene's.
        XCTAssertEqual(try XCTUnwrap(batch.whole.delayMilliseconds), 40, accuracy: 0.02)
        XCTAssertEqual(try XCTUnwrap(batch.whole.erlDB), 6, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(batch.segments[0].erleDB), 10, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(batch.segments[1].erleDB), 25, accuracy: 0.1)
        XCTAssertEqual(batch.whole.gate.method, .nearEndTrack)
        XCTAssertGreaterThan(batch.whole.gate.doubleTalkFrames, 40)
    }

    func testResultDoesNotDependOnBlockSize() throws {
        let signals = scene(seconds: 7)
        let segments = [0..<100_000, 100_000..<336_000]
        let reference = streamed(signals, blockSize: 480, segments: segments)
        for blockSize in [1000, 4096, 7] {
            let other = streamed(signals, blockSize: blockSize, segments: segments)
            XCTAssertEqual(other.whole, reference.whole, "block size \(blockSize)")
            XCTAssertEqual(other.segments, reference.segments, "block size \(blockSize)")
        }
        // Same with processed == mic (the reused-spectrum path) and no echo or near-end track.
        let plain = EchoSignals(sampleRate: 48_000, reference: signals.reference, mic: signals.mic, processed: signals.mic)
        let plainReference = streamed(plain, blockSize: 480)
        for blockSize in [1000, 4096, 7] {
            XCTAssertEqual(streamed(plain, blockSize: blockSize).whole, plainReference.whole, "block size \(blockSize)")
        }
        XCTAssertEqual(try XCTUnwrap(plainReference.whole.erleDB), 0, accuracy: 1e-9)

        // A near end in a room whose steady noise (−45 dBFS) the gate takes off as the track's
        // floor, and a talker from the first second: the floor is seeded with the warm-up's frames
        // up to where the delay's blocks were complete, not to wherever the append that completed
        // them ended. The talker at the start is found: with the first frame alone as the floor,
        // he was the floor.
        let (far, echo) = TestSignals.farEndScene(seconds: 7)
        let talk = 0..<48_000
        let nearEnd = TestSignals.sum(TestSignals.burst(count: echo.count, during: talk, dbfs: -25, seed: 21),
                                      TestSignals.noise(count: echo.count, dbfs: -45, seed: 22))
        let noisy = EchoSignals(sampleRate: 48_000, reference: far, mic: TestSignals.sum(echo, nearEnd),
                                processed: TestSignals.sum(TestSignals.scaled(echo, gainDB: -20), nearEnd), echo: echo, nearEnd: nearEnd)
        let first = fed(noisy, blockSize: 480)
        let seeded = first.nearEndFloorSeededFrames
        XCTAssertGreaterThan(seeded, 500, "the warm-up's frames")
        let noisyReference = first.finish()
        // 4800 and 48000: appends that end hops past where the blocks were complete.
        for blockSize in [1000, 4096, 7, 4800, 48_000] {
            let stream = fed(noisy, blockSize: blockSize)
            XCTAssertEqual(stream.nearEndFloorSeededFrames, seeded, "block size \(blockSize)")
            XCTAssertEqual(stream.finish().whole, noisyReference.whole, "block size \(blockSize)")
        }
        XCTAssertEqual(EchoAnalyzer().analyze(noisy).whole, noisyReference.whole)
        let (_, touching) = TestSignals.frames(count: echo.count, touching: talk)
        // Frames before the echo arrives (40 ms) are no far end: the talk's double talk starts after them.
        XCTAssertEqual(Double(noisyReference.whole.gate.doubleTalkFrames), Double(touching - 2), accuracy: 4)

        // A recording scored with its clean near-end track and no echo track: mic − track's floor,
        // over the frames where the far end pauses (1.1 s here), is seeded as the near-end floor
        // is, so the result does not depend on appends either; the echo stands 40 dB above it.
        let pausing = TestSignals.sum(TestSignals.burst(count: far.count, during: 0..<150_000, dbfs: -20, seed: 23),
                                      TestSignals.burst(count: far.count, during: 200_000..<336_000, dbfs: -20, seed: 24))
        let pausingEcho = TestSignals.delayed(pausing, by: 1920, gainDB: -6)
        let talker = TestSignals.burst(count: far.count, during: 100_000..<130_000, dbfs: -25, seed: 25)
        let roomNoise = TestSignals.noise(count: far.count, dbfs: -66, seed: 26)
        let clean = EchoSignals(sampleRate: 48_000, reference: pausing, mic: TestSignals.sum(TestSignals.sum(pausingEcho, talker), roomNoise),
                                processed: TestSignals.sum(TestSignals.sum(TestSignals.scaled(pausingEcho, gainDB: -20), talker), roomNoise),
                                nearEnd: talker)
        let cleanReference = streamed(clean, blockSize: 480)
        for blockSize in [1000, 4096, 7, 4800, 48_000] {
            XCTAssertEqual(streamed(clean, blockSize: blockSize).whole, cleanReference.whole, "block size \(blockSize)")
        }
        XCTAssertEqual(EchoAnalyzer().analyze(clean).whole, cleanReference.whole)
        XCTAssertEqual(cleanReference.whole.gate.method, .nearEndTrack)
        XCTAssertGreaterThan(cleanReference.whole.gate.singleTalkFrames, 450)
        XCTAssertEqual(try XCTUnwrap(cleanReference.whole.erlDB), 6, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(cleanReference.whole.erleDB), 20, accuracy: 0.1)
    }

    func testGlitchReportDoesNotDependOnBlockSize() {
        // Sine with splices, a dropout and clicks near both ends (the context is cut there).
        var signal = (0..<60_000).map { Float(0.4 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        for index in 20_000..<20_900 { signal[index] = 0 }
        for index in [3, 150, 31_111, 59_990, 59_998] { signal[index] += 0.3 }
        let detector = GlitchDetector(sampleRate: 48_000)
        let batch = detector.analyze(signal)
        XCTAssertEqual(batch.gaps.count, 1)
        XCTAssertGreaterThanOrEqual(batch.events.count, 4)
        for blockSize in [480, 1000, 4096, 7, 1] {
            let stream = GlitchStream(detector: detector)
            var offset = 0
            while offset < signal.count {
                let count = min(blockSize, signal.count - offset)
                stream.append(Array(signal[offset..<(offset + count)]) + [1, 1], count: count)
                offset += count
            }
            XCTAssertEqual(stream.finish(), batch, "block size \(blockSize)")
        }
    }

    func testDelayIsFoundWhenTheFarEndStartsLate() throws {
        // Far end silent for the first 3 s, then active; 40 ms echo path.
        let sampleRate = 48_000, silent = 3 * sampleRate
        let (noise, _) = TestSignals.farEndScene(seconds: 12)
        let reference = noise.indices.map { $0 < silent ? 0 : noise[$0] }
        let echo = TestSignals.delayed(reference, by: 1920, gainDB: -6)
        let processed = TestSignals.scaled(echo, gainDB: -20)
        let signals = EchoSignals(sampleRate: sampleRate, reference: reference, mic: echo, processed: processed)
        let analysis = streamed(signals, blockSize: 480)
        XCTAssertEqual(try XCTUnwrap(analysis.whole.delayMilliseconds), 40, accuracy: 0.02)
        XCTAssertEqual(try XCTUnwrap(analysis.whole.erlDB), 6, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(analysis.whole.erleDB), 20, accuracy: 0.1)
        // Frames are active from the first one whose aligned reference reaches −50 dBFS.
        let frames = analysis.whole.gate.frames
        XCTAssertLessThanOrEqual(abs(analysis.whole.gate.farEndActiveFrames - (frames - (silent + 1920) / 512 + 1)), 1)
        // The batch analyzer, given no tracks, gates with the echo-path fit; on pure echo it finds
        // no near end, so all but the method's name is the far-end-only stream's result.
        var batch = EchoAnalyzer().analyze(signals).whole
        XCTAssertEqual(batch.gate.method, .echoPathFit)
        batch.gate.method = .farEndOnly
        // It hears no near talker either (the far-end-only stream has no estimate to give).
        XCTAssertEqual(batch.nearEndEstimate?.frames, 0)
        batch.nearEndEstimate = nil
        XCTAssertEqual(analysis.whole, batch)

        // With a warm-up cap of 4 s, only the blocks of 3…4 s are collected (their mic windows
        // cut at the cap): still enough for this delay.
        let capped = EchoMetricsConfiguration(delayWarmupSeconds: 4)
        XCTAssertEqual(try XCTUnwrap(streamed(signals, blockSize: 480, configuration: capped).whole.delayMilliseconds),
                       40, accuracy: 0.05)
        // With a cap of 2 s nothing is collected: no delay is reported and the reference is not shifted.
        let tooShort = EchoMetricsConfiguration(delayWarmupSeconds: 2)
        let unshifted = streamed(signals, blockSize: 480, configuration: tooShort).whole
        XCTAssertNil(unshifted.delayMilliseconds)
        XCTAssertLessThanOrEqual(abs(unshifted.gate.farEndActiveFrames - (frames - silent / 512 + 1)), 1)
        // The batch analyzer's fitted echo path holds the 40 ms itself: the frames whose unshifted
        // reference plays before its echo reaches the mic hold no echo, and it leaves them out
        // (the far-end-only stream cannot tell), which brings its ERL closer to the true 6 dB.
        let unshiftedBatch = EchoAnalyzer(configuration: tooShort).analyze(signals).whole
        let early = unshiftedBatch.gate.echoUnderNoiseFrames
        XCTAssertLessThanOrEqual(abs(early - 1920 / 512), 1)
        XCTAssertEqual(unshiftedBatch.gate.farEndActiveFrames, unshifted.gate.farEndActiveFrames - early)
        XCTAssertEqual(unshiftedBatch.gate.singleTalkFrames, unshifted.gate.singleTalkFrames - early)
        XCTAssertEqual(unshifted.gate.echoUnderNoiseFrames, 0)
        XCTAssertLessThan(abs(try XCTUnwrap(unshiftedBatch.erlDB) - 6), abs(try XCTUnwrap(unshifted.erlDB) - 6))
        XCTAssertEqual(try XCTUnwrap(unshiftedBatch.erleDB), 20, accuracy: 0.01)
    }

    func testStreamShorterThanTheWarmUp() throws {
        // 2.5 s: the warm-up never completes; finish estimates from the blocks collected.
        let (reference, echo) = TestSignals.farEndScene(seconds: 2.5, delaySamples: 700)
        let processed = TestSignals.scaled(echo, gainDB: -15)
        // The near-end track given as the batch would make it from the echo track (mic − echo).
        let signals = EchoSignals(sampleRate: 48_000, reference: reference, mic: echo, processed: processed, echo: echo,
                                  nearEnd: [Float](repeating: 0, count: echo.count))
        let stream = streamed(signals, blockSize: 480, segments: [0..<60_000])
        XCTAssertEqual(try XCTUnwrap(stream.whole.delayMilliseconds), 700.0 / 48, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(stream.whole.erleDB), 15, accuracy: 0.1)
        let batch = EchoAnalyzer().analyze(signals, segments: [0..<60_000])
        XCTAssertEqual(stream.whole, batch.whole)
        XCTAssertEqual(stream.segments, batch.segments)

        // An empty stream and one shorter than a frame give nil, not numbers.
        let empty = EchoAnalysisStream(sampleRate: 48_000, includesEcho: false, includesNearEnd: false).finish()
        XCTAssertEqual(empty.sampleCount, 0)
        XCTAssertNil(empty.whole.erleDB)
        XCTAssertNil(empty.whole.delayMilliseconds)
        XCTAssertEqual(empty.whole.gate.frames, 0)
    }

    func testTenMinuteStreamKeepsItsBuffersBounded() throws {
        // One second of signals, appended over and over in 10 ms ticks.
        let sampleRate = 48_000
        let (reference, echo) = TestSignals.farEndScene(seconds: 1)
        let processed = TestSignals.scaled(echo, gainDB: -20)
        let stream = EchoAnalysisStream(sampleRate: sampleRate, includesEcho: false, includesNearEnd: false)
        var ticks = [(reference: [Float], mic: [Float], processed: [Float])]()
        for start in stride(from: 0, to: sampleRate, by: 480) {
            ticks.append((Array(reference[start..<(start + 480)]), Array(echo[start..<(start + 480)]),
                          Array(processed[start..<(start + 480)])))
        }
        var capacityAfterOneMinute = 0
        for second in 0..<600 {
            for tick in ticks {
                stream.append(reference: tick.reference, mic: tick.mic, processed: tick.processed,
                              echo: nil, nearEnd: nil, count: 480)
            }
            if second == 59 { capacityAfterOneMinute = stream.retainedSampleCapacity }
        }
        XCTAssertEqual(stream.retainedSampleCapacity, capacityAfterOneMinute)
        // A frame, two append chunks and the delay per signal, far below a second of audio each.
        XCTAssertLessThan(capacityAfterOneMinute, 3 * sampleRate / 2)
        let analysis = stream.finish()
        XCTAssertEqual(analysis.sampleCount, 600 * sampleRate)
        XCTAssertEqual(try XCTUnwrap(analysis.whole.erleDB), 20, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(analysis.whole.delayMilliseconds), 40, accuracy: 0.02)
        XCTAssertEqual(analysis.whole.erleSeries.count, 1200)
    }
}
