import XCTest
import Foundation
import AudioCore
@testable import AudioInterop

/// Inputs the fuzzer (`make fuzz`, Fuzz/) found trapping the audio reader path, kept as real files
/// in Fuzz/corpus/regressions/audio: each must now open and read to the end, or throw an
/// `AudioIOError` that names the file — the same contract the fuzz target checks.
final class FuzzRegressionTests: XCTestCase {
    static let regressions = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus/regressions/audio")

    private func regression(_ name: String) -> String { Self.regressions.appendingPathComponent(name).path }

    /// An Ogg/Vorbis stream libsndfile cannot find the length of (it reports 2^63 - 1 frames): the
    /// estimate of the resampled length (frames × 48000 / rate) overflowed and trapped, `readAll`
    /// reserved a buffer of that size, and `echolab run` without `duration_s` trapped computing the
    /// call's length. Such a file is refused when it is opened.
    func testOggClaimingAnAbsurdLengthIsRefusedNamingTheFile() throws {
        let path = regression("ogg-length-unknown.ogg")
        for open in [{ _ = try SoundFileReader(path: path) }, { _ = try AudioFileStream(path: path, targetRate: 48_000) },
                     { _ = try AudioFileStream.readAll(path: path, targetRate: 48_000) }] {
            XCTAssertThrowsError(try open()) { error in
                guard case .cannotOpen(let p, let reason)? = error as? AudioIOError else { return XCTFail("\(error)") }
                XCTAssertEqual(p, path)
                XCTAssertTrue(reason.contains("length cannot be determined"), reason)
                XCTAssertTrue(reason.contains("the stream is broken"), reason)
            }
        }
    }

    func testTheLongestAcceptedLengthFitsInNanoseconds() {
        XCTAssertEqual(SoundFileReader.maximumSeconds, 9_223_372_036)
        XCTAssertFalse(SoundFileReader.maximumSeconds.multipliedReportingOverflow(by: 1_000_000_000).overflow)
    }

    /// Every committed regression input, through the fuzz target's steps.
    func testEveryRegressionInputReadsOrThrowsATypedErrorNamingTheFile() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.regressions.path).sorted()
        XCTAssertFalse(names.isEmpty)
        for name in names {
            let path = regression(name)
            do {
                let reader = try SoundFileReader(path: path)
                XCTAssertGreaterThan(reader.sampleRate, 0, name)
                XCTAssertGreaterThan(reader.channelCount, 0, name)
                let stream = try AudioFileStream(path: path, targetRate: 48_000, selection: .downmix)
                var block = [Float](repeating: 0, count: 480)
                var total = 0
                // Every sample handed out is finite (the fuzz target's check): a file of finite
                // 3.4e38s overflowed the resampler into infinities.
                while total < 48_000 * 60 {
                    let got = try stream.read(into: &block, frames: 480)
                    XCTAssertTrue(block[0..<got].allSatisfy(\.isFinite), "\(name): a non-finite sample near frame \(total)")
                    total += got
                    if got < 480 { break }
                }
                let all = try AudioFileStream.readAll(path: path, targetRate: 48_000, selection: .downmix)
                XCTAssertTrue(all.samples.allSatisfy(\.isFinite), name)
            } catch let error as AudioIOError {
                if case .resampler = error { continue }
                XCTAssertTrue(error.description.contains(path), "\(name): \(error)")
            }
        }
    }
}

/// A header's sample rate that libsamplerate cannot convert to the engine's rate (the fuzzer's
/// seeds `broken-rate-1.wav`): the error used to be "resampler: ratio 48000/1 is outside
/// libsamplerate's range", naming no file.
final class UnconvertibleSampleRateTests: XCTestCase {
    var dir: TemporaryDirectory!
    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    /// A real WAV from the project's writer with its header's rate (and byte rate) rewritten.
    private func wav(claimingRate rate: UInt32) throws -> String {
        let path = dir.file("rate-\(rate).wav")
        try SoundFileWriter.write(Signals.noise(seed: 3, count: 400), to: path, sampleRate: 48_000, encoding: .pcm16)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(data[12..<16], Data("fmt ".utf8), "fmt is the first chunk: the rate is at byte 24")
        data.replaceSubrange(24..<28, with: withUnsafeBytes(of: rate.littleEndian) { Data($0) })
        data.replaceSubrange(28..<32, with: withUnsafeBytes(of: (rate &* 2).littleEndian) { Data($0) })
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    func testRatesLibsamplerateCannotConvertAreErrorsNamingTheFileAndTheRate() throws {
        for rate: UInt32 in [1, 100] {
            let path = try wav(claimingRate: rate)
            XCTAssertEqual(try SoundFileReader(path: path).sampleRate, Int(rate), "libsndfile opens it as it is")
            XCTAssertThrowsError(try AudioFileStream(path: path, targetRate: 48_000)) { error in
                guard case .cannotOpen(let p, let reason)? = error as? AudioIOError else { return XCTFail("\(rate): \(error)") }
                XCTAssertEqual(p, path)
                XCTAssertTrue(reason.contains("\(rate) Hz to 48000 Hz"), reason)
                XCTAssertTrue("\(error)".hasPrefix(path + ": "), "\(error)")
            }
            XCTAssertThrowsError(try AudioFileStream.readAll(path: path, targetRate: 48_000)) { error in
                XCTAssertTrue("\(error)".contains(path), "\(error)")
            }
        }
    }

    /// Above 384 kHz the reader refuses the header itself: the metrics hold seconds of audio at
    /// the file's rate, and 2^31 - 1 Hz asked for 103 GB.
    func testRatesAbove384kHzAreRefusedByTheReaderNamingTheFile() throws {
        for rate: UInt32 in [384_001, 20_000_000, 0x7fff_ffff] {
            let path = try wav(claimingRate: rate)
            XCTAssertThrowsError(try SoundFileReader(path: path)) { error in
                XCTAssertEqual("\(error)", "\(path): cannot open audio file: the header gives a sample rate of \(rate) Hz, above the 384000 Hz EchoLab reads; the header is broken")
            }
        }
        XCTAssertEqual(try SoundFileReader(path: try wav(claimingRate: 384_000)).sampleRate, 384_000)
    }

    func testAConvertibleOddRateStillReads() throws {
        let path = try wav(claimingRate: 8_000)
        let all = try AudioFileStream.readAll(path: path, targetRate: 48_000)
        XCTAssertEqual(all.samples.count, 2_400, accuracy: 8, "400 frames at 8 kHz are 2400 at 48 kHz")
    }
}

/// A real FLAC whose STREAMINFO claims 2^36 - 1 frames (18 days at 44.1 kHz) but holds 2000: a
/// length the reader accepts, so `readAll` must not reserve memory by the header's word
/// (75 billion frames at 48 kHz) and hands back the audio that is really there.
final class LyingLengthHeaderTests: XCTestCase {
    func testReadAllOfAFLACClaiming18DaysReturnsTheAudioThatIsThere() throws {
        let path = FuzzRegressionTests.regressions.appendingPathComponent("flac-streaminfo-claims-2e36-frames.flac").path
        let reader = try SoundFileReader(path: path)
        XCTAssertEqual(reader.frameCount, (1 << 36) - 1)
        XCTAssertEqual(reader.sampleRate, 44_100)
        let stream = try AudioFileStream(path: path, targetRate: 48_000)
        XCTAssertEqual(stream.estimatedFrameCount, ((1 << 36) - 1) * 48_000 / 44_100)
        let all = try AudioFileStream.readAll(path: path, targetRate: 48_000)
        XCTAssertEqual(Double(all.samples.count), 2_000.0 * 48_000 / 44_100, accuracy: 8)
    }
}
