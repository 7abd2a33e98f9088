import AudioCore
import AudioInterop
import XCTest
@testable import Simulation

/// Every backend behind the one `EchoControl` interface, made by the factory and fed the engine's
/// 10 ms frames at 48 kHz: each really cancels, the intensities order as their names say, and a
/// backend that runs at another rate reports the latency its output really has.
final class EchoControlBackendTests: XCTestCase {
    static let rate = 48_000, frame = 480

    /// Noise in 250 ms bursts (AECM adapts only on a moving far-end level), its echo 40 ms later
    /// at −6 dB, a −70 dBFS floor.
    static func signals(seconds: Int) -> (far: [Float], mic: [Float]) {
        let quarter = rate / 4, delay = rate * 40 / 1000
        var random = SeededRandom(seed: 5)
        let far = (0..<(rate * seconds)).map { i in random.nextSignedFloat() * 0.3 * (i / quarter % 2 == 1 ? 1 : 0.05) }
        var floor = SeededRandom(seed: 6)
        let mic = (0..<far.count).map { i in (i >= delay ? far[i - delay] * 0.5 : 0) + floor.nextSignedFloat() * 0.0005 }
        return (far, mic)
    }

    /// ERLE over the last two seconds.
    static func erle(_ control: EchoControl, seconds: Int = 8) throws -> Double {
        let (far, mic) = signals(seconds: seconds)
        var render = [Float](repeating: 0, count: frame), capture = render, out = render
        var micEnergy = 0.0, outEnergy = 0.0
        for start in stride(from: 0, to: far.count, by: frame) {
            for i in 0..<frame { render[i] = far[start + i]; capture[i] = mic[start + i] }
            try control.analyzeRender(render)
            try control.processCapture(capture, into: &out)
            if start >= (seconds - 2) * rate {
                micEnergy += capture.reduce(0) { $0 + Double($1 * $1) }
                outEnergy += out.reduce(0) { $0 + Double($1 * $1) }
            }
        }
        return 10 * log10(micEnergy / outEnergy)
    }

    private func make(_ backend: EchoCancellerBackend, _ intensity: EchoCancellerMode) throws -> EchoControl {
        try XCTUnwrap(EchoControlFactory.make(EchoControlMode(backend: backend, intensity: intensity), sampleRate: Self.rate, frameSize: Self.frame))
    }

    func testEveryBackendCancelsALinearEcho() throws {
        XCTAssertNil(try EchoControlFactory.make(.disabled, sampleRate: Self.rate, frameSize: Self.frame))
        let minimum: [EchoCancellerBackend: Double] = [.speex: 20, .webrtc: 20, .webrtcMobile: 10, .aec3: 20, .echolab: 20]
        for backend in EchoCancellerBackend.builtIns {
            let control = try make(backend, .intensityRecommended)
            XCTAssertEqual(control.backend, backend)
            let erle = try Self.erle(control)
            XCTAssertGreaterThan(erle, minimum[backend]!, "\(backend): ERLE \(erle) dB")
        }
    }

    func testWebRTCIntensitiesOrderByEchoRemoval() throws {
        for backend in [EchoCancellerBackend.webrtc, .webrtcMobile] {
            let values = try [EchoCancellerMode.intensityMin, .intensityRecommended, .intensityMax].map { try Self.erle(make(backend, $0)) }
            XCTAssertLessThanOrEqual(values[0], values[1] + 0.5, "\(backend): \(values)")
            XCTAssertLessThanOrEqual(values[1], values[2] + 0.5, "\(backend): \(values)")
        }
    }

    /// With nothing played, every backend passes the capture through; it comes out
    /// `latencySamples` later (speex: one frame, its preprocessor's overlap-add; WebRTC: its block
    /// buffering and band splitting; AECM: that and the resampling to 16 kHz and back).
    func testEveryBackendReportsItsTrueLatency() throws {
        for backend in EchoCancellerBackend.builtIns {
            try checkLatency(try make(backend, .intensityRecommended))
        }
        XCTAssertEqual(try make(.speex, .intensityMax).latencySamples, Self.frame)
    }

    private func checkLatency(_ control: EchoControl) throws {
        XCTAssertGreaterThan(control.latencySamples, 0)
        var random = SeededRandom(seed: 9)
        let talk = (0..<(Self.rate * 3)).map { i in random.nextSignedFloat() * 0.2 * (i / (Self.rate / 5) % 2 == 0 ? 1 : 0.1) }
        var output: [Float] = []
        var silence = [Float](repeating: 0, count: Self.frame), capture = silence, out = silence
        for start in stride(from: 0, to: talk.count, by: Self.frame) {
            for i in 0..<Self.frame { capture[i] = talk[start + i] }
            try control.analyzeRender(silence)
            try control.processCapture(capture, into: &out)
            output += out
        }
        silence[0] = 0
        // The lag of the largest correlation of output with capture, over a 0.1 s window.
        let window = Self.rate..<(Self.rate + 4800)
        let correlations = (0..<2000).map { lag in window.reduce(0.0) { $0 + Double(talk[$1] * output[$1 + lag]) } }
        let best = correlations.indices.max { correlations[$0] < correlations[$1] }!
        XCTAssertEqual(best, control.latencySamples, accuracy: 1, "\(control.backend)")
    }

    func testIntensityChangesInPlaceWhereTheBackendCan() throws {
        let speex = try make(.speex, .intensityRecommended)
        XCTAssertTrue(speex.changeIntensity(to: .intensityAdaptive), "same 200 ms filter: only suppression changes")
        XCTAssertFalse(speex.changeIntensity(to: .intensityMin), "a 100 ms filter needs a new canceller")
        let webrtc = try make(.webrtc, .intensityMin)
        XCTAssertEqual(webrtc.settings["suppression_level"], .text("low"))
        XCTAssertTrue(webrtc.changeIntensity(to: .intensityMax))
        XCTAssertEqual(webrtc.settings["suppression_level"], .text("high"))
        XCTAssertEqual(webrtc.intensity, .intensityMax)
        XCTAssertNil(webrtc.linearOutput)
        XCTAssertNotNil(speex.linearOutput)
    }

    /// A latency is measured once per `EchoControlLatencies` and reads the same without one: the
    /// memo is the caller's, passed in, and changes no figure.
    func testALatencyIsRememberedByTheLatenciesPassedInAndTheSameWithout() throws {
        let latencies = EchoControlLatencies()
        for backend in [EchoCancellerBackend.webrtc, .webrtcMobile, .aec3] {
            let mode = EchoControlMode(backend: backend, intensity: .intensityRecommended)
            let remembered = try XCTUnwrap(EchoControlFactory.make(mode, sampleRate: Self.rate, frameSize: Self.frame, latencies: latencies))
            let again = try XCTUnwrap(EchoControlFactory.make(mode, sampleRate: Self.rate, frameSize: Self.frame, latencies: latencies))
            let measured = try XCTUnwrap(EchoControlFactory.make(mode, sampleRate: Self.rate, frameSize: Self.frame))
            XCTAssertEqual(again.latencySamples, remembered.latencySamples, "\(mode)")
            XCTAssertEqual(measured.latencySamples, remembered.latencySamples, "\(mode)")
        }
        XCTAssertEqual(latencies.known.withLock { $0.keys.sorted() },
                       ["aec3:intensityRecommended 48000 480", "webrtc-mobile:intensityRecommended 48000 480", "webrtc:intensityRecommended 48000 480"])
        XCTAssertGreaterThan(latencies.known.withLock { $0["webrtc-mobile:intensityRecommended 48000 480"] } ?? 0, 0,
                             "AECM at 48 kHz resamples to 16 kHz and back: its output is late")
    }
}
