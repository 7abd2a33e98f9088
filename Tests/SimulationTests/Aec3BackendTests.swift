import AudioCore
import AudioInterop
import Dispatch
import Synchronization
import XCTest
@testable import Simulation

/// WebRTC's AEC3 behind `EchoControl`, on rooms the test builds: a speech-like far end through a
/// reverberant room, as the published AEC3 figures are measured.
final class Aec3BackendTests: XCTestCase {
    static let rate = 48_000, frame = 480

    struct Room {
        var rt60Milliseconds = 300.0
        var delayMilliseconds = 40
        var gainDB = -6.0
        var noiseDBFS = -90.0
        var seconds = 20
    }

    /// Far end, and the mic: the far end through the room (`gainDB` on a unit-energy response,
    /// after `delayMilliseconds`), plus white noise.
    static func signals(_ room: Room, nearEnd: [Float]? = nil) -> (far: [Float], mic: [Float]) {
        let count = rate * room.seconds
        let far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 140), sampleRate: rate, count: count, seed: 3)
        let response = SyntheticRoom.impulseResponse(rt60Milliseconds: room.rt60Milliseconds, sampleRate: rate, seed: 11)
        let gain = Float(Decibels.amplitude(fromDB: room.gainDB)), delay = rate * room.delayMilliseconds / 1000
        var echo = [Float](repeating: 0, count: count)
        let convolver = PartitionedConvolver(impulseResponse: response, blockSize: frame)
        var block = [Float](repeating: 0, count: frame), out = block
        for start in stride(from: 0, to: count, by: frame) {
            for i in 0..<frame { block[i] = far[start + i] }
            convolver.process(block, into: &out)
            for i in 0..<frame where start + i + delay < count { echo[start + i + delay] = out[i] * gain }
        }
        let noise = SignalGenerator.render(.whiteNoise(levelDBFS: room.noiseDBFS), sampleRate: rate, count: count, seed: 4)
        let mic = (0..<count).map { echo[$0] + noise[$0] + (nearEnd?[$0] ?? 0) }
        return (far, mic)
    }

    /// ERLE (dB) over the frames of the second half where the far end is active.
    static func steadyERLE(_ control: EchoControl, room: Room) throws -> Double {
        let (far, mic) = signals(room)
        let output = try run(control, far: far, mic: mic)
        var micEnergy = 0.0, outEnergy = 0.0
        for start in stride(from: far.count / 2, to: far.count - frame, by: frame) {
            let farPower = (0..<frame).reduce(0.0) { $0 + Double(far[start + $1] * far[start + $1]) } / Double(frame)
            guard farPower > 1e-5 else { continue }
            for i in 0..<frame {
                micEnergy += Double(mic[start + i] * mic[start + i])
                let o = output[start + i + control.latencySamples]
                outEnergy += Double(o * o)
            }
        }
        return 10 * log10(micEnergy / outEnergy)
    }

    static func run(_ control: EchoControl, far: [Float], mic: [Float]) throws -> [Float] {
        var render = [Float](repeating: 0, count: frame), capture = render, out = render
        var output: [Float] = []
        output.reserveCapacity(far.count + frame)
        for start in stride(from: 0, to: far.count, by: frame) {
            for i in 0..<frame { render[i] = far[start + i]; capture[i] = mic[start + i] }
            try control.analyzeRender(render)
            try control.processCapture(capture, into: &out)
            output += out
        }
        return output + [Float](repeating: 0, count: frame)
    }

    private func make(_ intensity: EchoCancellerMode) throws -> EchoControl {
        try XCTUnwrap(EchoControlFactory.make(EchoControlMode(backend: .aec3, intensity: intensity), sampleRate: Self.rate, frameSize: Self.frame))
    }

    /// The room: published AEC3 runs on such rooms reach ~38 dB.
    func testSteadyERLEInAReverberantRoom() throws {
        for intensity in [EchoCancellerMode.intensityRecommended, .intensityMax] {
            let erle = try Self.steadyERLE(make(intensity), room: Room())
            XCTAssertGreaterThanOrEqual(erle, 35, "\(intensity)")
        }
    }

    /// Near-end attenuation (dB) in double talk at 0 dB SER, and ERLE over far-end single talk
    /// of 5–10 s (the far end alone for 10 s, then a second voice joins).
    static func tradeOff(_ control: EchoControl) throws -> (erle: Double, nearEndAttenuation: Double) {
        let room = Room()
        let (far, echoOnly) = signals(room)
        var near = SignalGenerator.render(.speechLike(levelDBFS: -26, pitchHz: 220), sampleRate: rate, count: far.count, seed: 8)
        for i in 0..<(far.count / 2) { near[i] = 0 }
        let mic = (0..<far.count).map { echoOnly[$0] + near[$0] }
        let output = try run(control, far: far, mic: mic)
        func power(_ signal: [Float], _ start: Int) -> Double {
            (0..<frame).reduce(0.0) { $0 + Double(signal[start + $1] * signal[start + $1]) }
        }
        var micEnergy = 0.0, echoLeft = 0.0, nearIn = 0.0, nearOut = 0.0
        for start in stride(from: far.count / 4, to: far.count - frame, by: frame) where power(far, start) > 1e-5 * Double(frame) {
            let out = power(output, start + control.latencySamples)
            if start < far.count / 2 {
                micEnergy += power(mic, start)
                echoLeft += out
            } else if start >= far.count / 2 + rate, power(near, start) > 1e-5 * Double(frame) {
                nearIn += power(near, start)
                nearOut += out
            }
        }
        return (10 * log10(micEnergy / echoLeft), 10 * log10(nearIn / nearOut))
    }

    /// Min keeps the near talker best and Max removes the most echo, as their names say.
    func testIntensitiesTradeEchoRemovalForTheNearEnd() throws {
        let min = try Self.tradeOff(make(.intensityMin)), recommended = try Self.tradeOff(make(.intensityRecommended))
        let max = try Self.tradeOff(make(.intensityMax))
        XCTAssertLessThan(min.nearEndAttenuation, recommended.nearEndAttenuation, "\(min) \(recommended)")
        XCTAssertLessThan(recommended.nearEndAttenuation, max.nearEndAttenuation, "\(recommended) \(max)")
        XCTAssertLessThan(min.erle, recommended.erle, "\(min) \(recommended)")
        XCTAssertLessThan(recommended.erle, max.erle, "\(recommended) \(max)")
    }

    /// Adaptive runs the three configurations side by side: after a switch, its output is, sample
    /// for sample, what a canceller of that intensity alone makes of the same call.
    func testAdaptiveOutputsTheChosenConfigurationUnchanged() throws {
        let room = Room(seconds: 6)
        let (far, mic) = Self.signals(room)
        let adaptive = try make(.intensityAdaptive)
        let suppression = try XCTUnwrap(adaptive.residualSuppression)
        XCTAssertEqual(suppression.suppressionDB, -40)
        XCTAssertEqual(adaptive.settings["selected"], .text("intensityRecommended"))
        let alone = [try make(.intensityRecommended), try make(.intensityMax)]
        var render = [Float](repeating: 0, count: Self.frame), capture = render, out = render, expected = render
        let switchAt = far.count / 2 / Self.frame * Self.frame
        for start in stride(from: 0, to: far.count, by: Self.frame) {
            if start == switchAt { suppression.setSuppression(farEndOnlyDB: -60, doubleTalkDB: -25) }
            for i in 0..<Self.frame { render[i] = far[start + i]; capture[i] = mic[start + i] }
            try adaptive.analyzeRender(render)
            try adaptive.processCapture(capture, into: &out)
            for control in alone {
                try control.analyzeRender(render)
                try control.processCapture(capture, into: &expected)
                if (control.intensity == .intensityMax) == (start >= switchAt) { XCTAssertEqual(out, expected, "frame at \(start)") }
            }
        }
        XCTAssertEqual(adaptive.settings["selected"], .text("intensityMax"))
        XCTAssertEqual(suppression.suppressionDB, -60)
        XCTAssertNil(try make(.intensityMax).residualSuppression, "only adaptive has configurations to choose between")
    }

    /// AEC3 keeps no state across instances: cancellers on two threads at once give what each
    /// gives alone (the check `eval --jobs 2` relies on; webrtc-audio-processing 0.3 needed a lock).
    func testCancellersOnTwoThreadsGiveWhatEachGivesAlone() throws {
        let (far, mic) = Self.signals(Room(seconds: 4))
        let alone = try Self.run(make(.intensityRecommended), far: far, mic: mic)
        let results = Mutex<[[Float]]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let output = try? Self.run(try XCTUnwrap(EchoControlFactory.make(EchoControlMode(backend: .aec3, intensity: .intensityRecommended),
                                                                             sampleRate: Self.rate, frameSize: Self.frame)), far: far, mic: mic)
            results.withLock { $0.append(output ?? []) }
        }
        for output in results.withLock({ $0 }) { XCTAssertTrue(output == alone) }
    }

    func testRatesAEC3DoesNotRunAtAreRefusedByName() {
        XCTAssertThrowsError(try EchoControlFactory.make(EchoControlMode(backend: .aec3, intensity: .intensityRecommended), sampleRate: 8000, frameSize: 80)) {
            XCTAssertTrue("\($0)".contains("aec3 runs at 16000, 32000 or 48000 Hz, not 8000 Hz"), "\($0)")
        }
        XCTAssertTrue(NativeLibraries.tgOwt.hasPrefix("tg_owt 0~git"), NativeLibraries.tgOwt)
    }
}
