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
        unexplained = [Float](repeating: 0, count: bins)
        expected = [Float](repeating: 0, count: unexplained.count)
        inverseDenominator = [Float](repeating: 0, count: unexplained.count)
    }

    /// The frame's learning: the step for this error spectrum (E of the zero-padded error, in
    /// the echo estimate's scale), the weights moved by it, then what the frame taught shrinks
    /// each uncertainty and the drift grows it again in proportion to the weight — in one pass
    /// over the partitions (three passes read the same arrays three times).
    ///
    /// The error's power splits into what the weights' uncertainty explains — the windowed error
    /// carries half of it — and the rest, which only a near talker or noise makes.
    /// `residualEcho`: per bin, the error power the echo estimate explains (the suppressor's leak
    /// times the estimate's power) — misadjustment, not a near talker, so not a reason to slow down.
    mutating func adapt(_ filter: inout PartitionedFilter, reference: ReferenceSpectra, offset: Int, errorRe: [Float], errorIm: [Float],
                        residualEcho: [Float]) {
        // Written arrays are taken out of their owners for the loops and put back (no copy, no
        // allocation): written through `self`, each element's write checked the buffer's
        // uniqueness again and kept the loops scalar.
        var expected: [Float] = [], uncertainty: [Float] = [], wRe: [Float] = [], wIm: [Float] = []
        swap(&expected, &self.expected)
        swap(&uncertainty, &self.uncertainty)
        swap(&wRe, &filter.re)
        swap(&wIm, &filter.im)
        defer {
            swap(&expected, &self.expected)
            swap(&uncertainty, &self.uncertainty)
            swap(&wRe, &filter.re)
            swap(&wIm, &filter.im)
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
        let xRe = reference.re, xIm = reference.im, power = reference.power, inverse = inverseDenominator
        let keep = 1 - drift, drift = drift
        for p in 0..<partitions {
            let x = reference.base(age: offset + p), ceiling = prior[p], base = p * bins
            for k in 0..<bins {
                let i = base + k
                let step = uncertainty[i] * inverse[k]
                // W += step · conj(X) · E, conj(X)·E = (a − ib)(er + i·ei)
                let a = xRe[x + k], b = xIm[x + k], er = errorRe[k], ei = errorIm[k]
                wRe[i] += step * (a * er + b * ei)
                wIm[i] += step * (a * ei - b * er)
                let learned = max(1 - 0.5 * step * power[x + k], 0)
                let w = wRe[i] * wRe[i] + wIm[i] * wIm[i]
                uncertainty[i] = min(keep * learned * uncertainty[i] + drift * w + 1e-9, ceiling)
            }
        }
    }

    private static func accumulate(_ a: [Float], from i: Int, times b: [Float], from j: Int, count: Int, into sum: inout [Float]) {
        for k in 0..<count { sum[k] += a[i + k] * b[j + k] }
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
