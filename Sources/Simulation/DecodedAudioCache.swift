import AudioCore
import AudioInterop
import Foundation
import Synchronization

/// Whole decoded inputs shared by the runs that are handed the cache: `echolab eval` runs every
/// scenario in several modes, and most of its time went into resampling the same 16 kHz inputs
/// to 48 kHz again for each run. A file
/// is decoded once — exactly as `AudioFileStream` streams it, so a run reads the same bits — and
/// kept while the cache's byte budget allows. The runner of a corpus makes one and passes it down
/// to the calls; a run handed none streams (a single `run` reads each file once, and a day-long
/// input must stream). Nothing outlives the cache: it is no process-wide state.
public final class DecodedAudioCache: Sendable {
    /// A decoded file: its samples at the target rate and the stream's frame estimate.
    public struct Decoded: Sendable {
        public let samples: [Float]
        public let estimatedFrameCount: Int64
    }

    private struct Key: Hashable {
        /// The file as it is now (a file rewritten between runs is decoded again).
        var file: FileStamp
        var targetRate: Int
        var selection: ChannelSelection
        var quality: ResamplerQuality
        /// A looping stream's first this many frames (nil: the file once through).
        var loopedFrames: Int? = nil
    }

    /// One file's slot: its lock is held while it is decoded, so a second run that wants the
    /// same file waits for it instead of decoding it too.
    private final class Slot: Sendable {
        enum Content { case empty, decoded(Decoded), streamed }
        let content = Mutex<Content>(.empty)
    }

    private struct State {
        var usedBytes = 0
        var slots: [Key: Slot] = [:]
    }

    private let state = Mutex(State())
    /// What the decoded files may take in memory, in bytes.
    public let budgetBytes: Int

    /// Files longer than this many frames at the target rate are streamed, not cached (32 MB).
    public static let maximumFrames: Int64 = 1 << 23

    public init(budgetBytes: Int) {
        self.budgetBytes = budgetBytes
    }

    /// The whole file as `AudioFileStream(path:targetRate:selection:quality:)` delivers it, or nil
    /// when the budget is none, the file is too long, the budget is spent or the file has a
    /// problem (then stream it: the stream reports the problem as it always does).
    public func decoded(path: String, targetRate: Int, selection: ChannelSelection,
                        quality: ResamplerQuality) -> Decoded? {
        guard let file = FileStamp(path: path) else { return nil }
        return decoded(Key(file: file, targetRate: targetRate, selection: selection, quality: quality))
    }

    /// The first `frames` frames of `AudioFileStream(path:targetRate:selection:quality:loops:
    /// true)` — the file over and over, joined before its resampler — or nil as `decoded` is (a
    /// mixing speaker's music, read for as long as a call plays it, by every mode of an item).
    public func looped(path: String, targetRate: Int, selection: ChannelSelection, quality: ResamplerQuality,
                       frames: Int) -> Decoded? {
        guard frames > 0, Int64(frames) <= Self.maximumFrames, let file = FileStamp(path: path) else { return nil }
        return decoded(Key(file: file, targetRate: targetRate, selection: selection, quality: quality, loopedFrames: frames))
    }

    private func decoded(_ key: Key) -> Decoded? {
        guard budgetBytes > 0 else { return nil }
        let slot = state.withLock { state in
            if let slot = state.slots[key] { return slot }
            let slot = Slot()
            state.slots[key] = slot
            return slot
        }
        return slot.content.withLock { content -> Decoded? in
            switch content {
            case .decoded(let decoded): return decoded
            case .streamed: return nil
            case .empty: break
            }
            // A file that cannot be decoded whole (an error, too long, over budget) is streamed by
            // each run, which then meets any error where a run without the cache would: a NaN
            // past the end of a shorter call is never read.
            guard let decoded = decode(key) else {
                content = .streamed
                return nil
            }
            content = .decoded(decoded)
            return decoded
        }
    }

    private func decode(_ key: Key) -> Decoded? {
        guard let stream = try? AudioFileStream(path: key.file.path, targetRate: key.targetRate, selection: key.selection,
                                                quality: key.quality, loops: key.loopedFrames != nil) else { return nil }
        if let frames = key.loopedFrames { return decodeLooped(stream, frames: frames) }
        let estimate = stream.estimatedFrameCount
        guard estimate <= Self.maximumFrames else { return nil }
        let bytes = Int(estimate) * MemoryLayout<Float>.size
        guard admit(bytes) else { return nil }
        // A header that promised less than the file holds is not worth keeping either.
        guard let samples = try? AudioFileStream.read(stream, estimatedFrames: estimate),
              samples.count <= Int(Self.maximumFrames) + 65_536 else {
            release(bytes)
            return nil
        }
        return Decoded(samples: samples, estimatedFrameCount: estimate)
    }

    /// The first `frames` frames of a looping stream, while the budget allows.
    private func decodeLooped(_ stream: AudioFileStream, frames: Int) -> Decoded? {
        let bytes = frames * MemoryLayout<Float>.size
        guard admit(bytes) else { return nil }
        var samples = [Float](repeating: 0, count: frames)
        // A looping stream falls short only of a file with no audio: that one streams.
        guard let got = try? stream.read(into: &samples, frames: frames), got == frames else {
            release(bytes)
            return nil
        }
        return Decoded(samples: samples, estimatedFrameCount: stream.estimatedFrameCount)
    }

    /// Takes `bytes` of the budget for a file about to be decoded, if they are left.
    private func admit(_ bytes: Int) -> Bool {
        state.withLock { state in
            guard state.usedBytes + bytes <= budgetBytes else { return false }
            state.usedBytes += bytes
            return true
        }
    }

    /// Gives back what `admit` took for a file that was not kept.
    private func release(_ bytes: Int) { state.withLock { $0.usedBytes -= bytes } }
}
