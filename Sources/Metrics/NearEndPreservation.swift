import AudioCore
import Foundation

/// How well the near-end talker survives the canceller, measured against the clean near-end
/// track (simulation taps, AEC-Challenge `nearend_speech`) — the axis ERLE does not see: a
/// canceller that mutes the mic whenever the far end talks has a high ERLE and no near end.
///
/// Over the frames of one kind (double talk: far end active and near end active; near-end
/// single talk: far end silent, near end active), with s the sent (processed) signal and n the
/// near-end track, both lined up with sent:
/// - gain g = Σ s·n / Σ n² (the least-squares scale of the near end found in sent: the level at
///   which the near talker survives, whatever else sent holds), **attenuation** = −20·log10 g.
///   When g ≤ 0, or the near end holds under a thousandth (−30 dB) of the output's energy
///   coherently — what unrelated signals show by chance — nothing of it survives: it is lost, and the
///   attenuation is the bound that decision allows — what survived of the near end holds under a
///   thousandth of the output's energy (g²Σn² = ρ²Σs² < 10⁻³Σs²), and no less than digital
///   silence (16-bit quantisation noise) is measurable, so attenuation ≥
///   10·log10(Σn² / max(10⁻³·Σs², silence)) (a single frame's, in the double-talk report, keeps
///   the whole output as the ceiling: `measures(lostCeiling:)`) — reported at that bound and flagged
///   (`attenuationIsLowerBound`), the worst case, never null. (The whole output, Σs², as the
///   ceiling gave a bound 30 dB weaker, nothing where residual echo outweighed the talker: a lost
///   near end read "≥ 0 dB" and raised a mode's mean over a talker it kept.)
/// - **distortion** = 10·log10(Σ (s − g·n)² / Σ (g·n)²): everything in sent that is not the
///   scaled near end, relative to it — spectral change, clipping, suppression artefacts *and the
///   residual echo* (in double talk the echo the canceller left is in s too). An exact scaled
///   copy gives −∞, reported as the floor −120 dB (below the sums' precision).
/// Sums run over each frame's two hops (frames overlap by half, as the Welch frames do).
/// Every value is null when there are no such frames; distortion is null where the near end is lost.
///
/// **Polarity.** A near end sent upside down (a mic or a processing stage that inverts: g < 0
/// over the whole call, the near end turned back holding at least half of the output's energy)
/// is heard as it was: its loss is read from |g| and `polarityIsInverted` says so. The sign is decided once, from both kinds of frames
/// together, never per frame: a frame's short sums show chance correlations of either sign, and
/// a residual echo far louder than the talker can turn one frame's g negative.
public struct NearEndPreservation: Codable, Equatable, Sendable {
    public var attenuationDB: Double?
    /// The near end was lost in double talk: `attenuationDB` is the bound the output allows.
    public var attenuationIsLowerBound: Bool
    public var distortionDB: Double?
    public var doubleTalkFrames: Int
    public var singleTalkAttenuationDB: Double?
    public var singleTalkAttenuationIsLowerBound: Bool
    public var singleTalkDistortionDB: Double?
    /// Near-end single-talk frames (far end silent): with these beside the double-talk ones a
    /// reader tells suppression of the near end alone from double-talk handling.
    public var singleTalkFrames: Int
    /// The near end reached the output with its sign inverted; the figures are those of the
    /// near end turned back (an inversion alone is inaudible). Written only when true.
    public var polarityIsInverted: Bool
    /// Frames where the near-end track talked and nothing of the room was sent (the call muted,
    /// the audio unit stopped, a file or generator as the mic, a mic pushing zeros): left out of
    /// the figures above, which are the send path's, but none of that talk reached the peer.
    /// Written only when some.
    public var talkNotSentFrames: Int = 0

    /// The reported floor of `distortionDB`.
    public static let distortionFloorDB = -120.0

    public init(attenuationDB: Double?, attenuationIsLowerBound: Bool = false, distortionDB: Double?, doubleTalkFrames: Int,
                singleTalkAttenuationDB: Double?, singleTalkAttenuationIsLowerBound: Bool = false,
                singleTalkDistortionDB: Double?, singleTalkFrames: Int, polarityIsInverted: Bool = false) {
        self.attenuationDB = attenuationDB
        self.attenuationIsLowerBound = attenuationIsLowerBound
        self.distortionDB = distortionDB
        self.doubleTalkFrames = doubleTalkFrames
        self.singleTalkAttenuationDB = singleTalkAttenuationDB
        self.singleTalkAttenuationIsLowerBound = singleTalkAttenuationIsLowerBound
        self.singleTalkDistortionDB = singleTalkDistortionDB
        self.singleTalkFrames = singleTalkFrames
        self.polarityIsInverted = polarityIsInverted
    }

    init(doubleTalk: Sums, singleTalk: Sums) {
        polarityIsInverted = Sums.isInverted(doubleTalk: doubleTalk, singleTalk: singleTalk)
        var doubleTalk = doubleTalk, singleTalk = singleTalk
        if polarityIsInverted {
            doubleTalk.sentNear.negate()
            singleTalk.sentNear.negate()
        }
        (attenuationDB, attenuationIsLowerBound, distortionDB) = doubleTalk.measures()
        doubleTalkFrames = doubleTalk.frames
        (singleTalkAttenuationDB, singleTalkAttenuationIsLowerBound, singleTalkDistortionDB) = singleTalk.measures()
        singleTalkFrames = singleTalk.frames
    }

    /// The near end talked over the far end and nothing of it was sent.
    public var isLost: Bool { attenuationIsLowerBound }
    /// The double-talk figures stand on too few frames to be trusted (`FigureConfidence`).
    public var isLowConfidence: Bool { FigureConfidence.isLow(frames: doubleTalkFrames) }

    /// Running sums over the frames of one kind: Σs·n, Σn², Σs², and the samples summed.
    struct Sums {
        var sentNear = 0.0
        var nearNear = 0.0
        var sentSent = 0.0
        var frames = 0
        var samples = 0

        /// `lostCeiling`: the share of the output's energy a lost near end may hold, for its
        /// bound — `chanceShare` over a call, where the decision stands on thousands of samples;
        /// 1 (the whole output, as Cauchy–Schwarz allows whatever the decision) for one frame,
        /// whose chance correlation with residual echo far louder than the talker can call a
        /// talker 20 dB under it lost (with no canceller at all: a P.340 range of 9 dB).
        func measures(lostCeiling: Double = Sums.chanceShare) -> (attenuation: Double?, isLowerBound: Bool, distortion: Double?) {
            guard frames > 0, nearNear > 0 else { return (nil, false, nil) }
            let silence = MeasurableFloor.quantisationVariance * Double(samples)
            let output = max(sentSent, silence)
            // The share of the output's energy the near end holds coherently, ρ² = (Σsn)²/(Σn²Σs²).
            // Under a thousandth (30 dB) it is what unrelated signals show by chance — its sign
            // and size are noise (measured: a −30 dBFS near end against −60 dBFS of unrelated
            // output read "lost" for half the seeds and 70–86 dB for the others).
            let coherentShare = sentNear > 0 ? sentNear * sentNear / (nearNear * output) : 0
            guard coherentShare >= Self.chanceShare else {
                // Lost: the bound the decision allows (digital silence at the least).
                return (Decibels.powerRatio(nearNear, max(lostCeiling * sentSent, silence)).map { max(0, $0) }, true, nil)
            }
            let gain = sentNear / nearNear
            // Σ(s − g·n)² = Σs² − 2gΣsn + g²Σn² = Σs² − (Σsn)²/Σn²; Σ(g·n)² = (Σsn)²/Σn².
            let kept = sentNear * gain
            let rest = sentSent - kept
            let distortion = rest > 0 ? max(Self.floor, 10 * log10(rest / kept)) : Self.floor
            return (-20 * log10(gain), false, distortion)
        }

        /// Whether the near end was sent inverted: over both kinds of frames together, Σs·n is
        /// negative and the near end turned back holds at least half of the output's energy
        /// (`invertedShare`). An inversion must be unmistakable: a near end removed with the
        /// residual echo left holds a few percent by chance, of either sign (AECM at its
        /// strongest held 2 %, inverted, over a call's near-end single talk).
        static func isInverted(doubleTalk: Sums, singleTalk: Sums) -> Bool {
            let sentNear = doubleTalk.sentNear + singleTalk.sentNear
            let nearNear = doubleTalk.nearNear + singleTalk.nearNear
            let silence = MeasurableFloor.quantisationVariance * Double(doubleTalk.samples + singleTalk.samples)
            let output = max(doubleTalk.sentSent + singleTalk.sentSent, silence)
            guard sentNear < 0, nearNear > 0 else { return false }
            return sentNear * sentNear / (nearNear * output) >= invertedShare
        }

        /// The least coherent share of the output's energy a near end sent inverted holds.
        static let invertedShare = 0.5

        static let floor = NearEndPreservation.distortionFloorDB
        /// Below this coherent share of the output the near end counts as lost (−30 dB).
        static let chanceShare = 1e-3
    }

    enum CodingKeys: String, CodingKey {
        case attenuationDB = "attenuation_db", attenuationIsLowerBound = "attenuation_is_lower_bound"
        case distortionDB = "distortion_db", doubleTalkFrames = "double_talk_analysis_frames"
        case singleTalkAttenuationDB = "single_talk_attenuation_db"
        case singleTalkAttenuationIsLowerBound = "single_talk_attenuation_is_lower_bound"
        case singleTalkDistortionDB = "single_talk_distortion_db"
        case singleTalkFrames = "single_talk_analysis_frames"
        case polarityIsInverted = "polarity_inverted"
        case talkNotSentFrames = "talk_not_sent_analysis_frames"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        attenuationDB = try container.decodeIfPresent(Double.self, forKey: .attenuationDB)
        attenuationIsLowerBound = try container.decode(Bool.self, forKey: .attenuationIsLowerBound)
        distortionDB = try container.decodeIfPresent(Double.self, forKey: .distortionDB)
        doubleTalkFrames = try container.decode(Int.self, forKey: .doubleTalkFrames)
        singleTalkAttenuationDB = try container.decodeIfPresent(Double.self, forKey: .singleTalkAttenuationDB)
        singleTalkAttenuationIsLowerBound = try container.decode(Bool.self, forKey: .singleTalkAttenuationIsLowerBound)
        singleTalkDistortionDB = try container.decodeIfPresent(Double.self, forKey: .singleTalkDistortionDB)
        singleTalkFrames = try container.decode(Int.self, forKey: .singleTalkFrames)
        polarityIsInverted = try container.decodeIfPresent(Bool.self, forKey: .polarityIsInverted) ?? false
        talkNotSentFrames = try container.decodeIfPresent(Int.self, forKey: .talkNotSentFrames) ?? 0
    }

    /// `polarity_inverted` and `talk_not_sent_analysis_frames` are written only when they say
    /// something, so a report of a near end sent as it was, throughout, reads as before the keys
    /// existed.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(attenuationDB, forKey: .attenuationDB)
        try container.encode(attenuationIsLowerBound, forKey: .attenuationIsLowerBound)
        try container.encodeIfPresent(distortionDB, forKey: .distortionDB)
        try container.encode(doubleTalkFrames, forKey: .doubleTalkFrames)
        try container.encodeIfPresent(singleTalkAttenuationDB, forKey: .singleTalkAttenuationDB)
        try container.encode(singleTalkAttenuationIsLowerBound, forKey: .singleTalkAttenuationIsLowerBound)
        try container.encodeIfPresent(singleTalkDistortionDB, forKey: .singleTalkDistortionDB)
        try container.encode(singleTalkFrames, forKey: .singleTalkFrames)
        if polarityIsInverted { try container.encode(true, forKey: .polarityIsInverted) }
        if talkNotSentFrames > 0 { try container.encode(talkNotSentFrames, forKey: .talkNotSentFrames) }
    }
}
