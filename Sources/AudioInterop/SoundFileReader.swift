internal import CSndFile
import AudioCore

/// Streaming reader over libsndfile: any container and subtype libsndfile reads, delivered as
/// interleaved Float32 in [-1, 1]. Owns its `SNDFILE*` and closes it in `deinit`.
public final class SoundFileReader {
    public let path: String
    public let sampleRate: Int
    public let channelCount: Int
    /// Frames the file holds, as libsndfile counts them.
    public let frameCount: Int64
    /// libsndfile's major/minor format code, for reports.
    public let formatCode: Int32
    private let handle: OpaquePointer
    public private(set) var position: Int64 = 0

    public init(path: String) throws {
        self.path = path
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            let reason = String(cString: sf_strerror(nil))
            throw AudioIOError.cannotOpen(path: path, reason: reason)
        }
        self.handle = handle
        sampleRate = Int(info.samplerate)
        channelCount = Int(info.channels)
        frameCount = info.frames
        formatCode = info.format
        // libsndfile opens a file whose data chunk is cut short and quietly reads what is there;
        // its log says so. A truncated recording would skew every metric, so refuse it.
        if let problem = Self.truncationProblem(in: Self.log(of: handle)) {
            sf_close(handle)
            throw AudioIOError.truncated(path: path, detail: problem)
        }
        guard sampleRate > 0, channelCount > 0 else {
            sf_close(handle)
            throw AudioIOError.cannotOpen(path: path, reason: "invalid sample rate or channel count")
        }
    }

    deinit { sf_close(handle) }

    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    /// Reads up to `frames` interleaved frames into `buffer[offset...]`; returns frames read (0 at the end).
    public func read(into buffer: inout [Float], at offset: Int = 0, frames: Int) throws -> Int {
        precondition(offset + frames * channelCount <= buffer.count, "buffer too small")
        let got = buffer.withUnsafeMutableBufferPointer { pointer in
            sf_readf_float(handle, pointer.baseAddress! + offset, sf_count_t(frames))
        }
        let error = sf_error(handle)
        if error != 0 {
            throw AudioIOError.cannotOpen(path: path, reason: String(cString: sf_strerror(handle)))
        }
        let count = Int(got)
        for i in offset..<(offset + count * channelCount) where !buffer[i].isFinite {
            throw AudioIOError.invalidSamples(path: path, frame: position + Int64((i - offset) / channelCount))
        }
        position += Int64(count)
        return count
    }

    /// Moves to `frame` (0 is the start).
    public func seek(toFrame frame: Int64) throws {
        guard sf_seek(handle, frame, SEEK_SET) >= 0 else {
            throw AudioIOError.cannotOpen(path: path, reason: "cannot seek to frame \(frame)")
        }
        position = frame
    }

    private static func log(of handle: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 8192)
        _ = buffer.withUnsafeMutableBufferPointer { pointer in
            sf_command(handle, Int32(SFC_GET_LOG_INFO), pointer.baseAddress, Int32(pointer.count))
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The log lines libsndfile writes when a header promises more data than the file holds.
    static func truncationProblem(in log: String) -> String? {
        for line in log.split(separator: "\n") {
            let lower = line.lowercased()
            if lower.contains("should be") || lower.contains("truncat") || lower.contains("exceeds file") {
                return line.trimmingCharacters()
            }
        }
        return nil
    }
}

extension Substring {
    func trimmingCharacters() -> String {
        var s = self[...]
        while let first = s.first, first == " " || first == "\t" || first == "*" { s = s.dropFirst() }
        while let last = s.last, last == " " || last == "\t" || last == "\r" { s = s.dropLast() }
        return String(s)
    }
}
