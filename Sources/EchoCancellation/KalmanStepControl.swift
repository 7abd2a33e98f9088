import Foundation

/// The main filter's step: a diagonal frequency-domain Kalman filter over the partitioned
/// weights (the state-space view of the PBFDAF). Each partition and bin keeps how uncertain its
/// weight is; the step is that uncertainty over the error power it expects, so the filter
/// learns fast while it knows little, slows as it converges, and stalls by itself when the error
/// holds power the echo cannot explain — the near talker — instead of a double-talk detector
/// freezing it. Process noise (the weights' own drift) keeps it from stopping for good; a jump of
/// the echo path is the coarse filter's to catch.
struct KalmanStepControl {
    let partitions: Int
    let bins: Int
    /// Per partition and bin: the weight's error variance.
    private(set) var uncertainty: [Float]
    /// Per partition and bin: the step the last `computeStep` chose.
    private(set) var step: [Float]
    /// Per bin: the error power the filter cannot explain (near end and noise), smoothed.
    private var unexplained: [Float]
    private var expected: [Float]
    private var inverseDenominator: [Float]
    let initialUncertainty: Float
    /// Per partition: how uncertain a weight is before anything is learned. A room's echo
    /// decays, so the partitions after the direct path are expected to hold less of it: the
    /// first adapt fastest (a proportionate start), the tail catches up through the drift term.
    private let prior: [Float]
    /// How much a weight is expected to drift each frame, as a share of its power (1 − A²).
    let drift: Float

    init(partitions: Int, bins: Int, initialUncertainty: Float = 1, drift: Float = 2e-4) {
        self.partitions = partitions
        self.bins = bins
        self.initialUncertainty = initialUncertainty
        self.drift = drift
        let prior = (0..<partitions).map { initialUncertainty * Float(exp(-Double($0) / 6)) }
        self.prior = prior
        uncertainty = (0..<partitions * bins).map { prior[$0 / bins] }
        step = [Float](repeating: 0, count: partitions * bins)
        unexplained = [Float](repeating: 0, count: bins)
        expected = [Float](repeating: 0, count: unexplained.count)
        inverseDenominator = [Float](repeating: 0, count: unexplained.count)
    }

    /// The steps for this frame's error spectrum (E of the zero-padded error, in the echo
    /// estimate's scale). Its power splits into what the weights' uncertainty explains — the
    /// windowed error carries half of it — and the rest, which only a near talker or noise makes.
    /// `residualEcho`: per bin, the error power the echo estimate explains (the suppressor's leak
    /// times the estimate's power) — misadjustment, not a near talker, so not a reason to slow down.
    mutating func computeStep(_ reference: ReferenceSpectra, offset: Int, errorRe: [Float], errorIm: [Float], residualEcho: [Float]) {
        // The two arrays written across every partition are taken out of `self` for the loops
        // and put back (as in `PartitionedFilter.adapt`: no per-element uniqueness check, no
        // allocation); the per-bin ones are written once a frame and stay.
        var expected: [Float] = [], step: [Float] = []
        swap(&expected, &self.expected)
        swap(&step, &self.step)
        defer {
            swap(&expected, &self.expected)
            swap(&step, &self.step)
        }
        for k in 0..<bins { expected[k] = 0 }
        for p in 0..<partitions {
            Self.accumulate(reference.power, from: reference.base(age: offset + p), times: uncertainty, from: p * bins,
                            count: bins, into: &expected)
        }
        for k in 0..<bins {
            let errorPower = errorRe[k] * errorRe[k] + errorIm[k] * errorIm[k]
            let now = max(errorPower - max(residualEcho[k], 0.5 * expected[k]), 0)
            // Rises at once (a near talker starting must not meet a large step), falls slowly.
            unexplained[k] = max(now, 0.9 * unexplained[k] + 0.1 * now)
            inverseDenominator[k] = 1 / (expected[k] + 2 * unexplained[k] + 1e-10)
        }
        for p in 0..<partitions {
            Self.multiply(uncertainty, from: p * bins, by: inverseDenominator, count: bins, into: &step)
        }
    }

    private static func accumulate(_ a: [Float], from i: Int, times b: [Float], from j: Int, count: Int, into sum: inout [Float]) {
        for k in 0..<count { sum[k] += a[i + k] * b[j + k] }
    }

    private static func multiply(_ a: [Float], from i: Int, by b: [Float], count: Int, into out: inout [Float]) {
        for k in 0..<count { out[i + k] = a[i + k] * b[k] }
    }

    /// After the weights moved: what the frame taught shrinks each uncertainty, then the drift
    /// grows it again in proportion to the weight.
    mutating func update(_ reference: ReferenceSpectra, offset: Int, weights: PartitionedFilter) {
        var uncertainty: [Float] = []
        swap(&uncertainty, &self.uncertainty)
        defer { swap(&uncertainty, &self.uncertainty) }
        let power = reference.power, step = step, wRe = weights.re, wIm = weights.im
        let keep = 1 - drift, drift = drift
        for p in 0..<partitions {
            let x = reference.base(age: offset + p), ceiling = prior[p], base = p * bins
            for k in 0..<bins {
                let i = base + k
                let learned = max(1 - 0.5 * step[i] * power[x + k], 0)
                let w = wRe[i] * wRe[i] + wIm[i] * wIm[i]
                uncertainty[i] = min(keep * learned * uncertainty[i] + drift * w + 1e-9, ceiling)
            }
        }
    }

    /// Back to knowing nothing (a reset, or weights taken from the coarse filter).
    mutating func reset(scale: Float = 1) {
        for i in uncertainty.indices { uncertainty[i] = scale * prior[i / bins] }
    }

    /// The partitions moved with the bulk delay: their uncertainties move with them.
    mutating func shift(by shift: Int) {
        guard shift != 0 else { return }
        for n in 0..<partitions {
            // Later partitions are written first when moving later, so no source is overwritten early.
            let p = shift > 0 ? partitions - 1 - n : n
            let source = p - shift
            for k in 0..<bins {
                uncertainty[p * bins + k] = source >= 0 && source < partitions ? uncertainty[source * bins + k] : prior[p]
            }
        }
    }
}
