import EchoLabJSON
@testable import Evaluation
import Metrics
import XCTest

/// The front of `BestModes` on hand-made points whose answer is known.
final class BestModesTests: XCTestCase {
    private func point(_ mode: String, _ erle: Double?, _ nearEnd: Double?) -> BestModes.Point {
        .init(mode: mode, erleSteadyDB: erle, nearEndAttenuationDB: nearEnd)
    }

    /// Values are compared as the pages print them (one decimal): Min (11.2 dB, 0.0569 dB of the
    /// talker) was on an item's front beside Recommended (12.1 dB, 0.0580 dB) over 0.001 dB.
    func testValuesAreComparedAsPrinted() throws {
        XCTAssertEqual(BestModes.front(of: [point("min", 11.2, 0.0569), point("recommended", 12.1, 0.0580)])?.modes, ["recommended"])
        XCTAssertEqual(BestModes.front(of: [point("a", 20.0, 1.0), point("b", 20.04, 1.0)])?.modes, ["a", "b"], "both print 20.0: a tie")
        XCTAssertEqual(BestModes.front(of: [point("a", 20.0, 1.0), point("b", 20.06, 1.0)])?.modes, ["b"], "20.1 against 20.0")
        // Equal as printed is transitive: a chain of near ties keeps each trade-off.
        XCTAssertEqual(BestModes.front(of: [point("a", 10.0, 1.0), point("b", 9.9, 0.91), point("c", 9.8, 0.82)])?.modes, ["a", "b", "c"])
        // A lower bound ties with values either side of it: beating may run in a circle, and a
        // front is still never empty.
        let circle = [point("m1", 20, 5.0), BestModes.Point(mode: "bound", erleSteadyDB: 5, erleSteadyIsLowerBound: true, nearEndAttenuationDB: 4.9),
                      point("m2", 5, 4.8), point("m3", 5.1, 4.89), point("m4", 5.2, 4.98)]
        XCTAssertFalse(try XCTUnwrap(BestModes.front(of: circle)).modes.isEmpty)
        // A corpus: differences as printed, and mean differences under a tenth are none.
        let items = [[point("a", 20, 1), point("b", 20.04, 1)], [point("a", 30, 2), point("b", 30.04, 2)]]
        XCTAssertEqual(BestModes.front(ofItems: items)?.modes, ["a", "b"])
        XCTAssertEqual(BestModes.front(ofItems: items.map { $0.map { point($0.mode, $0.erleSteadyDB! + ($0.mode == "b" ? 0.1 : 0), 1) } })?.modes, ["b"])
    }

    /// The near end is ranked by how far it moved either way: a talker sent 6 dB louder than it
    /// spoke is as far from kept as one cut by 6 dB, behind one cut by 0.5 — a plugin that doubled
    /// the mic stood "best on the near end" on every item of a new user's corpus. Over a corpus too.
    func testATalkerSentLouderIsNotKeptBetter() throws {
        XCTAssertEqual(BestModes.front(of: [point("gain", 20, -6), point("kept", 20, 0.5)])?.modes, ["kept"])
        XCTAssertEqual(BestModes.front(of: [point("gain", 20, -6), point("cut", 20, 6)])?.modes, ["gain", "cut"], "as far either way: a tie")
        XCTAssertEqual(BestModes.front(of: [point("gain", 20, -0.5), point("cut", 19, 0.5)])?.modes, ["gain"], "more ERLE, as near the talker")
        let items = [[point("gain", 20, -6), point("kept", 20, 0.5)], [point("gain", 25, -5.9), point("kept", 25, 0.2)]]
        XCTAssertEqual(BestModes.front(ofItems: items)?.modes, ["kept"])
        let alone = { (mode: String, cut: Double) in
            BestModes.Point(mode: mode, erleSteadyDB: nil, nearEndAttenuationDB: nil, nearEndAloneDB: cut)
        }
        XCTAssertEqual(BestModes.front(of: [alone("gain", -6), alone("kept", 0.3)])?.modes, ["kept"], "a talker alone")
    }

    /// An item whose far end never played has neither axis: it is judged on what each mode took
    /// off the near talker talking alone, all of it the worst case; a corpus's front leaves it out.
    func testAnItemWithoutAFarEndIsJudgedOnTheNearEndAlone() throws {
        let alone = { (mode: String, cut: Double, bound: Bool) in
            BestModes.Point(mode: mode, erleSteadyDB: nil, nearEndAttenuationDB: nil, nearEndAloneDB: cut, nearEndAloneIsLowerBound: bound)
        }
        let item = [alone("disabled", 0, false), alone("speex", 2.6475, false), alone("webrtc", 0.5183, false),
                    alone("echolab", 0, false), alone("gate", 0, true)]
        let verdict = try XCTUnwrap(BestModes.front(of: item))
        XCTAssertEqual(verdict.modes, ["echolab"], "`disabled` is the reference; a talker removed entirely (≥ 0 dB) is the worst case")
        XCTAssertEqual(verdict.axes, .nearEndAlone)
        XCTAssertFalse(verdict.axes.judgesERLE)
        XCTAssertEqual(verdict.nearEndComparedItems, 1)
        XCTAssertEqual(BestModes.front(of: [alone("speex", 2.6, false), alone("aec3", 2.8, false)])?.modes, ["speex"])
        // One mode to judge beside the reference: no verdict; no figure at all: none either.
        XCTAssertNil(BestModes.front(of: [alone("disabled", 0, false), alone("speex", 2.6, false)]))
        XCTAssertNil(BestModes.front(of: ["a", "b"].map { BestModes.Point(mode: $0, erleSteadyDB: nil, nearEndAttenuationDB: nil) }))
        // Where an axis counts (double talk, echo), the lone talker is not what is judged.
        var talking = item
        talking[1].nearEndAttenuationDB = 4
        talking[2].nearEndAttenuationDB = 1
        XCTAssertEqual(BestModes.front(of: talking)?.axes, .nearEndOnly)
        XCTAssertEqual(BestModes.front(of: talking)?.modes, ["webrtc"], "echolab and gate lack the counted axis")
        // A corpus compares modes on echo and double talk only: such an item is not compared.
        XCTAssertNil(BestModes.front(ofItems: [item]))
        let corpus = try XCTUnwrap(BestModes.front(ofItems: [[point("speex", 20, 2), point("webrtc", 30, 6), point("echolab", 30, 1)],
                                                             Array(item.dropLast())]))
        XCTAssertEqual(corpus.modes, ["echolab"])
        XCTAssertEqual(corpus.comparedItems, 1)
        XCTAssertEqual(corpus.items, 2)
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

    /// A trial's plugins: a pass-through (ERLE 0.0 dB, the near end whole) and one that added echo
    /// were starred best on both axes, and a mute won an item without double talk on its ERLE
    /// bound. None of them is a canceller there: off the front, and, as `disabled`, no second
    /// mode to give a lone canceller a verdict.
    func testAModeThatRemovesNoEchoOrSendsNothingIsNoCanceller() throws {
        let both = try XCTUnwrap(BestModes.front(of: [point("through", 0, 0), point("worse", -16.7, -0.5), point("speex", 25, 0.8),
                                                      point("webrtc", 38, 16)]))
        XCTAssertEqual(both.modes, ["speex", "webrtc"])
        XCTAssertNil(BestModes.front(of: [point("through", 0, 0), point("speex", 25, 0.8)]), "a lone canceller, as beside disabled")
        // As printed: a pass-through run at 16 kHz read 0.0042 dB (its resampling), "0.0" on the
        // pages, and was starred beside speex; 0.06 prints 0.1 and counts.
        XCTAssertEqual(try XCTUnwrap(BestModes.front(of: [point("through", 0.0042, 0), point("worse", 0.049, -0.1), point("speex", 25, 0.8),
                                                          point("webrtc", 38, 16)])).modes, ["speex", "webrtc"])
        XCTAssertEqual(try XCTUnwrap(BestModes.front(of: [point("slight", 0.06, 0), point("speex", 25, 0.8)])).modes, ["slight", "speex"])
        let mute = BestModes.Point(mode: "mute", erleSteadyDB: 37.8, erleSteadyIsLowerBound: true, nearEndAttenuationDB: nil, sendsSilence: true)
        let erleOnly = try XCTUnwrap(BestModes.front(of: [mute, point("speex", 25, nil), point("webrtc", 30, nil)]))
        XCTAssertEqual(erleOnly.modes, ["webrtc"])
        XCTAssertEqual(erleOnly.axes, .erleOnly)
        XCTAssertNil(BestModes.front(of: [mute, point("speex", 25, nil)]))
        // A bound at or under 0 dB says only "at least that much": it may be a canceller (here tied
        // with speex on ERLE, and better on the near end).
        let bound = BestModes.Point(mode: "bound", erleSteadyDB: -1, erleSteadyIsLowerBound: true, nearEndAttenuationDB: 0)
        XCTAssertEqual(try XCTUnwrap(BestModes.front(of: [bound, point("speex", 25, 0.8)])).modes, ["bound"])
        // Judged on the near end alone (no echo anywhere), a pass-through keeps it best.
        XCTAssertEqual(try XCTUnwrap(BestModes.front(of: [point("through", nil, 0), point("speex", nil, 0.8)])).modes, ["through"])
        // Over a corpus: the mute that won its far-end-only item is off the front with its mean.
        let corpus = try XCTUnwrap(BestModes.front(ofItems: [[mute, point("speex", 25, nil), point("webrtc", 24, nil)],
                                                             [mute, point("speex", 27, nil), point("webrtc", 26, nil)]]))
        XCTAssertEqual(corpus.modes, ["speex"])
    }

    /// A measured steady ERLE of 6 dB or less is what the run's own report calls "nothing
    /// converged": such a mode is no canceller there. On an A2DP route (its 220 ms beyond the
    /// filters), EchoLab's 5.4 dB with the near end whole stood best on both axes beside AEC3's
    /// ≥ 27.1 dB. A bound that low says only "at least": it stays. Over a corpus, a mode is off
    /// only where nothing converged on every item compared on ERLE.
    func testAModeWhoseReportSaysNothingConvergedIsNoCanceller() throws {
        func run(_ mode: String, _ erle: Double, bound: Bool = false, _ nearEnd: Double) -> BestModes.Point {
            .run(mode: mode, erleSteady: BoundedValue(erle, isLowerBound: bound), nearEndAttenuation: BoundedValue(nearEnd),
                 estimate: nil, estimateLost: false, doubleTalkFrames: 40)
        }
        let a2dp = [run("disabled", 0, 0), run("speex", 6.3, 3.9), run("aec3", 27.1, bound: true, 7.6), run("echolab", 5.4, 0)]
        XCTAssertEqual(try XCTUnwrap(BestModes.front(of: a2dp)).modes, ["speex", "aec3"])
        XCTAssertTrue(run("echolab", 6.0, 0).convergedNothing, "6 dB or less, as the convergence reason reads")
        XCTAssertFalse(run("echolab", 6.04, 0).convergedNothing)
        XCTAssertFalse(run("echolab", 5.4, bound: true, 0).convergedNothing, "a bound at the floor is not nothing")
        // (Its truth may exceed 20 dB: tied on ERLE, it keeps the near end better.)
        XCTAssertEqual(try XCTUnwrap(BestModes.front(of: [run("speex", 20, 3), run("floor", 5.4, bound: true, 0)])).modes, ["floor"])
        // Over a corpus: judged on its means where it converged on one item, off where on none.
        let second = [run("disabled", 0, 0), run("speex", 20, 3), run("aec3", 30, 7), run("echolab", 25, 0)]
        XCTAssertEqual(try XCTUnwrap(BestModes.front(ofItems: [a2dp, second])).modes.sorted(), ["aec3", "echolab"])
        let nowhere = [run("disabled", 0, 0), run("speex", 20, 3), run("aec3", 30, 7), run("echolab", 2, 0)]
        XCTAssertEqual(try XCTUnwrap(BestModes.front(ofItems: [a2dp, nowhere])).modes.sorted(), ["aec3", "speex"])
    }

    /// A canceller run below the call's rate never sends the band above half its rate, and that
    /// band reads as echo removed: a pass-through plugin at 8 kHz read 8.2 dB of ERLE on white
    /// noise, kept the near end whole, and was starred best on both axes beside speexdsp. Where it
    /// removed nothing in the band it runs in, it is no canceller there, as one that reads 0 dB.
    func testACancellerThatRemovesNoEchoInItsBandIsNoCanceller() throws {
        func bands(_ erle: [Double?], bound: Int? = nil) -> [BandERLE] {
            erle.enumerated().map { index, value in
                BandERLE(lowHz: 125 * Double(1 << index), highHz: 250 * Double(1 << index), erleDB: value, isLowerBound: index == bound)
            }
        }
        // The trial's pass-through at 8 kHz: 0 dB to 2 kHz, the resampler's roll-off at 2–4 kHz,
        // the band it never sent above; judged on 125 Hz–2 kHz, under a quarter of its rate.
        let passThrough = bands([0, 0, 0, 0, 1.05, 30.7, 30.7])
        XCTAssertTrue(EvalDocument.removesNoEchoInItsBand(passThrough, cancellerRate: 8000))
        XCTAssertTrue(EvalDocument.removesNoEchoInItsBand(bands([0.04, -2.4, 0, nil, 1, 30, 30]), cancellerRate: 8000),
                      "as printed, worse, or unmeasured in a band: none removed where measured")
        XCTAssertFalse(EvalDocument.removesNoEchoInItsBand(passThrough, cancellerRate: 16_000), "at 16 kHz, 2–4 kHz is in its band")
        XCTAssertFalse(EvalDocument.removesNoEchoInItsBand(bands([0, 0, 0.1, 0, 1, 30, 30]), cancellerRate: 8000), "0.1 dB in one band counts")
        XCTAssertFalse(EvalDocument.removesNoEchoInItsBand(bands([0, 0, -1, 0, 1, 30, 30], bound: 2), cancellerRate: 8000),
                       "a bound says only \"at least\"")
        XCTAssertFalse(EvalDocument.removesNoEchoInItsBand(bands([nil, nil, nil, nil, 1, 30, 30]), cancellerRate: 8000), "nothing to judge on")

        var through = point("through8", 4.1, -0.2)
        through.removesNoEchoInItsBand = true
        XCTAssertEqual(BestModes.front(of: [point("through8", 4.1, -0.2), point("speex", 20.7, 11.6), point("webrtc", 24.9, 14.7)])?.modes,
                       ["through8", "speex", "webrtc"], "its ERLE alone keeps it on the front")
        XCTAssertEqual(BestModes.front(of: [through, point("speex", 20.7, 11.6), point("webrtc", 24.9, 14.7)])?.modes, ["speex", "webrtc"])
        XCTAssertNil(BestModes.front(of: [through, point("speex", 20.7, 11.6)]), "a lone canceller, as beside a pass-through")
        // Over a corpus it is off where it removed none in its band on every item it was compared on.
        var removing = point("through8", 8.2, -0.2)
        removing.removesNoEchoInItsBand = false
        let items = [[through, point("speex", 20.7, 11.6), point("webrtc", 24.9, 14.7)], [through, point("speex", 19.8, 11.6), point("webrtc", 26.4, 14.7)]]
        XCTAssertEqual(BestModes.front(ofItems: items)?.modes, ["speex", "webrtc"])
        XCTAssertEqual(BestModes.front(ofItems: [items[0], [removing, point("speex", 19.8, 11.6), point("webrtc", 26.4, 14.7)]])?.modes,
                       ["through8", "speex", "webrtc"], "one item where it removed some: a canceller, judged on its means")
    }

    func testFewerThanTwoModesToCompareIsNoVerdict() {
        XCTAssertNil(BestModes.front(of: [point("x", 20, 3)]))
        XCTAssertNil(BestModes.front(of: [point("disabled", 0, 0), point("x", 20, 3)]))
        XCTAssertNil(BestModes.front(of: [point("x", nil, nil), point("y", nil, nil)]))
        XCTAssertNil(BestModes.front(of: [point("x", 20, 3), point("y", 30, nil)]), "only one mode has both values")
    }
}

/// The corpus's verdict: means, each axis over the items every mode has its value on, a lost near end the
/// worst case.
final class CorpusBestModesTests: XCTestCase {
    private func point(_ mode: String, _ erle: Double?, _ nearEnd: Double?, lost: Bool = false) -> BestModes.Point {
        .init(mode: mode, erleSteadyDB: erle, nearEndAttenuationDB: nearEnd, isNearEndLost: lost)
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

    /// An item without double talk still judges echo removal: a mode that fails a 300 ms echo
    /// (the far end alone) was crowned on the double-talk items alone.
    func testEachAxisIsComparedOnTheItemsEveryModeHasItsValueOn() throws {
        let items = [[point("a", 20, 1), point("b", 21, 1)], [point("a", 30, nil), point("b", 1, nil)]]
        let verdict = try XCTUnwrap(BestModes.front(ofItems: items))
        XCTAssertEqual(verdict.modes, ["a"], "b removes 1 dB of the long echo")
        XCTAssertEqual(verdict.axes, .both)
        XCTAssertEqual(verdict.erleComparedItems, 2)
        XCTAssertEqual(verdict.nearEndComparedItems, 1)
        XCTAssertEqual(verdict.comparedItems, 2)
        let means = try XCTUnwrap(BestModes.comparedMeans(items))
        XCTAssertEqual(means.points.map(\.erleSteadyDB), [25, 11])
        XCTAssertEqual(means.points.map(\.nearEndAttenuationDB), [1, 1])
        // On the double-talk item alone, b would be the front.
        XCTAssertEqual(BestModes.front(ofItems: [items[0]])?.modes, ["b"])
    }

    /// A mode that lost the near end on an item only ERLE compares (another mode has no
    /// near-end figure there) is off the front; the verdict stays on ERLE, not on a near-end axis
    /// of no items.
    func testALostNearEndOnAnERLEOnlyItemDoesNotMakeAnAxisOfNoItems() throws {
        let items = [[point("a", 20, 2), point("b", 25, nil, lost: true), point("c", 22, nil)]]
        let verdict = try XCTUnwrap(BestModes.front(ofItems: items))
        XCTAssertEqual(verdict.axes, .erleOnly)
        XCTAssertEqual(verdict.nearEndComparedItems, 0)
        XCTAssertEqual(verdict.modes, ["c"], "b lost the near end; c removes more than a")
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

/// A lower bound beats another value only where it certainly does (`BoundedValue`): values whose
/// order a bound leaves unknown tie on that axis — a front decided by hundredths of a dB between
/// bounds (three modes at "≥ 49.0 dB", one named best) decided nothing.
final class BoundedBestModesTests: XCTestCase {
    private func point(_ mode: String, _ erle: Double?, bound: Bool = false, _ nearEnd: Double? = nil) -> BestModes.Point {
        .init(mode: mode, erleSteadyDB: erle, erleSteadyIsLowerBound: bound, nearEndAttenuationDB: nearEnd)
    }

    func testBoundsInAnUnknownOrderTie() throws {
        // A far-end single-talk item under room noise: three outputs under the noise floor (the
        // values eval.json printed), one measured far under them.
        let front = try XCTUnwrap(BestModes.front(of: [
            point("speex", 28.0209), point("webrtc", 49.0429, bound: true), point("aec3", 49.0358, bound: true),
            point("echolab", 49.0362, bound: true),
        ]))
        XCTAssertEqual(front.modes, ["webrtc", "aec3", "echolab"])
        XCTAssertEqual(front.axes, .erleOnly)
        // An earpiece item: ERLE bounds tie, so the near end decides.
        XCTAssertEqual(BestModes.front(of: [point("webrtc", 11.4142, bound: true, 7.1), point("aec3", 11.3863, bound: true, 1.8)])?.modes,
                       ["aec3"])
    }

    func testABoundIsAboveOnlyAMeasuredValueUnderIt() throws {
        // ≥ 49.0 may be more than 49.05: unknown, tied. ≥ 49.0 is certainly more than 48.
        XCTAssertEqual(BestModes.front(of: [point("measured", 49.05), point("bound", 49.0, bound: true)])?.modes, ["measured", "bound"])
        XCTAssertEqual(BestModes.front(of: [point("measured", 48), point("bound", 49.0, bound: true)])?.modes, ["bound"])
    }

    func testAMeanOverABoundIsABoundButTheCorpusComparesItemByItem() throws {
        // `a`'s mean (25.0) holds a bound, `b`'s (25.5) does not: the table shows "≥ 25.0". But
        // item by item `a` is at least 1 dB over `b` on the first and 2 dB under on the second:
        // `b` is better by 0.5 dB on average (pairwise, see PairwiseCorpusBestModesTests).
        let items = [[point("a", 40, bound: true, 1), point("b", 39, 1)], [point("a", 10, 1), point("b", 12, 1)]]
        let means = try XCTUnwrap(BestModes.comparedMeans(items))
        XCTAssertEqual(means.points.map(\.erleSteadyDB), [25, 25.5])
        XCTAssertEqual(means.points.map(\.erleSteadyIsLowerBound), [true, false])
        XCTAssertEqual(BestModes.front(ofItems: items)?.modes, ["b"])
        // At least 2 dB over, 1 dB under: `a`.
        let known = [[point("a", 41, bound: true, 1), point("b", 39, 1)], [point("a", 10, 1), point("b", 11, 1)]]
        XCTAssertEqual(BestModes.front(ofItems: known)?.modes, ["a"])
    }
}

/// A recording without a near-end track: its near-end axis is the tap-free estimate, said so;
/// a verdict on ERLE alone says whether there was no double talk or no near-end figure for it.
final class EstimatedNearEndBestModesTests: XCTestCase {
    /// A run as a recording measures it: no `near_end`, the estimate and the gate's double talk.
    private static func result(_ mode: String, erle: Double, drop: Double?, lost: Int = 0, frames: Int = 301) -> EvalDocument.Run {
        let estimate = drop.map { NearEndEstimate(outputDropDB: $0, outputDropIsLowerBound: false, frames: frames, lostFrames: lost,
                                                  isLost: 2 * lost >= frames) }
        return HandBuiltRuns.run(mode, metrics: HandBuiltRuns.metrics(erleSteady: erle, erleSteadyFrames: 135, singleTalkFrames: 270,
                                                                      doubleTalkFrames: 441, method: .echoPathFit, estimate: estimate))
    }

    private static func document(_ results: [EvalDocument.Run]) throws -> (document: JSONValue, modeSummaries: [ModeSummary], best: BestModes.Verdict?) {
        let made = try EvalDocument.make(items: [EvalDocument.Item(index: 0, name: "bbb2_doubletalk", file: "rec", results: results)],
                                         modes: results.compactMap(\.mode), modesAsked: true, planned: results.count,
                                         isComplete: true, shard: nil, wallSeconds: 1)
        return (made.document, made.modeSummaries, made.verdicts.corpusFront)
    }

    func testTheEstimateIsTheNearEndAxisWithoutANearEndTrack() throws {
        // The trial's recording (a talker from 4 s over a 50 ms echo): webrtc:intensityMax has
        // the most ERLE and drops the talker most; the others keep it.
        let (document, summaries, best) = try Self.document([
            Self.result("speex", erle: 24.2478, drop: 0.5593, lost: 8), Self.result("aec3", erle: 31.5631, drop: 1.5857, lost: 24),
            Self.result("echolab", erle: 21.0211, drop: 0.3177, lost: 2), Self.result("webrtcMax", erle: 42.9849, drop: 5.5161, lost: 90),
        ])
        let verdict = try XCTUnwrap(best)
        XCTAssertEqual(verdict.axes, .both)
        XCTAssertEqual(verdict.modes, ["speex", "aec3", "echolab", "webrtcMax"])
        XCTAssertEqual(verdict.nearEndEstimatedItems, 1)
        XCTAssertEqual(document["best_modes"]?["judged_on"]?.stringValue, "both")
        XCTAssertEqual(document["best_modes"]?["near_end_estimated_items"]?.doubleValue, 1)
        XCTAssertEqual(summaries.first { $0.mode == "webrtcMax" }?.nearEndEstimateDropDB?.mean, 5.5161)
        // Were webrtcMax's ERLE no higher, it would be off the front on the estimate alone.
        let beaten = try XCTUnwrap(Self.document([Self.result("aec3", erle: 31.5631, drop: 1.5857), Self.result("webrtcMax", erle: 30, drop: 5.5161)]).best)
        XCTAssertEqual(beaten.modes, ["aec3"])
        XCTAssertEqual(beaten.axes, .both)
    }

    /// A half-duplex canceller on a recording without tracks: its cell read "14.8 est. (lost)",
    /// and the mode's summary a plain 14.8 dB with no lost run (those counted only the tracked
    /// runs). The summary carries how many runs the estimate says lost the near end.
    func testTheModeSummaryCountsTheRunsTheEstimateSaysLost() throws {
        let (document, summaries, _) = try Self.document([
            Self.result("gate", erle: 35.9, drop: 14.8, lost: 217, frames: 301), Self.result("speex", erle: 24.2, drop: 0.56, lost: 8),
        ])
        XCTAssertEqual(summaries.map(\.nearEndEstimateLostRuns), [1, 0])
        XCTAssertEqual(summaries.map(\.nearEndLostRuns), [0, 0], "no track: no attenuation to count")
        let entries = try XCTUnwrap(document["mode_summary"]?.arrayValue)
        XCTAssertEqual(entries.map { $0["near_end_estimate_lost"]?.doubleValue }, [1, 0])
        // Without estimates the key is not written: eval.json of tracked corpora keeps its bytes.
        let tracked = try EvalDocument.make(items: HandBuiltRuns.items([[HandBuiltRuns.run("m", metrics: HandBuiltRuns.metrics(erleSteady: 20))]]),
                                            modes: ["m"], modesAsked: true, planned: 1, isComplete: true, shard: nil, wallSeconds: 0)
        XCTAssertNil(tracked.document["mode_summary"]?.arrayValue?.first?["near_end_estimate_lost"])
    }

    func testDoubleTalkWithoutANearEndFigureIsNotNoDoubleTalk() throws {
        // The estimate on too few frames counts nowhere: the gate heard 441 double-talk frames,
        // but nothing judges the near end.
        let (document, _, best) = try Self.document([Self.result("speex", erle: 24.2478, drop: 0.5593, frames: 10),
                                                     Self.result("webrtcMax", erle: 42.9849, drop: 5.5161, frames: 10)])
        let verdict = try XCTUnwrap(best)
        XCTAssertEqual(verdict.axes, .erleOnly)
        XCTAssertEqual(verdict.modes, ["webrtcMax"])
        XCTAssertEqual(verdict.doubleTalkItems, 1)
        XCTAssertEqual(verdict.doubleTalkFrames, 441)
        XCTAssertEqual(document["best_modes"]?["near_end_not_judged"]?.stringValue, "no_near_end_figure")
        XCTAssertEqual(document["best_modes"]?["double_talk_analysis_frames"]?.doubleValue, 441)
        // Without double talk, that is what it says.
        let quiet = try XCTUnwrap(BestModes.front(of: [.init(mode: "a", erleSteadyDB: 20, nearEndAttenuationDB: nil),
                                                       .init(mode: "b", erleSteadyDB: 30, nearEndAttenuationDB: nil)]))
        XCTAssertEqual(quiet.doubleTalkItems, 0)
    }
}

/// The corpus's front compares modes pair by pair: on each axis an item's difference counts where
/// its sign is certain and as none where a lower bound leaves it unknown, as an item's front ties
/// it. Means over bounds would be bounds in an unknown order: one output under the noise floor
/// tied every mode on ERLE, and the default corpus's front collapsed to the mode that cuts the
/// near talker least.
final class PairwiseCorpusBestModesTests: XCTestCase {
    private func point(_ mode: String, _ erle: Double, bound: Bool = false, _ nearEnd: Double, nearEndBound: Bool = false) -> BestModes.Point {
        .init(mode: mode, erleSteadyDB: erle, erleSteadyIsLowerBound: bound, nearEndAttenuationDB: nearEnd, nearEndIsLowerBound: nearEndBound)
    }

    func testABoundOnOneItemNoLongerTiesTheCorpusOnEcho() throws {
        // `strong`'s first output is under the noise floor (≥ 20 dB): against `gentle`'s measured
        // 45 dB its order is unknown, a tie. On the second item both are measured: `strong`
        // removes 20 dB more echo. Its mean (≥ 25) is a bound shown under `gentle`'s 27.5: as
        // means they tie on echo, and the corpus's front was `gentle` alone, on its lower
        // attenuation. Pair by pair `strong` is certainly better on echo by 10 dB on average.
        let items = [[point("strong", 20, bound: true, 2), point("gentle", 45, 1)], [point("strong", 30, 2), point("gentle", 10, 1)]]
        let means = try XCTUnwrap(BestModes.comparedMeans(items))
        XCTAssertEqual(means.points.map(\.erleSteadyDB), [25, 27.5])
        XCTAssertEqual(means.points.map(\.erleSteadyIsLowerBound), [true, false], "the table still shows ≥ 25")
        let verdict = try XCTUnwrap(BestModes.front(ofItems: items))
        XCTAssertEqual(verdict.modes, ["strong", "gentle"], "a trade-off: more echo removed, more of the talker cut")
        XCTAssertEqual(verdict.axes, .both)
        XCTAssertEqual(verdict.erleTiedItems, [0])
        XCTAssertEqual(verdict.nearEndTiedItems, [])
        XCTAssertEqual(verdict.ties, [.init(mode: "strong", erleItems: [0], nearEndItems: []), .init(mode: "gentle", erleItems: [0], nearEndItems: [])])
        // Same near end: `strong` beats `gentle` (as means they tied, both on the front).
        let sameNearEnd = [[point("strong", 20, bound: true, 1), point("gentle", 45, 1)], [point("strong", 30, 1), point("gentle", 10, 1)]]
        XCTAssertEqual(BestModes.front(ofItems: sameNearEnd)?.modes, ["strong"])
        // A bound past the measured value counts, at least its distance: ≥ 50 over 45 is +5.
        let past = [[point("strong", 50, bound: true, 1), point("gentle", 45, 1)], [point("strong", 10, 1), point("gentle", 12, 1)]]
        XCTAssertEqual(BestModes.front(ofItems: past)?.modes, ["strong"])
        XCTAssertEqual(BestModes.front(ofItems: past)?.erleTiedItems, [])
        // The near end mirrors it: a bound is that much of the talker cut or more, the worst
        // case. `b`'s ≥ 4 dB over `a`'s 1 dB is at least 3 dB worse; `a`'s bound under `b`'s
        // measured value is unknown.
        let nearEnd = [[point("a", 20, 1), point("b", 20, 4, nearEndBound: true)], [point("a", 20, 3, nearEndBound: true), point("b", 20, 3.5)]]
        XCTAssertEqual(BestModes.front(ofItems: nearEnd)?.modes, ["a"])
        XCTAssertEqual(BestModes.front(ofItems: nearEnd)?.nearEndTiedItems, [1])
    }

    func testBoundsEverywhereAreATie() throws {
        // Both outputs under the noise floor on every item: nothing says which removed more.
        let items = [[point("a", 40, bound: true, 1), point("b", 20, bound: true, 1)], [point("a", 30, bound: true, 1), point("b", 35, bound: true, 1)]]
        let verdict = try XCTUnwrap(BestModes.front(ofItems: items))
        XCTAssertEqual(verdict.modes, ["a", "b"])
        XCTAssertEqual(verdict.erleTiedItems, [0, 1])
        XCTAssertEqual(verdict.ties.map(\.erleItems), [[0, 1], [0, 1]])
        // The near end, measured, then decides alone.
        let nearEnd = [[point("a", 40, bound: true, 2), point("b", 20, bound: true, 1)], [point("a", 30, bound: true, 2), point("b", 35, bound: true, 1)]]
        XCTAssertEqual(BestModes.front(ofItems: nearEnd)?.modes, ["b"])
        XCTAssertEqual(BestModes.front(ofItems: nearEnd)?.ties.map(\.erleItems), [[0, 1]])
    }

    func testTheItemRuleIsUnchanged() throws {
        // An item's front (its wins): a bound beats a value only where it certainly does.
        let item = [point("measured", 49.05, 1), point("bound", 49.0, bound: true, 1), point("under", 48, 1), point("cuts", 49.1, 3)]
        // `cuts` removes more echo than `bound` may (≥ 49.0: a tie) and cuts more of the talker.
        XCTAssertEqual(BestModes.front(of: item)?.modes, ["measured", "bound"])
        XCTAssertEqual(BestModes.front(of: [point("webrtc", 11.4142, bound: true, 7.1), point("aec3", 11.3863, bound: true, 1.8)])?.modes, ["aec3"])
        // Over one item, the corpus's pairwise front is that item's.
        XCTAssertEqual(BestModes.front(ofItems: [item])?.modes, BestModes.front(of: item)?.modes)
        XCTAssertEqual(BestModes.certainDifference(BoundedValue(49, isLowerBound: true), BoundedValue(48)), 1)
        XCTAssertEqual(BestModes.certainDifference(BoundedValue(48), BoundedValue(49, isLowerBound: true)), -1)
        XCTAssertNil(BestModes.certainDifference(BoundedValue(49, isLowerBound: true), BoundedValue(50)))
        XCTAssertNil(BestModes.certainDifference(BoundedValue(49, isLowerBound: true), BoundedValue(20, isLowerBound: true)))
        XCTAssertEqual(BestModes.certainDifference(BoundedValue(20), BoundedValue(20)), 0)
    }

    func testBeatingInACircleKeepsTheCircle() throws {
        // Each item is certain for one pair only (the third mode's bound is under both): a beats
        // b, b beats c, c beats a. No mode is unbeaten; the circle is the front, not nothing.
        let items = [[point("a", 10, 1), point("b", 0, 1), point("c", -100, bound: true, 1)],
                     [point("a", -100, bound: true, 1), point("b", 10, 1), point("c", 0, 1)],
                     [point("a", 0, 1), point("b", -100, bound: true, 1), point("c", 10, 1)]]
        XCTAssertEqual(BestModes.front(ofItems: items)?.modes, ["a", "b", "c"])
        // A mode every one of them beats stays off.
        let withD = [[point("a", 10, 1), point("b", 0, 1), point("c", -100, bound: true, 1), point("d", -200, 1)],
                     [point("a", -100, bound: true, 1), point("b", 10, 1), point("c", 0, 1), point("d", -200, 1)],
                     [point("a", 0, 1), point("b", -100, bound: true, 1), point("c", 10, 1), point("d", -200, 1)]]
        XCTAssertEqual(BestModes.front(ofItems: withD)?.modes, ["a", "b", "c"])
    }
}
