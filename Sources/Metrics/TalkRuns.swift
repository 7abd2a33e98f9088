/// The activity gate's decisions over a call, run-length encoded: each run of consecutive
/// analysis frames of one kind. What a scorer needs to cut a call into stretches of one talk type.
public struct TalkRun: Sendable, Equatable {
    public enum Talk: String, Sendable, CaseIterable {
        case silence
        /// Far-end single talk (the AEC Challenge's `st`).
        case farEndSingleTalk = "st"
        /// Near-end single talk (`nst`).
        case nearEndSingleTalk = "nst"
        /// Double talk (`dt`).
        case doubleTalk = "dt"
    }

    public var talk: Talk
    /// Analysis frames (frame f covers samples f·hop ..< f·hop + frame size).
    public var frames: Range<Int>

    public init(talk: Talk, frames: Range<Int>) {
        self.talk = talk
        self.frames = frames
    }
}

/// Collects `TalkRun`s as frames are classified, in order. One entry per change of talk: its
/// storage grows by doubling as runs are added (a few a second of speech), never per frame.
/// Disabled, it keeps nothing (a long call without scorers has no use for them).
struct TalkRunRecorder: Sendable {
    private(set) var runs: [TalkRun] = []
    let isEnabled: Bool

    init(isEnabled: Bool = true) {
        self.isEnabled = isEnabled
        if isEnabled { runs.reserveCapacity(1024) }
    }

    mutating func record(frame: Int, talk: TalkRun.Talk) {
        guard isEnabled else { return }
        if let last = runs.last, last.talk == talk, last.frames.upperBound == frame {
            runs[runs.count - 1].frames = last.frames.lowerBound..<(frame + 1)
        } else {
            runs.append(TalkRun(talk: talk, frames: frame..<(frame + 1)))
        }
    }
}
