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
    /// It is also each uncertainty's ceiling.
    private var prior: [Float]
    /// The prior's shape over the partitions (the decay above), before its scale.
    private let decay: [Float]
    /// The scale of the prior (1: a weight may be as large as an echo path as loud as the
    /// reference); the canceller sets it from the echo path's measured gain. A lower prior caps
    /// every uncertainty from the next frame on; a higher one lets them grow back through the
    /// drift term, or at once with `reset` (the canceller resets when it takes a new path). They
    /// do not follow the scale down: each step down would slow a room's learning.
    ///
    /// The uncertainty is what lets the filter take the error for its own misadjustment rather
    /// than for a near talker: a prior far above what the echo path can hold makes it read a
    /// talker as echo it has yet to learn, and learn the talker — with an echo 30 dB under the
    /// reference, every double-talk stretch drove the main filter into divergence.
    var priorScale: Float = 1 {
        didSet {
            guard priorScale != oldValue else { return }
            for p in 0..<partitions { prior[p] = initialUncertainty * priorScale * decay[p] }
        }
    }
    /// How much a weight is expected to drift each frame, as a share of its power (1 − A²).
    let drift: Float

    init(partitions: Int, bins: Int, initialUncertainty: Float = 1, drift: Float = 2e-4) {
        self.partitions = partitions
        self.bins = bins
        self.initialUncertainty = initialUncertainty
        self.drift = drift
        decay = (0..<partitions).map { Float(exp(-Double($0) / 6)) }
        let prior = decay.map { initialUncertainty * $0 }
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
    /// `driftScale`: this frame's share of `drift` (the canceller lowers it while a talker is heard).
    mutating func adapt(_ filter: inout PartitionedFilter, reference: ReferenceSpectra, offset: Int, errorRe: [Float], errorIm: [Float],
                        residualEcho: [Float], driftScale: Float = 1) {
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
        let inverse = inverseDenominator
        let drift = self.drift * driftScale
        for p in 0..<partitions {
            let x = reference.base(age: offset + p)
            Self.learn(reference: (reference.re.span.extracting(x..<(x + bins)), reference.im.span.extracting(x..<(x + bins)),
                                   reference.power.span.extracting(x..<(x + bins))),
                       error: (errorRe.span.extracting(0..<bins), errorIm.span.extracting(0..<bins)),
                       inverseDenominator: inverse.span.extracting(0..<bins), keep: 1 - drift, drift: drift, ceiling: prior[p],
                       weightsRe: &wRe, weightsIm: &wIm, uncertainty: &uncertainty, from: p * bins)
        }
    }

    /// One partition's learning: W += step · conj(X) · E with step = P / (expected + 2·unexplained),
    /// then P shrinks by what was learned and grows by the drift. Element by element over spans
    /// checked once, so the loop vectorises: the same bits as the scalar loop.
    private static func learn(reference x: (re: Span<Float>, im: Span<Float>, power: Span<Float>), error e: (re: Span<Float>, im: Span<Float>),
                              inverseDenominator inverse: Span<Float>, keep: Float, drift: Float, ceiling: Float,
                              weightsRe: inout [Float], weightsIm: inout [Float], uncertainty: inout [Float], from base: Int) {
        let count = inverse.count
        var wRe = weightsRe.mutableSpan, wIm = weightsIm.mutableSpan, u = uncertainty.mutableSpan
        precondition(x.re.count == count && x.im.count == count && x.power.count == count && e.re.count == count && e.im.count == count)
        precondition(base >= 0 && base <= wRe.count &- count && base <= wIm.count &- count && base <= u.count &- count)
        var k = 0
        while k < count {
            let i = base &+ k
            let step = u[i] * inverse[k]
            // conj(X)·E = (a − ib)(er + i·ei)
            let a = x.re[k], b = x.im[k], er = e.re[k], ei = e.im[k]
            wRe[i] += step * (a * er + b * ei)
            wIm[i] += step * (a * ei - b * er)
            let learned = max(1 - 0.5 * step * x.power[k], 0)
            let weight = wRe[i] * wRe[i] + wIm[i] * wIm[i]
            u[i] = min(keep * learned * u[i] + drift * weight + 1e-9, ceiling)
            k &+= 1
        }
    }

    /// `sum += a[i…] · b[j…]`, element-wise over spans (vectorises; the same bits).
    private static func accumulate(_ a: [Float], from i: Int, times b: [Float], from j: Int, count: Int, into sum: inout [Float]) {
        let x = a.span.extracting(i..<(i + count)), y = b.span.extracting(j..<(j + count))
        var out = sum.mutableSpan
        precondition(count <= out.count)
        var k = 0
        while k < count { out[k] += x[k] * y[k]; k &+= 1 }
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
