import AudioCore
import Foundation

/// From mic and loopback alone (`gate.method = "echo_path_fit"`, no near-end track): how the
/// output compares with the near talker the tap-free gate hears — the only view of the near end's
/// loss a recording gives. Over the frames where the gate hears the near end (double talk and
/// near-end single talk) at or above the predicted echo (under it, the residual may be the fit's
/// own error, which a canceller rightly removes), the gate's estimate of the talker is the mic's
/// residual after the fitted echo (with steady noise taken off where the gate takes it off,
/// `ResidualLevels`):
/// - **output drop** = 10·log10(Σ estimate / Σ output), mean squares over each frame: how far
///   under the talker the output sits (about 0 dB where the canceller kept the near end; in
///   double talk the output also holds residual echo, so a loss there reads smaller, never larger);
///   a lower bound where the output is digital silence;
/// - **lost frames**: frames whose output is 20 dB or more under the estimate — the talker was
///   removed there; the near end counts as **lost** when at least half the frames are, on enough
///   frames to trust (`FigureConfidence`).
public struct NearEndEstimate: Codable, Equatable, Sendable {
    public var outputDropDB: Double?
    public var outputDropIsLowerBound: Bool
    /// Frames where the gate hears the near end.
    public var frames: Int
    /// Of those, frames whose output is at least `lostDropDB` under the estimate.
    public var lostFrames: Int
    public var isLost: Bool

    /// A frame whose output sits this far under the talker lost it.
    public static let lostDropDB = 20.0

    public init(outputDropDB: Double?, outputDropIsLowerBound: Bool, frames: Int, lostFrames: Int, isLost: Bool) {
        self.outputDropDB = outputDropDB
        self.outputDropIsLowerBound = outputDropIsLowerBound
        self.frames = frames
        self.lostFrames = lostFrames
        self.isLost = isLost
    }

    init(_ sums: Sums) {
        frames = sums.frames
        lostFrames = sums.lostFrames
        let silence = MeasurableFloor.quantisationVariance * Double(sums.frames)
        outputDropIsLowerBound = sums.frames > 0 && sums.output < silence
        outputDropDB = Decibels.powerRatio(sums.estimate, max(sums.output, outputDropIsLowerBound ? silence : 0))
        isLost = !FigureConfidence.isLow(frames: frames) && frames > 0 && 2 * lostFrames >= frames
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
    }
}
