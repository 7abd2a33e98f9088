/// Minimum statistics over a sliding window, per element: the least value each element took in
/// the slot of `slotLength` updates now filling and the `slots` finished before it (a window of
/// `slots` × `slotLength` to (`slots` + 1) × `slotLength` updates), kept as one minimum per slot
/// so the window slides without storing every frame (Martin's noise-power estimator does the same). The
/// least of a fluctuating quantity is its floor: the noise under speech, or the echo-path gain
/// under a near talker who adds power but never removes it.
struct MinimumTracker {
    let count: Int
    private let slots: Int
    private let slotLength: Int
    private var slot = 0, updates = 0
    /// The running minimum of the current slot, and the minima of the finished ones.
    private var running: [Float]
    private var finished: [Float]
    /// Per element: the least value over the window (`.greatestFiniteMagnitude` before any).
    private(set) var minimum: [Float]

    init(count: Int, slots: Int, slotLength: Int) {
        self.count = count
        self.slots = slots
        self.slotLength = slotLength
        running = [Float](repeating: .greatestFiniteMagnitude, count: count)
        finished = [Float](repeating: .greatestFiniteMagnitude, count: slots * count)
        minimum = [Float](repeating: .greatestFiniteMagnitude, count: count)
    }

    /// Whether element `index` has seen a value in the window.
    func isKnown(_ index: Int) -> Bool { minimum[index] < .greatestFiniteMagnitude }

    /// Offers this frame's values (`values[i]` for element `i`; elements with `include[i]`
    /// false, when given, are not offered), then advances the window one frame.
    mutating func update(_ values: [Float], where include: [Bool]? = nil) {
        for i in 0..<count where include?[i] ?? true {
            running[i] = min(running[i], values[i])
        }
        advance()
    }

    private mutating func advance() {
        updates += 1
        if updates == slotLength {
            updates = 0
            slot = (slot + 1) % slots
            for i in 0..<count {
                finished[slot * count + i] = running[i]
                running[i] = .greatestFiniteMagnitude
            }
        }
        for i in 0..<count {
            var least = running[i]
            for s in 0..<slots { least = min(least, finished[s * count + i]) }
            minimum[i] = least
        }
    }
}
