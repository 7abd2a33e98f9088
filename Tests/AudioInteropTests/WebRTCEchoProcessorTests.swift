import Foundation
import XCTest
import AudioCore
@testable import AudioInterop

/// The real webrtc-audio-processing cancellers on a synthetic linear echo (the loudspeaker's
/// noise in 250 ms bursts, 40 ms later at −6 dB, plus a quiet noise floor): each must really
/// cancel. Bursts, not steady noise: AECM's far-end activity detector needs the level to move,
/// and on stationary noise it never adapts (measured: 0.07 dB).
final class WebRTCEchoProcessorTests: XCTestCase {
    /// Runs `seconds` of echo through `processor` and returns (capture, output) energies over the
    /// last two seconds.
    private func cancel(_ processor: WebRTCEchoProcessor, seconds: Int, delayMilliseconds: Int = 40) throws -> (Double, Double) {
        let rate = processor.sampleRate, n = processor.frameSize, delay = rate * delayMilliseconds / 1000
        let quarter = rate / 4
        let far = Signals.noise(seed: 21, count: rate * seconds, amplitude: 0.3).enumerated().map { index, sample in
            index / quarter % 2 == 1 ? sample : sample * 0.05
        }
        let floor = Signals.noise(seed: 22, count: rate * seconds, amplitude: 0.0005)
        var render = [Float](repeating: 0, count: n), mic = render, out = render
        var micEnergy = 0.0, outEnergy = 0.0
        let tail = (seconds - 2) * rate
        for start in stride(from: 0, to: far.count, by: n) {
            for i in 0..<n {
                render[i] = far[start + i]
                let echoIndex = start + i - delay
                mic[i] = (echoIndex >= 0 ? far[echoIndex] * 0.5 : 0) + floor[start + i]
            }
            try processor.render(render)
            try processor.capture(mic, into: &out, delayMilliseconds: delayMilliseconds)
            if start >= tail {
                micEnergy += Signals.meanSquare(mic)
                outEnergy += Signals.meanSquare(out)
            }
        }
        return (micEnergy, outEnergy)
    }

    func testAECCancelsALinearEchoAt48kHz() throws {
        let aec = try WebRTCEchoProcessor(kind: .aec, sampleRate: 48_000)
        XCTAssertEqual(aec.frameSize, 480)
        let (mic, out) = try cancel(aec, seconds: 8)
        let erle = 10 * log10(mic / out)
        XCTAssertGreaterThan(erle, 20, "ERLE \(erle) dB")
    }

    func testHigherSuppressionRemovesMoreEcho() throws {
        var low = WebRTCEchoProcessor.Settings(), high = low
        low.suppressionLevel = .low
        high.suppressionLevel = .high
        let erleLow = try cancel(WebRTCEchoProcessor(kind: .aec, sampleRate: 16_000, settings: low), seconds: 8)
        let erleHigh = try cancel(WebRTCEchoProcessor(kind: .aec, sampleRate: 16_000, settings: high), seconds: 8)
        XCTAssertGreaterThanOrEqual(10 * log10(erleHigh.0 / erleHigh.1), 10 * log10(erleLow.0 / erleLow.1))
    }

    func testAECMCancelsAt16kHzAndRefusesOtherRates() throws {
        var settings = WebRTCEchoProcessor.Settings()
        settings.routingMode = .loudSpeakerphone
        let aecm = try WebRTCEchoProcessor(kind: .aecm, sampleRate: 16_000, settings: settings)
        XCTAssertEqual(aecm.frameSize, 160)
        let (mic, out) = try cancel(aecm, seconds: 8)
        XCTAssertGreaterThan(10 * log10(mic / out), 10)
        XCTAssertThrowsError(try WebRTCEchoProcessor(kind: .aecm, sampleRate: 48_000)) { error in
            XCTAssertTrue("\(error)".contains("8000 or 16000"), "\(error)")
        }
        XCTAssertThrowsError(try WebRTCEchoProcessor(kind: .aec, sampleRate: 44_100))
    }

    /// webrtc-audio-processing 0.3 resets process-wide kernel pointers whenever an AEC is
    /// initialised; before the shim serialised that, a canceller whose neighbour was being created
    /// on another thread ran some frames with other kernels and its output changed in the last
    /// bits (`eval --jobs 2` differed from `--jobs 1`). The output must not depend on what other
    /// threads do.
    func testOutputIsBitIdenticalWhileOtherThreadsCreateCancellers() throws {
        func output(_ processor: WebRTCEchoProcessor) throws -> [Float] {
            let n = processor.frameSize
            let far = Signals.noise(seed: 31, count: n * 300, amplitude: 0.3)
            var mic = [Float](repeating: 0, count: n), out = mic, all: [Float] = []
            all.reserveCapacity(far.count)
            for start in stride(from: 0, to: far.count, by: n) {
                let frame = Array(far[start..<start + n])
                for i in 0..<n { mic[i] = start + i >= 960 ? far[start + i - 960] * 0.5 : 0 }
                try processor.render(frame)
                try processor.capture(mic, into: &out, delayMilliseconds: 20)
                all += out
            }
            return all
        }
        let alone = try output(WebRTCEchoProcessor(kind: .aec, sampleRate: 48_000))

        let stop = Stop()
        let churn = Thread {
            while !stop.isSet {
                _ = try? WebRTCEchoProcessor(kind: .aec, sampleRate: 16_000)
            }
            stop.finished.signal()
        }
        churn.start()
        let busy = try output(WebRTCEchoProcessor(kind: .aec, sampleRate: 48_000))
        stop.set()
        stop.finished.wait()

        XCTAssertEqual(alone.count, busy.count)
        let differing = zip(alone, busy).filter { $0.bitPattern != $1.bitPattern }.count
        XCTAssertEqual(differing, 0, "\(differing) of \(alone.count) samples changed while another thread created cancellers")
    }
}

private final class Stop: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    let finished = DispatchSemaphore(value: 0)
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return flag }
    func set() { lock.lock(); flag = true; lock.unlock() }
}
