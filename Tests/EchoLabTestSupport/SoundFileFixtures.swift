import CSndFile
import Foundation
import XCTest

/// Writes test inputs in any container and subtype libsndfile writes (the library's own writer
/// only makes the WAVs EchoLab outputs), and hand-made headers libsndfile would never write.
public enum SoundFileFixtures {
    public struct Format: Sendable {
        public let name: String
        public let major: Int
        public let subtype: Int
        public let fileExtension: String
        public let rate: Int
    }

    /// Every subtype of the common containers that this libsndfile writes, at a rate it takes.
    public static let formats: [Format] = [
        Format(name: "wav-u8", major: SF_FORMAT_WAV, subtype: SF_FORMAT_PCM_U8, fileExtension: "wav", rate: 16_000),
        Format(name: "wav-pcm16", major: SF_FORMAT_WAV, subtype: SF_FORMAT_PCM_16, fileExtension: "wav", rate: 48_000),
        Format(name: "wav-pcm24", major: SF_FORMAT_WAV, subtype: SF_FORMAT_PCM_24, fileExtension: "wav", rate: 44_100),
        Format(name: "wav-pcm32", major: SF_FORMAT_WAV, subtype: SF_FORMAT_PCM_32, fileExtension: "wav", rate: 48_000),
        Format(name: "wav-float", major: SF_FORMAT_WAV, subtype: SF_FORMAT_FLOAT, fileExtension: "wav", rate: 32_000),
        Format(name: "wav-double", major: SF_FORMAT_WAV, subtype: SF_FORMAT_DOUBLE, fileExtension: "wav", rate: 48_000),
        Format(name: "wav-ulaw", major: SF_FORMAT_WAV, subtype: SF_FORMAT_ULAW, fileExtension: "wav", rate: 8000),
        Format(name: "wav-alaw", major: SF_FORMAT_WAV, subtype: SF_FORMAT_ALAW, fileExtension: "wav", rate: 8000),
        Format(name: "wav-ima-adpcm", major: SF_FORMAT_WAV, subtype: SF_FORMAT_IMA_ADPCM, fileExtension: "wav", rate: 16_000),
        Format(name: "wav-ms-adpcm", major: SF_FORMAT_WAV, subtype: SF_FORMAT_MS_ADPCM, fileExtension: "wav", rate: 16_000),
        Format(name: "wav-gsm610", major: SF_FORMAT_WAV, subtype: SF_FORMAT_GSM610, fileExtension: "wav", rate: 8000),
        Format(name: "aiff-pcm16", major: SF_FORMAT_AIFF, subtype: SF_FORMAT_PCM_16, fileExtension: "aiff", rate: 44_100),
        Format(name: "au-pcm16", major: SF_FORMAT_AU, subtype: SF_FORMAT_PCM_16, fileExtension: "au", rate: 22_050),
        Format(name: "caf-float", major: SF_FORMAT_CAF, subtype: SF_FORMAT_FLOAT, fileExtension: "caf", rate: 48_000),
        Format(name: "w64-pcm16", major: SF_FORMAT_W64, subtype: SF_FORMAT_PCM_16, fileExtension: "w64", rate: 16_000),
        Format(name: "rf64-float", major: SF_FORMAT_RF64, subtype: SF_FORMAT_FLOAT, fileExtension: "wav", rate: 48_000),
        Format(name: "flac-16", major: SF_FORMAT_FLAC, subtype: SF_FORMAT_PCM_16, fileExtension: "flac", rate: 44_100),
        Format(name: "flac-24", major: SF_FORMAT_FLAC, subtype: SF_FORMAT_PCM_24, fileExtension: "flac", rate: 96_000),
        Format(name: "ogg-vorbis", major: SF_FORMAT_OGG, subtype: SF_FORMAT_VORBIS, fileExtension: "ogg", rate: 48_000),
    ]

    /// Writes `samples` (interleaved) with libsndfile in `format`.
    public static func write(_ samples: [Float], channels: Int = 1, to path: String, format: Format) throws {
        var info = SF_INFO()
        info.samplerate = Int32(format.rate)
        info.channels = Int32(channels)
        info.format = Int32(format.major | format.subtype)
        guard sf_format_check(&info) != 0 else { throw FixtureError("libsndfile here does not write \(format.name)") }
        guard let handle = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw FixtureError("libsndfile here cannot write \(format.name): \(String(cString: sf_strerror(nil)))")
        }
        sf_command(handle, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        let written = samples.withUnsafeBufferPointer { sf_writef_float(handle, $0.baseAddress, sf_count_t(samples.count / channels)) }
        sf_close(handle)
        XCTAssertEqual(Int(written), samples.count / channels)
    }

    /// A 16-bit PCM WAV whose header says what the caller wants, true or not: `dataBytes` is what
    /// the data chunk claims, `payload` what follows it.
    public static func wavHeader(channels: UInt16 = 1, rate: UInt32 = 48_000, bitsPerSample: UInt16 = 16, formatTag: UInt16 = 1,
                          dataBytes: UInt32, payload: Data) -> Data {
        var data = Data()
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); u32(36 + dataBytes)
        data.append(contentsOf: Array("WAVE".utf8))
        data.append(contentsOf: Array("fmt ".utf8)); u32(16)
        let blockAlign = channels * bitsPerSample / 8
        u16(formatTag); u16(channels); u32(rate); u32(rate * UInt32(blockAlign)); u16(blockAlign); u16(bitsPerSample)
        data.append(contentsOf: Array("data".utf8)); u32(dataBytes)
        data.append(payload)
        return data
    }
}

/// A fixture that cannot be made (a format this libsndfile cannot write, a voice espeak-ng cannot
/// speak): the test dependencies make every one, so this fails the test instead of skipping it.
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
