import XCTest
import Foundation
import Synchronization
@testable import AudioInterop

/// Bad input: not audio, missing, truncated, NaN. Every error names the file.
final class SoundFileReaderErrorTests: XCTestCase {
    var dir: TemporaryDirectory!
    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    private func validWAV(_ name: String, encoding: SoundFileEncoding = .float32, seconds: Int = 1) throws -> String {
        let path = dir.file(name)
        try SoundFileWriter.write(Signals.noise(seed: 9, count: 48_000 * seconds), to: path, sampleRate: 48_000, encoding: encoding)
        return path
    }

    private func truncate(_ path: String, toBytes length: Int) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(length).write(to: URL(fileURLWithPath: path))
    }

    private func size(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as! NSNumber).intValue
    }

    func testTextFileNamedWavIsCannotOpenNamingThePath() throws {
        let path = dir.file("x.wav")
        try "this is not audio\n".write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try SoundFileReader(path: path)) { error in
            guard case .cannotOpen(let p, let reason)? = error as? AudioIOError else { return XCTFail("\(error)") }
            XCTAssertEqual(p, path)
            XCTAssertFalse(reason.isEmpty)
            XCTAssertTrue("\(error)".contains(path))
        }
    }

    /// libsndfile keeps an open's failure in one process-wide variable, which another thread's
    /// successful open reset to "No Error." before it was read (eval --jobs 2, one run in three).
    /// Opens on two threads at once: every failure keeps its own reason.
    func testAFailedOpensReasonSurvivesOpensOnOtherThreads() throws {
        let good = try validWAV("good.wav", seconds: 0)
        let bad = dir.file("bad.wav")
        try "not audio".write(toFile: bad, atomically: false, encoding: .utf8)
        let reasons = Mutex<[String]>([])
        // Two threads of their own: `concurrentPerform` runs its iterations one after the other
        // on a machine of one core, where no open would overlap another.
        let done = DispatchGroup()
        let opener = Thread {
            for _ in 0..<2000 { _ = try? SoundFileReader(path: good) }
            done.leave()
        }
        let failer = Thread {
            for _ in 0..<2000 {
                do { _ = try SoundFileReader(path: bad) } catch { reasons.withLock { $0.append("\(error)") } }
            }
            done.leave()
        }
        done.enter(); done.enter()
        opener.start(); failer.start()
        done.wait()
        let all = reasons.withLock { $0 }
        XCTAssertEqual(all.count, 2000)
        XCTAssertEqual(Set(all), ["\(bad): cannot open audio file: Format not recognised"])
    }

    /// libsndfile's reasons read as EchoLab's other errors do: no "System error : " before the
    /// system's own reason, no closing period.
    func testLibsndfilesReasonsLoseTheirPrefixAndPeriod() {
        XCTAssertEqual(SoundFileOpening.reason("System error : No space left on device."), "No space left on device")
        XCTAssertEqual(SoundFileOpening.reason("Format not recognised."), "Format not recognised")
        XCTAssertEqual(SoundFileOpening.reason("Unspecified internal error."), "Unspecified internal error")
        XCTAssertEqual(SoundFileOpening.reason("."), "unknown error")
        XCTAssertEqual(SoundFileOpening.reason(nil), "unknown error")
    }

    /// libsndfile's "Format not recognised" of a file of no bytes sent a reader looking for a
    /// codec; the file is empty.
    func testAnEmptyFileIsSaidToBeEmpty() throws {
        let path = dir.file("empty.wav")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        XCTAssertThrowsError(try SoundFileReader(path: path)) { error in
            XCTAssertEqual("\(error)", "\(path): cannot open audio file: an empty file (0 bytes)")
        }
    }

    func testMissingFileIsCannotOpenNamingThePath() {
        let path = dir.file("does-not-exist.wav")
        XCTAssertThrowsError(try SoundFileReader(path: path)) { error in
            guard case .cannotOpen(let p, _)? = error as? AudioIOError else { return XCTFail("\(error)") }
            XCTAssertEqual(p, path)
            XCTAssertTrue("\(error)".contains("does-not-exist.wav"))
        }
        XCTAssertThrowsError(try AudioFileStream(path: path, targetRate: 48_000))
    }

    func testWAVCutInHalfIsTruncatedForEveryEncoding() throws {
        for encoding in SoundFileEncoding.allCases {
            let path = try validWAV("half-\(encoding).wav", encoding: encoding)
            try truncate(path, toBytes: try size(path) / 2)
            XCTAssertThrowsError(try SoundFileReader(path: path), "\(encoding)") { error in
                guard case .truncated(let p, let detail)? = error as? AudioIOError else { return XCTFail("\(encoding): \(error)") }
                XCTAssertEqual(p, path)
                XCTAssertFalse(detail.isEmpty)
                XCTAssertTrue("\(error)".contains(path))
                XCTAssertTrue("\(error)".contains("truncated"))
            }
            XCTAssertThrowsError(try AudioFileStream(path: path, targetRate: 16_000), "\(encoding)") { error in
                guard case .truncated? = error as? AudioIOError else { return XCTFail("\(encoding): \(error)") }
            }
        }
    }

    func testWAVCutByOneByteOrRightAfterTheHeaderIsTruncated() throws {
        let path = try validWAV("cut.wav", encoding: .pcm16)
        let full = try size(path)
        for cut in [full - 1, full - 100, 60] {
            let copy = dir.file("cut-\(cut).wav")
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            try truncate(copy, toBytes: cut)
            XCTAssertThrowsError(try SoundFileReader(path: copy), "cut to \(cut) of \(full) bytes") { error in
                guard case .truncated(let p, _)? = error as? AudioIOError else { return XCTFail("cut \(cut): \(error)") }
                XCTAssertEqual(p, copy)
            }
        }
    }

    func testIntactFileWithTrailingBytesIsNotTruncated() throws {
        let path = try validWAV("trailing.wav", encoding: .pcm16)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(repeating: 0x55, count: 37))
        try handle.close()
        let reader = try SoundFileReader(path: path)
        XCTAssertEqual(reader.frameCount, 48_000)
    }

    /// A WAV written to a pipe (ffmpeg's, sox's) has sizes of 0xFFFFFFFF its writer could not go
    /// back to patch: its data runs to the end of the file, and it reads as the same file with
    /// its sizes patched. It was refused as cut short ("data : 4294967295 (should be …)").
    func testAWAVWrittenToAPipeReadsToItsEnd() throws {
        let path = try validWAV("patched.wav", encoding: .pcm16)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let dataChunk = try XCTUnwrap(data.range(of: Data("data".utf8))).lowerBound
        for offset in [4, dataChunk + 4] { data.replaceSubrange(offset..<(offset + 4), with: Data([0xFF, 0xFF, 0xFF, 0xFF])) }
        let streamed = dir.file("streamed.wav")
        try data.write(to: URL(fileURLWithPath: streamed))
        let reader = try SoundFileReader(path: streamed)
        XCTAssertEqual(reader.frameCount, 48_000)
        XCTAssertEqual(try AudioFileStream.readAll(path: streamed).samples, try AudioFileStream.readAll(path: path).samples)
        // sox's size for a length it does not know.
        var sox = data
        sox.replaceSubrange((dataChunk + 4)..<(dataChunk + 8), with: Data([0x00, 0xF0, 0xFF, 0x7F]))
        try sox.write(to: URL(fileURLWithPath: streamed))
        XCTAssertEqual(try AudioFileStream.readAll(path: streamed).samples, try AudioFileStream.readAll(path: path).samples)
        // Cut inside a sample frame, such a file is cut short.
        try data.dropLast(1).write(to: URL(fileURLWithPath: streamed))
        XCTAssertThrowsError(try SoundFileReader(path: streamed)) { error in
            XCTAssertEqual("\(error)", "\(streamed): truncated audio file: the header gives no length (written to a pipe) and the file ends "
                           + "inside a sample frame (95999 bytes of audio, frames of 2); the file was cut short")
        }
    }

    func testCutTrailingMetadataChunkIsNotTruncatedAudio() throws {
        // Every sample is there; only a LIST chunk after the data is short. The RIFF size then
        // overstates the file ("RIFF : … (should be …)") but the audio is complete.
        let path = try validWAV("list.wav", encoding: .pcm16)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data += Data("LIST".utf8) + Data([200, 0, 0, 0]) + Data(repeating: 0, count: 20)   // claims 200, holds 20
        let riff = UInt32(data.count - 8 + 180)
        data.replaceSubrange(4..<8, with: withUnsafeBytes(of: riff.littleEndian) { Data($0) })
        try data.write(to: URL(fileURLWithPath: path))
        let reader = try SoundFileReader(path: path)
        XCTAssertEqual(reader.frameCount, 48_000)
    }

    func testTruncationProblemRecognisesLibsndfileLogLines() {
        XCTAssertEqual(SoundFileReader.truncationProblem(in: "File : a.wav\nRIFF : 192072 (should be 96032)\nWAVE\ndata : 192000 (should be 95960)\nEnd\n"),
                       "data : 192000 (should be 95960)")
        XCTAssertEqual(SoundFileReader.truncationProblem(in: "FORM : 100 (should be 50)\n SSND : 80 (should be 30)\n"),
                       "SSND : 80 (should be 30)")
        XCTAssertNotNil(SoundFileReader.truncationProblem(in: "*** File appears truncated.\n"))
        XCTAssertNil(SoundFileReader.truncationProblem(in: "File : ok.wav\nLength : 480\nRIFF : 472\nWAVE\ndata : 400\nEnd\n"))
        XCTAssertNil(SoundFileReader.truncationProblem(in: "RIFF : 192072 (should be 96032)\ndata : 400\n"))
    }

    func testNaNInAFloatWAVIsInvalidSamplesAtTheRightFrame() throws {
        let path = dir.file("nan.wav")
        var samples = Signals.noise(seed: 4, count: 2_000)
        samples[1_500] = .nan
        try SoundFileWriter.write(samples, to: path, sampleRate: 48_000)
        let reader = try SoundFileReader(path: path)
        var buffer = [Float](repeating: 0, count: 1_000)
        XCTAssertEqual(try reader.read(into: &buffer, frames: 1_000), 1_000)
        XCTAssertThrowsAudioError(.invalidSample(path: path, frame: 1_500, fault: .notANumber), try reader.read(into: &buffer, frames: 1_000))
        XCTAssertThrowsAudioError(.invalidSample(path: path, frame: 1_500, fault: .notANumber), try AudioFileStream.readAll(path: path))
    }

    func testInfinityInAStereoFloatWAVReportsTheFrame() throws {
        let path = dir.file("inf.wav")
        let writer = try SoundFileWriter(path: path, sampleRate: 48_000, channelCount: 2)
        var samples = [Float](repeating: 0.1, count: 200)
        samples[151] = -.infinity          // frame 75, right channel
        try writer.write(samples, frames: 100)
        try writer.finish()
        let reader = try SoundFileReader(path: path)
        var buffer = [Float](repeating: 0, count: 200)
        XCTAssertThrowsAudioError(.invalidSample(path: path, frame: 75, fault: .infinite), try reader.read(into: &buffer, frames: 100))
    }

    /// A float file may hold finite samples that no audio reaches; past ±2^20 the resampler's
    /// filter overflowed them into infinities (found by the fuzzer: a 44.1 kHz file of 3.4e38s).
    func testAFiniteButAbsurdlyLoudSampleIsRefusedBeforeTheResamplerOverflows() throws {
        let path = dir.file("loud.wav")
        var samples = Signals.noise(seed: 5, count: 1_000)
        for index in 600..<640 { samples[index] = 3.39e38 }
        try SoundFileWriter.write(samples, to: path, sampleRate: 44_100)
        XCTAssertThrowsAudioError(.invalidSample(path: path, frame: 600, fault: .tooLoud),
                                  try AudioFileStream.readAll(path: path, targetRate: 48_000))
        XCTAssertEqual(AudioIOError.invalidSample(path: path, frame: 600, fault: .tooLoud).description,
                       "\(path): sample at frame 600 is ±2^20 (+120 dBFS) or louder, not audio")
    }

    /// The limit is exact: the largest float below 2^20 is read (and resampled to finite values),
    /// 2^20 itself is not, whatever its sign. Float audio above full scale is legal.
    func testTheLoudnessLimitIsExactAndLoudButPlausibleAudioReads() throws {
        let below = dir.file("below.wav"), at = dir.file("at.wav")
        var samples = Signals.noise(seed: 6, count: 2_000).map { $0 * 100 }      // +40 dBFS
        samples[1_000] = SoundFileReader.sampleMagnitudeLimit.nextDown
        samples[1_001] = -SoundFileReader.sampleMagnitudeLimit.nextDown
        try SoundFileWriter.write(samples, to: below, sampleRate: 44_100)
        let audio = try AudioFileStream.readAll(path: below, targetRate: 48_000)
        XCTAssertGreaterThan(audio.samples.count, 2_000)
        XCTAssertTrue(audio.samples.allSatisfy(\.isFinite))
        XCTAssertGreaterThan(audio.samples.map(\.magnitude).max() ?? 0, 500_000)

        samples[1_500] = -SoundFileReader.sampleMagnitudeLimit
        try SoundFileWriter.write(samples, to: at, sampleRate: 48_000)
        XCTAssertThrowsAudioError(.invalidSample(path: at, frame: 1_500, fault: .tooLoud), try AudioFileStream.readAll(path: at))
    }
}
