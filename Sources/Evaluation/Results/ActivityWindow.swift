import EchoLabJSON
import Metrics

/// The activity gate's decisions over one window of a call (about half a second of analysis
/// frames): the talk the metrics scored, drawn as the lanes under the report's plots and listed
/// in `report.json`'s `activity_series`, with the frame counts the lanes are read from.
public struct ActivityWindow: Encodable, Sendable, Equatable {
    /// Where the window's frames lie, seconds from the call's start (each frame counted at its centre).
    public var startSeconds: Double
    public var endSeconds: Double
    /// Analysis frames judged in the window, and how many had each talker.
    public var frames: Int
    public var farEndFrames: Int
    public var nearEndFrames: Int
    public var doubleTalkFrames: Int

    public init(startSeconds: Double, endSeconds: Double, frames: Int, farEndFrames: Int, nearEndFrames: Int, doubleTalkFrames: Int) {
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.frames = frames
        self.farEndFrames = farEndFrames
        self.nearEndFrames = nearEndFrames
        self.doubleTalkFrames = doubleTalkFrames
    }

    /// A call's windows in seconds: a frame covers two hops, and counts at its centre; the first
    /// window starts at 0 and the last ends no later than the call.
    static func windows(_ activity: TalkActivity, sampleRate: Int, durationSeconds: Double) -> [ActivityWindow] {
        let rate = Double(sampleRate), hop = activity.hop, span = activity.framesPerWindow
        return activity.windows.map { window in
            let centre = { (frame: Int) in Double(frame * hop + hop) / rate }
            return ActivityWindow(startSeconds: window.firstFrame == 0 ? 0 : centre(window.firstFrame) - Double(hop) / 2 / rate,
                                  endSeconds: min(durationSeconds, centre(window.firstFrame + span) - Double(hop) / 2 / rate),
                                  frames: window.frames, farEndFrames: window.farEndFrames,
                                  nearEndFrames: window.nearEndFrames, doubleTalkFrames: window.doubleTalkFrames)
        }
    }

    /// A window as `report.json` prints it (nil: not one): `merge` renders a recording's pages
    /// again from its report.
    init?(reading value: JSONValue) {
        func whole(_ key: CodingKeys) -> Int? { value[key.rawValue]?.doubleValue.flatMap { Int(exactly: $0) } }
        guard let start = value[CodingKeys.startSeconds.rawValue]?.doubleValue, let end = value[CodingKeys.endSeconds.rawValue]?.doubleValue,
              let frames = whole(.frames), let far = whole(.farEndFrames), let near = whole(.nearEndFrames),
              let double = whole(.doubleTalkFrames) else { return nil }
        self.init(startSeconds: start, endSeconds: end, frames: frames, farEndFrames: far, nearEndFrames: near, doubleTalkFrames: double)
    }

    enum CodingKeys: String, CodingKey {
        case startSeconds = "t_s", endSeconds = "end_s", frames = "analysis_frames", farEndFrames = "far_end_analysis_frames"
        case nearEndFrames = "near_end_analysis_frames", doubleTalkFrames = "double_talk_analysis_frames"
    }
}
