/// One scheduled action and its place in the order: `(deadline, phase, sequence)`.
struct ScheduledEvent {
    let deadline: VirtualInstant
    let phase: SchedulerPhase
    let sequence: UInt64
    let action: () -> Void

    func precedes(_ other: ScheduledEvent) -> Bool {
        if deadline != other.deadline { return deadline < other.deadline }
        if phase != other.phase { return phase < other.phase }
        return sequence < other.sequence
    }
}

/// A binary min-heap of events on `(deadline, phase, sequence)` with a position index (sequence →
/// slot), so that an event can be taken out by its sequence at once, in O(log n), not left behind
/// as a tombstone to be skipped when it reaches the top. The sequence makes every key unique, so
/// the order is total: what `pop()` returns depends only on the keys held, never on the layout.
///
/// The removal is the one of SwiftNIO's `_NIODataStructures` heap (fill the hole with the last
/// element, then move that up or down); NIO finds the element by a linear search, here the index
/// finds it. Sequences must be unique among the events held (the scheduler hands out each once).
struct EventHeap {
    private var items: [ScheduledEvent] = []
    /// Where each held event sits in `items`; kept equal to it by every move.
    private var slots: [UInt64: Int] = [:]

    var count: Int { items.count }
    var isEmpty: Bool { items.isEmpty }
    func peek() -> ScheduledEvent? { items.first }
    func contains(sequence: UInt64) -> Bool { slots[sequence] != nil }

    mutating func push(_ event: ScheduledEvent) {
        precondition(slots[event.sequence] == nil, "sequence \(event.sequence) is already in the heap")
        items.append(event)
        slots[event.sequence] = items.count - 1
        siftUp(from: items.count - 1)
    }

    /// Removes and returns the first event in the order.
    mutating func pop() -> ScheduledEvent? {
        items.isEmpty ? nil : remove(at: 0)
    }

    /// Removes the event with this sequence and returns it; nil (and nothing changes) if no held
    /// event has it — it already ran, was removed, or never was.
    @discardableResult
    mutating func remove(sequence: UInt64) -> ScheduledEvent? {
        guard let slot = slots[sequence] else { return nil }
        return remove(at: slot)
    }

    mutating func removeAll() {
        items.removeAll()
        slots.removeAll()
    }

    /// Takes out `items[slot]`: the last element fills the hole and moves up if it precedes the
    /// hole's parent, else down (it cannot need both).
    private mutating func remove(at slot: Int) -> ScheduledEvent {
        let removed = items[slot]
        slots[removed.sequence] = nil
        let last = items.removeLast()
        if slot < items.count {
            items[slot] = last
            slots[last.sequence] = slot
            if slot > 0, last.precedes(items[(slot - 1) / 2]) {
                siftUp(from: slot)
            } else {
                siftDown(from: slot)
            }
        }
        return removed
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].precedes(items[parent]) else { break }
            swapSlots(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < items.count, items[left].precedes(items[first]) { first = left }
            if right < items.count, items[right].precedes(items[first]) { first = right }
            if first == parent { return }
            swapSlots(parent, first)
            parent = first
        }
    }

    private mutating func swapSlots(_ i: Int, _ j: Int) {
        items.swapAt(i, j)
        slots[items[i].sequence] = i
        slots[items[j].sequence] = j
    }

    /// Whether every parent precedes its children and the index matches the array (for tests).
    var satisfiesInvariants: Bool {
        guard slots.count == items.count else { return false }
        for (slot, event) in items.enumerated() {
            if slots[event.sequence] != slot { return false }
            if slot > 0, event.precedes(items[(slot - 1) / 2]) { return false }
        }
        return true
    }

    /// The keys held, in no particular order (for tests).
    var sequences: [UInt64] { items.map(\.sequence) }
}
