import AudioCore
import Foundation

/// What terminal test labs report of a call's echo, in the units of the telephony standards, so
/// a team reads EchoLab's verdict in the terms their certification uses. Measured from the same
/// streams as the echo metrics; each part says why it is missing when it is.
public struct TelephonyMeasures: Codable, Equatable, Sendable {
    /// The weighted terminal coupling loss; nil with `echoLossUnmeasuredReason`.
    public var echoLoss: WeightedEchoLoss?
    public var echoLossUnmeasuredReason: String?
    /// `echoLossUnmeasuredReason` without far-end single talk.
    public static let noSingleTalkReason = "no far-end single talk to measure"
    /// `echoLossUnmeasuredReason` where the echo stays under the mic's floor in all of it: TCLw
    /// would measure the terminal's noise.
    public static let echoUnderFloorReason = "the echo at the mic stays under its floor in all far-end single talk: there is no echo to lose"
    /// `echoLossUnmeasuredReason` where the far end played alone and its echo stayed under the
    /// mic's noise throughout (a wired headset): no single talk, but not for want of a far end.
    public static let echoUnderNoiseReason = "the echo stays under the mic's noise wherever the far end plays alone: there is no echo to lose"
    /// `doubleTalkUnmeasuredReason` where the gate heard no double talk.
    public static let noDoubleTalkReason = "no double talk: the near end never talked over the far end"
    /// `doubleTalkUnmeasuredReason` where the gate heard no double talk outside the muted
    /// stretches and the near end talked over `talkNotSentFrames` analysis frames where nothing of
    /// the room was sent: a muted send path is left out of the analysis, and none of that talk
    /// reached the peer.
    public static func noDoubleTalkOutsideMuteReason(talkNotSentFrames: Int) -> String {
        "no double talk outside the muted stretches; the near end talked over \(talkNotSentFrames) analysis frame\(talkNotSentFrames == 1 ? "" : "s") "
            + "where nothing of the room was sent (a muted send path is left out of the analysis)"
    }
    /// The double-talk figures; nil with `doubleTalkUnmeasuredReason`.
    public var doubleTalk: DoubleTalkReport?
    public var doubleTalkUnmeasuredReason: String?

    public init(echoLoss: WeightedEchoLoss?, echoLossUnmeasuredReason: String?, doubleTalk: DoubleTalkReport?,
                doubleTalkUnmeasuredReason: String?) {
        self.echoLoss = echoLoss
        self.echoLossUnmeasuredReason = echoLossUnmeasuredReason
        self.doubleTalk = doubleTalk
        self.doubleTalkUnmeasuredReason = doubleTalkUnmeasuredReason
    }

    enum CodingKeys: String, CodingKey {
        case echoLoss = "echo_loss", echoLossUnmeasuredReason = "echo_loss_unmeasured_reason"
        case doubleTalk = "double_talk", doubleTalkUnmeasuredReason = "double_talk_unmeasured_reason"
    }
}

/// Terminal coupling loss, weighted (TCLw), as 3GPP TS 26.132 §8.7.1 computes it: the loss from
/// the far-end reference (delay-aligned, as for ERL) to what is sent, per 1/3-octave band from
/// 315 to 6300 Hz, combined by ITU-T G.122 Annex B's trapezoidal rule (`EchoLossWeighting`).
///
/// The spec discards the first 17 s of its test signal so the canceller has converged; EchoLab
/// measures over the steady state its ERLE is reported for: the last half of the far-end
/// single-talk frames (`EchoMetrics.erleSteadyFrames`). A band whose output falls under digital
/// silence is a lower bound there, and so is the weighted figure.
public struct WeightedEchoLoss: Codable, Equatable, Sendable {
    public var tclwDB: Double
    public var isLowerBound: Bool
    /// TS 26.131's requirement for a terminal's echo loss.
    public static let requirementDB = 46.0
    /// The figure meets `requirementDB`: true at or above it (a lower bound too), false for a
    /// measured figure under it, and for a lower bound whose measured bands alone keep it under
    /// it (`lossAtMostDB(of:)`); nil for another lower bound under it (the loss may be higher), and for a
    /// figure on too few frames to judge (`isLowConfidence`: a mic without echo passed on the one
    /// frame its tap-free gate took for far-end single talk), and for one on too few of the bands
    /// the far end reaches (`BandCoverage`) that the bands left out could lift over it. Judged at 0.1 dB, as the pages
    /// print it and the labs report it: an exact 46 dB terminal measured 45.9999 and failed
    /// beside "TCLw 46.0 dB".
    public var meetsRequirement: Bool?
    /// The most the loss can be: the figure itself where it was measured; where it is a lower
    /// bound, what its measured bands leak whatever the bounded ones do (`lossAtMostDB(of:)`: "≥ 33.8 dB, at
    /// most 34.1"), and on too few bands, whatever the bands left out do too; nil where every
    /// band is a bound (no upper limit). A script reading the JSON gets the bracket the pages print.
    public var atMostDB: Double?
    public var bands: [BandLoss]
    /// The far-end single-talk frames measured over.
    public var analysisFrames: Int
    /// How many of the third octaves the far end reaches hold echo enough to measure; nil in a
    /// file written before it was kept.
    public var coverage: BandCoverage?
    /// `coverage` where the figure stands on too few bands to judge (`BandCoverage.isTooNarrowToJudge`);
    /// nil on enough bands or where the coverage is not known.
    public var narrowCoverage: BandCoverage? { coverage?.isTooNarrowToJudge == true ? coverage : nil }

    /// `leftOutHz`: the centres of the third octaves the far end reaches that the figure leaves
    /// out (nil: not known, a figure built by hand).
    public init(tclwDB: Double, isLowerBound: Bool, bands: [BandLoss], analysisFrames: Int, leftOutHz: [Double]? = nil) {
        self.tclwDB = tclwDB
        self.isLowerBound = isLowerBound
        let coverage = leftOutHz.map { BandCoverage(measured: bands.count, reached: bands.count + $0.count) }
        self.coverage = coverage
        let isNarrow = coverage?.isTooNarrowToJudge == true
        // On too few bands the ones left out may lose all their echo: the most the loss can be
        // counts them so, beside the bounded bands.
        let atMostDB = isNarrow ? Self.lossAtMostDB(of: bands, leftOutHz: leftOutHz ?? []) : isLowerBound ? Self.lossAtMostDB(of: bands) : tclwDB
        self.atMostDB = atMostDB
        let certainlyUnder = atMostDB.map({ Self.atJudgedPrecision($0) < Self.requirementDB }) == true
        self.meetsRequirement = FigureConfidence.isLow(frames: analysisFrames) ? nil
            : isNarrow ? (certainlyUnder ? false : nil)
            : Self.atJudgedPrecision(tclwDB) >= Self.requirementDB ? true
            : !isLowerBound || certainlyUnder ? false : nil
        self.bands = bands
        self.analysisFrames = analysisFrames
    }

    /// A loss to the 0.1 dB it is judged at, rounded as the pages print it: report.json's value
    /// (`ReportPrecision.printed`) to one decimal (`FixedDecimal`).
    public static func atJudgedPrecision(_ lossDB: Double) -> Double {
        Double(FixedDecimal.scaled(ReportPrecision.printed(lossDB) ?? lossDB, fractionDigits: 1)) / 10
    }

    /// The most the weighted loss can be: each band that is a lower bound, and each band left out
    /// at `leftOutHz`, taken as losing all of its echo, the measured bands as they are (they leak
    /// what they leak whatever the others do). nil when no band is measured (no limit). A bound
    /// of 33.8 dB whose 1 kHz band measured 24.2 dB is at most 33.8 dB: certainly under 46.
    public static func lossAtMostDB(of bands: [BandLoss], leftOutHz: [Double] = []) -> Double? {
        guard bands.contains(where: { !$0.isLowerBound }) else { return nil }
        let points = (bands.map { ($0.centreHz, $0.isLowerBound ? 0 : pow(10, -$0.lossDB / 10)) } + leftOutHz.map { ($0, 0.0) })
            .sorted { $0.0 < $1.0 }
        return EchoLossWeighting.weightedLossDB(transmissions: points.map(\.1), frequenciesHz: points.map(\.0))
    }

    /// The third octaves a TCLw stands on, of those the far end reaches (its reference over the
    /// floor there). A band whose echo at the mic stands less than 10 dB over the noise is left
    /// out of the figure (`FrameLedger.weightedEchoLoss(in:)`), and its loss is then unknown either
    /// way: the echo under the noise may be lost or not. Where fewer than half of the reached
    /// bands are measured, those left out carry more of the weighting than the measured ones and
    /// could move the figure past 46 dB unseen: it never meets the requirement then, and misses it
    /// only where it stays under 46 dB with every band left out losing all its echo
    /// (`tclw_at_most_db`). A Bluetooth headset's 41 dB path left 2 of 14 bands, and a canceller
    /// removing 5 dB "met" 46 dB on them.
    public struct BandCoverage: Codable, Equatable, Sendable {
        public var measured: Int
        public var reached: Int

        public init(measured: Int, reached: Int) {
            self.measured = measured
            self.reached = reached
        }

        /// Fewer than half of the reached bands measured.
        public var isTooNarrowToJudge: Bool { 2 * measured < reached }
    }

    /// The loss in one band.
    public struct BandLoss: Codable, Equatable, Sendable {
        public var centreHz: Double
        public var lossDB: Double
        public var isLowerBound: Bool

        public init(centreHz: Double, lossDB: Double, isLowerBound: Bool) {
            self.centreHz = centreHz
            self.lossDB = lossDB
            self.isLowerBound = isLowerBound
        }

        /// The band's edges: 2^∓1/6 around the exact centre 1000·2^(k/3) its nominal centre stands for.
        public var edgesHz: (low: Double, high: Double) {
            let exact = ThirdOctaveBands.exactCentreHz(nominal: centreHz)
            return (exact / ThirdOctaveBands.halfBand, exact * ThirdOctaveBands.halfBand)
        }

        enum CodingKeys: String, CodingKey {
            case centreHz = "centre_hz", lossDB = "loss_db", isLowerBound = "is_lower_bound"
        }
    }

    /// Too few frames to be trusted (`FigureConfidence`).
    public var isLowConfidence: Bool { FigureConfidence.isLow(frames: analysisFrames) }

    /// A figure measured under `requirementDB` on enough frames, or a bound its measured bands
    /// keep under it: the requirement is missed. Another bound under it may not be (the loss can
    /// be higher). (Frames are asked again for a figure read back from a file written before
    /// `meetsRequirement` was nil on too few frames.)
    public var missesRequirement: Bool { meetsRequirement == false && !isLowConfidence }

    enum CodingKeys: String, CodingKey {
        case tclwDB = "tclw_db", isLowerBound = "is_lower_bound", meetsRequirement = "meets_ts26131_46db"
        case atMostDB = "tclw_at_most_db", bands, analysisFrames = "analysis_frames", coverage = "band_coverage"
    }
}

/// ITU-T P.340's double-talk categories (Table 2, §8.1), by the attenuation range inserted in
/// the send direction during double talk: 1 full duplex (≤ 3 dB), 2a/2b/2c partial duplex
/// (≤ 6, ≤ 9, ≤ 12 dB), 3 no duplex (more than 12 dB).
public enum DoubleTalkCategory: String, Codable, Sendable, CaseIterable {
    case fullDuplex = "1"
    case partialDuplexA = "2a"
    case partialDuplexB = "2b"
    case partialDuplexC = "2c"
    case noDuplex = "3"

    /// The category of a send-direction attenuation range.
    public init(attenuationRangeDB range: Double) {
        switch range {
        case ...3: self = .fullDuplex
        case ...6: self = .partialDuplexA
        case ...9: self = .partialDuplexB
        case ...12: self = .partialDuplexC
        default: self = .noDuplex
        }
    }

    /// The largest attenuation range of the category (nil: unbounded).
    public var limitDB: Double? {
        switch self {
        case .fullDuplex: 3
        case .partialDuplexA: 6
        case .partialDuplexB: 9
        case .partialDuplexC: 12
        case .noDuplex: nil
        }
    }

    public var title: String {
        switch self {
        case .fullDuplex: "full duplex"
        case .partialDuplexA, .partialDuplexB, .partialDuplexC: "partial duplex"
        case .noDuplex: "no duplex"
        }
    }
}

/// Double talk as TS 26.131 and P.340 report it, against the clean near-end track (so only where
/// there is one). Per Welch frame of double talk (the gate's: far end active, near end talking):
/// - the near end's **attenuation** as `NearEndPreservation` measures it (the least-squares gain
///   of the near end in what is sent, blind to the residual echo beside it; lost: the bound);
/// - the **level difference** between the clean near end and what is sent, 10·log10(Σn²/Σs²),
///   the output floored at digital silence (then a lower bound).
///
/// The **attenuation range** A_H,S,dt is the 95th percentile of the per-frame attenuation in
/// double talk, against the clean near end's own level — the most the send path cut the talker,
/// but for the 5 % of frames a level meter would call spikes — which P.340 categorises. Where the
/// residual echo holds more of a frame's output than the kept near end (distortion above 0 dB),
/// its chance correlation with the talker moves the frame's gain by several dB, so the frame
/// counts at its level difference instead, which bounds its attenuation from below (the kept near
/// end cannot hold more than the whole output); a frame whose near end was lost counts at its
/// bound. With any bound among the frames the range is a lower bound: its category the best the
/// canceller can be in. The labs compare with the same near end sent alone; EchoLab compares with
/// the clean track, so what the send path does to the near end without a far end counts too (the
/// near-end single-talk attenuation's median is shown beside it). The far-end single talk
/// **around** double talk is each far-end single-talk frame within a second of a double-talk
/// frame: what is sent there, against the near end's mean level in double talk (how far under
/// the talker the echo left around the switch is).
public struct DoubleTalkReport: Codable, Equatable, Sendable {
    public var doubleTalkFrames: Int
    /// Double-talk frames over the analysis frames measured (those where the near-end track
    /// lines up with what was sent).
    public var doubleTalkShare: Double
    public var levelDifferenceDB: Double?
    public var levelDifferenceIsLowerBound: Bool
    public var attenuationRangeDB: Double?
    public var attenuationRangeIsLowerBound: Bool
    /// The double-talk frames the range stands on (every one with a near end in it).
    public var attenuationRangeFrames: Int
    /// The median attenuation of the near end talking alone (nil: it never did), for context; a
    /// lower bound when any of those frames lost the near end.
    public var singleTalkAttenuationDB: Double?
    public var singleTalkAttenuationIsLowerBound: Bool
    public var category: DoubleTalkCategory?
    public var aroundFrames: Int
    public var aroundShare: Double
    public var aroundLevelDifferenceDB: Double?
    public var aroundLevelDifferenceIsLowerBound: Bool

    public init(doubleTalkFrames: Int, doubleTalkShare: Double, levelDifferenceDB: Double?, levelDifferenceIsLowerBound: Bool,
                attenuationRangeDB: Double?, attenuationRangeIsLowerBound: Bool, attenuationRangeFrames: Int,
                singleTalkAttenuationDB: Double?, singleTalkAttenuationIsLowerBound: Bool = false,
                aroundFrames: Int, aroundShare: Double, aroundLevelDifferenceDB: Double?, aroundLevelDifferenceIsLowerBound: Bool) {
        self.doubleTalkFrames = doubleTalkFrames
        self.doubleTalkShare = doubleTalkShare
        self.levelDifferenceDB = levelDifferenceDB
        self.levelDifferenceIsLowerBound = levelDifferenceIsLowerBound
        self.attenuationRangeDB = attenuationRangeDB
        self.attenuationRangeIsLowerBound = attenuationRangeIsLowerBound
        self.attenuationRangeFrames = attenuationRangeFrames
        self.singleTalkAttenuationDB = singleTalkAttenuationDB
        self.singleTalkAttenuationIsLowerBound = singleTalkAttenuationIsLowerBound
        self.category = attenuationRangeDB.map { DoubleTalkCategory(attenuationRangeDB: $0) }
        self.aroundFrames = aroundFrames
        self.aroundShare = aroundShare
        self.aroundLevelDifferenceDB = aroundLevelDifferenceDB
        self.aroundLevelDifferenceIsLowerBound = aroundLevelDifferenceIsLowerBound
    }

    /// Too few double-talk frames to be trusted (`FigureConfidence`).
    public var isLowConfidence: Bool { FigureConfidence.isLow(frames: doubleTalkFrames) }

    enum CodingKeys: String, CodingKey {
        case doubleTalkFrames = "double_talk_analysis_frames", doubleTalkShare = "double_talk_share"
        case levelDifferenceDB = "level_difference_db", levelDifferenceIsLowerBound = "level_difference_is_lower_bound"
        case attenuationRangeDB = "attenuation_range_db", attenuationRangeIsLowerBound = "attenuation_range_is_lower_bound"
        case attenuationRangeFrames = "attenuation_range_analysis_frames"
        case singleTalkAttenuationDB = "near_end_single_talk_attenuation_db"
        case singleTalkAttenuationIsLowerBound = "near_end_single_talk_attenuation_is_lower_bound", category = "p340_category"
        case aroundFrames = "around_analysis_frames", aroundShare = "around_share"
        case aroundLevelDifferenceDB = "around_level_difference_db"
        case aroundLevelDifferenceIsLowerBound = "around_level_difference_is_lower_bound"
    }
}
