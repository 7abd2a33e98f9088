import Evaluation
import XCTest

/// The front of `BestModes` on hand-made points whose answer is known.
final class BestModesTests: XCTestCase {
    private func point(_ mode: String, _ erle: Double?, _ nearEnd: Double?) -> BestModes.Point {
        .init(mode: mode, erleSteadyDB: erle, nearEndAttenuationDB: nearEnd)
    }

    func testATradeOffKeepsBothEndsAndDropsWhatIsBeatenOnBoth() throws {
        let front = try XCTUnwrap(BestModes.front(of: [
            point("gentle", 10, 1), point("strong", 25, 11), point("beaten", 9, 2), point("middle", 18, 4),
            point("beaten-by-middle", 17, 5),
        ]))
        XCTAssertEqual(front.modes, ["gentle", "strong", "middle"])
        XCTAssertEqual(front.axes, .both)
    }

    func testEqualPointsShareTheFrontAndBetterOnOneAxisOnlyIsEnough() throws {
        // Same ERLE, less attenuation: `b` beats `a`; `c` equals `b`.
        let front = try XCTUnwrap(BestModes.front(of: [point("a", 20, 3), point("b", 20, 2), point("c", 20, 2)]))
        XCTAssertEqual(front.modes, ["b", "c"])
    }

    func testDisabledIsTheReferenceNeverOnTheFront() throws {
        // disabled keeps the near end whole (0 dB) but removes no echo.
        let front = try XCTUnwrap(BestModes.front(of: [point("disabled", 0, 0), point("x", 20, 3), point("y", 15, 3)]))
        XCTAssertEqual(front.modes, ["x"])
    }

    func testAnAxisNoModeHasIsNotJudgedAndAModeLackingACountedAxisIsOff() throws {
        let erleOnly = try XCTUnwrap(BestModes.front(of: [point("x", 20, nil), point("y", 25, nil), point("z", 25, nil)]))
        XCTAssertEqual(erleOnly.modes, ["y", "z"])
        XCTAssertEqual(erleOnly.axes, .erleOnly)
        let nearEndOnly = try XCTUnwrap(BestModes.front(of: [point("x", nil, 4), point("y", nil, 1)]))
        XCTAssertEqual(nearEndOnly.modes, ["y"])
        XCTAssertEqual(nearEndOnly.axes, .nearEndOnly)
        // `lost` has no near-end value where the others have one: it cannot be on the front.
        let lacking = try XCTUnwrap(BestModes.front(of: [point("lost", 40, nil), point("x", 20, 3), point("y", 15, 2)]))
        XCTAssertEqual(lacking.modes, ["x", "y"])
    }

    func testFewerThanTwoModesToCompareIsNoVerdict() {
        XCTAssertNil(BestModes.front(of: [point("x", 20, 3)]))
        XCTAssertNil(BestModes.front(of: [point("disabled", 0, 0), point("x", 20, 3)]))
        XCTAssertNil(BestModes.front(of: [point("x", nil, nil), point("y", nil, nil)]))
        XCTAssertNil(BestModes.front(of: [point("x", 20, 3), point("y", 30, nil)]), "only one mode has both values")
    }
}

/// The corpus's verdict: means over the items every mode has its values on, a lost near end the
/// worst case.
final class CorpusBestModesTests: XCTestCase {
    private func point(_ mode: String, _ erle: Double?, _ nearEnd: Double?, lost: Bool = false) -> BestModes.Point {
        .init(mode: mode, erleSteadyDB: erle, nearEndAttenuationDB: nearEnd, nearEndLost: lost)
    }

    func testModesAreComparedOnTheItemsTheyAllHaveValuesOn() throws {
        // `b` failed on the hard item: its mean over its one easy item would flatter it.
        let items = [[point("a", 30, 2), point("b", 31, 2)], [point("a", 10, 6)]]
        let verdict = try XCTUnwrap(BestModes.front(ofItems: items))
        XCTAssertEqual(verdict.modes, ["b"])
        XCTAssertEqual(verdict.comparedItems, 1)
        XCTAssertEqual(verdict.items, 2)
        let means = try XCTUnwrap(BestModes.comparedMeans([[point("a", 30, 2), point("b", 20, 1)], [point("a", 10, 4), point("b", 12, 3)]]))
        XCTAssertEqual(means.points.map(\.erleSteadyDB), [20, 16])
        XCTAssertEqual(means.points.map(\.nearEndAttenuationDB), [3, 2])
        XCTAssertNil(BestModes.front(ofItems: [[point("a", 30, 2)], [point("b", 31, 2)]]), "no item both ran on")
    }

    func testANearEndLostIsTheWorstCaseNotAMissingValue() throws {
        // `max` removed the near end in the second item: it is off the front, though its mean
        // attenuation over the items where it kept some would look fine.
        let items = [[point("min", 20, 2), point("max", 30, 4)], [point("min", 18, 3), point("max", 35, nil, lost: true)]]
        let verdict = try XCTUnwrap(BestModes.front(ofItems: items))
        XCTAssertEqual(verdict.modes, ["min"])
        XCTAssertEqual(verdict.comparedItems, 2)
        // On one item: every canceller but one lost the near end, so that one is best; when all
        // lost it there is no verdict, not an ERLE-only one.
        XCTAssertEqual(BestModes.front(of: [point("keeps", 10, 5), point("wipes", 40, nil, lost: true)])?.modes, ["keeps"])
        XCTAssertEqual(BestModes.front(of: [point("keeps", 10, 5), point("wipes", 40, nil, lost: true)])?.axes, .both)
        XCTAssertNil(BestModes.front(of: [point("x", 40, nil, lost: true), point("y", 30, nil, lost: true)]))
    }
}
