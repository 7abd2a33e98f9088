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
        differences = [Double](repeating: 0, count: capacity)
    }

    mutating func append(_ signal: [Float], from: Int, count blockCount: Int) {
        var done = 0
        while done < blockCount {
            // Room for the next piece: forget what no decision will read again.
            if count + 1 - base >= capacity {
                let keep = max(base, nextDecision - halfContext - 2)
                Self.shift(&prefix, by: keep - base)
                Self.shift(&differences, by: keep - base)
                base = keep
            }
            let piece = min(blockCount - done, capacity - (count + 1 - base))
            // The windows are taken out of `self` and handed over as `inout` arrays (no per-element
            // exclusivity or uniqueness check), so the loops keep their values in registers and
            // may still record events into `self`.
            var prefixWindow: [Double] = [], differenceWindow: [Double] = []
            swap(&prefixWindow, &prefix)
            swap(&differenceWindow, &differences)
            let start = from + done
            if count >= 2 * halfContext + 2 && nextDecision == count - halfContext {
                accumulateAndScreen(signal, from: start, count: piece, prefix: &prefixWindow, differences: &differenceWindow)
            } else {
                accumulate(signal, from: start, count: piece, prefix: &prefixWindow, differences: &differenceWindow)
            }
            decide(upTo: count - halfContext, total: count, prefix: prefixWindow, differences: differenceWindow)
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
        decide(upTo: count, total: count, prefix: prefixWindow, differences: differenceWindow)
        swap(&prefixWindow, &prefix)
        swap(&differenceWindow, &differences)
    }

    /// Moves the window's values from `drop` on to the front, in place; the length stays
    /// `capacity`, and the stale values left at the back are overwritten before they are read.
    /// A forward copy, each value read before it is overwritten, over a span the optimiser turns
    /// into a memmove: it runs every tick, where a generic element-by-element shift shows.
    private static func shift(_ window: inout [Double], by drop: Int) {
        guard drop > 0 else { return }
        var values = window.mutableSpan
        let kept = values.count - drop
        var index = 0
        while index < kept {
            values[unchecked: index] = values[unchecked: index &+ drop]
            index &+= 1
        }
    }

    /// Pass 1: d and the running sum of d² for `source[from..<from+pieceCount]`.
    private mutating func accumulate(_ source: [Float], from: Int, count pieceCount: Int,
                                     prefix: inout [Double], differences: inout [Double]) {
        var running = self.running, previous = self.previous, beforePrevious = self.beforePrevious
        var n = count, index = 0
        // Samples 0 and 1 have no second difference.
        while index < pieceCount && n < 2 {
            prefix[n + 1 - base] = 0
            beforePrevious = previous
            previous = Double(source[from + index])
            n += 1
            index += 1
        }
        let offset = n - base
        let remaining = pieceCount - index
        // Spans: their length sits in a register, where an array's is reloaded after each store.
        let input = source.span.extracting((from + index)..<(from + pieceCount))
        var sums = prefix.mutableSpan, values = differences.mutableSpan
        var step = 0
        while step < remaining {
            let x = Double(input[step])
            let d = x - 2 * previous + beforePrevious
            running += d * d
            values[offset &+ step] = d
            sums[offset &+ step &+ 1] = running
            beforePrevious = previous
            previous = x
            step &+= 1
        }
        self.running = running
        self.previous = previous
        self.beforePrevious = beforePrevious
        count = n + remaining
    }

    /// Pass 1 followed by the screen of pass 2 over the indices whose context the piece
    /// completed, once the stream is past its first context. When nothing in the piece passes the
    /// screen, the piece is decided at once.
    private mutating func accumulateAndScreen(_ source: [Float], from: Int, count pieceCount: Int,
                                              prefix: inout [Double], differences: inout [Double]) {
        let first = count - halfContext
        accumulate(source, from: from, count: pieceCount, prefix: &prefix, differences: &differences)
        let candidates = screen(first..<(first + pieceCount), prefix: prefix.span, differences: differences.span)
        // Non-finite values void the screen; then everything goes through the exact test.
        if candidates == 0 && running.isFinite { nextDecision = count - halfContext }
    }

    /// How many interior indices in `indices` pass a square-root-free screen that can only say
    /// "no click here": d² < factor² · energy / samples (with a margin far above rounding) means
    /// the exact test |d| > factor · √(energy / samples) fails. min(d² − floor², d² −
    /// scale·energy) < 0 means "not a click" (the signs of these differences are exact). Needs
    /// finite values. Each term is read from a span of exactly the chunk's length, so the optimiser
    /// can drop the bounds checks and vectorise the branch-free count.
    private func screen(_ indices: Range<Int>, prefix: Span<Double>, differences: Span<Double>) -> Int {
        let halfContext = self.halfContext, floorSquared = self.floorSquared
        let rejectScale = factor > 0 ? factor * factor * 0.999_999 / Double(interiorSamples) : 0
        let first = indices.lowerBound - base, length = indices.count
        let values = differences.extracting(first..<(first + length))
        let high = prefix.extracting((first + halfContext + 1)..<(first + halfContext + 1 + length))
        let low = prefix.extracting((first - halfContext)..<(first - halfContext + length))
        let guardHigh = prefix.extracting((first + 3)..<(first + 3 + length))
        let guardLow = prefix.extracting((first - 2)..<(first - 2 + length))
        // A `while` with a wrapping step: a `for … in 0..<length` keeps its overflow-checked
        // increment and bounds checks in the loop, and then it does not vectorise.
        var candidates = 0, step = 0
        while step < length {
            let d = values[step]
            let dSquared = d * d
            let energy = (high[step] - low[step]) - (guardHigh[step] - guardLow[step])
            candidates &+= Swift.min(dSquared - floorSquared, dSquared - rejectScale * energy) >= 0 ? 1 : 0
            step &+= 1
        }
        return candidates
    }

    /// Pass 2: decides the indices from `nextDecision` up to (not including) `end`, with the
    /// first `total` samples known (`total` cuts the context at the end of the signal).
    private mutating func decide(upTo end: Int, total: Int, prefix: [Double], differences: [Double]) {
        let halfContext = self.halfContext
        // The screen needs finite values; the running sum of d² is finite exactly when every d
        // and every prefix so far is.
        let screenable = running.isFinite
        var index = nextDecision
        while index < end {
            // Interior indices: the whole context lies inside the signal.
            if index - halfContext >= 2 && index + halfContext + 1 <= total && screenable {
                let stop = min(end, index + 64, total - halfContext)
                // Only chunks where some index passes the screen go through the exact test.
                let candidates = screen(index..<stop, prefix: prefix.span, differences: differences.span)
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
    private mutating func decideOne(_ index: Int, total: Int, prefix: [Double], differences: [Double]) {
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
