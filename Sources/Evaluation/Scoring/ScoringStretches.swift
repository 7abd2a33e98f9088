import Metrics

/// The stretches of a call a scorer is asked about, one talk type each, as the AEC Challenge
/// scores its clips: far-end single talk (`st`: the far end talking, the near end silent, with the
/// pauses between its words), near-end single talk (`nst`, likewise) and double talk (`dt`: from
/// a double-talk frame to the last one that follows within a second, whatever lies between).
/// Shorter than `minimumSeconds`, a stretch is left out: a perceptual model needs words, not a
/// syllable.
public struct ScoringStretch: Sendable, Equatable {
    public var talk: TalkRun.Talk
    /// Samples of the analysed signals.
    public var samples: Range<Int>

    public init(talk: TalkRun.Talk, samples: Range<Int>) {
        self.talk = talk
        self.samples = samples
    }

    public static let minimumSeconds = 1.0
    /// Double talk this close to more double talk is one stretch.
    public static let doubleTalkJoinSeconds = 1.0

    /// The stretches of `runs` (frames of `frameSize`, `frameSize / 2` apart) at `sampleRate`,
    /// clipped to `length` samples, in time order.
    public static func stretches(_ runs: [TalkRun], frameSize: Int, sampleRate: Int, length: Int) -> [ScoringStretch] {
        let hop = max(1, frameSize / 2)
        func samples(_ frames: Range<Int>) -> Range<Int> {
            let start = min(length, frames.lowerBound * hop), end = min(length, (frames.upperBound - 1) * hop + frameSize)
            return start..<max(start, end)
        }
        let minimum = Int(minimumSeconds * Double(sampleRate))
        // Double talk first: double-talk runs joined across less than a second of anything else.
        let join = Int((doubleTalkJoinSeconds * Double(sampleRate) / Double(hop)).rounded(.up))
        var doubleTalk: [Range<Int>] = []
        for run in runs where run.talk == .doubleTalk {
            if let open = doubleTalk.last, run.frames.lowerBound - open.upperBound <= join {
                doubleTalk[doubleTalk.count - 1] = open.lowerBound..<run.frames.upperBound
            } else {
                doubleTalk.append(run.frames)
            }
        }
        var found = doubleTalk.map { ScoringStretch(talk: .doubleTalk, samples: samples($0)) }
        // Single talk: runs of one talker with silence between, trimmed of silence at both ends;
        // what a double-talk stretch spans is its own (a stretch scored as both was counted twice).
        for talk in [TalkRun.Talk.farEndSingleTalk, .nearEndSingleTalk] {
            var first: Int?, last: Int?
            func close() {
                if let first, let last { found.append(ScoringStretch(talk: talk, samples: samples(first..<last))) }
                first = nil; last = nil
            }
            for run in runs {
                if run.talk == talk, !doubleTalk.contains(where: { $0.overlaps(run.frames) }) {
                    if first == nil { first = run.frames.lowerBound }
                    last = run.frames.upperBound
                } else if run.talk != .silence {
                    close()
                }
            }
            close()
        }
        return found.filter { $0.samples.count >= minimum }.sorted { ($0.samples.lowerBound, $0.talk.rawValue) < ($1.samples.lowerBound, $1.talk.rawValue) }
    }
}
