import AudioCore
import AudioInterop
import EchoLabTestSupport
@testable import Metrics
import XCTest

/// A recording whose mic holds white noise alone beside an espeak-ng far end (a headset's, or a
/// loopback from another call), scored without tracks: the tap-free gate fits an echo path to
/// noise. Its prediction stood above the residual in a few frames by chance, and those read as
/// far-end single talk: an ERL of 29 dB and an ERLE of 0 dB on 9 frames of −55 dBFS noise,
/// where there is no echo to measure. What the noise does tell is a bound: the echo is under it,
/// so the loss is at least the far end's level over the mic's.
final class NoiseOnlyMicTests: XCTestCase {
    /// `text` in espeak-ng's voice, as its 22.05 kHz file holds it (the file is gone after).
    private func spoken(_ text: String) throws -> [Float] {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try speak(text, to: "far.wav", in: folder)
        let stream = try AudioFileStream(path: folder.appendingPathComponent("far.wav").path, targetRate: 22_050, selection: .monoOnly)
        var far = [Float](repeating: 0, count: 20 * 22_050)
        let got = try stream.read(into: &far, frames: far.count)
        far.removeSubrange(got...)
        return far
    }

    func testAMicOfNoiseAloneHasNoERLEAndItsERLIsTheBoundTheNoiseGives() throws {
        let far = try spoken("The quick brown fox jumps over the lazy dog. A call that runs offline is measured bit for bit, "
                             + "and its echo is scored where there is echo.")
        var scored = 0
        var bounds: [Double: [Double]] = [:]
        for level in stride(from: -50.0, through: -70.0, by: -5) {
            for seed in UInt64(1)...4 {
                let noise = SignalGenerator.render(.whiteNoise(levelDBFS: level), sampleRate: 22_050, count: far.count, seed: seed)
                let mic = noise.map { ($0 * 32_768).rounded() / 32_768 }   // as a 16-bit file holds it
                let whole = EchoAnalyzer().analyze(EchoSignals(sampleRate: 22_050, reference: far, mic: mic, processed: mic)).whole
                XCTAssertEqual(whole.gate.method, .echoPathFit)
                XCTAssertEqual(whole.gate.singleTalkFrames, 0, "\(level) dBFS, seed \(seed)")
                XCTAssertNil(whole.erleDB, "\(level) dBFS, seed \(seed)")
                // The far end played over most of the call, its echo under the noise in all of it.
                XCTAssertGreaterThan(whole.gate.echoUnderNoiseFrames, 300, "\(level) dBFS, seed \(seed)")
                XCTAssertTrue(whole.erlIsLowerBound, "\(level) dBFS, seed \(seed)")
                XCTAssertEqual(whole.erlFrames, whole.gate.echoUnderNoiseFrames, "\(level) dBFS, seed \(seed)")
                // The delay's reason is the gate's, as with tracks (it read "no lag stands out").
                XCTAssertEqual(whole.delayUnmeasured, .noEchoAtMic, "\(level) dBFS, seed \(seed)")
                bounds[level, default: []].append(try XCTUnwrap(whole.erlDB, "\(level) dBFS, seed \(seed)"))
                scored += 1
            }
        }
        XCTAssertEqual(scored, 20)
        // The far end over the noise: 5 dB more for each 5 dB less noise, give or take which
        // frames the fit found the far end alone in.
        for level in stride(from: -55.0, through: -70.0, by: -5) {
            for (quieter, louder) in zip(bounds[level] ?? [], bounds[level + 5] ?? []) {
                XCTAssertEqual(quieter - louder, 5, accuracy: 0.5, "\(level) dBFS")
            }
        }
    }

    /// The rule takes no echo from a recording that has one near the noise: the same far end's
    /// echo 10 dB over −55 dBFS noise (a pure 30 ms, −35 dB path) is measured.
    func testAnEchoJustAboveTheNoiseIsStillMeasured() throws {
        let far = try spoken("The quick brown fox jumps over the lazy dog. A call that runs offline is measured bit for bit.")
        let noise = SignalGenerator.render(.whiteNoise(levelDBFS: -55), sampleRate: 22_050, count: far.count, seed: 7)
        let delay = 661, gain = Float(pow(10, -35.0 / 20))
        let mic = far.indices.map { noise[$0] + ($0 >= delay ? gain * far[$0 - delay] : 0) }
        let whole = EchoAnalyzer().analyze(EchoSignals(sampleRate: 22_050, reference: far, mic: mic, processed: mic)).whole
        XCTAssertGreaterThanOrEqual(whole.gate.singleTalkFrames, FigureConfidence.minimumAnalysisFrames)
        XCTAssertEqual(try XCTUnwrap(whole.erlDB), 35, accuracy: 1.5)
    }
}
