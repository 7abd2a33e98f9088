import Foundation

/// Per-frame classification: is the far end active (at the mic, i.e. after the bulk delay), and
/// is the near end silent? ERL and ERLE are only meaningful in far-end single talk: with the
/// near end talking, mic power is not echo power and the canceller may rightly keep it.
struct ActivityGate: Sendable {
    let method: ActivityGateMethod
    /// One flag per Welch frame.
    let farEndActive: [Bool]
    let nearEndSilent: [Bool]

    var singleTalk: [Bool] { zip(farEndActive, nearEndSilent).map { $0 && $1 } }

    /// - Parameters:
    ///   - referenceShift: the bulk delay in whole samples; frame n's far-end activity is read
    ///     from reference samples n − shift, the part that reaches the mic during the frame.
    init(signals: EchoSignals, frames: WelchFrames, referenceShift: Int,
         configuration: EchoMetricsConfiguration) {
        let activeMeanSquare = pow(10, configuration.farEndActiveDBFS / 10)
        let silentMeanSquare = pow(10, configuration.nearEndSilentDBFS / 10)
        let reference = signals.reference
        farEndActive = Self.meanSquares(Self.hopEnergies(frames: frames, validFrom: referenceShift) { range in
            PowerSums.sumOfSquares(reference, (range.lowerBound - referenceShift)..<(range.upperBound - referenceShift))
        }, frames: frames).map { $0 >= activeMeanSquare }

        let nearEnergies: [Double]?
        if let nearEnd = signals.nearEnd {
            method = .nearEndTrack
            nearEnergies = Self.hopEnergies(frames: frames) { PowerSums.sumOfSquares(nearEnd, $0) }
        } else if let echo = signals.echo {
            method = .micMinusEcho
            let mic = signals.mic
            nearEnergies = Self.hopEnergies(frames: frames) { PowerSums.sumOfSquaredDifferences(mic, echo, $0) }
        } else {
            method = .farEndOnly
            nearEnergies = nil
        }
        if let nearEnergies {
            nearEndSilent = Self.meanSquares(nearEnergies, frames: frames).map { $0 < silentMeanSquare }
        } else {
            nearEndSilent = [Bool](repeating: true, count: frames.count)
        }
    }

    func summary() -> ActivityGateSummary {
        var active = 0, single = 0
        for (isActive, isSilent) in zip(farEndActive, nearEndSilent) where isActive {
            active += 1
            if isSilent { single += 1 }
        }
        return ActivityGateSummary(method: method, frames: farEndActive.count, farEndActiveFrames: active,
                                   singleTalkFrames: single, doubleTalkFrames: active - single)
    }

    /// Sum of squares per hop-sized block, `frames.count + 1` blocks: a frame is two consecutive
    /// blocks, so every sample is squared once instead of twice. `energy` sums one block's sample
    /// range; samples before `validFrom` are zero (the shifted reference before it starts).
    private static func hopEnergies(frames: WelchFrames, validFrom: Int = 0,
                                    energy: (Range<Int>) -> Double) -> [Double] {
        guard frames.count > 0 else { return [] }
        return (0...frames.count).map { block in
            let first = max(block * frames.hop, validFrom), end = (block + 1) * frames.hop
            return first < end ? energy(first..<end) : 0
        }
    }

    private static func meanSquares(_ energies: [Double], frames: WelchFrames) -> [Double] {
        (0..<frames.count).map { (energies[$0] + energies[$0 + 1]) / Double(frames.frameSize) }
    }
}
