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
    /// The attenuations of the near end as sent and of the near end turned back: which of the two
    /// the report reads is known only from the whole call's sums (`NearEndPreservation`'s polarity).
    private var asSent = Attenuations(), inverted = Attenuations()
    /// Every frame given (the share's denominator: those where the near-end track lines up).
    private var measuredFrames = 0
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

    /// The per-frame attenuations of the near end, for one sign of it.
    private struct Attenuations: Sendable {
        var doubleTalk = DecibelHistogram()
        /// The double-talk frames counted at a bound of their attenuation.
        var boundFrames = 0
        var singleTalk = DecibelHistogram()
        /// Near-end single-talk frames whose near end was lost (counted at their bound).
        var singleTalkLost = 0

        /// One double-talk frame. A frame's gain is read through what else was sent: where the
        /// residual echo holds more than the kept near end (distortion above 0 dB) its chance
        /// correlation with the near end moves the gain by several dB (with no canceller at all,
        /// a 4 dB range), so the frame counts at its level difference, a lower bound of its
        /// attenuation (the kept near end cannot hold more energy than the whole output); a lost
        /// near end at its bound.
        mutating func addDoubleTalk(near: Double, sent: Double, sentNear: Double, output: Double, samples: Int) {
            let measured = DoubleTalkMeter.measures(near: near, sent: sent, sentNear: sentNear, samples: samples)
            guard let attenuation = measured.attenuation else { return }
            if measured.isLowerBound {
                doubleTalk.add(attenuation)
                boundFrames += 1
            } else if (measured.distortion ?? .infinity) <= 0 {
                doubleTalk.add(attenuation)
            } else if let bound = Decibels.powerRatio(near, output) {
                doubleTalk.add(bound)
                boundFrames += 1
            }
        }

        mutating func addSingleTalk(near: Double, sent: Double, sentNear: Double, samples: Int) {
            let measured = DoubleTalkMeter.measures(near: near, sent: sent, sentNear: sentNear, samples: samples)
            guard let attenuation = measured.attenuation else { return }
            singleTalk.add(attenuation)
            if measured.isLowerBound { singleTalkLost += 1 }
        }
    }

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
            doubleTalkFrames += 1
            asSent.addDoubleTalk(near: near, sent: sent, sentNear: sentNear, output: output, samples: samples)
            inverted.addDoubleTalk(near: near, sent: sent, sentNear: -sentNear, output: output, samples: samples)
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
            asSent.addSingleTalk(near: near, sent: sent, sentNear: sentNear, samples: samples)
            inverted.addSingleTalk(near: near, sent: sent, sentNear: -sentNear, samples: samples)
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

    /// The report, of the near end turned back where the call sent it inverted; nil without double talk.
    func report(polarityIsInverted: Bool) -> DoubleTalkReport? {
        let frames = doubleTalkFrames, analysisFrames = measuredFrames
        guard frames > 0 else { return nil }
        let attenuations = polarityIsInverted ? inverted : asSent
        let reference = attenuations.singleTalk.percentile(0.5)
        var range: Double?, rangeIsBound = false
        if let top = attenuations.doubleTalk.percentile(0.95) {
            // To 0.01 dB, the digits the pages print it with: the category judges what they show
            // (6.004 printed "6.00 dB" would stand beside "more than 6 dB").
            range = max(0, (top * 100).rounded() / 100)
            // A bound anywhere could lie above the percentile.
            rangeIsBound = attenuations.boundFrames > 0
        }
        // The echo left around double talk, against the near talker's level in double talk: the
        // output's level is a bound where it sat at the floor (the difference is then at least this).
        let around = nearLevel.mean.flatMap { near in aroundLevel.mean.map { near - $0 } }
        return DoubleTalkReport(doubleTalkFrames: frames, doubleTalkShare: Double(frames) / Double(analysisFrames),
                                levelDifferenceDB: levelDifference.mean, levelDifferenceIsLowerBound: levelDifference.floored > 0,
                                attenuationRangeDB: range, attenuationRangeIsLowerBound: rangeIsBound,
                                attenuationRangeFrames: attenuations.doubleTalk.count,
                                singleTalkAttenuationDB: reference, singleTalkAttenuationIsLowerBound: attenuations.singleTalkLost > 0,
                                aroundFrames: aroundLevel.frames, aroundShare: Double(aroundLevel.frames) / Double(analysisFrames),
                                aroundLevelDifferenceDB: around, aroundLevelDifferenceIsLowerBound: aroundLevel.floored > 0)
    }
}
