internal import CSndFile
import AudioCore
import Foundation

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
    private var handle: OpaquePointer
    public private(set) var position: Int64 = 0

    public init(path: String) throws {
        self.path = path
        var info = SF_INFO()
        if let problem = InputFile.problem(at: path) { throw AudioIOError.cannotOpen(path: path, reason: problem) }
        let opened = SoundFileOpening.open(path, mode: Int32(SFM_READ), info: &info)
        guard let handle = opened.handle else {
            // libsndfile says "Format not recognised" of a file of no bytes at all: say what it is.
            let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
            throw AudioIOError.cannotOpen(path: path, reason: bytes == 0 ? "an empty file (0 bytes)" : Self.openFailure(opened.failure ?? ""))
        }
        self.handle = handle
        sampleRate = Int(info.samplerate)
        channelCount = Int(info.channels)
        frameCount = info.frames
        formatCode = info.format
        // libsndfile opens a file whose data chunk is cut short and quietly reads what is there
        // (frameCount shrinks to match). A truncated recording would skew every metric, so refuse
        // it: for RIFF/WAVE the header's data chunk size is checked against the file size
        // directly; for every format libsndfile's own log is checked too (1.2 writes
        // "data : 192000 (should be 95960)" for a WAV cut in half).
        // For RIFF/WAVE the byte check is the authority: libsndfile's log also warns "data chunk
        // seems to be truncated" when only the last codec block is short (its own GSM 6.10 files).
        let riff = Self.riffDataCheck(path: path)
        let problem: String? = switch riff {
        case .short(let detail): detail
        case .complete: nil
        case .notRIFF: Self.truncationProblem(in: Self.log(of: handle))
        }
        if let problem {
            sf_close(handle)
            throw AudioIOError.truncated(path: path, detail: problem)
        }
        guard sampleRate > 0, channelCount > 0 else {
            sf_close(handle)
            throw AudioIOError.cannotOpen(path: path, reason: "invalid sample rate or channel count")
        }
        // The metrics' windows and histories are seconds of audio at the file's own rate (12 s of
        // warm-up in each of five tracks), so an absurd rate in a broken header would ask for
        // gigabytes. No recording is made above 384 kHz.
        guard sampleRate <= Self.maximumSampleRate else {
            sf_close(handle)
            throw AudioIOError.cannotOpen(path: path, reason: "the header gives a sample rate of \(sampleRate) Hz, above the \(Self.maximumSampleRate) Hz EchoLab reads; the header is broken")
        }
        // A compressed stream's length is the header's word, and libsndfile reports 2^63 - 1
        // frames when it cannot find one (a broken Ogg stream). A length EchoLab's
        // integer-nanosecond clock cannot hold — 292 years — is a broken file, not audio; refuse
        // it rather than let arithmetic on it trap.
        guard frameCount >= 0, frameCount / Int64(sampleRate) <= Self.maximumSeconds else {
            sf_close(handle)
            throw AudioIOError.cannotOpen(path: path, reason: frameCount == Int64.max
                ? "its length cannot be determined (libsndfile reports 2^63 - 1 frames); the stream is broken"
                : "the header claims \(frameCount) frames at \(sampleRate) Hz, longer than \(Self.maximumSeconds / 31_557_600) years; the header is broken")
        }
    }

    deinit { sf_close(handle) }

    /// The highest sample rate the reader accepts (the highest studio rate, 8 x 48 kHz).
    public static let maximumSampleRate = 384_000

    /// The longest file the reader accepts: what fits in `Int64` nanoseconds.
    static let maximumSeconds = Int64.max / 1_000_000_000

    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    /// Reads up to `frames` interleaved frames into `buffer[offset...]`; returns frames read (0 at the end).
    public func read(into buffer: inout [Float], at offset: Int = 0, frames: Int) throws -> Int {
        precondition(offset >= 0 && frames >= 0 && offset + frames * channelCount <= buffer.count, "buffer too small")
        if frames == 0 { return 0 }
        let got = buffer.withUnsafeMutableBufferPointer { pointer in
            sf_readf_float(handle, pointer.baseAddress! + offset, sf_count_t(frames))
        }
        let error = sf_error(handle)
        if error != 0 {
            throw AudioIOError.cannotOpen(path: path, reason: SoundFileOpening.reason(sf_strerror(handle)))
        }
        let count = Int(got)
        if let (bad, fault) = Self.firstInvalidSample(buffer, in: offset..<(offset + count * channelCount)) {
            throw AudioIOError.invalidSample(path: path, frame: position + Int64((bad - offset) / channelCount), fault: fault)
        }
        position += Int64(count)
        return count
    }

    /// The magnitude from which a decoded sample is refused: 2^20, +120 dB over full scale. Float
    /// files may go past ±1, and headroom of a few dB to tens of dB is normal; a million times full
    /// scale is a corrupt or hostile file. Below it the engine's sums stay finite — the resampler's
    /// filter, a downmix, a 40960-point FFT's power (|X|² ≤ (40960 · 2^20)² ≈ 2e30 < Float.max).
    public static let sampleMagnitudeLimit: Float = 1_048_576

    /// Index of the first NaN, infinity or sample at or beyond `sampleMagnitudeLimit` in `range`,
    /// if any. The common all-valid case is one vectorisable pass over the bit patterns: a biased
    /// exponent of 147 (2^20) or more is too loud, 255 is NaN or infinity. Integer ORs can be
    /// reordered freely, a floating-point sum could not.
    public static func firstInvalidSample(_ samples: [Float], in range: Range<Int>) -> (index: Int, fault: SampleFault)? {
        // A span of exactly the range and a wrapping step: no bounds or overflow check in the
        // loop, so it vectorises.
        // The masked exponents fit in 31 bits, so a signed compare (SSE2 has one) gives the same.
        let values = samples.span.extracting(range)
        let limit = Int32(bitPattern: limitExponentBits)
        var seen: Int32 = 0, index = 0
        while index < values.count {
            seen |= Int32(bitPattern: values[index].bitPattern & 0x7F80_0000) >= limit ? 1 : 0
            index &+= 1
        }
        guard seen != 0 else { return nil }
        for index in range { if let fault = fault(of: samples[index]) { return (index, fault) } }
        return nil
    }

    /// The exponent field of `sampleMagnitudeLimit`, in place: (127 + 20) << 23.
    private static let limitExponentBits: UInt32 = sampleMagnitudeLimit.bitPattern & 0x7F80_0000

    static func fault(of sample: Float) -> SampleFault? {
        if sample.isNaN { return .notANumber }
        if sample.isInfinite { return .infinite }
        return sample.magnitude >= sampleMagnitudeLimit ? .tooLoud : nil
    }

    /// Moves to `frame` (0 is the start).
    /// A codec libsndfile cannot seek in (GSM 6.10 in WAV) is taken back to its start by opening
    /// the file again: a second pass over a file is a rewind, and the file is readable.
    public func seek(toFrame frame: Int64) throws {
        if sf_seek(handle, frame, SEEK_SET) < 0 {
            var info = SF_INFO()
            let fresh = frame == 0 ? SoundFileOpening.open(path, mode: Int32(SFM_READ), info: &info).handle : nil
            guard let fresh, info.frames == frameCount, Int(info.channels) == channelCount, Int(info.samplerate) == sampleRate else {
                if let fresh { sf_close(fresh) }
                throw AudioIOError.cannotOpen(path: path, reason: "cannot seek to frame \(frame)")
            }
            sf_close(handle)
            handle = fresh
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

    /// The log line libsndfile writes when a header promises more audio than the file holds:
    /// "data : 192000 (should be 95960)" (WAV, W64, CAF), "SSND : … (should be …)" (AIFF), or a
    /// line saying "truncated" / "exceeds file". A "should be" on the container line alone
    /// ("RIFF : 192072 (should be 96032)") is not enough: it also appears when only a trailing
    /// metadata chunk is cut and every sample is intact, and a cut data chunk always logs its own line.
    static func truncationProblem(in log: String) -> String? {
        for line in log.split(separator: "\n") {
            let lower = line.lowercased()
            if lower.contains("truncat") || lower.contains("exceeds file") {
                return line.trimmingCharacters()
            }
            guard lower.contains("should be") else { continue }
            let tag = line.trimmingCharacters().lowercased().prefix { $0 != " " && $0 != ":" }
            if tag == "data" || tag == "ssnd" { return line.trimmingCharacters() }
        }
        return nil
    }

    /// libsndfile's message, or what it means where libsndfile's wording misleads.
    static func openFailure(_ reason: String) -> String {
        // Raised when the header gives a sample rate or a channel count below 1 — 0, or a field
        // of 2^31 and more, which libsndfile reads as negative — or more than 1024 channels.
        if reason.contains("SF_INFO struct incomplete") {
            return "the header gives a sample rate or channel count of 0 or out of range"
        }
        return reason
    }

    enum RIFFDataCheck: Equatable {
        case notRIFF
        case complete
        case short(String)
    }

    /// For a RIFF/WAVE file, whether the data chunk's declared size runs past the end of the file.
    /// Works on the bytes directly, so it does not depend on the wording of libsndfile's log.
    /// A WAV written to a pipe, whose writer could not go back to patch the header, gives a size
    /// that promises nothing — 0xFFFFFFFF (ffmpeg's) or 0x7FFFF000 (sox's): the data runs to the
    /// end of the file, which libsndfile reads, and its log's "should be" line is no truncation;
    /// such a file is cut short only where it ends inside a sample frame. A size of 0 is not
    /// checked here; neither are RF64 files, whose sizes live in a `ds64` chunk.
    static func riffDataCheck(path: String) -> RIFFDataCheck {
        guard let file = FileHandle(forReadingAtPath: path) else { return .notRIFF }
        defer { try? file.close() }
        guard let fileLength = try? file.seekToEnd(), (try? file.seek(toOffset: 0)) != nil,
              let header = try? file.read(upToCount: 40), header.count >= 12 else { return .notRIFF }
        if header.count == 40, header.prefix(4).elementsEqual("riff".utf8), header.dropFirst(24).prefix(4).elementsEqual("wave".utf8) {
            return w64DataCheck(file, fileLength: fileLength)
        }
        guard header.prefix(4).elementsEqual("RIFF".utf8), header.dropFirst(8).prefix(4).elementsEqual("WAVE".utf8)
        else { return .notRIFF }
        var offset: UInt64 = 12
        var blockAlign: UInt64 = 0
        while offset + 8 <= fileLength {
            guard (try? file.seek(toOffset: offset)) != nil,
                  let chunk = try? file.read(upToCount: 24), chunk.count >= 8 else { return .notRIFF }
            let bytes = [UInt8](chunk)
            let size = UInt64(bytes[4]) | UInt64(bytes[5]) << 8 | UInt64(bytes[6]) << 16 | UInt64(bytes[7]) << 24
            // The fmt chunk's bytes per sample frame (all channels), at its offset 12.
            if bytes[0..<4].elementsEqual("fmt ".utf8), bytes.count >= 22 { blockAlign = UInt64(bytes[20]) | UInt64(bytes[21]) << 8 }
            if bytes[0..<4].elementsEqual("data".utf8) {
                let available = fileLength - (offset + 8)
                if size == 0xFFFF_FFFF || size == 0x7FFF_F000 {
                    guard blockAlign > 0, available % blockAlign != 0 else { return .complete }
                    return .short("the header gives no length (written to a pipe) and the file ends inside a sample frame "
                        + "(\(available) bytes of audio, frames of \(blockAlign)); the file was cut short")
                }
                guard size != 0 else { return .notRIFF }
                guard size > available else { return .complete }
                return .short("header declares \(size) bytes of audio data but the file holds \(available) "
                    + "(\(100 * available / size)%); the file was cut short")
            }
            offset += 8 + size + (size & 1)      // chunks are padded to an even size
        }
        return .notRIFF
    }
}

extension SoundFileReader {
    /// `riffDataCheck` for Sony Wave64, whose chunks are a 16-byte GUID (the data chunk's starts
    /// "data") and a 64-bit size that counts the chunk's 24-byte header, padded to 8 bytes.
    /// libsndfile reads a cut W64 without a word in its log, where it reports a cut WAV.
    static func w64DataCheck(_ file: FileHandle, fileLength: UInt64) -> RIFFDataCheck {
        var offset: UInt64 = 40
        while offset + 24 <= fileLength {
            guard (try? file.seek(toOffset: offset)) != nil,
                  let chunk = try? file.read(upToCount: 24), chunk.count == 24 else { return .notRIFF }
            let bytes = [UInt8](chunk)
            let size = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[16 + $1]) << (8 * UInt64($1)) }
            guard size >= 24 else { return .notRIFF }
            if bytes[0..<4].elementsEqual("data".utf8) {
                let declared = size - 24, available = fileLength - (offset + 24)
                guard declared > available else { return .complete }
                return .short("header declares \(declared) bytes of audio data but the file holds \(available) "
                    + "(\(100 * available / declared)%); the file was cut short")
            }
            let (padded, paddingOverflow) = size.addingReportingOverflow((8 - size % 8) % 8)
            let (next, overflow) = offset.addingReportingOverflow(padded)
            guard !paddingOverflow, !overflow else { return .notRIFF }
            offset = next
        }
        return .notRIFF
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
