import XCTest
@testable import VirtualTime

/// `EventHeap` as a unit (the way SwiftNIO tests its `PriorityQueue`): order, removal by sequence
/// from every position, and random operations checked against a sorted reference.
final class EventHeapTests: XCTestCase {
    private struct Key: Comparable, CustomStringConvertible {
        let deadline: Int64
        let phase: SchedulerPhase
        let sequence: UInt64
        static func < (a: Key, b: Key) -> Bool {
            (a.deadline, a.phase.rawValue, a.sequence) < (b.deadline, b.phase.rawValue, b.sequence)
        }
        var description: String { "(\(deadline), \(phase), \(sequence))" }
    }

    private func event(_ key: Key) -> ScheduledEvent {
        ScheduledEvent(deadline: VirtualInstant(nanoseconds: key.deadline), phase: key.phase, sequence: key.sequence, action: {})
    }

    private func key(_ event: ScheduledEvent) -> Key {
        Key(deadline: event.deadline.nanoseconds, phase: event.phase, sequence: event.sequence)
    }

    private func drain(_ heap: inout EventHeap) -> [UInt64] {
        var order: [UInt64] = []
        while let next = heap.pop() {
            order.append(next.sequence)
            XCTAssertTrue(heap.satisfiesInvariants)
        }
        return order
    }

    func testPopsByDeadlineThenPhaseThenSequence() {
        var heap = EventHeap()
        let keys = [
            Key(deadline: 20, phase: .process, sequence: 0),
            Key(deadline: 10, phase: .observe, sequence: 1),
            Key(deadline: 10, phase: .transition, sequence: 2),
            Key(deadline: 10, phase: .observe, sequence: 3),
            Key(deadline: 5, phase: .observe, sequence: 4),
            Key(deadline: 10, phase: .render, sequence: 5),
        ]
        for key in keys { heap.push(event(key)) }
        XCTAssertTrue(heap.satisfiesInvariants)
        XCTAssertEqual(heap.count, 6)
        XCTAssertEqual(heap.peek()?.sequence, 4)
        XCTAssertEqual(drain(&heap), [4, 2, 5, 1, 3, 0])
        XCTAssertTrue(heap.isEmpty)
        XCTAssertNil(heap.pop())
        XCTAssertNil(heap.peek())
    }

    /// Removing the head, a middle event and the last slot each leave a valid heap that pops the
    /// rest in order; removing again (or an unknown sequence) changes nothing.
    func testRemovalOfHeadMiddleAndLast() {
        func filled() -> EventHeap {
            var heap = EventHeap()
            for sequence in UInt64(0)..<15 { heap.push(event(Key(deadline: Int64(sequence % 5), phase: .process, sequence: sequence))) }
            return heap
        }
        let all = (UInt64(0)..<15).sorted { ($0 % 5, $0) < ($1 % 5, $1) }

        var heap = filled()
        let head = heap.peek()!.sequence
        XCTAssertEqual(heap.remove(sequence: head)?.sequence, head)
        XCTAssertTrue(heap.satisfiesInvariants)
        XCTAssertEqual(heap.count, 14)
        XCTAssertFalse(heap.contains(sequence: head))
        XCTAssertNil(heap.remove(sequence: head))
        XCTAssertEqual(heap.count, 14)
        XCTAssertEqual(drain(&heap), all.filter { $0 != head })

        heap = filled()
        let lastSlot = heap.sequences.last!
        XCTAssertEqual(heap.remove(sequence: lastSlot)?.sequence, lastSlot)
        XCTAssertTrue(heap.satisfiesInvariants)
        XCTAssertEqual(drain(&heap), all.filter { $0 != lastSlot })

        for middle in filled().sequences.dropFirst().dropLast() {
            var heap = filled()
            XCTAssertEqual(heap.remove(sequence: middle)?.sequence, middle)
            XCTAssertTrue(heap.satisfiesInvariants, "after removing \(middle)")
            XCTAssertEqual(heap.count, 14)
            XCTAssertEqual(drain(&heap), all.filter { $0 != middle }, "after removing \(middle)")
        }

        heap = filled()
        XCTAssertNil(heap.remove(sequence: 99))
        XCTAssertEqual(heap.count, 15)
        XCTAssertTrue(heap.satisfiesInvariants)
    }

    /// A removal whose filler must move up, not down: the last element (from the right subtree)
    /// precedes the parent of the hole it fills (in the left subtree).
    func testRemovalWhoseFillerMovesUp() {
        var heap = EventHeap()
        // Pushed in this order the slots are [0, 50, 1, 51, 52, 2, 3] (deadlines; sequences 0...6).
        for (sequence, deadline) in [0, 50, 1, 51, 52, 2, 3].enumerated() {
            heap.push(event(Key(deadline: Int64(deadline), phase: .process, sequence: UInt64(sequence))))
        }
        XCTAssertEqual(heap.sequences, [0, 1, 2, 3, 4, 5, 6])
        // Deadline 51 (slot 3) goes; deadline 3 fills slot 3 under 50 and must rise above it.
        XCTAssertEqual(heap.remove(sequence: 3)?.sequence, 3)
        XCTAssertTrue(heap.satisfiesInvariants)
        XCTAssertEqual(heap.sequences, [0, 6, 2, 1, 4, 5])
        XCTAssertEqual(drain(&heap), [0, 2, 5, 6, 1, 4])
    }

    func testCountAfterRemovalAndRemoveAll() {
        var heap = EventHeap()
        for sequence in UInt64(0)..<10 { heap.push(event(Key(deadline: 7, phase: .capture, sequence: sequence))) }
        for sequence in stride(from: UInt64(0), to: 10, by: 2) { heap.remove(sequence: sequence) }
        XCTAssertEqual(heap.count, 5)
        XCTAssertEqual(heap.sequences.sorted(), [1, 3, 5, 7, 9])
        heap.removeAll()
        XCTAssertEqual(heap.count, 0)
        XCTAssertFalse(heap.contains(sequence: 1))
        heap.push(event(Key(deadline: 1, phase: .process, sequence: 1)))   // a sequence may come back after removal
        XCTAssertEqual(heap.pop()?.sequence, 1)
    }

    /// Thousands of pushes, pops and removals (random, seeded) against a sorted array.
    func testRandomOperationsMatchASortedReference() {
        var random = SplitMix(seed: 0x5EED)   // the timers' own seeded generator
        for round in 0..<8 {
            var heap = EventHeap()
            var reference: [Key] = []
            var nextSequence: UInt64 = 0
            for step in 0..<2_000 {
                let choice = random.next() % 10
                if choice < 5 || reference.isEmpty {
                    let key = Key(deadline: Int64(random.next() % 16), phase: SchedulerPhase(rawValue: Int(random.next() % 5))!,
                                  sequence: nextSequence)
                    nextSequence += 1
                    heap.push(event(key))
                    reference.append(key)
                    reference.sort()
                } else if choice < 7 {
                    XCTAssertEqual(heap.pop().map(key), reference.removeFirst(), "round \(round) step \(step)")
                } else if choice < 9 {
                    let victim = reference.remove(at: Int(random.next() % UInt64(reference.count)))
                    XCTAssertEqual(heap.remove(sequence: victim.sequence).map(key), victim, "round \(round) step \(step)")
                } else {
                    // A sequence no longer (or never) held.
                    XCTAssertNil(heap.remove(sequence: nextSequence + random.next() % 4))
                }
                XCTAssertEqual(heap.count, reference.count)
                XCTAssertEqual(heap.peek().map(key), reference.first)
                if step % 97 == 0 { XCTAssertTrue(heap.satisfiesInvariants, "round \(round) step \(step)") }
            }
            XCTAssertTrue(heap.satisfiesInvariants)
            var rest: [Key] = []
            while let next = heap.pop() { rest.append(key(next)) }
            XCTAssertEqual(rest, reference)
        }
    }
}
