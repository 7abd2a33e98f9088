import AudioCore
import AudioInterop
import EchoLabTestSupport
@testable import Metrics
import XCTest

/// `ProcessedLag.estimate` on a recording that holds nothing in the top of its band, as espeak-ng's
/// 22.05 kHz voices resampled to 48 kHz do (nothing above 11 kHz) and as a 16 kHz canceller's
/// output does above 8 kHz. Blocks cut square spread their low frequencies over those empty bins,
/// and the whitened correlation peaked at lag 0 there: a copy of the mic 550 ms late read as
/// aligned, 800 ms late as one sample, 700 ms as 1000 ms.
final class ProcessedLagTests: XCTestCase {
    private static let rate = 48_000
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("processed-lag-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    private func file(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// An espeak-ng voice (22.05 kHz, so nothing above 11 kHz once at 48 kHz) that starts 5 s into
    /// the recording, 16-bit, beside a copy of it `lagSamples` late (zeros in front, cut to the
    /// same length), times `sign`.
    private func recording(lagSamples: Int, sign: Float = 1) throws -> (mic: String, processed: String) {
        try speak("Yes, I can hear you. The report is almost done. I ran the tests this morning and the results look much better.",
                  voice: "en-gb+f3", to: "voice.wav", in: directory)
        let stream = try AudioFileStream(path: file("voice.wav"), targetRate: Self.rate, selection: .monoOnly)
        var voice = [Float](repeating: 0, count: 12 * Self.rate)
        let got = try stream.read(into: &voice, frames: voice.count)
        let mic = Array(([Float](repeating: 0, count: 5 * Self.rate) + voice.prefix(got)).prefix(14 * Self.rate))
        let processed = [Float](repeating: 0, count: lagSamples) + mic.prefix(mic.count - lagSamples).map { $0 * sign }
        let name = "processed-\(lagSamples)\(sign < 0 ? "-inverted" : "").wav"
        try SoundFileWriter.write(mic, to: file("mic.wav"), sampleRate: Self.rate, encoding: .pcm16)
        try SoundFileWriter.write(processed, to: file(name), sampleRate: Self.rate, encoding: .pcm16)
        return (file("mic.wav"), file(name))
    }

    func testABandLimitedRecordingReadsTheLagItWasGiven() throws {
        for lag in [0, 957, 14_400] {
            let files = try recording(lagSamples: lag)
            let estimate = try ProcessedLag.estimate(mic: files.mic, processed: files.processed)
            XCTAssertEqual(estimate, ProcessedLag(samples: lag, sampleRate: Self.rate, source: .estimated), "\(lag) samples")
        }
    }

    /// An output sent upside down peaks negative at its lag; it read "cannot tell how far it
    /// lags" and was scored unshifted, so its near end read lost.
    func testAnInvertedOutputReadsItsLag() throws {
        for lag in [0, 957] {
            let files = try recording(lagSamples: lag, sign: -1)
            let estimate = try ProcessedLag.estimate(mic: files.mic, processed: files.processed)
            XCTAssertEqual(estimate, ProcessedLag(samples: lag, sampleRate: Self.rate, source: .estimated), "\(lag) samples")
        }
    }

    func testABandLimitedRecordingLateByMoreThanACancellerIsAnErrorNamingItsLag() throws {
        for lag in [26_400, 38_400] {
            let files = try recording(lagSamples: lag)
            XCTAssertThrowsError(try ProcessedLag.estimate(mic: files.mic, processed: files.processed), "\(lag) samples") { error in
                XCTAssertEqual(error as? ProcessedLag.OutOfRange,
                               ProcessedLag.OutOfRange(path: files.processed, milliseconds: Double(lag) * 1000 / Double(Self.rate)))
            }
        }
    }

    /// A near talker held in a few bins (a 300 Hz tone) beside a residual spread over the band
    /// that is the far end at another delay than the mic's echo (a plugin whose output added its
    /// echo estimate 34 ms late): the whitened correlation peaked at 34 ms, where the mic explains
    /// 0.3 of the output; the output is the mic at lag 0 (0.9 of it), and scored 34 ms late its
    /// talker read 10 dB cut. The lag is where the output's power says, set by the whitened peak.
    func testATonalTalkerBesideAWidebandResidualReadsTheTalkersLag() throws {
        let rate = Self.rate, count = 6 * rate
        var random = SeededRandom(seed: 5)
        let far: [Float] = (0..<count).map { i in
            let burst: Float = sin(2 * Float.pi * 0.7 * Float(i) / Float(rate)) > 0 ? 1 : 0
            return 0.1 * burst * random.nextGaussian()
        }
        func delayed(_ signal: [Float], _ samples: Int) -> [Float] { [Float](repeating: 0, count: samples) + signal.prefix(count - samples) }
        let echo = delayed(far, 1440).map { 0.3 * $0 }
        let near: [Float] = (0..<count).map { i in
            guard (Int(3.5 * Double(rate))..<5 * rate).contains(i) else { return 0 }
            let t = Float(i) / Float(rate)
            return 0.2 * sin(2 * Float.pi * 300 * t) * (0.6 + 0.4 * sin(2 * Float.pi * 3 * t))
        }
        let mic = zip(echo, near).map { $0 + $1 }
        // The residual later than the mic's echo (the whitened peak in range), and earlier (the
        // whitened peak 29 ms before the mic, which read as an output leading the mic, an error;
        // 1400 samples, 8.75 of the tone's periods, where the tone itself does not correlate).
        for (lag, residualDelay) in [(0, 3071), (480, 3071), (0, 40)] {
            let residual = delayed(far, residualDelay).map { 0.09 * $0 }
            let processed = delayed(zip(near, residual).map { $0 + $1 }, lag)
            try SoundFileWriter.write(mic, to: file("tonal-mic.wav"), sampleRate: rate)
            try SoundFileWriter.write(processed, to: file("tonal-out.wav"), sampleRate: rate)
            let estimate = try ProcessedLag.estimate(mic: file("tonal-mic.wav"), processed: file("tonal-out.wav"))
            XCTAssertEqual(estimate, ProcessedLag(samples: lag, sampleRate: rate, source: .estimated), "\(lag) samples")
        }
    }

    /// An output unrelated to the file given as the mic — `--reference` and `--mic` swapped, so
    /// the "mic" is the far end and the output its near talker — peaked by chance at −673 ms, and
    /// the error "leads the mic by 672.9 ms: align it" sent the user to re-align a file that was
    /// fine. At that lag the far end explains what chance does of the talker: nothing is found
    /// (metrics then names the swap).
    func testAnUnrelatedOutputIsNotOutOfRange() throws {
        let rate = 16_000, count = 16 * rate
        func voice(_ text: String, _ name: String, _ voice: String, wordsPerMinute: Int, at seconds: Double, dbfs: Double,
                   into samples: inout [Float]) throws -> Double {
            try speak(text, voice: voice, wordsPerMinute: wordsPerMinute, to: name, in: directory)
            let spoken = try AudioFileStream.readAll(path: file(name), targetRate: rate).samples
            let active = spoken.filter { abs($0) > 1e-3 }
            let gain = Float(pow(10, dbfs / 20) / (active.map { Double($0 * $0) }.reduce(0, +) / Double(active.count)).squareRoot())
            let start = Int(seconds * Double(rate)), n = min(spoken.count, count - start)
            for i in 0..<n { samples[start + i] += gain * spoken[i] }
            return Double(start + n) / Double(rate)
        }
        var far = [Float](repeating: 0, count: count), near = far
        let farEnd = try voice("The quarterly report shows that sales increased in every region. We should schedule a meeting next week to "
                               + "discuss the budget for the new project. Please send me the slides before Friday so I can review them.",
                               "far.wav", "en-us", wordsPerMinute: 150, at: 0.5, dbfs: -20, into: &far)
        _ = try voice("Sorry, can I interrupt for a second? I think the numbers are wrong.", "near1.wav", "en-gb+f3", wordsPerMinute: 160,
                      at: 5, dbfs: -29, into: &near)
        _ = try voice("Okay, talk to you later. Bye.", "near2.wav", "en-gb+f3", wordsPerMinute: 160, at: farEnd + 1, dbfs: -29, into: &near)
        let noise = SignalGenerator.render(.whiteNoise(levelDBFS: -70), sampleRate: rate, count: count, seed: 3)
        try SoundFileWriter.write(far, to: file("far-as-mic.wav"), sampleRate: rate, encoding: .pcm16)
        try SoundFileWriter.write(zip(near, noise).map(+), to: file("talker-out.wav"), sampleRate: rate, encoding: .pcm16)
        let estimate = try ProcessedLag.estimate(mic: file("far-as-mic.wav"), processed: file("talker-out.wav"))
        XCTAssertEqual(estimate.source, .notFound)
    }

    /// Past the search's reach (1 s) the true lag is not among the lags searched: what peaks is
    /// the voice's own rhythm, which must not pass for a lag in range or out of it.
    func testABandLimitedRecordingLateBeyondTheSearchIsNotFound() throws {
        let files = try recording(lagSamples: 57_600)
        let estimate = try ProcessedLag.estimate(mic: files.mic, processed: files.processed)
        XCTAssertEqual(estimate.source, .notFound)
        XCTAssertEqual(estimate.samples, 0)
    }
}
