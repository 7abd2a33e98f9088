import XCTest
@testable import AudioInterop

/// The preprocessor's spectral gain stage: residual echo suppression without noise suppression.
final class SpeexPreprocessorTests: XCTestCase {
    /// Near-end noise only (the far end is silent), through a linked preprocessor.
    private func nearEndLevelChange(noiseSuppression: Bool) throws -> Double {
        let frame = 480
        let canceller = try SpeexEchoCanceller(frameSize: frame, filterLength: 4_800, sampleRate: 48_000)
        let preprocessor = try SpeexPreprocessor(frameSize: frame, sampleRate: 48_000)
        preprocessor.setNoiseSuppression(enabled: noiseSuppression, maxAttenuationDB: -20)
        preprocessor.linkEchoSuppression(to: canceller)
        let near = SpeexEchoCancellerTests.reference(seconds: 3, seed: 91)
        let silence = [Int16](repeating: 0, count: near.count)
        let out = SpeexEchoCancellerTests.run(canceller, preprocessor: preprocessor, reference: silence, capture: near, frames: 0..<300)
        return SpeexEchoCancellerTests.attenuation(output: out, capture: near, frames: 200..<300)
    }

    func testLinkingEchoSuppressionDoesNotSwitchOnNoiseSuppression() throws {
        let withoutNS = try nearEndLevelChange(noiseSuppression: false)
        let withNS = try nearEndLevelChange(noiseSuppression: true)
        XCTAssertLessThan(abs(withoutNS), 3, "near-end noise must pass when only echo suppression is on (\(withoutNS) dB)")
        XCTAssertGreaterThan(withNS, withoutNS + 6, "noise suppression on: \(withNS) dB vs off: \(withoutNS) dB")
    }
}

extension SpeexPreprocessorTests {
    func testUnlinkingRestoresThePlainPreprocessor() throws {
        // Linked then unlinked before any audio: must behave exactly like one never linked.
        let canceller = try SpeexEchoCanceller(frameSize: 160, filterLength: 1_600, sampleRate: 16_000)
        let unlinked = try SpeexPreprocessor(frameSize: 160, sampleRate: 16_000)
        unlinked.linkEchoSuppression(to: canceller)
        unlinked.linkEchoSuppression(to: nil)
        let plain = try SpeexPreprocessor(frameSize: 160, sampleRate: 16_000)
        let input = SpeexEchoCancellerTests.reference(seconds: 1, seed: 4)
        var differing = 0
        for f in 0..<100 {
            var a = Array(input[(f * 160)..<((f + 1) * 160)]), b = a
            unlinked.process(&a)
            plain.process(&b)
            if a != b { differing += 1 }
        }
        XCTAssertEqual(differing, 0)
    }

    func testInvalidPreprocessorArgumentsThrow() {
        XCTAssertThrowsError(try SpeexPreprocessor(frameSize: 0, sampleRate: 48_000))
        XCTAssertThrowsError(try SpeexPreprocessor(frameSize: 480, sampleRate: 0))
    }
}
