import AudioCore
import Foundation

/// From mic and loopback alone (`gate.method = "echo_path_fit"`, no near-end track): how the
/// output compares with the near talker the tap-free gate hears — the only view of the near end's
/// loss a recording gives. As a near-end track's figures are, it is taken in double talk and,
/// apart, while the talker is alone (`singleTalk…`): pooled, a canceller that cut the talker
/// 11.9 dB in double talk and left the lone talker whole read 2.2 dB, and of two cancellers the
/// one that kept double talk better ranked below the other, which cut the lone talker 0.6 dB.
/// Over the frames where the gate hears the near end at or above the predicted echo (under it,
/// the residual may be the fit's own error, which a canceller rightly removes), the gate's
/// estimate of the talker is the mic's residual after the fitted echo (with steady noise taken
/// off where the gate takes it off, `ResidualLevels`):
/// - **output drop** = 10·log10(Σ estimate / Σ output), mean squares over each frame: how far
///   under the talker the output sits (about 0 dB where the canceller kept the near end; in
///   double talk the output also holds residual echo, so a loss there reads smaller, never larger);
///   a lower bound where the output is digital silence;
/// - **lost frames**: frames whose output is 20 dB or more under the estimate — the talker was
///   removed there; the near end counts as **lost** when at least half the frames are, on enough
///   frames to trust (`FigureConfidence`).
public struct NearEndEstimate: Codable, Equatable, Sendable {
    /// In double talk.
    public var outputDropDB: Double?
    public var outputDropIsLowerBound: Bool
    /// Frames of double talk where the gate hears the near end.
    public var frames: Int
    /// Of those, frames whose output is at least `lostDropDB` under the estimate.
    public var lostFrames: Int
    public var isLost: Bool
    /// The same while the talker is alone (near-end single talk): the one near-end figure of a
    /// recording whose far end never played.
    public var singleTalkOutputDropDB: Double?
    public var singleTalkOutputDropIsLowerBound = false
    public var singleTalkFrames = 0
    public var singleTalkLostFrames = 0
    /// At least half of `singleTalkFrames` lost, on enough frames to trust.
    public var singleTalkIsLost: Bool { Self.isLost(frames: singleTalkFrames, lost: singleTalkLostFrames) }

    /// A frame whose output sits this far under the talker lost it.
    public static let lostDropDB = 20.0

    public init(outputDropDB: Double?, outputDropIsLowerBound: Bool, frames: Int, lostFrames: Int, isLost: Bool,
                singleTalkOutputDropDB: Double? = nil, singleTalkOutputDropIsLowerBound: Bool = false, singleTalkFrames: Int = 0,
                singleTalkLostFrames: Int = 0) {
        self.outputDropDB = outputDropDB
        self.outputDropIsLowerBound = outputDropIsLowerBound
        self.frames = frames
        self.lostFrames = lostFrames
        self.isLost = isLost
        self.singleTalkOutputDropDB = singleTalkOutputDropDB
        self.singleTalkOutputDropIsLowerBound = singleTalkOutputDropIsLowerBound
        self.singleTalkFrames = singleTalkFrames
        self.singleTalkLostFrames = singleTalkLostFrames
    }

    init(doubleTalk: Sums, singleTalk: Sums) {
        let double = Self.figure(doubleTalk), single = Self.figure(singleTalk)
        self.init(outputDropDB: double.drop, outputDropIsLowerBound: double.isLowerBound, frames: doubleTalk.frames,
                  lostFrames: doubleTalk.lostFrames, isLost: Self.isLost(frames: doubleTalk.frames, lost: doubleTalk.lostFrames),
                  singleTalkOutputDropDB: single.drop, singleTalkOutputDropIsLowerBound: single.isLowerBound,
                  singleTalkFrames: singleTalk.frames, singleTalkLostFrames: singleTalk.lostFrames)
    }

    private static func figure(_ sums: Sums) -> (drop: Double?, isLowerBound: Bool) {
        let silence = MeasurableFloor.quantisationVariance * Double(sums.frames)
        let isLowerBound = sums.frames > 0 && sums.output < silence
        return (Decibels.powerRatio(sums.estimate, max(sums.output, isLowerBound ? silence : 0)), isLowerBound)
    }

    private static func isLost(frames: Int, lost: Int) -> Bool {
        !FigureConfidence.isLow(frames: frames) && frames > 0 && 2 * lost >= frames
    }

    /// Running sums over the frames where the gate hears the near end (mean squares).
    struct Sums {
        var estimate = 0.0
        var output = 0.0
        var frames = 0
        var lostFrames = 0

        mutating func add(estimate: Double, output: Double) {
            self.estimate += estimate
            self.output += output
            frames += 1
            if output * pow(10, NearEndEstimate.lostDropDB / 10) <= estimate { lostFrames += 1 }
        }
    }

    enum CodingKeys: String, CodingKey {
        case outputDropDB = "output_drop_db", outputDropIsLowerBound = "output_drop_is_lower_bound"
        case frames = "analysis_frames", lostFrames = "lost_analysis_frames", isLost = "near_end_lost"
        case singleTalkOutputDropDB = "single_talk_output_drop_db", singleTalkOutputDropIsLowerBound = "single_talk_output_drop_is_lower_bound"
        case singleTalkFrames = "single_talk_analysis_frames", singleTalkLostFrames = "single_talk_lost_analysis_frames"
        case singleTalkIsLost = "single_talk_near_end_lost"
    }

    /// Reads a report's estimate; one written before the lone talker was measured apart has none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        outputDropDB = try container.decodeIfPresent(Double.self, forKey: .outputDropDB)
        outputDropIsLowerBound = try container.decode(Bool.self, forKey: .outputDropIsLowerBound)
        frames = try container.decode(Int.self, forKey: .frames)
        lostFrames = try container.decode(Int.self, forKey: .lostFrames)
        isLost = try container.decode(Bool.self, forKey: .isLost)
        singleTalkOutputDropDB = try container.decodeIfPresent(Double.self, forKey: .singleTalkOutputDropDB)
        singleTalkOutputDropIsLowerBound = try container.decodeIfPresent(Bool.self, forKey: .singleTalkOutputDropIsLowerBound) ?? false
        singleTalkFrames = try container.decodeIfPresent(Int.self, forKey: .singleTalkFrames) ?? 0
        singleTalkLostFrames = try container.decodeIfPresent(Int.self, forKey: .singleTalkLostFrames) ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(outputDropDB, forKey: .outputDropDB)
        try container.encode(outputDropIsLowerBound, forKey: .outputDropIsLowerBound)
        try container.encode(frames, forKey: .frames)
        try container.encode(lostFrames, forKey: .lostFrames)
        try container.encode(isLost, forKey: .isLost)
        try container.encode(singleTalkOutputDropDB, forKey: .singleTalkOutputDropDB)
        try container.encode(singleTalkOutputDropIsLowerBound, forKey: .singleTalkOutputDropIsLowerBound)
        try container.encode(singleTalkFrames, forKey: .singleTalkFrames)
        try container.encode(singleTalkLostFrames, forKey: .singleTalkLostFrames)
        // Written for readers of the file; read back, it follows from the frames.
        try container.encode(singleTalkIsLost, forKey: .singleTalkIsLost)
    }
}
