import EchoLabJSON
import Evaluation
import XCTest

/// What the gate makes of the near end: lost where it was kept, in double talk, while the near
/// end talks alone and, for a recording without a near-end track, in the tap-free estimate; and
/// a file that hides the lint's findings or a fault counter is no pass.
final class NearEndGateTests: XCTestCase {
    /// A one-run eval.json with these metrics, findings and pipeline.
    private static func eval(metrics: [String: JSONValue], findings: JSONValue? = .array([]),
                             pipeline: JSONValue = .object(["sent_clicks": .number(0)])) -> JSONValue {
        var result: [String: JSONValue] = ["mode": .string("echolab:intensityMax"), "folder": .string("x/echolab"), "error": .null,
                                           "metrics": .object(metrics), "pipeline": pipeline]
        if let findings { result["findings"] = findings }
        return .object(["schema": .string(EvalDocument.schema), "complete": .bool(true), "planned": .number(1),
                        "items": .array([.object(["index": .number(0), "name": .string("x"), "file": .string("x.json"),
                                                  "results": .array([.object(result)])])])])
    }

    private static func nearEnd(_ attenuation: Double, frames: Int, lost: Bool = false, singleTalk: Double = 0, singleTalkFrames: Int = 100,
                                singleTalkLost: Bool = false) -> [String: JSONValue] {
        ["near_end": .object(["attenuation_db": .number(attenuation), "attenuation_is_lower_bound": .bool(lost),
                              "double_talk_analysis_frames": .number(Double(frames)),
                              "single_talk_attenuation_db": .number(singleTalk), "single_talk_attenuation_is_lower_bound": .bool(singleTalkLost),
                              "single_talk_analysis_frames": .number(Double(singleTalkFrames))])]
    }

    private static func estimate(_ drop: Double, frames: Int, lost: Bool) -> [String: JSONValue] {
        ["near_end_estimate": .object(["output_drop_db": .number(drop), "output_drop_is_lower_bound": .bool(false),
                                       "analysis_frames": .number(Double(frames)), "lost_analysis_frames": .number(lost ? Double(frames) : 0),
                                       "near_end_lost": .bool(lost)])]
    }

    private static func compare(_ baseline: JSONValue, _ current: JSONValue) -> EvalComparison {
        EvalComparison(baseline: baseline, current: current, maxRegressionDB: 0.5)
    }

    /// Kept on 105 frames, lost on 19: under the frames a figure needs, the loss was judged
    /// neither as a loss (which needs both sides measured) nor as a figure, and passed.
    func testANearEndLostOnTooFewFramesIsARegression() {
        let gate = Self.compare(Self.eval(metrics: Self.nearEnd(1.7, frames: 105)), Self.eval(metrics: Self.nearEnd(45, frames: 19, lost: true)))
        XCTAssertEqual(gate.regressions.map(\.subject), [.level(metric: "near_end.attenuation_db")])
        XCTAssertEqual(gate.regressions.map(\.current), [.lowConfidence(frames: 19)])
        // On enough frames it is a lost near end, as before.
        let lost = Self.compare(Self.eval(metrics: Self.nearEnd(1.7, frames: 105)), Self.eval(metrics: Self.nearEnd(45, frames: 40, lost: true)))
        XCTAssertEqual(lost.regressions.map(\.subject), [.isNearEndLost(.doubleTalk)])
    }

    /// A near end cut while it talks alone is a canceller's fault too: 1 dB more is a regression,
    /// and a near end lost there is one whatever its bound.
    func testTheNearEndInSingleTalkIsJudged() {
        let baseline = Self.eval(metrics: Self.nearEnd(1, frames: 100, singleTalk: 0.2))
        let cut = Self.compare(baseline, Self.eval(metrics: Self.nearEnd(1, frames: 100, singleTalk: 1.2)))
        XCTAssertEqual(cut.regressions.map(\.subject), [.level(metric: "near_end.single_talk_attenuation_db")])
        let lost = Self.compare(baseline, Self.eval(metrics: Self.nearEnd(1, frames: 100, singleTalk: 60, singleTalkLost: true)))
        XCTAssertEqual(lost.regressions.map(\.subject), [.isNearEndLost(.singleTalk)])
        let fixed = Self.compare(Self.eval(metrics: Self.nearEnd(1, frames: 100, singleTalk: 60, singleTalkLost: true)), baseline)
        XCTAssertEqual(fixed.improvements.map(\.subject), [.nearEndKept(.singleTalk)])
        XCTAssertTrue(fixed.regressions.isEmpty)
    }

    /// A recording has no near-end track: its near end is the tap-free estimate, which eval's best
    /// modes already judge by. An output drop from 0.43 to 45 dB, every frame lost, passed.
    func testARecordingsNearEndEstimateIsJudged() {
        let baseline = Self.eval(metrics: Self.estimate(0.43, frames: 492, lost: false))
        let lost = Self.compare(baseline, Self.eval(metrics: Self.estimate(45, frames: 492, lost: true)))
        XCTAssertEqual(lost.regressions.map(\.subject), [.isNearEndLost(.estimate)])
        let dropped = Self.compare(baseline, Self.eval(metrics: Self.estimate(1.5, frames: 492, lost: false)))
        XCTAssertEqual(dropped.regressions.map(\.subject), [.level(metric: "near_end_estimate.output_drop_db")])
        XCTAssertTrue(Self.compare(baseline, baseline).regressions.isEmpty)
    }

    /// The lint's gate reads `findings`: given as text, an object, or not at all, a new finding
    /// passed. Such a file is refused, naming the key.
    func testAFileWhoseFindingsCannotBeReadIsRefused() {
        let expected = "items[0].results[0].findings: missing or not a list of rule names"
        XCTAssertEqual(EvalDocument.problem(in: Self.eval(metrics: [:], findings: nil)), expected)
        XCTAssertEqual(EvalDocument.problem(in: Self.eval(metrics: [:], findings: .string("aec-on-non-microphone-source"))), expected)
        XCTAssertEqual(EvalDocument.problem(in: Self.eval(metrics: [:], findings: .array([.number(1)]))), expected)
        XCTAssertNil(EvalDocument.problem(in: Self.eval(metrics: [:], findings: .array([.string("aec-on-non-microphone-source")]))))
    }

    /// A fault counter the baseline counts and CURRENT does not may have risen: a regression.
    func testAFaultCounterGoneFromCurrentIsARegression() {
        let gate = Self.compare(Self.eval(metrics: [:]), Self.eval(metrics: [:], pipeline: .object([:])))
        XCTAssertEqual(gate.regressions.map(\.subject), [.counter(path: "pipeline.sent_clicks")])
        XCTAssertEqual(gate.regressions.map(\.current), [.missing])
    }
}
