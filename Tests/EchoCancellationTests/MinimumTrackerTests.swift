@testable import EchoCancellation
import XCTest

/// The sliding minimum the suppressor's noise floor and echo-path gain rest on: the least value
/// of the slot filling and the `slots` finished before it, per element, and nothing older.
final class MinimumTrackerTests: XCTestCase {
    func testTheMinimumIsTheLeastValueOfTheWindow() {
        var tracker = MinimumTracker(count: 2, slots: 3, slotLength: 4)
        XCTAssertFalse(tracker.isKnown(0))
        let first: [Float] = [5, 9, 2, 7, 8, 6]
        for (i, value) in first.enumerated() { tracker.update([value, Float(10 + i)]) }
        XCTAssertEqual(tracker.minimum, [2, 10])
        XCTAssertTrue(tracker.isKnown(1))
    }

    /// A value leaves the window once the slot that held it has been replaced: with 3 finished
    /// slots of 4 updates and the one filling, after more than 12 updates and at most 16.
    func testAnOldMinimumSlidesOut() {
        var tracker = MinimumTracker(count: 1, slots: 3, slotLength: 4)
        tracker.update([1])
        var updates = 1
        while tracker.minimum[0] == 1 {
            tracker.update([50])
            updates += 1
            XCTAssertLessThanOrEqual(updates, 16, "the old minimum stayed")
        }
        XCTAssertGreaterThanOrEqual(updates, 13, "it left early")
        XCTAssertEqual(tracker.minimum[0], 50)
    }

    /// An element left out of an update keeps its minimum, but the window slides for it too:
    /// offered nothing for a whole window, it is unknown again.
    func testTheWindowSlidesForExcludedElementsToo() {
        var tracker = MinimumTracker(count: 2, slots: 2, slotLength: 2)
        tracker.update([3, 3])
        tracker.update([1, 1], where: [true, false])
        XCTAssertEqual(tracker.minimum, [1, 3])
        // Nothing offered for a whole window: the element is unknown again.
        for _ in 0..<6 { tracker.update([0, 0], where: [false, false]) }
        XCTAssertFalse(tracker.isKnown(0))
        XCTAssertFalse(tracker.isKnown(1))
    }
}
