import AudioInterop
import Foundation
import Metrics
import AudioCore

/// A run's tracks read from files, a stretch at a time: each file is read forward from where
/// the last stretch ended (stretches come in time order; one that starts earlier, as a double-talk
/// stretch spanning single talk does, reopens the file), `skip` samples in (a lagging output).
public final class FileTracks: RunScoring.Tracks {
    public let sampleRate: Int
    public let length: Int
    private let paths: [RunScoring.Track: (path: String, skip: Int)]
    private let channel: ChannelSelection
    private var streams: [RunScoring.Track: (stream: AudioFileStream, position: Int)] = [:]
    private var scratch: [Float] = []
    private var isMono: [RunScoring.Track: Bool] = [:]

    public init(sampleRate: Int, length: Int, paths: [RunScoring.Track: (path: String, skip: Int)], channel: ChannelSelection) {
        self.sampleRate = sampleRate
        self.length = length
        self.paths = paths
        self.channel = channel
    }

    /// A run's files: the output read `outputLag` samples in (a canceller's latency not yet
    /// taken out), the near end and the echo where known.
    public convenience init(sampleRate: Int, length: Int, reference: String, mic: String, output: String, outputLag: Int = 0,
                            nearEnd: String? = nil, echo: String? = nil, channel: ChannelSelection) {
        var paths: [RunScoring.Track: (path: String, skip: Int)] = [.reference: (reference, 0), .mic: (mic, 0), .output: (output, outputLag)]
        paths[.nearEnd] = nearEnd.map { ($0, 0) }
        paths[.echo] = echo.map { ($0, 0) }
        self.init(sampleRate: sampleRate, length: length, paths: paths, channel: channel)
    }

    public func samples(_ track: RunScoring.Track, _ range: Range<Int>) throws -> [Float]? {
        guard let (path, skip) = paths[track] else { return nil }
        let start = range.lowerBound + skip
        if streams[track] == nil || streams[track]!.position > start {
            // A mono file is read as it is; a multichannel one through `channel`. Its header is
            // read once, not at every reopening.
            if isMono[track] == nil { isMono[track] = try EchoAnalyzer.checkHeaders([path]).headers[0].channels == 1 }
            streams[track] = (try AudioFileStream(path: path, targetRate: sampleRate, selection: isMono[track]! ? .monoOnly : channel), 0)
        }
        var (stream, position) = streams[track]!
        while position < start {
            let step = min(65_536, start - position)
            if scratch.count < step { scratch = [Float](repeating: 0, count: step) }
            try stream.read(into: &scratch, frames: step)
            position += step
        }
        var out = [Float](repeating: 0, count: range.count)
        try stream.read(into: &out, frames: range.count)
        streams[track] = (stream, position + range.count)
        return out
    }
}
