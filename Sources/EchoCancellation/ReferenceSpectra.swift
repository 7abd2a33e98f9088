/// The spectra of the last `capacity` reference blocks, newest last: block t's spectrum is the
/// transform of the 2N reference samples ending with render frame t, so that partition p of a
/// filter reads the block `offset + p` frames old. Keeping spectra rather than samples makes a
/// bulk-delay change a change of index: the filter's partitions move with it, nothing re-adapts.
struct ReferenceSpectra {
    let bins: Int
    let capacity: Int
    private(set) var re: [Float]
    private(set) var im: [Float]
    /// |X|² of each stored block, kept beside it: every filter and step control reads it.
    private(set) var power: [Float]
    /// Slot of the newest block.
    private var newest = 0

    init(bins: Int, capacity: Int) {
        self.bins = bins
        self.capacity = capacity
        // Each its own buffer: arrays sharing one would copy at their first write, mid-call.
        re = [Float](repeating: 0, count: bins * capacity)
        im = [Float](repeating: 0, count: bins * capacity)
        power = [Float](repeating: 0, count: bins * capacity)
    }

    /// Where the block `age` frames old starts in `re`, `im` and `power`.
    func base(age: Int) -> Int {
        precondition(age >= 0 && age < capacity, "reference block out of range")
        var slot = newest - age
        if slot < 0 { slot += capacity }
        return slot * bins
    }

    /// Stores the newest block's spectrum.
    mutating func push(re newRe: [Float], im newIm: [Float]) {
        newest += 1
        if newest == capacity { newest = 0 }
        let start = newest * bins
        for k in 0..<bins {
            let r = newRe[k], i = newIm[k]
            re[start + k] = r
            im[start + k] = i
            power[start + k] = r * r + i * i
        }
    }
}
