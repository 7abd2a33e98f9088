import AudioCore
import Foundation

/// Gathers `DoubleTalkReport` as the stream scores its frames (with a near-end track only): per
/// double-talk and near-end single-talk frame its near end's attenuation, per double-talk frame
/// the level difference, and the far-end single-talk frames within `aroundFrames` of a
/// double-talk frame. Fixed-size state: histograms and a ring of the last far-end single-talk
/// frames not yet known to be near a double-talk frame.
struct DoubleTalkMeter: Sendable {
    let aroundFrames: Int
    private var doubleTalkFrames = 0
    private var doubleTalkAttenuation = DecibelHistogram()
    /// The double-talk frames counted at a bound of their attenuation.
    private var boundFrames = 0
    /// Near-end single-talk frames whose near end was lost (counted at their bound).
    private var singleTalkLost = 0
    /// Every frame given (the share's denominator: those where the near-end track lines up).
    private var measuredFrames = 0
    private var singleTalkAttenuation = DecibelHistogram()
    private var levelDifference = Sums()
    private var nearLevel = Sums()
    private var aroundLevel = Sums()
    private var lastDoubleTalkFrame: Int?
    /// Far-end single-talk frames after the last double talk by more than `aroundFrames`: they
    /// count if double talk follows within `aroundFrames` (a ring, oldest first).
    private var pendingFrame: [Int]
    private var pendingLevel: [Double]
    private var pendingFloored: [Bool]
    private var pendingStart = 0, pendingCount = 0

    /// Σ of per-frame levels (dB), how many, and how many stood at the floor.
    private struct Sums: Sendable {
        var totalDB = 0.0, frames = 0, floored = 0
        mutating func add(_ valueDB: Double, floored isFloored: Bool) {
            totalDB += valueDB; frames += 1
            if isFloored { floored += 1 }
        }
        var mean: Double? { frames > 0 ? totalDB / Double(frames) : nil }
    }

    /// `aroundSeconds` of far-end single talk on either side of double talk count as around it.
    init(sampleRate: Int, hop: Int, aroundSeconds: Double = 1) {
        aroundFrames = max(1, Int((aroundSeconds * Double(sampleRate) / Double(hop)).rounded(.up)))
        pendingFrame = [Int](repeating: 0, count: aroundFrames + 1)
        pendingLevel = [Double](repeating: 0, count: aroundFrames + 1)
        pendingFloored = [Bool](repeating: false, count: aroundFrames + 1)
    }

    /// One frame's near-end attenuation and distortion, as a call's are measured from its sums.
    private static func measures(near: Double, sent: Double, sentNear: Double, samples: Int) -> (attenuation: Double?, isLowerBound: Bool, distortion: Double?) {
        var sums = NearEndPreservation.Sums()
        (sums.sentNear, sums.nearNear, sums.sentSent, sums.frames, sums.samples) = (sentNear, near, sent, 1, samples)
        return sums.measures(lostCeiling: 1)
    }

    /// One scored frame: its class, Σn², Σs², Σs·n over its `samples`.
    mutating func add(frame: Int, talk: ActivityGate.Talk, near: Double, sent: Double, sentNear: Double, samples: Int) {
        let floor = MeasurableFloor.quantisationVariance * Double(samples)
        let output = max(sent, floor)
        measuredFrames += 1
        switch talk {
        case .doubleTalk:
            let measured = Self.measures(near: near, sent: sent, sentNear: sentNear, samples: samples)
            doubleTalkFrames += 1
            // A frame's gain is read through what else was sent: where the residual echo holds
            // more than the kept near end (distortion above 0 dB) its chance correlation with the
            // near end moves the gain by several dB (with no canceller at all, a 4 dB range), so
            // the frame counts at its level difference, a lower bound of its attenuation (the
            // kept near end cannot hold more energy than the whole output); a lost near end at
            // its bound.
            if let attenuation = measured.attenuation {
                if measured.isLowerBound {
                    doubleTalkAttenuation.add(attenuation)
                    boundFrames += 1
                } else if (measured.distortion ?? .infinity) <= 0 {
                    doubleTalkAttenuation.add(attenuation)
                } else if let bound = Decibels.powerRatio(near, output) {
                    doubleTalkAttenuation.add(bound)
                    boundFrames += 1
                }
            }
            if let difference = Decibels.powerRatio(near, output) { levelDifference.add(difference, floored: sent < floor) }
            if near > 0 { nearLevel.add(10 * log10(near / Double(samples)), floored: false) }
            // The far-end single talk before it, within reach, is around double talk.
            while pendingCount > 0 {
                let slot = pendingStart
                pendingStart = (pendingStart + 1) % pendingFrame.count
                pendingCount -= 1
                if frame - pendingFrame[slot] <= aroundFrames { aroundLevel.add(pendingLevel[slot], floored: pendingFloored[slot]) }
            }
            lastDoubleTalkFrame = frame
        case .nearEndSingleTalk:
            let measured = Self.measures(near: near, sent: sent, sentNear: sentNear, samples: samples)
            if let attenuation = measured.attenuation {
                singleTalkAttenuation.add(attenuation)
                if measured.isLowerBound { singleTalkLost += 1 }
            }
        case .farEndSingleTalk:
            let level = 10 * log10(output / Double(samples))
            if let last = lastDoubleTalkFrame, frame - last <= aroundFrames {
                aroundLevel.add(level, floored: sent < floor)
            } else {
                let slot = (pendingStart + pendingCount) % pendingFrame.count
                if pendingCount == pendingFrame.count {
                    pendingStart = (pendingStart + 1) % pendingFrame.count   // the oldest is out of reach
                } else {
                    pendingCount += 1
                }
                (pendingFrame[slot], pendingLevel[slot], pendingFloored[slot]) = (frame, level, sent < floor)
            }
        case .silence, .unjudged:   // unjudged only without tracks, where this meter does not run
            break
        }
    }

    /// The report; nil without double talk.
    func report() -> DoubleTalkReport? {
        let frames = doubleTalkFrames, analysisFrames = measuredFrames
        guard frames > 0 else { return nil }
        let reference = singleTalkAttenuation.percentile(0.5)
        var range: Double?, rangeIsBound = false
        if let top = doubleTalkAttenuation.percentileBin(0.95) {
            range = max(0, DecibelHistogram.centre(top))
            // A bound anywhere could lie above the percentile.
            rangeIsBound = boundFrames > 0
        }
        // The echo left around double talk, against the near talker's level in double talk: the
        // output's level is a bound where it sat at the floor (the difference is then at least this).
        let around = nearLevel.mean.flatMap { near in aroundLevel.mean.map { near - $0 } }
        return DoubleTalkReport(doubleTalkFrames: frames, doubleTalkShare: Double(frames) / Double(analysisFrames),
                                levelDifferenceDB: levelDifference.mean, levelDifferenceIsLowerBound: levelDifference.floored > 0,
                                attenuationRangeDB: range, attenuationRangeIsLowerBound: rangeIsBound,
                                attenuationRangeFrames: doubleTalkAttenuation.count,
                                singleTalkAttenuationDB: reference, singleTalkAttenuationIsLowerBound: singleTalkLost > 0,
                                aroundFrames: aroundLevel.frames, aroundShare: Double(aroundLevel.frames) / Double(analysisFrames),
                                aroundLevelDifferenceDB: around, aroundLevelDifferenceIsLowerBound: aroundLevel.floored > 0)
    }
}
