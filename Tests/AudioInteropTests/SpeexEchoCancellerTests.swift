import XCTest
import AudioCore
@testable import AudioInterop

/// The real speexdsp MDF canceller on a synthetic linear echo: it must actually cancel.
final class SpeexEchoCancellerTests: XCTestCase {
    static let rate = 48_000, frame = 480, delay = 480        // 10 ms frames, 10 ms echo delay

    /// White noise at about −20 dBFS RMS (uniform, RMS 0.1·full scale), seeded.
    static func reference(seconds: Int, seed: UInt64 = 17) -> [Int16] {
        var random = SeededRandom(seed: seed)
        let peak = 0.1 * 32_768 * 3.0.squareRoot()                // uniform in ±a has RMS a/√3
        return (0..<(rate * seconds)).map { _ in Int16((Double(random.nextSignedFloat()) * peak).rounded()) }
    }

    /// The microphone hears the loudspeaker 10 ms later at half amplitude.
    static func capture(of reference: [Int16]) -> [Int16] {
        (0..<reference.count).map { $0 < delay ? 0 : reference[$0 - delay] / 2 }
    }

    static func meanSquare(_ x: ArraySlice<Int16>) -> Double {
        x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)
    }

    /// Runs frames `range` through the canceller (and preprocessor); returns the output.
    static func run(_ canceller: SpeexEchoCanceller, preprocessor: SpeexPreprocessor? = nil,
                    reference: [Int16], capture: [Int16], frames range: Range<Int>) -> [Int16] {
        var output: [Int16] = []
        var out = [Int16](repeating: 0, count: frame)
        for f in range {
            let slice = (f * frame)..<((f + 1) * frame)
            canceller.cancel(capture: Array(capture[slice]), reference: Array(reference[slice]), output: &out)
            preprocessor?.process(&out)
            output += out
        }
        return output
    }

    /// Attenuation in dB over frames `range` of `output` against the capture.
    static func attenuation(output: [Int16], capture: [Int16], frames range: Range<Int>, outputStartFrame: Int = 0) -> Double {
        let outSlice = output[((range.lowerBound - outputStartFrame) * frame)..<((range.upperBound - outputStartFrame) * frame)]
        let capSlice = capture[(range.lowerBound * frame)..<(range.upperBound * frame)]
        return 10 * log10(meanSquare(capSlice) / max(meanSquare(outSlice), 1e-9))
    }

    func testCancellerAttenuatesALinearEchoByAtLeast20dBAfterFiveSeconds() throws {
        let ref = Self.reference(seconds: 5), cap = Self.capture(of: ref)
        let canceller = try SpeexEchoCanceller(frameSize: Self.frame, filterLength: 4_800, sampleRate: Self.rate)
        let out = Self.run(canceller, reference: ref, capture: cap, frames: 0..<500)
        let lastSecond = Self.attenuation(output: out, capture: cap, frames: 400..<500)
        let firstFrames = Self.attenuation(output: out, capture: cap, frames: 1..<4)
        XCTAssertGreaterThanOrEqual(lastSecond, 20, "measured \(lastSecond) dB over the last second")
        XCTAssertLessThan(firstFrames, lastSecond - 10, "it must have adapted, not merely muted")
    }

    func testLinkedPreprocessorSuppressesMoreThanTheCancellerAlone() throws {
        let ref = Self.reference(seconds: 5), cap = Self.capture(of: ref)
        let alone = try SpeexEchoCanceller(frameSize: Self.frame, filterLength: 4_800, sampleRate: Self.rate)
        let aloneOut = Self.run(alone, reference: ref, capture: cap, frames: 0..<500)

        let canceller = try SpeexEchoCanceller(frameSize: Self.frame, filterLength: 4_800, sampleRate: Self.rate)
        let preprocessor = try SpeexPreprocessor(frameSize: Self.frame, sampleRate: Self.rate)
        preprocessor.linkEchoSuppression(to: canceller)
        let linkedOut = Self.run(canceller, preprocessor: preprocessor, reference: ref, capture: cap, frames: 0..<500)

        let a = Self.attenuation(output: aloneOut, capture: cap, frames: 400..<500)
        let b = Self.attenuation(output: linkedOut, capture: cap, frames: 400..<500)
        XCTAssertGreaterThan(b, a + 6, "canceller alone \(a) dB, with residual echo suppression \(b) dB")
    }

    func testResetForgetsTheAdaptedFilter() throws {
        let ref = Self.reference(seconds: 4), cap = Self.capture(of: ref)
        let canceller = try SpeexEchoCanceller(frameSize: Self.frame, filterLength: 4_800, sampleRate: Self.rate)
        _ = Self.run(canceller, reference: ref, capture: cap, frames: 0..<300)
        let adapted = Self.run(canceller, reference: ref, capture: cap, frames: 300..<310)
        let adaptedDB = Self.attenuation(output: adapted, capture: cap, frames: 300..<310, outputStartFrame: 300)
        XCTAssertGreaterThan(adaptedDB, 15)

        canceller.reset()
        let fresh = Self.run(canceller, reference: ref, capture: cap, frames: 310..<313)
        let freshDB = Self.attenuation(output: fresh, capture: cap, frames: 310..<313, outputStartFrame: 310)
        XCTAssertLessThan(freshDB, 6, "after reset the first frames pass the echo almost untouched (\(freshDB) dB)")
        XCTAssertLessThan(freshDB, adaptedDB - 10)
    }

    /// A mic saturated by an echo 40 dB above the loudspeaker: the filter diverges and speexdsp
    /// resets it. The resets are counted on the canceller that had them (and not printed).
    func testDivergenceResetsAreCounted() throws {
        let ref = Self.reference(seconds: 6)
        let saturated = ref.map { Int16(clamping: Int($0) * 100) }
        let canceller = try SpeexEchoCanceller(frameSize: Self.frame, filterLength: 4_800, sampleRate: Self.rate)
        let calm = try SpeexEchoCanceller(frameSize: Self.frame, filterLength: 4_800, sampleRate: Self.rate)
        _ = Self.run(canceller, reference: ref, capture: saturated, frames: 0..<600)
        _ = Self.run(calm, reference: ref, capture: Self.capture(of: ref), frames: 0..<600)
        XCTAssertGreaterThan(canceller.divergenceResets, 0)
        XCTAssertEqual(calm.divergenceResets, 0, "a linear echo never diverges; and the other's resets are not counted here")
    }

    func testInvalidArgumentsThrow() {
        XCTAssertThrowsError(try SpeexEchoCanceller(frameSize: 0, filterLength: 4_800, sampleRate: 48_000))
        XCTAssertThrowsError(try SpeexEchoCanceller(frameSize: 480, filterLength: 100, sampleRate: 48_000))
        XCTAssertThrowsError(try SpeexEchoCanceller(frameSize: 480, filterLength: 4_800, sampleRate: 0)) { error in
            XCTAssertEqual(error as? CancellerLibraryError,
                           .invalidSettings(library: "speex echo canceller", detail: "frame 480, filter 4800, rate 0"))
            XCTAssertEqual("\(error)", "speex echo canceller: frame 480, filter 4800, rate 0 are not valid")
        }
    }
}
