import AudioCore
import AudioInterop
import Foundation
import VirtualTime
import XCTest
@testable import Simulation

/// A file as the microphone (the guide's AudioFileMicrophone): with AEC disabled, what is sent is
/// the file, resampled to 48 kHz, delayed by the pipeline.
final class DeviceFileMicTests: XCTestCase {
    private let content = SignalKind.musicLike(levelDBFS: -20)

    /// Runs 2 s with a file mic selected from the start; returns the sent stream.
    private func sent(file: String, mode: EchoCancellerMode, options: AppDeviceOptions = AppDeviceOptions()) throws -> [Float] {
        let call = try SimulatedCall(world: CallWorld(), voiceProcessing: VoiceProcessingSettings(echoCancellerMode: mode))
        let mic = try FileMicrophone(call: call, path: file, channel: .downmix, options: options)
        call.audioManager.setCustomMic(mic)
        mic.start()
        try call.start()
        try call.run(for: .seconds(2))
        XCTAssertNil(mic.failure)
        let counters = call.end()
        XCTAssertEqual(counters.uplink.underruns, 0)
        return call.recording.sent
    }

    /// The same content rendered directly at 48 kHz: the ground truth for every file format.
    private var truth: [Float] { SignalGenerator.render(content, sampleRate: 48_000, count: 48_000 * 3, seed: 0) }
    private let window = 48_000..<96_000
    /// The file mic pushes 960 frames every 20 ms from t = 0; the uplink primes once one burst
    /// plus one tick (1440) is buffered, which is first true after the push at 20 ms, so the tick
    /// at 20 ms reads the file's first sample: sent lags the file by exactly one app period.
    static let pipelineLatency = 960

    func testSentEqualsA48kFloatFileWithAECDisabled() throws {
        let folder = try makeTemporaryDirectory()
        let file = try writeWAV(SignalGenerator.render(content, sampleRate: 48_000, count: 48_000 * 3, seed: 0), in: folder, "f48.wav")
        let sent = try sent(file: file, mode: .disabled)
        let (lag, errorDB) = bestAlignment(output: sent, input: truth, window: window, lags: 0...4800)
        XCTAssertLessThan(errorDB, -60, "lag \(lag)")
        XCTAssertEqual(errorDB, -.infinity, "no resampling, no processing: bit-exact (lag \(lag))")
        XCTAssertEqual(lag, Self.pipelineLatency)
    }

    func testSentEqualsA44kInt16FileWithAECDisabled() throws {
        let folder = try makeTemporaryDirectory()
        let file = try writeWAV(SignalGenerator.render(content, sampleRate: 44_100, count: 44_100 * 3, seed: 0), in: folder, "i44.wav",
                                rate: 44_100, encoding: .pcm16)
        // The device reads at 48 kHz (the file stream resamples) …
        let sent48 = try sent(file: file, mode: .disabled)
        let a = bestAlignment(output: sent48, input: truth, window: window, lags: 0...4800)
        XCTAssertLessThan(a.errorDB, -60, "lag \(a.lag)")
        XCTAssertEqual(a.lag, Self.pipelineLatency)
        // … or pushes 44.1 kHz Int16 stereo 20 ms buffers and sendAudio converts them.
        var options = AppDeviceOptions()
        options.sampleRate = 44_100
        options.sampleType = .int16
        options.channelCount = 2
        let sent44 = try sent(file: file, mode: .disabled, options: options)
        let b = bestAlignment(output: sent44, input: truth, window: window, lags: 0...4800)
        XCTAssertLessThan(b.errorDB, -60, "lag \(b.lag)")
        XCTAssertEqual(b.lag, Self.pipelineLatency, "44.1 kHz 20 ms bursts (882 frames) resample to the same 960")
        print("file mic 44.1 kHz Int16: error \(a.errorDB) dB at lag \(a.lag) (read at 48 kHz), \(b.errorDB) dB at lag \(b.lag) (pushed at 44.1 kHz)")
    }

    /// The guide's Case 1 says to disable AEC for a file mic: with it on, the canceller and its
    /// residual suppression alter the file audibly (measured, lined up with the canceller's
    /// one-frame latency: error energy −7.3 dB relative to the signal; compared without that
    /// alignment it looked like +3.3 dB), where AEC off sends it bit for bit.
    func testFileMicWithAECRecommendedDeviation() throws {
        let folder = try makeTemporaryDirectory()
        let file = try writeWAV(SignalGenerator.render(content, sampleRate: 48_000, count: 48_000 * 3, seed: 0), in: folder, "f48.wav")
        let reference = try sent(file: file, mode: .disabled)
        let lag = bestAlignment(output: reference, input: truth, window: window, lags: 0...4800).lag
        let processed = try sent(file: file, mode: .intensityRecommended)
        // The speex backend delays its output by one frame (its preprocessor): compare there.
        let latency = 480
        let deviation = bestAlignment(output: processed, input: truth, window: window, lags: (lag + latency)...(lag + latency)).errorDB
        print("file mic with AEC intensityRecommended: sent deviates from the file by \(deviation) dB (error energy / signal)")
        XCTAssertEqual(bestAlignment(output: reference, input: truth, window: window, lags: lag...lag).errorDB, -.infinity)
        XCTAssertGreaterThan(deviation, -20, "the canceller must alter the file audibly (that is what the lint reports)")
        XCTAssertLessThan(deviation, -3, "lined up with its latency, the output is still the file, altered")
    }
}
