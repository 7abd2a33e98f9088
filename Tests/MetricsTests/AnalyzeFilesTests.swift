import AudioInterop
import EchoLabJSON
import Foundation
import Metrics
import XCTest

final class AnalyzeFilesTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    private func write(_ samples: [Float], _ name: String, sampleRate: Int = 48_000) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try SoundFileWriter.write(samples, to: path, sampleRate: sampleRate)
        return path
    }

    func testFilesGiveTheSameResultAsBuffers() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 2)
        let processed = TestSignals.scaled(echo, gainDB: -15)
        let segments = [0..<48_000, 48_000..<96_000]
        let analyzer = EchoAnalyzer()
        let fromBuffers = analyzer.analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: echo,
                                                       processed: processed, echo: echo), segments: segments)
        let fromFiles = try analyzer.analyzeFiles(reference: write(reference, "ref.wav"), mic: write(echo, "mic.wav"),
                                                  processed: write(processed, "out.wav"), echo: write(echo, "echo.wav"),
                                                  segments: segments)
        XCTAssertEqual(fromFiles.whole, fromBuffers.whole)
        XCTAssertEqual(fromFiles.segments, fromBuffers.segments)
        XCTAssertEqual(try XCTUnwrap(fromFiles.whole.erleDB), 15, accuracy: 0.1)
    }

    /// The echo and near-end tracks against the mic: the room's noise, which the near-end track
    /// lacks, is all they leave unexplained (−20 dB here); an echo track of twice the echo the
    /// mic holds (a new user's mix) leaves about as much as the mic itself, and is said to.
    func testTracksThatDoNotAddUpToTheMicAreSaidToBe() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 4)
        let talker = TestSignals.noise(count: reference.count, dbfs: -30, seed: 9)
        let nearEnd = talker.indices.map { ($0 / 48_000) % 2 == 1 ? talker[$0] : 0 }
        func power(_ x: [Float]) -> Double { x.reduce(0.0) { $0 + Double($1) * Double($1) } }
        // Noise of a 99th of the tracks' power: a hundredth of the mic's.
        let unscaled = TestSignals.noise(count: reference.count, dbfs: -30, seed: 7)
        let noise = TestSignals.scaled(unscaled, gainDB: 10 * log10((power(echo) + power(nearEnd)) / 99 / power(unscaled)))
        func unexplained(echoInMicDB: Double) throws -> (Double?, [String]) {
            let mic = TestSignals.sum(TestSignals.sum(TestSignals.scaled(echo, gainDB: echoInMicDB), nearEnd), noise)
            let files = try (write(reference, "ref.wav"), write(mic, "mic.wav"), write(echo, "echo.wav"), write(nearEnd, "near.wav"))
            let analysis = try EchoAnalyzer().analyzeFiles(reference: files.0, mic: files.1, processed: files.1, echo: files.2, nearEnd: files.3)
            let inputs = try XCTUnwrap(analysis.inputs)
            return (inputs.tracksUnexplainedDB, inputs.warnings(mic: "mic.wav", reference: "ref.wav", echo: "echo.wav", nearEnd: "near.wav"))
        }
        let (kept, quiet) = try unexplained(echoInMicDB: 0)
        XCTAssertEqual(try XCTUnwrap(kept), -20, accuracy: 0.2, "the noise alone: a hundredth of the mic")
        XCTAssertFalse(quiet.contains { $0.contains("unexplained") }, "\(quiet)")
        let (halved, warned) = try unexplained(echoInMicDB: -6)
        XCTAssertGreaterThan(try XCTUnwrap(halved), InputCensus.tracksUnexplainedLimitDB)
        XCTAssertTrue(warned.contains { $0.hasPrefix("echo.wav and near.wav leave ") && $0.contains("dB of mic.wav unexplained: they are not what the mic holds") },
                      "\(warned)")
        // Without both tracks there is nothing to add up.
        let mic = TestSignals.sum(echo, noise)
        let alone = try EchoAnalyzer().analyzeFiles(reference: write(reference, "ref.wav"), mic: write(mic, "mic.wav"),
                                                    processed: write(mic, "mic.wav"), echo: write(echo, "echo.wav"))
        XCTAssertNil(alone.inputs?.tracksUnexplainedDB)
        // The echo track alone is checked against the mic's echo: the mic's own reads 0 dB
        // (its noise and the talker share nothing with it), one at twice the gain +6.0 dB and is
        // said to be (a new user's trial: 3 single-talk frames, ERLE ≥ 0.05 dB for a true 20).
        func echoAlone(_ mic: [Float], echoTrack: [Float]) throws -> (Double?, [String]) {
            let analysis = try EchoAnalyzer().analyzeFiles(reference: write(reference, "ref.wav"), mic: write(mic, "mic.wav"),
                                                           processed: write(mic, "mic.wav"), echo: write(echoTrack, "echo.wav"))
            let inputs = try XCTUnwrap(analysis.inputs)
            return (inputs.echoTrackExcessDB, inputs.warnings(mic: "mic.wav", reference: "ref.wav", echo: "echo.wav"))
        }
        let talking = TestSignals.sum(TestSignals.sum(echo, nearEnd), noise)
        let (own, ownWarnings) = try echoAlone(talking, echoTrack: echo)
        XCTAssertEqual(try XCTUnwrap(own), 0, accuracy: 0.1)
        XCTAssertFalse(ownWarnings.contains { $0.contains("echo.wav is") }, "\(ownWarnings)")
        let (doubled, doubledWarnings) = try echoAlone(talking, echoTrack: TestSignals.scaled(echo, gainDB: 20 * log10(2)))
        XCTAssertEqual(try XCTUnwrap(doubled), 6.02, accuracy: 0.1)
        XCTAssertTrue(doubledWarnings.contains { $0.hasPrefix("echo.wav is 6.0 dB louder than the echo mic.wav holds (it fits the mic best scaled by 0.50)") },
                      "\(doubledWarnings)")
        // Upside down, it is said to be (the mic less it doubles the echo).
        let (_, invertedWarnings) = try echoAlone(talking, echoTrack: echo.map { -$0 })
        XCTAssertTrue(invertedWarnings.contains { $0.hasPrefix("echo.wav holds the echo mic.wav holds upside down") }, "\(invertedWarnings)")
        // A track that is not the mic's echo at all (another file) is not called mis-scaled.
        let (other, _) = try echoAlone(talking, echoTrack: TestSignals.noise(count: reference.count, dbfs: -20, seed: 31))
        XCTAssertNil(other)
    }

    /// A rig's DC offsets (the mic's at −34 dBFS, the loopback's at −40) are taken off before
    /// measuring: the files score as the same audio without them. A pure delay and 6 dB gain reads
    /// ERL 6 dB, the output 20 dB under the mic ERLE 20 dB, no frame is double talk, and the
    /// loopback's silent second stays silent. (With the offsets in, the Hann window put them in
    /// bin 1: the mic's was most of each frame's power, read as a talker the output removed.)
    func testARigsDCOffsetsAreTakenOffBeforeMeasuring() throws {
        var reference = TestSignals.farEndScene(seconds: 4).reference
        for i in 96_000..<144_000 { reference[i] = 0 }
        let echo = TestSignals.delayed(reference, by: 1920, gainDB: -6)
        let processed = TestSignals.scaled(echo, gainDB: -20)
        let clean = EchoAnalyzer().analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: echo, processed: processed))
        let paths = try (write(reference.map { $0 + 0.01 }, "ref.wav"), write(echo.map { $0 + 0.02 }, "mic.wav"), write(processed.map { $0 - 0.005 }, "out.wav"))
        let analysis = try EchoAnalyzer().analyzeFiles(reference: paths.0, mic: paths.1, processed: paths.2)
        XCTAssertEqual(try XCTUnwrap(analysis.whole.erlDB), 6, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(analysis.whole.erleDB), 20, accuracy: 0.01)
        XCTAssertEqual(analysis.whole.gate.doubleTalkFrames, 0)
        XCTAssertEqual(analysis.whole.gate.farEndActiveFrames, clean.whole.gate.farEndActiveFrames)
        XCTAssertLessThan(analysis.whole.gate.farEndActiveFrames, analysis.whole.gate.frames - 80, "the silent second is not far-end active")
        let warnings = try XCTUnwrap(analysis.inputs).warnings(mic: "mic.wav", reference: "ref.wav", processed: "out.wav")
        XCTAssertEqual(warnings, ["mic.wav has a DC offset of -34.0 dBFS: taken off before measuring",
                                  "ref.wav has a DC offset of -40.0 dBFS: taken off before measuring",
                                  "out.wav has a DC offset of -46.0 dBFS: taken off before measuring"])
        XCTAssertEqual(try XCTUnwrap(analysis.inputs?.corrections.processedDCOffsetDBFS), 20 * log10(0.005), accuracy: 0.05)
        XCTAssertFalse(try XCTUnwrap(analysis.inputs).corrections.hasEchoTrack, "no track, no key")
    }

    /// A float sample over 1 is no clip: the file holds it and it is measured as it is (ERL 6 dB
    /// with a spike of 100 in the mic), so its warning says how far over full scale it went and
    /// does not call the recording clipped; a sample at full scale is a clip, counted as one.
    func testASampleOverFullScaleIsToldFromAClip() throws {
        let reference = TestSignals.farEndScene(seconds: 4).reference
        var echo = TestSignals.delayed(reference, by: 1920, gainDB: -6)
        let processed = TestSignals.scaled(echo, gainDB: -20)
        echo[100_000] = 100
        var loud = reference
        loud[50_000] = 1
        let paths = try (write(loud, "ref.wav"), write(echo, "mic.wav"), write(processed, "out.wav"))
        let analysis = try EchoAnalyzer().analyzeFiles(reference: paths.0, mic: paths.1, processed: paths.2)
        XCTAssertEqual(try XCTUnwrap(analysis.whole.erlDB), 6, accuracy: 0.05)
        let inputs = try XCTUnwrap(analysis.inputs)
        XCTAssertEqual(inputs.micFullScaleSamples, 1)
        XCTAssertEqual(inputs.referenceFullScaleSamples, 1)
        XCTAssertEqual(inputs.warnings(mic: "mic.wav", reference: "ref.wav"), [
            "ref.wav has 1 sample at full scale (< 0.01 %): the recording clipped, so its echo is not linear and the echo metrics from it are uncertain",
            "mic.wav has 1 sample at or over full scale (< 0.01 %, peaking at +40.0 dBFS): louder than any converter records or plays, "
                + "measured as it is (audio scaled after capture; if it was clipped before it was scaled, its echo is not linear)",
        ])
    }

    /// One file given as the mic and as the output (a run with nothing processed) is warned of once.
    func testAFileGivenTwiceIsWarnedOfOnce() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 4)
        let paths = try (write(reference, "ref.wav"), write(echo.map { $0 + 0.02 }, "mic.wav"))
        let analysis = try EchoAnalyzer().analyzeFiles(reference: paths.0, mic: paths.1, processed: paths.1)
        let warnings = try XCTUnwrap(analysis.inputs).warnings(mic: "mic.wav", reference: "ref.wav", processed: "mic.wav")
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings[0].hasPrefix("mic.wav has a DC offset of -33.9 dBFS"), warnings[0])   // 0.02: −34.0 dBFS
    }

    /// A file of 0 frames is said to be empty, whatever its rate: resampled, it would still hold nothing.
    func testAnEmptyFileOfAnotherRateIsSaidToBeEmpty() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 1)
        let paths = try (write(reference, "ref.wav"), write(echo, "mic.wav"), write([], "echo16k.wav", sampleRate: 16_000))
        XCTAssertThrowsError(try EchoAnalyzer().analyzeFiles(reference: paths.0, mic: paths.1, processed: paths.1, echo: paths.2)) { error in
            XCTAssertEqual(error as? MetricsError, .empty(path: paths.2))
        }
    }

    /// The echo and near-end tracks' offsets are taken off too, and said as the others are: the
    /// figures stay those of the clean tracks (ERL 6 dB; without the near track's offset taken
    /// off, every frame would read as near-end talk). Their keys are written where the track was
    /// given, null where it had none.
    func testTheTracksDCOffsetsAreTakenOffAndSaid() throws {
        let reference = TestSignals.farEndScene(seconds: 4).reference
        let echo = TestSignals.delayed(reference, by: 1920, gainDB: -6)
        let near = [Float](repeating: 0, count: echo.count)
        let paths = try (write(reference, "ref.wav"), write(echo, "mic.wav"), write(TestSignals.scaled(echo, gainDB: -20), "out.wav"),
                         write(echo.map { $0 + 0.02 }, "echo.wav"), write(near.map { $0 - 0.0316 }, "near.wav"))
        let analysis = try EchoAnalyzer().analyzeFiles(reference: paths.0, mic: paths.1, processed: paths.2, echo: paths.3, nearEnd: paths.4)
        XCTAssertEqual(try XCTUnwrap(analysis.whole.erlDB), 6, accuracy: 0.01)
        XCTAssertEqual(analysis.whole.gate.doubleTalkFrames, 0)
        let inputs = try XCTUnwrap(analysis.inputs)
        // The echo's own median moves its offset's estimate off 0.02 by a little.
        let echoOffset = try XCTUnwrap(inputs.corrections.echoDCOffsetDBFS)
        XCTAssertEqual(echoOffset, 20 * log10(0.02), accuracy: 0.2)
        XCTAssertEqual(try XCTUnwrap(inputs.corrections.nearEndDCOffsetDBFS), 20 * log10(0.0316), accuracy: 0.05)
        XCTAssertEqual(inputs.warnings(mic: "mic.wav", reference: "ref.wav", processed: "out.wav", echo: "echo.wav", nearEnd: "near.wav"),
                       [String(format: "echo.wav has a DC offset of %.1f dBFS: taken off before measuring", echoOffset),
                        "near.wav has a DC offset of -30.0 dBFS: taken off before measuring"])
        let json = try XCTUnwrap(JSONValue(encoding: inputs.corrections).objectValue)
        XCTAssertEqual(json["echo_dc_offset_dbfs"]?.doubleValue, echoOffset)
        XCTAssertEqual(try JSONValueDecoder().decode(InputCorrections.self, from: JSONValue(encoding: inputs.corrections)), inputs.corrections)
        // A track without an offset: its key is there, null.
        let clean = try EchoAnalyzer().analyzeFiles(reference: paths.0, mic: paths.1, processed: paths.2, echo: write(echo, "echo-clean.wav"))
        let cleanJSON = try XCTUnwrap(JSONValue(encoding: try XCTUnwrap(clean.inputs).corrections).objectValue)
        XCTAssertEqual(cleanJSON["echo_dc_offset_dbfs"], .null)
        XCTAssertNil(cleanJSON["near_end_dc_offset_dbfs"])
        // Read back: the null key still says the track was given.
        let read = try JSONValueDecoder().decode(InputCorrections.self, from: .object(cleanJSON))
        XCTAssertTrue(read.hasEchoTrack)
        XCTAssertFalse(read.hasNearEndTrack)
        XCTAssertEqual(read, try XCTUnwrap(clean.inputs).corrections)
    }

    /// A loopback and a mic recorded on two clocks (the mic's 20 ppm slow, 100 ppm fast): the
    /// tap-free gate measures the drift from its fitted paths, resamples the loopback by it and
    /// gates again, so a pure echo reads no double talk (without: 426 and 1013 of 1033 frames on
    /// speech, and the near end "lost"); ERL and ERLE stay exact. On one clock nothing is
    /// resampled and nothing is said.
    func testALoopbackAndAMicOnTwoClocksReadNoDoubleTalk() throws {
        let reference = TestSignals.noise(count: 12 * 48_000, dbfs: -20, seed: 7)
        for ppm in [-20.0, 100.0, 0] {
            // The mic's clock `ppm` fast: the echo comes later and later.
            let resampler = try Resampler(inputRate: 48_000, outputRate: 48_000, clockRatio: 1 + ppm * 1e-6)
            var stretched = [Float](repeating: 0, count: reference.count + 4_800)
            let produced = try resampler.process(reference, inputFrames: reference.count, into: &stretched,
                                                 outputCapacity: stretched.count, endOfInput: true).produced
            var mic = [Float](repeating: 0, count: reference.count)
            for i in 1920..<mic.count where i - 1920 < produced { mic[i] = 0.25 * stretched[i - 1920] }
            let paths = try (write(reference, "ref.wav"), write(mic, "mic-\(ppm).wav"), write(TestSignals.scaled(mic, gainDB: -20), "out-\(ppm).wav"))
            let analysis = try EchoAnalyzer().analyzeFiles(reference: paths.0, mic: paths.1, processed: paths.2)
            XCTAssertEqual(analysis.whole.gate.doubleTalkFrames, 0, "\(ppm) ppm")
            // 12.04 dB, less what libsamplerate's band edge takes off white noise to 24 kHz (0.18 dB).
            XCTAssertEqual(try XCTUnwrap(analysis.whole.erlDB), 20 * log10(4) + 0.18, accuracy: 0.05, "\(ppm) ppm")
            XCTAssertEqual(try XCTUnwrap(analysis.whole.erleDB), 20, accuracy: 0.01, "\(ppm) ppm")
            XCTAssertEqual(analysis.whole.nearEndEstimate?.isLost, false, "\(ppm) ppm")
            let census = try XCTUnwrap(analysis.inputs)
            if ppm == 0 {
                XCTAssertNil(census.clockDriftPPM)
            } else {
                XCTAssertEqual(try XCTUnwrap(census.clockDriftPPM), ppm, accuracy: 1, "the drift measured")
            }
            // The buffers' analysis resamples as the files' does.
            let buffers = EchoAnalyzer().analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: mic,
                                                             processed: TestSignals.scaled(mic, gainDB: -20)))
            XCTAssertEqual(buffers.whole.gate.doubleTalkFrames, 0, "\(ppm) ppm")
        }
    }

    /// One clock, the echo path jumping 10 samples mid-call (a device moved): one move of the
    /// path's peak among many, no drift — nothing is resampled or said. (The median of every
    /// pair's slope read it as 9.5 ppm.)
    func testAPathThatJumpsOnceIsNoDrift() throws {
        let reference = TestSignals.noise(count: 27 * 48_000, dbfs: -20, seed: 9)
        let jump = 5 * 131_072
        var mic = [Float](repeating: 0, count: reference.count)
        for i in mic.indices {
            let delay = i < jump ? 1_920 : 1_930
            if i >= delay { mic[i] = 0.25 * reference[i - delay] }
        }
        let analysis = try EchoAnalyzer().analyzeFiles(reference: write(reference, "ref.wav"), mic: write(mic, "mic.wav"),
                                                       processed: write(TestSignals.scaled(mic, gainDB: -20), "out.wav"))
        XCTAssertNil(try XCTUnwrap(analysis.inputs).clockDriftPPM)
        XCTAssertEqual(try XCTUnwrap(analysis.whole.erleDB), 20, accuracy: 0.01)
    }

    /// A mic whose echo lies 20 dB under its noise: the delay search still finds the lag (it
    /// integrates over 32 blocks), but the tap-free gate finds no echo above the noise wherever
    /// the near end is silent, so no frame is far-end single talk and the lag is no echo's delay
    /// to report: `delay_ms` is null with that reason, as ERL and ERLE are. (Two unrelated
    /// espeak-ng voices peaked so at 14.7 σ and read a delay of 135.7 ms.)
    func testNoDelayIsReportedWhereTheGateFindsNoEcho() throws {
        let reference = TestSignals.noise(count: 12 * 48_000, dbfs: -20, seed: 11)
        let echo = TestSignals.delayed(reference, by: 6_480, gainDB: -50)      // −70 dBFS, 135 ms late
        let noise = TestSignals.noise(count: reference.count, dbfs: -50, seed: 12)
        let mic = zip(echo, noise).map { $0 + $1 }
        let paths = try (write(reference, "ref.wav"), write(mic, "mic.wav"))
        let analysis = try EchoAnalyzer().analyzeFiles(reference: paths.0, mic: paths.1, processed: paths.1)
        XCTAssertEqual(analysis.whole.gate.singleTalkFrames, 0)
        XCTAssertGreaterThanOrEqual(analysis.whole.gate.echoUnderNoiseFrames, 20)
        // The loss is known only as a bound: the far end over the mic's noise, 30 dB.
        XCTAssertEqual(try XCTUnwrap(analysis.whole.erlDB), 30, accuracy: 0.1)
        XCTAssertTrue(analysis.whole.erlIsLowerBound)
        XCTAssertNil(analysis.whole.delayMilliseconds)
        XCTAssertEqual(analysis.whole.delayUnmeasured, .noEchoAtMic)
        // So with a near-end track (a talker from 4 to 6 s), whose gate finds the echo under the
        // noise it hears where the far end pauses (1 to 2 s): it read a delay beside "no echo
        // above the mic's noise".
        let paused = reference.indices.map { (48_000..<2 * 48_000).contains($0) ? 0 : reference[$0] }
        let pausedMic = zip(TestSignals.delayed(paused, by: 6_480, gainDB: -50), noise).map { $0 + $1 }
        let voice = TestSignals.noise(count: reference.count, dbfs: -30, seed: 13)
        let talker = voice.indices.map { (4 * 48_000..<6 * 48_000).contains($0) ? voice[$0] : 0 }
        let withTalker = zip(pausedMic, talker).map { $0 + $1 }
        let tracked = try EchoAnalyzer().analyzeFiles(reference: write(paused, "paused.wav"), mic: write(withTalker, "talker-mic.wav"),
                                                      processed: write(withTalker, "talker-out.wav"), nearEnd: write(talker, "talker.wav"))
        XCTAssertNotEqual(tracked.whole.gate.method, .echoPathFit)
        XCTAssertEqual(tracked.whole.gate.singleTalkFrames, 0)
        XCTAssertGreaterThanOrEqual(tracked.whole.gate.echoUnderNoiseFrames, 20)
        XCTAssertNil(tracked.whole.delayMilliseconds)
        XCTAssertEqual(tracked.whole.delayUnmeasured, .noEchoAtMic)
        // The same echo 10 dB over the noise: single talk, and its delay.
        let audible = zip(TestSignals.delayed(reference, by: 6_480, gainDB: -20), noise).map { $0 + $1 }
        let heard = try EchoAnalyzer().analyzeFiles(reference: paths.0, mic: write(audible, "audible.wav"), processed: paths.1)
        XCTAssertGreaterThan(heard.whole.gate.singleTalkFrames, 500)
        XCTAssertEqual(try XCTUnwrap(heard.whole.delayMilliseconds), 135, accuracy: 0.05)
    }

    /// A processed file 0.25 s short of 4 s (within 10 % and 1 s): scored on the overlap, which
    /// is exactly what scoring the cut buffers gives, and the lengths are reported.
    func testSmallLengthDifferenceIsScoredOnTheOverlapAndReported() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 4)
        let processed = Array(TestSignals.scaled(echo, gainDB: -12).prefix(180_000))
        let paths = try (write(reference, "ref.wav"), write(echo, "mic.wav"), write(processed, "out.wav"))
        let analysis = try EchoAnalyzer().analyzeFiles(reference: paths.0, mic: paths.1, processed: paths.2)
        XCTAssertEqual(analysis.sampleCount, 180_000)
        XCTAssertEqual(analysis.lengthMismatch, LengthMismatch(analysedSamples: 180_000, files: [
            .init(file: paths.0, samples: 192_000), .init(file: paths.1, samples: 192_000), .init(file: paths.2, samples: 180_000)]))
        let cut = EchoAnalyzer().analyze(EchoSignals(sampleRate: 48_000, reference: Array(reference.prefix(180_000)),
                                                     mic: Array(echo.prefix(180_000)), processed: processed))
        XCTAssertEqual(analysis.whole, cut.whole)
        XCTAssertEqual(try XCTUnwrap(analysis.whole.erleDB), 12, accuracy: 0.1)
        // Equal lengths report nothing.
        XCTAssertNil(try EchoAnalyzer().analyzeFiles(reference: paths.0, mic: paths.1, processed: paths.1).lengthMismatch)
    }

    /// A short echo file (1.5 s of 4 s: more than 1 s and 10 % short) is refused, naming it.
    func testLargeLengthDifferenceIsRefusedNamingTheFile() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 4)
        let referencePath = try write(reference, "ref.wav"), micPath = try write(echo, "mic.wav")
        let echoPath = try write(Array(echo.prefix(72_000)), "echo.wav")
        XCTAssertThrowsError(try EchoAnalyzer().analyzeFiles(reference: referencePath, mic: micPath, processed: micPath,
                                                             echo: echoPath)) { error in
            XCTAssertEqual(error as? MetricsError, .lengthMismatch(path: echoPath, samples: 72_000, longestPath: referencePath,
                                                                   longestSamples: 192_000, toleranceSamples: 19_200))
            XCTAssertTrue("\(error)".hasPrefix(echoPath + ": 72000 samples"), "\(error)")
        }
        XCTAssertEqual(EchoAnalyzer.lengthTolerance(longestSamples: 48_000 * 60, sampleRate: 48_000), 48_000)
        XCTAssertEqual(EchoAnalyzer.lengthTolerance(longestSamples: 48_000 * 4, sampleRate: 48_000), 19_200)
    }

    func testMismatchedRateNamesTheFile() throws {
        let reference = TestSignals.noise(count: 4_800, dbfs: -20, seed: 1)
        let referencePath = try write(reference, "ref.wav")
        let micPath = try write(reference, "mic16k.wav", sampleRate: 16_000)
        XCTAssertThrowsError(try EchoAnalyzer().analyzeFiles(reference: referencePath, mic: micPath, processed: referencePath)) { error in
            XCTAssertEqual(error as? MetricsError, .sampleRateMismatch(path: micPath, sampleRate: 16_000,
                                                                       referencePath: referencePath, referenceRate: 48_000))
            XCTAssertTrue("\(error)".hasPrefix(micPath), "\(error)")
        }
    }

    func testMissingFileNamesTheFile() throws {
        let referencePath = try write(TestSignals.noise(count: 4_800, dbfs: -20, seed: 1), "ref.wav")
        let missing = directory.appendingPathComponent("nope.wav").path
        XCTAssertThrowsError(try EchoAnalyzer().analyzeFiles(reference: referencePath, mic: referencePath, processed: missing)) { error in
            guard case .unreadableFile(let path, _)? = error as? MetricsError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, missing)
            XCTAssertTrue("\(error)".hasPrefix(missing + ": "), "\(error)")
        }
    }
}
