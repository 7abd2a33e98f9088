import Foundation

/// How well the near-end talker survives the canceller, measured against the clean near-end
/// track (simulation taps, AEC-Challenge `nearend_speech`) — the axis ERLE does not see: a
/// canceller that mutes the mic whenever the far end talks has a high ERLE and no near end.
///
/// Over the frames of one kind (double talk: far end active and near end active; near-end
/// single talk: far end silent, near end active), with s the sent (processed) signal and n the
/// near-end track, both lined up with sent:
/// - gain g = Σ s·n / Σ n² (the least-squares scale of the near end found in sent: the level at
///   which the near talker survives, whatever else sent holds), **attenuation** = −20·log10 g;
///   null when g ≤ 0 (nothing of the near end survives coherently);
/// - **distortion** = 10·log10(Σ (s − g·n)² / Σ (g·n)²): everything in sent that is not the
///   scaled near end, relative to it — spectral change, clipping, suppression artefacts *and the
///   residual echo* (in double talk the echo the canceller left is in s too). An exact scaled
///   copy gives −∞, reported as the floor −120 dB (below the sums' precision).
/// Sums run over each frame's two hops (frames overlap by half, as the Welch frames do).
/// Every value is null when there are no such frames.
public struct NearEndPreservation: Codable, Equatable, Sendable {
    public var attenuationDB: Double?
    public var distortionDB: Double?
    public var doubleTalkFrames: Int
    public var singleTalkAttenuationDB: Double?
    public var singleTalkDistortionDB: Double?
    /// Near-end single-talk frames (far end silent): with these beside the double-talk ones a
    /// reader tells suppression of the near end alone from double-talk handling.
    public var singleTalkFrames: Int

    /// The reported floor of `distortionDB`.
    public static let distortionFloorDB = -120.0

    public init(attenuationDB: Double?, distortionDB: Double?, doubleTalkFrames: Int,
                singleTalkAttenuationDB: Double?, singleTalkDistortionDB: Double?, singleTalkFrames: Int) {
        self.attenuationDB = attenuationDB
        self.distortionDB = distortionDB
        self.doubleTalkFrames = doubleTalkFrames
        self.singleTalkAttenuationDB = singleTalkAttenuationDB
        self.singleTalkDistortionDB = singleTalkDistortionDB
        self.singleTalkFrames = singleTalkFrames
    }

    init(doubleTalk: Sums, singleTalk: Sums) {
        (attenuationDB, distortionDB) = doubleTalk.measures()
        doubleTalkFrames = doubleTalk.frames
        (singleTalkAttenuationDB, singleTalkDistortionDB) = singleTalk.measures()
        singleTalkFrames = singleTalk.frames
    }

    /// Running sums over the frames of one kind: Σs·n, Σn², Σs².
    struct Sums {
        var sentNear = 0.0
        var nearNear = 0.0
        var sentSent = 0.0
        var frames = 0

        func measures() -> (attenuation: Double?, distortion: Double?) {
            guard frames > 0, nearNear > 0, sentNear > 0 else { return (nil, nil) }
            let gain = sentNear / nearNear
            // Σ(s − g·n)² = Σs² − 2gΣsn + g²Σn² = Σs² − (Σsn)²/Σn²; Σ(g·n)² = (Σsn)²/Σn².
            let kept = sentNear * gain
            let rest = sentSent - kept
            let distortion = rest > 0 ? max(Self.floor, 10 * log10(rest / kept)) : Self.floor
            return (-20 * log10(gain), distortion)
        }

        static let floor = NearEndPreservation.distortionFloorDB
    }

    enum CodingKeys: String, CodingKey {
        case attenuationDB = "attenuation_db", distortionDB = "distortion_db", doubleTalkFrames = "double_talk_analysis_frames"
        case singleTalkAttenuationDB = "single_talk_attenuation_db", singleTalkDistortionDB = "single_talk_distortion_db"
        case singleTalkFrames = "single_talk_analysis_frames"
    }
}
