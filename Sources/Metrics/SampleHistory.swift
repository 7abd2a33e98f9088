/// The recent past of one signal, addressed by absolute sample index: `samples[i]` is sample
/// `origin + i`. Samples are contiguous (not a wrapped ring) so a frame can be handed to the FFT
/// or summed as one range; the price is an occasional move of the few retained samples to the
/// front, amortised over `limit − retained` appended samples.
struct SampleHistory {
    private(set) var samples: [Float] = []
    /// Absolute index of `samples[0]`.
    private(set) var origin = 0
    /// Most samples held at once; appends are cut to fit (see `room(keepingFrom:)`).
    private(set) var limit: Int

    init(limit: Int) {
        self.limit = limit
        // Reserved, not filled: pages are only touched as samples arrive.
        samples.reserveCapacity(limit)
    }

    /// Absolute index one past the newest sample.
    var end: Int { origin + samples.count }
    /// Allocated samples; what the memory test watches.
    var capacity: Int { samples.capacity }

    /// Local index of absolute sample `index`.
    @inline(__always) func local(_ index: Int) -> Int { index - origin }

    /// Appends `source[from..<from+count]`; the caller made room first.
    mutating func append(_ source: [Float], from: Int, count: Int) {
        precondition(samples.count + count <= limit, "SampleHistory overflow")
        samples.append(contentsOf: source[from..<(from + count)])
    }

    /// How many samples fit after forgetting everything before absolute `keep`, forgetting it
    /// only when less than `minimum` is free (so most calls move nothing).
    mutating func room(keepingFrom keep: Int, minimum: Int) -> Int {
        if limit - samples.count < minimum { forget(before: keep) }
        return limit - samples.count
    }

    /// Drops the samples before absolute `keep` by moving the rest to the front; capacity stays.
    mutating func forget(before keep: Int) {
        let drop = min(max(0, keep - origin), samples.count)
        guard drop > 0 else { return }
        // In place (one memmove) while `samples` is uniquely held, as it is between calls.
        samples.removeFirst(drop)
        origin += drop
    }

    /// Forgets before `keep` and moves the rest into a fresh allocation of `limit` samples: the
    /// warm-up needed seconds of audio, the steady state needs a frame or two.
    mutating func shrink(keepingFrom keep: Int, limit newLimit: Int) {
        forget(before: keep)
        precondition(samples.count <= newLimit, "SampleHistory shrink below retained samples")
        var fresh: [Float] = []
        fresh.reserveCapacity(newLimit)
        fresh.append(contentsOf: samples)
        samples = fresh
        limit = newLimit
    }
}
