import Evaluation
@testable import Reporting
import XCTest

/// The corpus's "Best on both axes" says what the lower bounds left undecided.
final class BestModesParagraphTests: XCTestCase {
    private func text(_ block: ReportDocument.Block?) -> String {
        guard case .paragraph(let spans)? = block else { return "" }
        return spans.map { span in
            switch span {
            case .text(let t): t
            case .code(let t): "`\(t)`"
            case .strong(let t): "**\(t)**"
            case .link(let t, _), .strongLink(let t, _): t
            }
        }.joined()
    }

    func testTheCorpusVerdictNamesTheItemsBoundsTied() throws {
        let point = { (mode: String, erle: Double, bound: Bool, nearEnd: Double) in
            BestModes.Point(mode: mode, erleSteadyDB: erle, erleSteadyIsLowerBound: bound, nearEndAttenuationDB: nearEnd)
        }
        let items = [[point("strong", 20, true, 2), point("gentle", 45, false, 1)], [point("strong", 30, false, 2), point("gentle", 10, false, 1)]]
        let verdict = try XCTUnwrap(BestModes.front(ofItems: items))
        XCTAssertEqual(text(EvalReportDocument.bestModesParagraph(verdict, itemNames: ["room-noise", "quiet"])),
                       "**Best on both axes:** `strong`, `gentle` — no other mode removes at least as much echo (steady ERLE) and keeps at least "
                       + "as much of the near talker in double talk, and does better at one (mode against mode, mean differences over the corpus); "
                       + "★ below. An item where a lower bound leaves two modes' order unknown (an output under the noise floor; a near end lost) "
                       + "counts as no difference between them: on echo (steady ERLE), 1 of the 2 items compared (room-noise) was such ties for "
                       + "a front mode — `strong` on 1, `gentle` on 1; on the near end, none.")
        // Without a bound in the way, nothing more is said; an item's verdict never says it.
        let measured = [[point("a", 20, false, 2), point("b", 25, false, 1)]]
        XCTAssertFalse(text(EvalReportDocument.bestModesParagraph(BestModes.front(ofItems: measured), itemNames: ["x"])).contains("lower bound"))
        XCTAssertFalse(text(EvalReportDocument.bestModesParagraph(BestModes.front(of: items[0]), isCorpus: false)).contains("lower bound"))
    }

    /// An item whose far end never played says what it was judged on, and why.
    func testAnItemJudgedOnTheNearEndAloneSaysSo() throws {
        let item = [("speex", 2.6), ("echolab", 0.0)].map { mode, cut in
            BestModes.Point(mode: mode, erleSteadyDB: nil, nearEndAttenuationDB: nil, nearEndAloneDB: cut)
        }
        XCTAssertEqual(text(EvalReportDocument.bestModesParagraph(BestModes.front(of: item), isCorpus: false)),
                       "**Best with the near end alone:** `echolab` — the far end never played (no echo, no double talk), so judged on what "
                       + "each mode took off the near talker, which it should leave whole (this item).")
    }

    /// A verdict on the near end alone tells far-end single talk too short to count (a 1 s call's
    /// few steady frames) from none at all: the page said "no far-end single talk" over 16 frames.
    func testAVerdictOnTheNearEndAloneTellsTooLittleFarEndFromNone() throws {
        let point = { (mode: String, nearEnd: Double, steadyFrames: Int) in
            var point = BestModes.Point(mode: mode, erleSteadyDB: nil, nearEndAttenuationDB: nearEnd)
            point.steadyERLEFrames = steadyFrames
            return point
        }
        let short = [point("speex", 4, 16), point("webrtc", 1, 16)]
        XCTAssertEqual(text(EvalReportDocument.bestModesParagraph(BestModes.front(of: short), isCorpus: false)),
                       "**Best on near-end attenuation:** `webrtc` — judged on the near end alone: too little far-end single talk to judge "
                       + "ERLE on (16 analysis frames; a steady ERLE counts from 20) (this item).")
        let corpus = try XCTUnwrap(BestModes.front(ofItems: [short, [point("speex", 3, 0), point("webrtc", 2, 0)]]))
        XCTAssertEqual(corpus.steadyERLEItems, 1)
        XCTAssertTrue(text(EvalReportDocument.bestModesParagraph(corpus, itemNames: ["short", "near"])).contains(
            "judged on the near end alone: no item where every mode has a steady ERLE that counts (far-end single talk in 1 item, "
            + "at most 16 analysis frames in one; a steady ERLE counts from 20)"))
        // Frames are per item, never summed: three items of 16 are too little in each.
        let three = try XCTUnwrap(BestModes.front(ofItems: [short, short, short]))
        XCTAssertEqual([three.steadyERLEItems, three.steadyERLEFrames], [3, 16])
        // Enough far-end single talk with no steady ERLE (an output at the mic's floor) is not too little.
        let enough = [point("speex", 4, 25), point("webrtc", 1, 25)]
        XCTAssertTrue(text(EvalReportDocument.bestModesParagraph(BestModes.front(of: enough), isCorpus: false)).contains(
            "judged on the near end alone: no mode has a steady ERLE to judge it on (far-end single talk: 25 analysis frames) (this item)"))
        let none = [point("speex", 4, 0), point("webrtc", 1, 0)]
        XCTAssertTrue(text(EvalReportDocument.bestModesParagraph(BestModes.front(of: none), isCorpus: false)).contains(
            "judged on the near end alone: no far-end single talk to judge ERLE on (this item)"))
    }

    /// Without a corpus verdict the page says why, so "wins 0" reads as what it is.
    func testNoVerdictSaysWhy() {
        XCTAssertEqual(text(EvalReportDocument.noBestModesParagraph(modes: ["disabled", "speex:intensityRecommended"])),
                       "**No best modes:** one canceller ran, `speex:intensityRecommended`, and `disabled` is the reference a canceller is "
                       + "judged against, never ranked: there is no other to rank it against, so every mode's wins are 0.")
        // Alone, the canceller's page does not name a `disabled` that did not run.
        XCTAssertEqual(text(EvalReportDocument.noBestModesParagraph(modes: ["aec3:intensityMax"])),
                       "**No best modes:** one canceller ran, `aec3:intensityMax`: there is no other to rank it against, so its wins are 0.")
        XCTAssertTrue(text(EvalReportDocument.noBestModesParagraph(modes: ["disabled"])).hasPrefix("**No best modes:** no canceller ran"))
        XCTAssertTrue(text(EvalReportDocument.noBestModesParagraph(modes: ["a", "b"])).contains("no item gave two cancellers"))
        XCTAssertNil(EvalReportDocument.noBestModesParagraph(modes: []), "no runs: no modes to rank")
        // Scenarios as written, each in its own mode: the page said no item gave two cancellers a
        // steady ERLE, as if they had run and failed to measure.
        XCTAssertEqual(text(EvalReportDocument.noBestModesParagraph(modes: ["a", "b"], modesGiven: false)),
                       "**No best modes:** each item ran as written, in its own mode, so no item ran two modes to compare; "
                       + "`--modes` runs every item in each mode given.")
        // One mode as written (recordings run in speex's): the same reason as with --modes.
        XCTAssertEqual(text(EvalReportDocument.noBestModesParagraph(modes: ["disabled", "speex:intensityRecommended"], modesGiven: false)),
                       text(EvalReportDocument.noBestModesParagraph(modes: ["disabled", "speex:intensityRecommended"])))
        // An item judged on its own (a near talker alone) gave wins: the page says what they count.
        let alone = text(EvalReportDocument.noBestModesParagraph(modes: ["disabled", "speex:intensityRecommended", "aec3:intensityRecommended"],
                                                                 itemsWithAVerdict: 1))
        XCTAssertTrue(alone.hasSuffix("and the wins count the verdicts of the 1 item judged on their own (the near end alone)."), alone)
        XCTAssertFalse(alone.contains("wins are 0"), alone)
    }
}
