import AudioCore
import AudioInterop
import Foundation

/// libFuzzer target for the audio reader path: the input bytes are written to a file and opened
/// the way EchoLab opens every input — `SoundFileReader`, then `AudioFileStream` (downmix, each
/// channel, resampled to the engine's 48 kHz) read to the end. Opening and reading must throw a
/// typed `AudioIOError` or succeed; a trap, a sanitizer report, a leak or a hang is a finding.
///
/// Work per input is bounded: each stream hands out at most `maxOutputFrames` (1 s), so a header
/// that promises hours costs no more than a short file — the harness's cap, not the library's;
/// what the library must do itself (refuse absurd headers, not allocate by the header's word) is
/// what this target checks. libsamplerate's best converter (EchoLab's) costs ~50 ms per second of
/// output, so it runs on the first 20 ms (downmix, two blocks: the filter's priming and the
/// steady state) and in `readAll` of files under 400 frames; the second pass (the last channel,
/// or mono-only) uses the fastest converter through the same Swift code, for speed.
private let maxOutputFrames = 48_000
private let blockFrames = 480

/// One file per process, rewritten for each input (libFuzzer runs inputs one after another).
private let inputPath: String = {
    let dir = NSTemporaryDirectory() + "echolab-fuzz-audio-\(getpid())"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "echolab-fuzz-audio-\(getpid())") }
    return dir + "/input"
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAudio(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: size) } ?? Data()
    guard FileManager.default.createFile(atPath: inputPath, contents: data) else {
        fatalError("cannot write the fuzz input to \(inputPath)")
    }
    exercise(path: inputPath)
    return 0
}

private func exercise(path: String) {
    let reader: SoundFileReader
    do {
        reader = try SoundFileReader(path: path)
    } catch {
        check(error, path: path)
        return
    }
    // A successful open must describe a readable stream.
    precondition(reader.sampleRate > 0 && reader.channelCount > 0 && reader.frameCount >= 0,
                 "opened with \(reader.sampleRate) Hz × \(reader.channelCount), \(reader.frameCount) frames")
    // Downmix reads every channel; the last channel alone (extract) or mono-only takes one more pass.
    let passes: [(selection: ChannelSelection, quality: ResamplerQuality, cap: Int)] = [
        (.downmix, .best, 960),
        (reader.channelCount == 1 ? .monoOnly : .channel(reader.channelCount - 1), .fastest, maxOutputFrames),
    ]
    for (selection, quality, cap) in passes {
        do {
            let stream = try AudioFileStream(path: path, targetRate: 48_000, selection: selection, quality: quality)
            _ = stream.estimatedFrameCount
            var block = [Float](repeating: 0, count: blockFrames)
            var total = 0
            while total < cap {
                let got = try stream.read(into: &block, frames: blockFrames)
                precondition(got >= 0 && got <= blockFrames)
                precondition(block.allSatisfy(\.isFinite), "non-finite sample handed out")
                total += got
                if got < blockFrames { break }
            }
            try stream.rewind()
            _ = try stream.read(into: &block, frames: blockFrames)
        } catch {
            check(error, path: path)
        }
    }
    // The whole-file helper, for files that say they are short (it reads to the end, uncapped).
    if reader.frameCount <= 400 && reader.sampleRate >= 8_000 {
        do {
            let all = try AudioFileStream.readAll(path: path, targetRate: 48_000, selection: .downmix)
            precondition(all.sampleRate == 48_000)
        } catch {
            check(error, path: path)
        }
    }
}

/// Every error the reader path throws is a typed, printable, one-line `AudioIOError` naming the file.
private func check(_ error: any Error, path: String) {
    guard let audioError = error as? AudioIOError else {
        fatalError("untyped error: \(type(of: error)): \(error)")
    }
    let text = audioError.description
    precondition(text.contains(path), "error does not name the file: \(text)")
    precondition(!text.contains("\n"), "error is not one line: \(text)")
}
