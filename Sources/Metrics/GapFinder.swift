import Foundation

/// The gap half of `GlitchDetector`, one sample at a time (definition there): a silent run is
/// a candidate once it is `minimumLength` long and the `context` samples before it were active
/// (those are still in a ring of the last context + minimumLength samples); when it ends, the
/// `context` samples after it are summed as they arrive, or until `finish`. Sums are taken in
/// sample order, as a whole-signal pass takes them.
struct GapFinder {
    private let minimumLength: Int
    private let context: Int
    private let activeMeanSquare: Double
    private let silence: Float
    private let mask: Int
    private var recent: [Float]
    private(set) var count = 0
    /// Start of the silent run in progress, and whether it already qualified (long enough,
    /// after active audio).
    private var runStart: Int?
    private var runQualified = false
    /// Ended runs waiting for their right-hand context, oldest first.
    private var pending: [(run: Range<Int>, sum: Double)] = []
    private(set) var gaps: [Range<Int>] = []

    init(detector: GlitchDetector) {
        minimumLength = detector.minimumGapSamples
        context = detector.contextSamples
        activeMeanSquare = pow(10, detector.floorDBFS / 10)
        silence = detector.silenceAmplitude
        var size = 16
        while size < context + minimumLength + 1 { size *= 2 }
        mask = size - 1
        recent = [Float](repeating: 0, count: size)
        pending.reserveCapacity(4)
    }

    /// Most samples are audio with no run in progress and no gap waiting: those only go into the
    /// ring. The ring is taken out of `self` and handed to `scan` as an `inout` array, so that
    /// loop keeps its values in registers and the rare samples that need more can still mutate
    /// `self`.
    mutating func append(_ signal: [Float], from: Int, count blockCount: Int) {
        guard blockCount > 0 else { return }
        var ring: [Float] = []
        swap(&ring, &recent)
        scan(signal, from: from, count: blockCount, recent: &ring)
        swap(&ring, &recent)
    }

    private mutating func scan(_ signal: [Float], from: Int, count blockCount: Int, recent: inout [Float]) {
        let mask = self.mask, silence = self.silence
        // Pieces no longer than the ring, so a piece is copied in at most two parts.
        let pieceLength = min(256, mask + 1)
        var n = count
        var busy = runStart != nil || !pending.isEmpty
        var index = from
        let blockEnd = from + blockCount
        while index < blockEnd {
            let stop = min(blockEnd, index + pieceLength)
            if !busy {
                // Nothing in progress: a piece without a silent sample only goes into the ring
                // (a vectorised screen and a copy instead of a test per sample).
                if !Self.hasSilence(signal.span.extracting(index..<stop), below: silence) {
                    let length = stop - index, first = n & mask
                    let head = min(length, mask + 1 - first)
                    // Range assignments from a slice are memcpys.
                    recent[first..<(first + head)] = signal[index..<(index + head)]
                    if head < length { recent[0..<(length - head)] = signal[(index + head)..<stop] }
                    n += length
                    index = stop
                    continue
                }
            }
            // One uniqueness check for the piece instead of one per store.
            var ring = recent.mutableSpan
            for at in index..<stop {
                let x = signal[at]
                if busy || abs(x) < silence {
                    busy = step(x, at: n, recent: ring.span)
                }
                ring[n & mask] = x
                n += 1
            }
            index = stop
        }
        count = n
    }

    /// Whether any sample of `piece` is below `silence` in magnitude; counted without a branch,
    /// so the loop vectorises.
    static func hasSilence(_ piece: Span<Float>, below silence: Float) -> Bool {
        var silent = 0
        for at in 0..<piece.count { silent &+= abs(piece[at]) < silence ? 1 : 0 }
        return silent > 0
    }

    /// Follows runs and waiting gaps through sample `n`; returns whether anything is in progress.
    private mutating func step(_ x: Float, at n: Int, recent: Span<Float>) -> Bool {
        if abs(x) < silence {
            if runStart == nil { runStart = n; runQualified = false }
            // Long enough now: judge the audio before it while the ring still holds it.
            if let start = runStart, n - start + 1 == minimumLength, start > 0 {
                let first = max(0, start - context)
                var sum = 0.0
                for index in first..<start { sum += Double(recent[index & mask]) * Double(recent[index & mask]) }
                runQualified = isActive(sum, count: start - first)
            }
        } else if let start = runStart {
            if runQualified { pending.append((start..<n, 0)) }
            runStart = nil
        }
        if !pending.isEmpty { addToPending(x, at: n) }
        return runStart != nil || !pending.isEmpty
    }

    /// Judges the runs still waiting, with the context cut at the end of the signal; a run that
    /// reaches the end is not a gap.
    mutating func finish() {
        for candidate in pending where isActive(candidate.sum, count: count - candidate.run.upperBound) {
            gaps.append(candidate.run)
        }
        pending.removeAll()
    }

    private mutating func addToPending(_ x: Float, at n: Int) {
        for index in pending.indices { pending[index].sum += Double(x) * Double(x) }
        // Runs are queued in order of their end, so complete contexts are at the front.
        while let first = pending.first, n + 1 - first.run.upperBound == context {
            if isActive(first.sum, count: context) { gaps.append(first.run) }
            pending.removeFirst()
        }
    }

    private func isActive(_ sum: Double, count: Int) -> Bool {
        count > 0 && sum / Double(count) >= activeMeanSquare
    }
}
