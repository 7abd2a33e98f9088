/// The activity gate's decisions tallied per window of analysis frames: what a report's activity
/// lanes draw, so that they show the talk the metrics scored (a fixed level threshold on the
/// near-end track would read a noisy room as a talker). Bounded: past `maximumWindows` windows
/// (7.5 minutes of half seconds) neighbours merge and the window doubles, so a day-long call
/// keeps as many as a short one. 900 is what a lane 800 px wide can draw; an hour's 7200 raised
/// the call's peak memory by 4.7 MB (report.json's values, built before it is written) for detail
/// no lane shows.
public struct TalkActivity: Sendable, Equatable {
    /// One window's frames, and how many of them the gate judged each way.
    public struct Window: Sendable, Equatable {
        /// The window's first analysis frame.
        public var firstFrame: Int
        /// Frames judged in it.
        public var frames = 0
        /// Frames where the far end talked: far-end single talk or double talk.
        public var farEndFrames = 0
        /// Frames where the near end talked: near-end single talk or double talk.
        public var nearEndFrames = 0
        public var doubleTalkFrames = 0
    }

    public static let maximumWindows = 900
    /// Frames a window holds (doubled each time neighbouring windows merge).
    public private(set) var framesPerWindow: Int
    /// Samples between analysis frames: frame f covers samples f·hop ..< f·hop + 2·hop.
    public let hop: Int
    public private(set) var windows: [Window] = []

    /// `windowSamples`: the window's length to aim at (it is rounded to whole frames, at least one).
    init(hop: Int, windowSamples: Int) {
        self.hop = max(1, hop)
        framesPerWindow = max(1, (windowSamples + self.hop / 2) / self.hop)
        windows.reserveCapacity(Self.maximumWindows + 1)
    }

    /// Counts frame `frame`'s decision; frames come in ascending order.
    mutating func record(frame: Int, talk: TalkRun.Talk) {
        let first = frame - frame % framesPerWindow
        if windows.last?.firstFrame != first {
            windows.append(Window(firstFrame: first))
            if windows.count > Self.maximumWindows { mergeNeighbours() }
        }
        let last = windows.count - 1
        windows[last].frames += 1
        switch talk {
        case .farEndSingleTalk: windows[last].farEndFrames += 1
        case .nearEndSingleTalk: windows[last].nearEndFrames += 1
        case .doubleTalk:
            windows[last].farEndFrames += 1
            windows[last].nearEndFrames += 1
            windows[last].doubleTalkFrames += 1
        case .silence: break
        }
    }

    /// Frames where the near end talked (alone or over the far end), in the windows that start
    /// within `samples`.
    public func nearEndFrames(startingIn samples: Range<Int>) -> Int {
        windows.lazy.filter { samples.contains($0.firstFrame * hop) }.map(\.nearEndFrames).reduce(0, +)
    }

    /// Halves the resolution in place (nothing allocated): windows are aligned to the new
    /// length, so two old ones (or one, where a window had no frames) make each new one.
    private mutating func mergeNeighbours() {
        framesPerWindow *= 2
        var kept = 0
        for index in windows.indices {
            var window = windows[index]
            window.firstFrame -= window.firstFrame % framesPerWindow
            if kept > 0, windows[kept - 1].firstFrame == window.firstFrame {
                windows[kept - 1].frames += window.frames
                windows[kept - 1].farEndFrames += window.farEndFrames
                windows[kept - 1].nearEndFrames += window.nearEndFrames
                windows[kept - 1].doubleTalkFrames += window.doubleTalkFrames
            } else {
                windows[kept] = window
                kept += 1
            }
        }
        windows.removeLast(windows.count - kept)
    }
}
