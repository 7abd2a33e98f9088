import Foundation

/// Per-frame classification: is the far end active (at the mic, i.e. after the bulk delay), and
/// is the near end silent? ERL and ERLE are only meaningful in far-end single talk: with the
/// near end talking, mic power is not echo power and the canceller may rightly keep it.
/// Frames are classified one at a time, in order, from the sums of squares of their two hops
/// (each sample is squared once, not twice); only the counts are kept.
struct ActivityGate {
    let method: ActivityGateMethod
    private let activeMeanSquare: Double
    private let silentMeanSquare: Double
    private let frameSize: Int
    private(set) var frames = 0
    private(set) var farEndActiveFrames = 0
    private(set) var singleTalkFrames = 0

    /// The near end is judged from its own track when given, else from mic − echo, else not at all.
    init(hasEcho: Bool, hasNearEnd: Bool, frameSize: Int, configuration: EchoMetricsConfiguration) {
        method = hasNearEnd ? .nearEndTrack : hasEcho ? .micMinusEcho : .farEndOnly
        activeMeanSquare = pow(10, configuration.farEndActiveDBFS / 10)
        silentMeanSquare = pow(10, configuration.nearEndSilentDBFS / 10)
        self.frameSize = frameSize
    }

    /// Classifies the next frame from its energies (sums of squares over the frame): the
    /// delay-aligned reference, and the near-end estimate (ignored for `.farEndOnly`).
    /// Returns whether it is far-end single talk.
    mutating func classify(farEndEnergy: Double, nearEndEnergy: Double) -> Bool {
        frames += 1
        guard farEndEnergy / Double(frameSize) >= activeMeanSquare else { return false }
        farEndActiveFrames += 1
        guard method == .farEndOnly || nearEndEnergy / Double(frameSize) < silentMeanSquare else { return false }
        singleTalkFrames += 1
        return true
    }

    func summary() -> ActivityGateSummary {
        ActivityGateSummary(method: method, frames: frames, farEndActiveFrames: farEndActiveFrames,
                            singleTalkFrames: singleTalkFrames, doubleTalkFrames: farEndActiveFrames - singleTalkFrames)
    }
}
