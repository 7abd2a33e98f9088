internal import CSndFile
import AudioCore
import Foundation

/// How a written WAV stores samples.
public enum SoundFileEncoding: String, Sendable, CaseIterable {
    case float32, pcm16, pcm24

    var subtype: Int32 {
        switch self {
        case .float32: Int32(SF_FORMAT_FLOAT)
        case .pcm16: Int32(SF_FORMAT_PCM_16)
        case .pcm24: Int32(SF_FORMAT_PCM_24)
        }
    }
}

/// Streaming WAV writer over libsndfile that never leaves a half-written file under the final
/// name: it writes `.NAME.partial` beside the target and renames on `finish()`. A writer dropped
/// without `finish()` removes its partial file.
public final class SoundFileWriter {
    public let path: String
    public let sampleRate: Int
    public let channelCount: Int
    private let partialPath: String
    private var handle: OpaquePointer?
    public private(set) var framesWritten: Int64 = 0

    public init(path: String, sampleRate: Int, channelCount: Int = 1, encoding: SoundFileEncoding = .float32) throws {
        self.path = path
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        partialPath = AtomicFile.partialPath(for: path)
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = Int32(SF_FORMAT_WAV) | encoding.subtype
        guard sf_format_check(&info) != 0 else {
            throw AudioIOError.cannotWrite(path: path, reason: "unsupported format \(encoding) at \(sampleRate) Hz × \(channelCount)")
        }
        let opened = SoundFileOpening.open(partialPath, mode: Int32(SFM_WRITE), info: &info)
        guard let handle = opened.handle else {
            throw AudioIOError.cannotWrite(path: path, reason: opened.failure ?? "")
        }
        // Float → PCM writes clip rather than wrap around.
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        // Float WAVs get a PEAK chunk whose timestamp is the wall clock: leave it out so the same
        // samples always give the same bytes (golden hashes depend on it).
        sf_command(handle, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        self.handle = handle
    }

    deinit { discard() }

    /// Closes the file and removes it, leaving nothing under either name (a run that stops
    /// early). Idempotent; nothing is written after it. Called by the owner, not left to
    /// `deinit`: a worker thread may drop the last reference after the process has moved on
    /// to exit, and the partial file would stay.
    public func discard() {
        guard let handle else { return }
        self.handle = nil
        sf_close(handle)
        unlink(partialPath)
    }

    /// Appends `frames` interleaved frames from `samples[offset...]`.
    public func write(_ samples: [Float], from offset: Int = 0, frames: Int) throws {
        guard let handle else { throw AudioIOError.cannotWrite(path: path, reason: "already finished") }
        precondition(offset >= 0 && frames >= 0 && offset + frames * channelCount <= samples.count, "not enough samples")
        if frames == 0 { return }
        let written = samples.withUnsafeBufferPointer { pointer in
            sf_writef_float(handle, pointer.baseAddress! + offset, sf_count_t(frames))
        }
        guard written == frames else {
            throw AudioIOError.cannotWrite(path: path, reason: SoundFileOpening.reason(sf_strerror(handle)))
        }
        framesWritten += Int64(frames)
    }

    /// Closes the file and moves it to its final name.
    public func finish() throws {
        if let replaced = try finishKeepingReplaced() { AtomicFile.removeReplaced([replaced]) }
    }

    /// `finish()`, except that a file the new one replaced is left at the returned hidden path
    /// for the caller to delete (`AtomicFile.removeReplaced`), e.g. on another thread.
    public func finishKeepingReplaced() throws -> String? {
        guard let handle else { return nil }
        self.handle = nil
        let closeResult = sf_close(handle)
        guard closeResult == 0 else {
            unlink(partialPath)
            throw AudioIOError.cannotWrite(path: path, reason: "close failed (\(closeResult))")
        }
        switch AtomicFile.moveIntoPlaceKeepingReplaced(partialPath, to: path) {
        case .moved(let replaced):
            return replaced
        case .failed(let reason):
            unlink(partialPath)
            throw AudioIOError.cannotWrite(path: path, reason: reason)
        }
    }

    /// Writes a whole mono buffer to `path` in one go.
    public static func write(_ samples: [Float], to path: String, sampleRate: Int, encoding: SoundFileEncoding = .float32) throws {
        let writer = try SoundFileWriter(path: path, sampleRate: sampleRate, channelCount: 1, encoding: encoding)
        try writer.write(samples, frames: samples.count)
        try writer.finish()
    }
}
