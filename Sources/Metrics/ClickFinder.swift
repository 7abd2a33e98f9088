import Foundation

/// The click half of `GlitchDetector`, one block at a time (definition there). Identical
/// arithmetic to a whole-signal pass: d[n] and the running sum of d² (the "prefix sum" that
/// makes local energies O(1)) are the same values in the same order, so events and strengths
/// are equal bit for bit. Index n is decided once the sample halfContext after it has arrived
/// (its right-hand context), or at `finish`; only the values still needed are kept.
///
/// Speed (~2 ns a sample): the values live in two linear windows (a shift every few thousand
/// samples instead of a mask per access), each block is done in two passes — the running sum
/// (a serial chain, kept short) and then the decisions, 64 indices at a time with a
/// vectorisable, square-root-free test that can only say "no click here" — and the exact test
/// runs only where that one could not rule a click out.
struct ClickFinder {
    private let halfContext: Int
    private let floorSquared: Double
    private let factor: Double
    private let mergeDistance: Int
    private static let guardSamples = 2
    /// Context samples of an index whose whole context lies inside the signal.
    private let interiorSamples: Int
    /// Window capacity: the retained context plus room for a block.
    private let capacity: Int
    /// prefix[i] = Σ_{2 ≤ k < base + i} d[k]² and differences[i] = d[base + i].
    private var prefix: [Double]
    private var differences: [Double]
    private var base = 0
    private var running = 0.0
    /// x[n−1] and x[n−2] of the next sample n.
    private var previous = 0.0, beforePrevious = 0.0
    private(set) var count = 0
    /// Next index to decide.
    private var nextDecision = 2
    private var lastDetection: Int?
    private(set) var events: [GlitchEvent] = []

    init(detector: GlitchDetector) {
        halfContext = max(4, Int((detector.contextSeconds * Double(detector.sampleRate) / 2).rounded()))
        floorSquared = pow(10, detector.floorDBFS / 20) * pow(10, detector.floorDBFS / 20)
        factor = detector.thresholdFactor
        mergeDistance = max(1, Int((detector.mergeSeconds * Double(detector.sampleRate)).rounded()))
        interiorSamples = 2 * halfContext + 1 - (2 * Self.guardSamples + 1)
        capacity = 2 * halfContext + 8 + 4096
        prefix = [Double](repeating: 0, count: capacity)
        differences = prefix
    }

    mutating func append(_ signal: [Float], from: Int, count blockCount: Int) {
        var done = 0
        while done < blockCount {
            // Room for the next piece: forget what no decision will read again.
            if count + 1 - base >= capacity {
                let keep = max(base, nextDecision - halfContext - 2)
                Self.shift(&prefix, by: keep - base, keeping: count + 1 - keep)
                Self.shift(&differences, by: keep - base, keeping: count - keep)
                base = keep
            }
            let piece = min(blockCount - done, capacity - (count + 1 - base))
            // The windows are taken out of `self` and handed over as raw pointers, so the loops
            // keep their values in registers and may still record events into `self`.
            var prefixWindow: [Double] = [], differenceWindow: [Double] = []
            swap(&prefixWindow, &prefix)
            swap(&differenceWindow, &differences)
            signal.withUnsafeBufferPointer { source in
                prefixWindow.withUnsafeMutableBufferPointer { prefix in
                    differenceWindow.withUnsafeMutableBufferPointer { differences in
                        let start = source.baseAddress! + from + done
                        if count >= 2 * halfContext + 2 && nextDecision == count - halfContext {
                            accumulateAndScreen(start, count: piece, prefix: prefix.baseAddress!,
                                                differences: differences.baseAddress!)
                        } else {
                            accumulate(start, count: piece, prefix: prefix.baseAddress!, differences: differences.baseAddress!)
                        }
                        decide(upTo: count - halfContext, total: count, prefix: prefix.baseAddress!,
                               differences: differences.baseAddress!)
                    }
                }
            }
            swap(&prefixWindow, &prefix)
            swap(&differenceWindow, &differences)
            done += piece
        }
    }

    /// Decides the indices whose right-hand context ends with the signal.
    mutating func finish() {
        var prefixWindow: [Double] = [], differenceWindow: [Double] = []
        swap(&prefixWindow, &prefix)
        swap(&differenceWindow, &differences)
        prefixWindow.withUnsafeMutableBufferPointer { prefix in
            differenceWindow.withUnsafeMutableBufferPointer { differences in
                decide(upTo: count, total: count, prefix: prefix.baseAddress!, differences: differences.baseAddress!)
            }
        }
        swap(&prefixWindow, &prefix)
        swap(&differenceWindow, &differences)
    }

    private static func shift(_ window: inout [Double], by drop: Int, keeping kept: Int) {
        guard drop > 0 else { return }
        window.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.update(from: buffer.baseAddress! + drop, count: kept)
        }
    }

    /// Pass 1: d and the running sum of d² for `pieceCount` new samples.
    private mutating func accumulate(_ source: UnsafePointer<Float>, count pieceCount: Int,
                                     prefix: UnsafeMutablePointer<Double>, differences: UnsafeMutablePointer<Double>) {
        var running = self.running, previous = self.previous, beforePrevious = self.beforePrevious
        var n = count, index = 0
        // Samples 0 and 1 have no second difference.
        while index < pieceCount && n < 2 {
            prefix[n + 1 - base] = 0
            beforePrevious = previous
            previous = Double(source[index])
            n += 1
            index += 1
        }
        let offset = n - base
        let remaining = pieceCount - index
        for step in 0..<remaining {
            let x = Double(source[index &+ step])
            let d = x - 2 * previous + beforePrevious
            running += d * d
            differences[offset &+ step] = d
            prefix[offset &+ step &+ 1] = running
            beforePrevious = previous
            previous = x
        }
        self.running = running
        self.previous = previous
        self.beforePrevious = beforePrevious
        count = n + remaining
    }

    /// Pass 1 fused with the screen of pass 2, once the stream is past its first context: the
    /// running sum is a serial chain of additions (latency-bound), and the screen of the index
    /// whose context the new sample completes fits in the idle execution units beside it. When
    /// nothing in the piece passes the screen, the piece is decided at once.
    private mutating func accumulateAndScreen(_ source: UnsafePointer<Float>, count pieceCount: Int,
                                              prefix: UnsafeMutablePointer<Double>,
                                              differences: UnsafeMutablePointer<Double>) {
        let halfContext = self.halfContext, floorSquared = self.floorSquared
        let rejectScale = factor > 0 ? factor * factor * 0.999_999 / Double(interiorSamples) : 0
        var running = self.running, previous = self.previous, beforePrevious = self.beforePrevious
        let offset = count - base
        var candidates = 0
        for step in 0..<pieceCount {
            let x = Double(source[step])
            let d = x - 2 * previous + beforePrevious
            running += d * d
            let at = offset &+ step
            differences[at] = d
            prefix[at &+ 1] = running
            beforePrevious = previous
            previous = x
            // Index (count + step) − halfContext now has its whole context.
            let decided = at &- halfContext
            let old = differences[decided]
            let oldSquared = old * old
            let energy = (prefix[at &+ 1] - prefix[decided &- halfContext]) - (prefix[decided &+ 3] - prefix[decided &- 2])
            candidates &+= Swift.min(oldSquared - floorSquared, oldSquared - rejectScale * energy) >= 0 ? 1 : 0
        }
        self.running = running
        self.previous = previous
        self.beforePrevious = beforePrevious
        count += pieceCount
        // Non-finite values void the screen; then everything goes through the exact test.
        if candidates == 0 && running.isFinite { nextDecision = count - halfContext }
    }

    /// Pass 2: decides the indices from `nextDecision` up to (not including) `end`, with the
    /// first `total` samples known (`total` cuts the context at the end of the signal).
    private mutating func decide(upTo end: Int, total: Int, prefix: UnsafeMutablePointer<Double>,
                                 differences: UnsafeMutablePointer<Double>) {
        let halfContext = self.halfContext, floorSquared = self.floorSquared
        // d² < factor² · energy / samples (with a margin far above rounding) means the exact
        // test |d| > factor · √(energy / samples) fails; only chunks where some index passes
        // this screen go through the exact test.
        let rejectScale = factor > 0 ? factor * factor * 0.999_999 / Double(interiorSamples) : 0
        // The screen needs finite values; the running sum of d² is finite exactly when every d
        // and every prefix so far is.
        let screenable = running.isFinite
        var index = nextDecision
        while index < end {
            // Interior indices: the whole context lies inside the signal.
            if index - halfContext >= 2 && index + halfContext + 1 <= total && screenable {
                let stop = min(end, index + 64, total - halfContext)
                // min(d² − floor², d² − scale·energy) < 0 means "not a click" (the signs of
                // these differences are exact); a branch-free count over the chunk vectorises.
                var candidates = 0
                let local = index - base
                for step in 0..<(stop - index) {
                    let at = local &+ step
                    let d = differences[at]
                    let dSquared = d * d
                    let energy = (prefix[at &+ halfContext &+ 1] - prefix[at &- halfContext])
                        - (prefix[at &+ 3] - prefix[at &- 2])
                    candidates &+= Swift.min(dSquared - floorSquared, dSquared - rejectScale * energy) >= 0 ? 1 : 0
                }
                if candidates > 0 {
                    for candidate in index..<stop { decideOne(candidate, total: total, prefix: prefix, differences: differences) }
                }
                index = stop
            } else {
                decideOne(index, total: total, prefix: prefix, differences: differences)
                index += 1
            }
        }
        nextDecision = max(nextDecision, end)
    }

    /// The exact test for one index, as the whole-signal pass has it.
    private mutating func decideOne(_ index: Int, total: Int, prefix: UnsafeMutablePointer<Double>,
                                    differences: UnsafeMutablePointer<Double>) {
        let d = differences[index - base]
        guard d * d > floorSquared else { return }
        let magnitude = abs(d)
        let low = max(2, index - halfContext), high = min(total, index + halfContext + 1)
        let guardLow = max(low, index - Self.guardSamples), guardHigh = min(high, index + Self.guardSamples + 1)
        let energy = (prefix[high - base] - prefix[low - base]) - (prefix[guardHigh - base] - prefix[guardLow - base])
        let samples = (high - low) - (guardHigh - guardLow)
        let localRMS = samples > 0 ? (max(0, energy) / Double(samples)).squareRoot() : 0
        guard magnitude > factor * localRMS else { return }
        // Silence around a click gives an infinite ratio; report it against a tiny floor.
        let strength = 20 * log10(magnitude / max(localRMS, 1e-12))
        if let lastDetection, index - lastDetection < mergeDistance, let last = events.last {
            if strength > last.strengthDB {
                events[events.count - 1] = GlitchEvent(sampleIndex: index, strengthDB: strength)
            }
        } else {
            events.append(GlitchEvent(sampleIndex: index, strengthDB: strength))
        }
        lastDetection = index
    }
}
